"""The camera's glue for :class:`controller.service.Service` (imported only when a camera is on).

``start_camera`` opens the configured camera with its profile (the simulated camera calibrates
itself on renders of its style the first time, and keeps that profile in the data dir);
snapshots are small JPEGs kept beside the game: ``<data dir>/snapshots/<game>/<step>.jpg``,
``step`` being the journal entry of the face.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import Config
from . import require

log = logging.getLogger(__name__)


def profile_path(config: Config) -> Path:
    from .profile import DEFAULT_NAME

    if config.camera.profile:
        return Path(config.camera.profile)
    if config.camera.kind == "simulated":
        return config.data_dir / f"faces-profile-simulated-{config.camera.style}.json"
    return config.data_dir / DEFAULT_NAME


def start_camera(config: Config, toy: Any, notice: Callable[[str], None]) -> Any:
    """A running :class:`~controller.camera.play.CameraWatch`, or None (with a notice) when
    the camera cannot start: the referee taps the faces. Raises
    :class:`~controller.camera.CameraMissing` without the [camera] extra."""
    require()
    from .play import CameraWatch
    from .profile import ProfileError, load_profile
    from .sources import CameraFailed, open_camera

    path = profile_path(config)
    if config.camera.kind == "simulated" and not path.exists():
        make_simulated_profile(config.camera.style, path)
    try:
        profile = load_profile(path)
        camera = open_camera(config.camera.kind, toy, config.camera.style, config.box.seed)
    except (ProfileError, CameraFailed, ValueError) as exc:
        notice(f"camera off: {exc}; the referee taps the faces")
        return None
    if camera is None:
        return None

    return CameraWatch(camera, profile, read_s=config.camera.read_s, on_down=down_notice(notice))


def down_notice(notice: Callable[[str], None]) -> Callable[[str], None]:
    """What the referee is told when the camera fails mid-game."""

    def down(reason: str) -> None:
        notice(f"the camera failed ({reason}): tap the faces from now on")

    return down


def make_simulated_profile(style: str, path: Path) -> None:
    """Calibrate on 6 renders per face of ``style`` (as a referee would on a real box)."""
    from .calibrate import calibrate
    from .render import STYLES, write_dataset

    with tempfile.TemporaryDirectory(prefix="diablotin-calibrate-") as tmp:
        write_dataset(Path(tmp), STYLES[style], 6, seed=20261123)
        calibrate(Path(tmp)).save(path)
    log.info("simulated camera: calibrated %s dice into %s", style, path)


def snapshot_path(data_dir: Path, game_id: int, step: int) -> Path:
    return data_dir / "snapshots" / str(int(game_id)) / f"{int(step)}.jpg"


def save_snapshot(data_dir: Path, game_id: int, step: int, jpeg: bytes) -> None:
    path = snapshot_path(data_dir, game_id, step)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jpeg)
