"""Camera fixtures: datasets and profiles rendered once per session (real OpenCV, real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cv2")

from controller.camera.calibrate import calibrate
from controller.camera.profile import Profile
from controller.camera.render import HELD_OUT, STYLES, write_dataset


@pytest.fixture(scope="session")
def calibration_dirs(tmp_path_factory) -> dict[str, Path]:
    """6 renders per face of every style, as JPEG files: style -> folder."""
    root = tmp_path_factory.mktemp("calibration")
    out = {}
    for n, style in enumerate(STYLES):
        out[style] = root / style
        write_dataset(out[style], STYLES[style], 6, seed=100 + n)
    return out


@pytest.fixture(scope="session")
def profiles(calibration_dirs) -> dict[str, Profile]:
    return {style: calibrate(folder) for style, folder in calibration_dirs.items()}


@pytest.fixture(scope="session")
def held_out_profile(profiles) -> Profile:
    return profiles[HELD_OUT]
