"""Computer against computer on the simulated box with --camera simulated: no taps at all."""

from __future__ import annotations

import pytest

from controller.service import Service
from tests.camera.conftest import camera_service
from tests.service.conftest import wait_for


def _camera_service(tmp_path, profile, style: str, seed: int) -> Service:
    return camera_service(tmp_path, profile, style, seed, think_s=0.4)


@pytest.mark.parametrize(("rule", "style", "seed"), [("A", "azure", 3), ("B", "ebony", 5)])
def test_a_whole_game_is_read_by_the_camera(tmp_path, profiles, rule, style, seed):
    """Computer against computer; the referee taps only a die the camera could not read
    (the shape-based reader answers null rather than guess: 93-98 % of fresh renders)."""
    import time

    svc = _camera_service(tmp_path, profiles[style], style, seed)
    drawn: list[object] = []
    try:
        options = {"rule": rule, "rounds": 2} if rule == "A" else {"rule": "B"}
        options |= {"track_length": 20} if rule == "A" else {"circuit_length": 16}
        gid = svc.new_game("sauteur", options)
        table = svc.table(gid)

        def on_change(_table) -> None:  # the face the toy drew, for each face journaled
            actions = svc.journal.actions(gid)
            if actions and actions[-1]["type"] == "face":
                key = [a for a in actions if a["type"] == "pop"][-1]["key"]
                drawn.append(svc.toy.face(key))

        table.listeners.append(on_change)
        for player in ("p1", "p2"):
            svc.box_play.set_computer(gid, player, True)
        deadline, tapped = time.monotonic() + 240, 0
        while not table.finished and time.monotonic() < deadline:
            asked = [n for n in svc.box_status()["notices"] if "could not read" in n["text"]]
            if table.state.phase == "face" and len(asked) > tapped:  # the referee's tap
                key = table.state.popped[-1]
                svc.submit(gid, {"type": "face", "face": svc.toy.face(key)})
                tapped = len(asked)
            time.sleep(0.1)
        assert table.finished, "the game did not finish"
        faces = [a for a in svc.journal.actions(gid) if a["type"] == "face"]
        assert faces, "no face was journaled"
        assert [a["face"] for a in faces] == drawn  # never a wrong camera face
        by_camera = [a for a in faces if a.get("source") == "camera"]
        # most faces by the camera (its coverage is measured by faces evaluate, not here)
        assert len(by_camera) >= len(faces) / 2, faces
        snaps = sorted((svc.config.data_dir / "snapshots" / str(gid)).glob("*.jpg"))
        assert len(snaps) == len(faces)  # one picture a die
        assert svc.box_status()["camera"]["kind"] == "simulated"
        _the_dashboard_shows_the_camera(svc, gid)
    finally:
        svc.stop()


def _the_dashboard_shows_the_camera(svc: Service, gid: int) -> None:
    """GET /api/box has the camera; the live view and each face's snapshot are JPEGs."""
    import cv2
    import numpy as np

    from controller.web import create_app

    client = create_app(svc).test_client()
    camera = client.get("/api/box").get_json()["camera"]
    assert camera["kind"] == "simulated" and camera["up"] is True
    assert camera["last_read"]["at"] > 0
    view = client.get("/api/box/camera.jpg")
    assert view.status_code == 200 and view.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(view.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (240, 320, 3)
    # one snapshot per face, named after its round history line, listed in the extras
    lines = [h for h in svc.table(gid).view("public")["state"]["history"] if h["face"]]
    names = [f"{h['round']}-{h['hiding']}-{h['key']}" for h in lines]
    payload = client.get(f"/api/games/{gid}").get_json()
    assert sorted(names) == payload["extras"]["snapshots"]
    snap = client.get(f"/api/games/{gid}/snapshots/{names[-1]}.jpg")
    assert snap.status_code == 200
    kept = cv2.imdecode(np.frombuffer(snap.data, np.uint8), cv2.IMREAD_COLOR)
    assert kept.shape == (480, 640, 3)  # the whole frame: a tap on the page enlarges it
    for missing in ("99-1-1", "1-1-5", "..%2Fsecret", "1-1"):
        assert client.get(f"/api/games/{gid}/snapshots/{missing}.jpg").status_code == 404


def test_a_camera_that_fails_mid_game_falls_back_to_taps(tmp_path, profiles):
    svc = _camera_service(tmp_path, profiles["azure"], "azure", 9)
    try:
        gid = svc.new_game("sauteur", {"rule": "B", "circuit_length": 400})
        table = svc.table(gid)
        # heuristic: it pops at once (an equilibrium level first solves a 400-square race)
        svc.box_play.set_computer(gid, "p1", True, "heuristic")
        svc.box_play.set_computer(gid, "p2", True, "heuristic")
        wait_for(lambda: any(a["type"] == "face" for a in table.actions), 60, "a face")
        svc.camera.camera.failing = True
        wait_for(lambda: table.state.phase == "face", 30, "a face the camera cannot read")
        wait_for(lambda: not svc.box_status()["camera"]["up"], 10, "the camera marked down")
        notices = " ".join(n["text"] for n in svc.box_status()["notices"])
        assert "the camera failed" in notices and "tap" in notices
        key = table.state.popped[-1]
        svc.submit(gid, {"type": "face", "face": svc.toy.face(key)})  # the referee's tap
        assert table.actions[-1].get("source") is None
    finally:
        svc.stop()
