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
from controller.web.i18n import translate
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
