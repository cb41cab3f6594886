"""Issue 24 (13) and issue 22's Box page: the camera's reading drawn over a bigger picture of
the table (the die's outline, the pips counted, the face read in words), and the Skip
button that passes over a number face while teaching; at phone size, in Chromium."""

from __future__ import annotations

from typing import Any

import pytest

from controller.camera.play import CameraWatch
from controller.camera.sources import SimulatedCamera
from controller.web.i18n import sentence
from tests.web.conftest import live_server
from tests.web.test_a11y import AXE, RUN_AXE
from tests.web.test_browser import log_in, phone

pytestmark = pytest.mark.browser


def test_the_box_page_draws_the_reading_and_skips_a_face(browser: Any, tmp_path, profiles) -> None:
    with live_server(tmp_path, 3600.0) as (base, service):
        camera = SimulatedCamera(service.toy, "azure", 4)
        camera.shown = 5  # a die showing 5 somewhere on the table
        service.camera = CameraWatch(camera, profiles["azure"], read_s=1.0, frame_gap_s=0.02)
        ctx, page, _ = phone(browser, base, bypass_csp=True)  # axe is injected
        ctx.add_cookies([{"name": "lang", "value": "de", "url": base}])
        page.goto(base + "/box")
        log_in(page)
        page.wait_for_selector("#camera-card:not([hidden])")

        # the reading: "reads 5", its outline and 5 pips over a picture as wide as the phone
        reads = sentence("de", "The camera reads {face} ({c} %)", face=5, c=0).split("5")[0]
        page.wait_for_function(
            "(w) => document.getElementById('camera-caption').textContent.startsWith(w + '5')",
            arg=reads,
        )
        drawn = page.evaluate(
            """() => ({
              outline: document.querySelectorAll('#camera-overlay polygon').length,
              corners: document.querySelector('#camera-overlay polygon').getAttribute('points')
                .trim().split(/\\s+/).length,
              pips: document.querySelectorAll('#camera-overlay circle').length,
              natural: document.getElementById('camera-view').naturalWidth,
              shown: document.getElementById('camera-view').getBoundingClientRect().width,
              over: document.getElementById('camera-overlay').getBoundingClientRect().width,
              src: document.getElementById('camera-view').getAttribute('src'),
              alt: document.getElementById('camera-view').alt })"""
        )
        assert drawn["outline"] == 1 and drawn["corners"] == 4
        assert drawn["pips"] == 5
        assert drawn["natural"] == 640  # the frame itself, not a 160 or 320 thumbnail
        assert drawn["shown"] >= 300 and drawn["over"] == drawn["shown"]  # the card's width
        assert (
            sentence("de", "the camera's picture of the table, with the die it found")
            in (drawn["alt"])
        )
        frame = int(drawn["src"].rsplit("/", 1)[1].removesuffix(".jpg"))
        assert frame >= 1
        if AXE.is_file():  # scripts/setup installs it (test_a11y.py says how)
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(RUN_AXE) == []  # no serious or critical violation

        # Skip passes over a number face while teaching; the devil cannot be skipped
        page.click("#teach-start")
        skip = page.locator("#teach-skip")
        skip.wait_for()
        assert skip.inner_text() == sentence("de", "Skip this face")
        for face in ("2", "3", "4", "5", "6"):
            skip.click()
            page.wait_for_function(
                "(f) => document.getElementById('teach-step').textContent.includes(' ' + f)",
                arg=face,
            )
            assert service.camera.teacher.status()["face"] == face
        skip.click()  # past 6: the devil, which has no Skip
        page.wait_for_selector("#teach-skip", state="hidden")
        assert service.camera.teacher.status()["face"] == "devil"
        page.click("#teach-cancel")
        ctx.close()


def test_one_reading_a_second_is_shared_and_its_picture_matches(
    tmp_path, profiles, monkeypatch
) -> None:
    import threading

    import cv2
    import numpy as np

    from controller.web import box_api, create_app
    from tests.web.conftest import make_service

    service = make_service(tmp_path, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    try:
        app = create_app(service)
        client = app.test_client()
        assert client.get("/api/box/camera/reading").status_code == 404  # no camera yet
        camera = SimulatedCamera(service.toy, "azure", 4)
        camera.shown = "devil"
        service.camera = CameraWatch(camera, profiles["azure"])
        grabs = 0
        grab = camera.grab

        def counted() -> Any:
            nonlocal grabs
            grabs += 1
            return grab()

        camera.grab = counted  # type: ignore[method-assign]  # counts the frames taken
        first = client.get("/api/box/camera/reading").get_json()
        again = client.get("/api/box/camera/reading").get_json()
        assert again == first and grabs == 1  # two phones, one frame
        assert first["face"] == "devil" and (first["width"], first["height"]) == (640, 480)
        assert len(first["die"]) == 4
        assert all(0 <= x <= 640 and 0 <= y <= 480 for x, y in first["die"])
        jpeg = client.get(f"/api/box/camera/reading/{first['frame']}.jpg")
        assert jpeg.status_code == 200 and jpeg.mimetype == "image/jpeg"
        picture = cv2.imdecode(np.frombuffer(jpeg.data, np.uint8), cv2.IMREAD_COLOR)
        assert picture.shape == (480, 640, 3)
        assert client.get(f"/api/box/camera/reading/{first['frame'] + 1}.jpg").status_code == 404
        # the camera's thread busy (reading a popped die): the last reading, at once
        monkeypatch.setattr(box_api, "FRAME_WAIT_S", 0.2)
        busy = threading.Event()
        service.camera._jobs.put(lambda: busy.wait(5))
        service.camera.last_frame_at = 0.0  # no fresh frame of its own either
        app.extensions["diablotin.reading"]._at = -1.0  # and a second has passed
        try:
            assert client.get("/api/box/camera/reading").get_json() == first
        finally:
            busy.set()
    finally:
        service.stop()
