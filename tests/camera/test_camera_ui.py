"""Issue 24 (13), the camera bullet, in Chromium: the round history's snapshots big enough to
see a die (160 px thumbnails of a 640×480 frame, a tap or Enter shows it whole with its
reading, axe-clean), the live view's marks, and the camera card where the referee looks."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from controller.camera.play import snapshot_jpeg
from controller.camera.service import save_snapshot
from controller.camera.sources import SimulatedCamera
from controller.web.i18n import sentence, translate
from tests.service.conftest import wait_for
from tests.web.conftest import live_server
from tests.web.test_a11y import AXE, RUN_AXE
from tests.web.test_browser import log_in, phone

pytestmark = pytest.mark.browser


def test_a_snapshot_is_big_enough_to_see_the_die_and_a_tap_shows_it_whole(
    browser: Any, tmp_path
) -> None:
    with live_server(tmp_path, 0.05) as (base, service):
        camera = SimulatedCamera(service.toy, "azure", 4)
        game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 400})
        table = service.table(game_id)
        wait_for(lambda: table.state.phase == "pop", 10, "the hiding")
        service.submit(game_id, {"type": "pop", "key": 2, "by": table.state.popper})
        wait_for(lambda: table.actions[-1]["type"] == "face", 10, "the toy's face")
        face = table.actions[-1]["face"]
        camera.shown = face
        jpeg = snapshot_jpeg(camera.grab())  # what the box keeps of the frame it read
        picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert picture.shape == (480, 640, 3)  # the whole frame, not 160×120
        save_snapshot(service.config.data_dir, game_id, "1-1-2", jpeg)

        ctx, page, _ = phone(browser, base, bypass_csp=True)  # axe is injected
        ctx.add_cookies([{"name": "lang", "value": "fr", "url": base}])
        page.goto(f"{base}/games/{game_id}")
        log_in(page)
        thumb = page.locator("#history button.h-snap-open")
        thumb.wait_for()
        page.wait_for_function(
            "() => document.querySelector('#history img.h-snap').naturalWidth === 640"
        )
        box = page.locator("#history img.h-snap").bounding_box()
        assert box and box["width"] >= 160 and box["height"] >= 120  # not 64×48

        # the keyboard: focus the thumbnail, Enter opens the dialog, Escape closes it
        thumb.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#snap-dialog[open]")
        shown = page.evaluate(
            """() => ({
                 width: document.getElementById('snap-dialog-img').getBoundingClientRect().width,
                 natural: document.getElementById('snap-dialog-img').naturalWidth,
                 text: document.getElementById('snap-dialog-text').textContent,
                 focus: document.activeElement.id })"""
        )
        assert shown["width"] >= 340 and shown["natural"] == 640  # the phone's width, about
        assert shown["focus"] == "snap-dialog-close"
        word = translate("fr", "face.devil") if face == "devil" else str(face)
        assert shown["text"].startswith("1.1 · ") and f" 2 · {word} · " in shown["text"]
        assert page.inner_text("#snap-dialog-close") == translate("fr", "history.snap_close")
        if AXE.is_file():
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(RUN_AXE) == []  # with the dialog open
        page.keyboard.press("Escape")
        page.wait_for_selector("#snap-dialog", state="hidden")
        # a tap opens it too, and Close closes it
        thumb.click()
        page.wait_for_selector("#snap-dialog[open]")
        page.click("#snap-dialog-close")
        page.wait_for_selector("#snap-dialog", state="hidden")
        ctx.close()


def test_the_live_view_marks_where_each_key_s_die_landed_and_the_card_comes_first(
    browser: Any, tmp_path, profiles
) -> None:
    import threading

    from controller.camera.play import CameraWatch

    with live_server(tmp_path, 3600.0) as (base, service):
        camera = SimulatedCamera(service.toy, "azure", 4)
        camera.shown = 5  # a die showing 5, somewhere new on every frame
        watch = CameraWatch(camera, profiles["azure"], read_s=1.0, frame_gap_s=0.02)
        done = threading.Event()
        watch.read_pop(3, lambda read: done.set())  # the camera reads key 3's die
        assert done.wait(10)
        assert set(watch.landed) == {3}  # where it lay, learnt from the read
        x, y = watch.landed[3]
        service.camera = watch

        for size in ((390, 844), (844, 390), (1180, 820)):
            ctx = browser.new_context(
                viewport={"width": size[0], "height": size[1]}, device_scale_factor=1
            )
            ctx.add_cookies([{"name": "lang", "value": "de", "url": base}])
            page = ctx.new_page()
            page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
            page.goto(base + "/box")
            log_in(page)
            page.wait_for_selector("#camera-overlay .slot-mark")
            # the card right after the box's status and its slots, before faults and coils
            order = page.evaluate(
                """() => [...document.querySelectorAll('main > section')]
                  .filter((s) => !s.hidden && s.getBoundingClientRect().height > 0)
                  .map((s) => s.id || s.querySelector('[id]').id)"""
            )
            assert order[:4] == ["backend", "sensors", "camera-card", "faults"], order
            top = page.evaluate(
                "() => document.getElementById('camera-card').getBoundingClientRect().top"
            )
            if size[1] > 500:  # upright phone, tablet: the card starts on the first screen
                assert top < size[1], (size, top)
            mark = page.evaluate(
                """() => { const g = document.querySelector('#camera-overlay .slot-mark');
                  const c = g.querySelector('.slot-ring'), t = g.querySelector('text');
                  const ring = c.getBoundingClientRect(), box = t.getBoundingClientRect();
                  const r = ring.width / 2, mx = ring.x + r, my = ring.y + r;
                  // the label's nearest point to the ring's centre, in screen pixels
                  const nx = Math.max(box.left, Math.min(mx, box.right));
                  const ny = Math.max(box.top, Math.min(my, box.bottom));
                  return { key: g.dataset.key, cx: +c.getAttribute('cx'), cy: +c.getAttribute('cy'),
                    label: t.textContent, px: box.height, gap: Math.hypot(nx - mx, ny - my) - r,
                    fill: getComputedStyle(c).fill,
                    legend: document.getElementById('camera-legend').hidden ? ''
                      : document.getElementById('camera-legend').textContent } }"""
            )
            assert mark["key"] == "3" and mark["label"] == "3"
            assert abs(mark["cx"] - x) <= 0.1 and abs(mark["cy"] - y) <= 0.1  # 640: scale 1
            assert mark["px"] >= 12  # readable at every size
            # the number lies outside the ring and the ring is not filled: a die lying where
            # the last one landed shows its pips, not a number over them
            assert mark["gap"] > 0 and mark["fill"] == "none", mark
            assert mark["legend"] == sentence(
                "de", "The numbers mark where the last die from each key landed"
            )
            ctx.close()


def test_the_camera_card_shows_no_broken_picture_before_the_first_reading(
    browser: Any, tmp_path, profiles
) -> None:
    from controller.camera.play import CameraWatch

    with live_server(tmp_path, 3600.0) as (base, service):
        camera = SimulatedCamera(service.toy, "azure", 4)
        camera.shown = 5
        service.camera = CameraWatch(camera, profiles["azure"], read_s=1.0, frame_gap_s=0.02)
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        ctx.add_cookies([{"name": "lang", "value": "de", "url": base}])
        page = ctx.new_page()
        page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
        held: list[Any] = []
        hold = [True]
        page.route(
            "**/api/box/camera/reading",
            lambda route: held.append(route) if hold[0] else route.continue_(),
        )
        page.goto(base + "/box")
        log_in(page)
        page.wait_for_selector("#camera-card", state="visible")
        page.wait_for_function("() => document.getElementById('camera-kind').textContent !== '…'")
        for _ in range(200):  # routes are answered while Playwright runs, not in a sleep
            if held:
                break
            page.wait_for_timeout(50)
        assert held, "the page never asked for a reading"
        # no reading yet: no picture, nor its alt text standing in for one
        assert not page.is_visible("#camera-view")
        hold[0] = False
        for route in held:
            route.continue_()
        page.wait_for_selector("#camera-view", state="visible", timeout=15000)
        page.wait_for_function("() => document.getElementById('camera-view').naturalWidth > 0")
        ctx.close()
