"""The camera that reads popped dice (optional extra ``diablotin[camera]``: OpenCV, numpy).

Nothing here is imported by the base install; :func:`require` says what to install.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from .frames import FrameSource
    from .play import CameraRead
    from .profile import Profile
    from .teach import Teacher

INSTALL_HINT = "the camera needs OpenCV and numpy: install diablotin[camera] (see docs/camera.md)"


class CameraMissing(RuntimeError):
    """The [camera] extra is not installed."""


class Camera(Protocol):
    """The service's camera (``controller.camera.play.CameraWatch``): what the service,
    the box's game and the Box page's routes call on it."""

    up: bool
    profile: Profile
    lens_deg: float
    """The lens's field of view across the frame (degrees; ``[camera] lens_deg``)."""
    teacher: Teacher | None
    camera: FrameSource
    last_frame: np.ndarray | None
    """The last frame grabbed (RGB, full size), at ``last_frame_at`` (monotonic s)."""
    last_frame_at: float
    landed: dict[int, tuple[float, float]]
    """Where the last die popped from each key landed (frame pixels), learnt in play."""

    def baseline(self) -> None:
        """Keep a frame of the table as it is now (before the next press)."""

    def read_pop(self, key: int, done: Callable[[CameraRead], None]) -> None:
        """Read the die that came out of ``key``; ``done`` is called on the camera thread."""

    def live_jpeg(self, max_age_s: float = 1.0) -> bytes:
        """A JPEG of the table at most ``max_age_s`` old; empty when the camera is down."""

    def frame(self, timeout_s: float = 3.0) -> np.ndarray:
        """A full-size RGB frame (teaching); raises ``CameraFailed``."""

    def status(self) -> Mapping[str, object]:
        """JSON-ready: kind, up, error, last read, threshold."""

    def close(self) -> None: ...


def require() -> None:
    """Raise :class:`CameraMissing` unless OpenCV and numpy import."""
    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        raise CameraMissing(INSTALL_HINT) from None
