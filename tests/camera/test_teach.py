"""Teaching the camera from the Box page, a referee's correction of a camera face, and a
USB camera that is really OpenCV's VideoCapture on a real video file."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from controller.camera.profile import load_profile
from controller.camera.reader import read_face
from controller.camera.render import STYLES, random_scene, render
from controller.camera.service import profile_path
from controller.camera.sources import CameraFailed, UsbCamera, parse_kind
from controller.service import Service
from controller.web import create_app
from tests.camera.conftest import camera_service
from tests.service.conftest import make_config, wait_for

PIN_HEADERS = {"X-Referee-Pin": "2468"}


def _service(tmp_path, profile, style: str = "azure", seed: int = 4) -> Service:
    return camera_service(tmp_path, profile, style, seed, think_s=3600)


def test_the_referee_teaches_the_camera_from_the_box_page(tmp_path, profiles):
    """Start, 5 snapshots of each face (the simulated camera shows the face it is told),
    and the last one calibrates: the profile is saved in the data dir and used at once."""
    svc = _service(tmp_path, profiles["ebony"], "azure")  # a profile for other dice
    client = create_app(svc).test_client()
    try:
        assert client.post("/api/box/camera/teach", json={"do": "start"}).status_code == 401
        refused = client.post("/api/box/camera/teach", json={"do": "snap"}, headers=PIN_HEADERS)
        assert refused.status_code == 409 and refused.get_json()["error"] == "not-teaching"
        bad = client.post("/api/box/camera/teach", json={"do": "dance"}, headers=PIN_HEADERS)
        assert bad.status_code == 400
        state = client.post(
            "/api/box/camera/teach", json={"do": "start"}, headers=PIN_HEADERS
        ).get_json()
        assert (state["active"], state["face"], state["taken"], state["progress"]) == (
            True,
            "1",
            0,
            0,
        )
        seen = []
        for _ in range(7 * 5):
            seen.append(state["face"])
            resp = client.post("/api/box/camera/teach", json={"do": "snap"}, headers=PIN_HEADERS)
            assert resp.status_code == 200, resp.get_json()
            state = resp.get_json()
        assert seen == [f for f in ("1", "2", "3", "4", "5", "6", "devil") for _ in range(5)]
        assert state["active"] is False and state["error"] is None
        assert client.get("/api/box/camera/teach").get_json()["active"] is False
        saved = load_profile(profile_path(svc.config))
        assert svc.camera.profile.to_json() == saved.to_json()
        photos = sorted(
            p.relative_to(tmp_path / "data" / "teach").as_posix()
            for p in (tmp_path / "data" / "teach").rglob("*.png")
        )
        assert len(photos) == 35 and photos[0] == "1/1.png"
        # the taught profile reads fresh azure dice (that the ebony profile was not made for)
        rng = random.Random(77)
        faces = [1, 2, 3, 4, 5, 6, "devil"] * 3
        reads = [
            read_face(render(STYLES["azure"], f, rng, scene=random_scene(rng)), saved)
            for f in faces
        ]
        answered = [(r.face, f) for r, f in zip(reads, faces, strict=True) if r.face is not None]
        assert len(answered) >= 19 and all(a == f for a, f in answered), answered
        assert svc.camera.camera.shown is None  # back to the toy's dice
    finally:
        svc.stop()


def test_a_failed_calibration_says_why_and_keeps_the_old_profile(tmp_path, profiles):
    svc = _service(tmp_path, profiles["azure"])
    client = create_app(svc).test_client()
    try:
        client.post("/api/box/camera/teach", json={"do": "start"}, headers=PIN_HEADERS)
        svc.camera.camera.shown = None  # the referee shows nothing: an empty table
        svc.camera.teacher._show = lambda face: None
        for _ in range(7 * 5 - 1):
            assert (
                client.post(
                    "/api/box/camera/teach", json={"do": "snap"}, headers=PIN_HEADERS
                ).status_code
                == 200
            )
        last = client.post("/api/box/camera/teach", json={"do": "snap"}, headers=PIN_HEADERS)
        assert last.status_code == 409
        assert last.get_json()["error"] == "calibration-failed"
        assert "pips were counted right on only 0 of 30" in last.get_json()["reason"]
        assert svc.camera.profile is profiles["azure"]
        assert not profile_path(svc.config).exists()
        state = client.get("/api/box/camera/teach").get_json()
        assert state["active"] and state["error"] and state["face"] == "devil"
        retake = client.post(
            "/api/box/camera/teach", json={"do": "retake", "face": "3"}, headers=PIN_HEADERS
        ).get_json()
        assert (retake["face"], retake["taken"]) == ("3", 0)
        cancel = client.post("/api/box/camera/teach", json={"do": "cancel"}, headers=PIN_HEADERS)
        assert cancel.get_json()["active"] is False
        assert not (tmp_path / "data" / "teach").exists()
    finally:
        svc.stop()


def test_teaching_without_a_camera_is_404(tmp_path):
    config = make_config(tmp_path)
    config.server.referee_pin = "2468"
    svc = Service(config, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()
    try:
        client = create_app(svc).test_client()
        resp = client.get("/api/box/camera/teach")
        assert resp.status_code == 404 and resp.get_json()["error"] == "no-camera"
    finally:
        svc.stop()


def test_the_referee_corrects_a_camera_face_and_the_correction_is_recorded(tmp_path, profiles):
    svc = _service(tmp_path, profiles["azure"])
    client = create_app(svc).test_client()
    try:
        gid = svc.new_game("sauteur", {"rule": "B", "circuit_length": 400})
        table = svc.table(gid)
        wait_for(lambda: table.state.phase == "pop", 10, "the hiding")
        svc.submit(gid, {"type": "pop", "key": 1, "by": table.state.popper})
        wait_for(lambda: table.actions[-1]["type"] == "face", 20, "the camera's face")
        read = table.actions[-1]
        assert read["source"] == "camera"
        other = 6 if read["face"] != 6 else 5
        assert client.post(f"/api/games/{gid}/undo", headers=PIN_HEADERS).status_code == 200
        fixed = client.post(
            f"/api/games/{gid}/actions", json={"type": "face", "face": other}, headers=PIN_HEADERS
        )
        assert fixed.status_code == 200, fixed.get_json()
        entries = svc.journal.entries(gid)
        assert [e.action.get("source") for e in entries[-3:]] == ["camera", None, None]
        assert entries[-2].undo and entries[-1].action["face"] == other
        line = table.view("public")["state"]["history"][-1]
        assert line["face"] == other
        # the picture of that die stays beside the corrected face
        name = f"{line['round']}-{line['hiding']}-{line['key']}"
        shown = client.get(f"/api/games/{gid}", headers=PIN_HEADERS).get_json()["extras"]
        assert name in shown["snapshots"]
        # a spectator is not offered a picture it may not open while the game is in play
        # (the page showed a broken image: GET .../snapshots/ answers 401 to them)
        assert client.get(f"/api/games/{gid}").get_json()["extras"]["snapshots"] == []
        assert client.get(f"/api/games/{gid}/snapshots/{name}.jpg").status_code == 401
    finally:
        svc.stop()


def test_usb_camera_reads_a_real_video_file_through_videocapture(tmp_path, profiles):
    """``usb:FILE`` opens OpenCV's VideoCapture on a video written by VideoWriter."""
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (640, 480))
    rng = random.Random(5)
    faces = [3, "devil", 5]
    for face in faces:
        frame = render(STYLES["azure"], face, rng, scene=random_scene(rng))
        writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    writer.release()
    assert parse_kind(f"usb:{path}") == ("usb", str(path))
    assert parse_kind("usb:2") == ("usb", 2) and parse_kind("usb") == ("usb", 0)
    with pytest.raises(ValueError):
        parse_kind("simulated:2")
    camera = UsbCamera(str(path))
    try:
        frames = [camera.grab() for _ in faces]
        assert all(f.shape == (480, 640, 3) and f.dtype == np.uint8 for f in frames)
        got = [read_face(f, profiles["azure"]).face for f in frames]
        assert got == faces
        with pytest.raises(CameraFailed):
            camera.grab()  # the end of the video: no frame, as an unplugged camera
    finally:
        camera.close()
    with pytest.raises(CameraFailed, match="no USB camera or readable video"):
        UsbCamera(str(tmp_path / "absent.avi"))


def test_the_box_page_teaches_from_the_devil_and_one_number_face(tmp_path, profiles):
    """Face 1 photographed, faces 2-6 skipped, the devil photographed: calibration works and
    the profile counts the untaught faces' pips; the devil cannot be skipped."""
    svc = _service(tmp_path, profiles["ebony"], "ivory")
    client = create_app(svc).test_client()

    def step(body):
        return client.post("/api/box/camera/teach", json=body, headers=PIN_HEADERS)

    try:
        step({"do": "start"})
        for _ in range(5):
            assert step({"do": "snap"}).status_code == 200
        for _face in ("2", "3", "4", "5", "6"):
            state = step({"do": "skip"}).get_json()
        assert state["face"] == "devil" and state["taught"] == ["1"]
        refused = step({"do": "skip"})
        assert refused.status_code == 409 and refused.get_json()["error"] == "devil-needed"
        for _ in range(5):
            state = step({"do": "snap"}).get_json()
        assert state["active"] is False and state["error"] is None
        saved = load_profile(profile_path(svc.config))
        assert saved.faces_seen == ["1", "devil"]
        rng = random.Random(5)
        faces = [2, 3, 4, 5, 6, "devil"] * 2
        reads = [read_face(render(STYLES["ivory"], f, rng), saved) for f in faces]
        answered = [(r.face, f) for r, f in zip(reads, faces, strict=True) if r.face is not None]
        assert len(answered) >= 10 and all(a == f for a, f in answered), answered
    finally:
        svc.stop()
