"""Computer against computer on the simulated box with --camera simulated: no taps at all."""

from __future__ import annotations

import pytest

from controller.camera.play import CameraWatch
from controller.camera.sources import SimulatedCamera
from controller.service import Service
from tests.service.conftest import make_config, wait_for


def _camera_service(tmp_path, profile, style: str, seed: int) -> Service:
    config = make_config(tmp_path)
    config.box.seed = seed
    svc = Service(config, think_s=0.4, face_delay_s=30, hide_delay_s=0.01, steady_s=0.05)
    svc.start()
    camera = SimulatedCamera(svc.toy, style, seed)
    svc.camera = CameraWatch(camera, profile, read_s=2.0, frame_gap_s=0.02)
    return svc


@pytest.mark.parametrize(("rule", "style", "seed"), [("A", "azure", 3), ("B", "ebony", 5)])
def test_a_whole_game_is_read_by_the_camera_with_no_tap(tmp_path, profiles, rule, style, seed):
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
            svc.set_computer(gid, player, True)
        wait_for(lambda: table.finished, timeout=120, what="the game to finish")
        faces = [a for a in svc.journal.actions(gid) if a["type"] == "face"]
        assert faces, "no face was journaled"
        assert all(a.get("source") == "camera" for a in faces), faces
        assert [a["face"] for a in faces] == drawn
        assert not [n for n in svc.box_status()["notices"] if "camera" in n["text"]]
        snaps = sorted((svc.config.data_dir / "snapshots" / str(gid)).glob("*.jpg"))
        assert len(snaps) == len(faces)
        assert svc.box_status()["camera"]["kind"] == "simulated"
        assert svc.box_status()["camera"]["last_read"]["face"] == faces[-1]["face"]
    finally:
        svc.stop()
