"""The camera in real Chromium: teaching from the Box page, the one-tap Confirm of an unsure
read, and the die's picture beside its face in the round history."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from controller.camera.play import CameraWatch
from controller.camera.service import down_notice
from controller.camera.sources import SimulatedCamera
from tests.service.conftest import wait_for
from tests.web.conftest import live_server
from tests.web.test_browser import log_in, phone

pytestmark = pytest.mark.browser


def test_teach_confirm_and_the_snapshot_beside_the_face(browser: Any, tmp_path, profiles) -> None:
    with live_server(tmp_path, 0.05) as (base, service):
        camera = SimulatedCamera(service.toy, "azure", 4)
        service.camera = CameraWatch(
            camera,
            profiles["ebony"],
            read_s=2.0,
            frame_gap_s=0.02,
            on_down=down_notice(service.notice),
        )
        ctx, page, requests = phone(browser, base, locale="en-GB")
        page.goto(base + "/box")
        log_in(page)
        page.wait_for_selector("#camera-card:not([hidden])")

        # teach: 5 snapshots of each face, the page says which face to show
        page.click("#teach-start")
        page.wait_for_selector("#teach-snap:not([hidden])")
        assert "Show face 1" in page.inner_text("#teach-step")
        for i in range(7 * 5 - 1):
            page.click("#teach-snap")
            page.wait_for_function(
                "(p) => Math.abs(document.getElementById('teach-progress').value - p) < 1e-3",
                arg=round((i + 1) / 35, 3),
            )
        assert "devil" in page.inner_text("#teach-step").lower()
        taught_before = service.camera.profile
        page.click("#teach-snap")  # the last one calibrates
        page.wait_for_selector("#teach-snap[hidden]", state="attached", timeout=30_000)
        assert "learnt" in page.inner_text("#toast")
        assert service.camera.profile is not taught_before

        # an unsure read: the referee confirms the proposed face with one tap
        service.camera.profile = dataclasses.replace(service.camera.profile, auto_threshold=1.01)
        for _ in range(3):  # a die the reader cannot read at all (null: "tap its face") is
            # a fresh game's pop again: the drawn face and hiding are random, the reader's
            # coverage of an unseen style under 100 % (docs/camera.md)
            game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 400})
            table = service.table(game_id)
            wait_for(lambda table=table: table.state.phase == "pop", 10, "the hiding")
            unread = len(_unread(service))
            service.submit(game_id, {"type": "pop", "key": 2, "by": table.state.popper})
            wait_for(
                lambda unread=unread: (
                    page.query_selector("#camera-confirm button") is not None
                    or len(_unread(service)) > unread
                ),
                15,
                "the camera's proposal, or its null read",
            )
            if len(_unread(service)) == unread:
                break
            service.submit(game_id, {"type": "face", "face": service.toy.face(2)})
        page.wait_for_selector("#camera-confirm button", timeout=15_000)
        drawn = service.toy.face(2)
        shown = "Devil" if drawn == "devil" else drawn  # the devil in the page's words
        assert page.inner_text("#camera-confirm button") == f"Confirm: {shown}"
        page.click("#camera-confirm button")
        wait_for(lambda: table.actions[-1]["type"] == "face", 10, "the confirmed face")
        assert table.actions[-1]["face"] == drawn
        assert table.actions[-1]["source"] == "camera-confirmed"

        # the game page shows the die's picture beside its face
        page.goto(f"{base}/games/{game_id}")
        page.wait_for_selector("#history img.h-snap")
        assert page.get_attribute("#history img.h-snap", "src").endswith(
            f"/api/games/{game_id}/snapshots/1-1-2.jpg"
        )
        page.wait_for_function("() => document.querySelector('#history img.h-snap').naturalWidth")
        # and so does the step-through history, on the face's step (the referee's view)
        page.goto(f"{base}/history/{game_id}")
        page.wait_for_selector("#step-snap-open:not([hidden])")
        assert page.get_attribute("#step-snap", "src").endswith("/snapshots/1-1-2.jpg")
        page.click("#step-snap-open")  # a tap shows it whole, with the step's words
        page.wait_for_selector("#snap-dialog[open]")
        page.wait_for_function("() => document.getElementById('snap-dialog-img').naturalWidth")
        whole = page.evaluate(
            """() => { const img = document.getElementById('snap-dialog-img');
                       return { natural: img.naturalWidth,
                                width: img.getBoundingClientRect().width,
                                text: document.getElementById('snap-dialog-text').textContent,
                                label: document.getElementById('step-label').textContent }; }"""
        )
        assert whole["natural"] == 640 and whole["width"] >= 340
        assert whole["text"].startswith(whole["label"] + " · ")
        page.keyboard.press("Escape")
        page.wait_for_selector("#snap-dialog", state="hidden")
        page.click("#prev")  # the pop: no picture
        page.wait_for_selector("#step-snap-open[hidden]", state="attached")
        assert all(url.startswith(base) for url in requests)
        ctx.close()


def _unread(service: Any) -> list[object]:
    """The camera's "could not read" notices so far."""
    return [n for n in service.box_status()["notices"] if "could not read" in str(n["text"])]
