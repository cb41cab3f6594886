"""Camera fixtures: datasets and profiles rendered once per session (real OpenCV, real files)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("cv2")

from controller.camera.calibrate import calibrate
from controller.camera.profile import Profile
from controller.camera.render import (
    FACES,
    HELD_OUT,
    STYLES,
    condition,
    jpeg_roundtrip,
    random_scene,
    render,
    write_dataset,
)


@pytest.fixture(scope="session")
def calibration_dirs(tmp_path_factory) -> dict[str, Path]:
    """6 renders per face of the styles the tests use, as JPEG files: style -> folder."""
    root = tmp_path_factory.mktemp("calibration")
    out = {}
    for n, style in enumerate(("ivory", "ebony", "azure", "slate", "ruby")):
        out[style] = root / style
        write_dataset(out[style], STYLES[style], 6, seed=100 + n)
    return out


@pytest.fixture(scope="session")
def profiles(calibration_dirs) -> dict[str, Profile]:
    return {style: calibrate(folder) for style, folder in calibration_dirs.items()}


@pytest.fixture(scope="session")
def held_out_profile(profiles) -> Profile:
    return profiles[HELD_OUT]


def camera_service(tmp_path: Path, profile: Profile, style: str, seed: int, think_s: float):
    """A started service on the simulated box whose simulated camera draws ``style`` dice
    and reads them with ``profile`` (2 s a die); faces are never tapped by the toy."""
    from controller.camera.play import CameraWatch
    from controller.camera.service import down_notice
    from controller.camera.sources import SimulatedCamera
    from controller.service import Service
    from tests.service.conftest import make_config

    config = make_config(tmp_path)
    config.box.seed = seed
    svc = Service(config, think_s=think_s, face_delay_s=3600, hide_delay_s=0.01, steady_s=0.05)
    svc.start()
    camera = SimulatedCamera(svc.toy, style, seed)
    svc.camera = CameraWatch(
        camera, profile, read_s=2.0, frame_gap_s=0.02, on_down=down_notice(svc.notice)
    )
    return svc


_EVALUATED_PROFILES: dict[tuple[str, int], Profile] = {}


def evaluated_frame(folder: Path, style: str, seed: int, light: str, index: int):
    """Frame ``index`` of a light row of ``diablotin faces evaluate --seed SEED`` for
    ``style`` (as ``controller.camera.cli.evaluate`` draws it), the face it shows, and the
    profile that run calibrates (6 renders per face of ``seed``, written to ``folder`` the
    first time a session asks for that style and seed; the profile is shared after)."""
    key = (style, seed)
    if key not in _EVALUATED_PROFILES:  # one calibration per style and seed a session
        write_dataset(folder, STYLES[style], 6, seed)
        _EVALUATED_PROFILES[key] = calibrate(folder)
    profile = _EVALUATED_PROFILES[key]
    rng = random.Random(seed + 1)
    for n in range(index + 1):
        face = FACES[n % len(FACES)]
        scene = random_scene(rng)
        frame = condition(render(STYLES[style], face, rng, scene=scene), light, scene, rng)
        image = jpeg_roundtrip(frame, rng.randint(60, 92))
    return image, face, profile
