"""The camera's glue for :class:`controller.service.Service` (imported only when a camera is on).

``start_camera`` opens the configured camera with its profile (the simulated camera calibrates
itself on renders of its style the first time, and keeps that profile in the data dir);
snapshots are small JPEGs kept beside the game: ``<data dir>/snapshots/<game>/<name>.jpg``,
``name`` being ``<round>-<hiding>-<key>``: the die's place in the round history (each key
lets one die out per hiding), so a corrected face keeps the picture of its die.
:func:`teacher` runs the Box page's "show face X, take 5 snapshots" calibration.
"""

from __future__ import annotations

import logging
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..sentences import Said, said_of, words
from . import Camera, require

if TYPE_CHECKING:
    from ..box.base import Toy
    from .play import CameraWatch
    from .profile import Profile
    from .teach import Teacher

log = logging.getLogger(__name__)


def profile_path(config: Config) -> Path:
    from .profile import DEFAULT_NAME

    if config.camera.profile:
        return Path(config.camera.profile)
    if config.camera.kind == "simulated":
        return config.data_dir / f"faces-profile-simulated-{config.camera.style}.json"
    return config.data_dir / DEFAULT_NAME


def start_camera(
    config: Config, toy: Toy | None, notice: Callable[..., None]
) -> CameraWatch | None:
    """A running :class:`~controller.camera.play.CameraWatch`, or None (with a notice) when
    the camera cannot start: the referee taps the faces. Raises
    :class:`~controller.camera.CameraMissing` without the [camera] extra."""
    require()
    from .play import CameraWatch
    from .profile import ProfileError, load_profile
    from .sources import CameraFailed, open_camera

    path = profile_path(config)
    if config.camera.kind == "simulated" and not _current_profile(path):
        make_simulated_profile(config.camera.style, path)
    try:
        profile = load_profile(path)
        camera = open_camera(config.camera.kind, toy, config.camera.style, config.box.seed)
    except (ProfileError, CameraFailed, ValueError) as exc:
        notice(words("camera off: {reason}; the referee taps the faces"), reason=said_of(exc))
        return None
    if camera is None:
        return None

    return CameraWatch(
        camera,
        profile,
        read_s=config.camera.read_s,
        lens_deg=config.camera.lens_deg,
        on_down=down_notice(notice),
    )


def _current_profile(path: Path) -> bool:
    """Whether ``path`` holds a profile this reader can use (a simulated camera's profile
    from an older reader is simply made again)."""
    from .profile import ProfileError, load_profile

    try:
        load_profile(path)
    except ProfileError:
        return False
    return True


def down_notice(notice: Callable[..., None]) -> Callable[[str], None]:
    """What the referee is told when the camera fails mid-game (``notice``: the service's,
    a template and its params)."""

    def down(reason: str) -> None:
        notice(words("the camera failed ({reason}): tap the faces from now on"), reason=reason)

    return down


def make_simulated_profile(style: str, path: Path) -> None:
    """Calibrate on 6 renders per face of ``style`` (as a referee would on a real box)."""
    from .calibrate import calibrate
    from .render import STYLES, write_dataset

    with tempfile.TemporaryDirectory(prefix="diablotin-calibrate-") as tmp:
        write_dataset(Path(tmp), STYLES[style], 6, seed=20261123)
        calibrate(Path(tmp)).save(path)
    log.info("simulated camera: calibrated %s dice into %s", style, path)


SNAPSHOT_NAME = re.compile(r"[0-9]{1,4}-[0-9]{1,6}-[1-4]")
"""``<round>-<hiding>-<key>``, in ASCII digits as the OpenAPI document's pattern says."""


def snapshot_name(round_no: int, hiding: int, key: int) -> str:
    return f"{int(round_no)}-{int(hiding)}-{int(key)}"


def snapshot_path(data_dir: Path, game_id: int, name: str) -> Path:
    """Where the snapshot ``name`` of a game lives; ValueError for a malformed name."""
    if not SNAPSHOT_NAME.fullmatch(name):
        raise ValueError(
            Said("a snapshot is named <round>-<hiding>-<key>, not {name!r}", name=name)
        )
    return data_dir / "snapshots" / str(int(game_id)) / f"{name}.jpg"


def snapshot_names(data_dir: Path, game_id: int) -> list[str]:
    """The game's snapshots (names, sorted); empty when it has none. One directory read."""
    try:
        files = (data_dir / "snapshots" / str(int(game_id))).iterdir()
        return sorted(p.stem for p in files if SNAPSHOT_NAME.fullmatch(p.stem))
    except OSError:
        return []


def save_snapshot(data_dir: Path, game_id: int, name: str, jpeg: bytes) -> Path:
    path = snapshot_path(data_dir, game_id, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jpeg)
    return path


def teacher(config: Config, watch: Camera) -> Teacher:
    """The camera's one :class:`~controller.camera.teach.Teacher` (made on first use):
    photos in ``<data dir>/teach/``; the profile it makes is saved as the service's
    profile (:func:`profile_path`) and used from the next read."""
    from .sources import SimulatedCamera
    from .teach import Teacher

    if watch.teacher is None:

        def done(profile: Profile) -> None:
            profile.save(profile_path(config))
            watch.profile = profile
            log.info("camera: taught from the Box page, profile saved to %s", profile_path(config))

        def show(face: int | str | None) -> None:
            if isinstance(watch.camera, SimulatedCamera):  # it shows what it is told
                watch.camera.shown = face

        watch.teacher = Teacher(config.data_dir / "teach", watch.frame, done, show)
    return watch.teacher
