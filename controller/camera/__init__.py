"""The camera that reads popped dice (optional extra ``diablotin[camera]``: OpenCV, numpy).

Nothing here is imported by the base install; :func:`require` says what to install.
"""

from __future__ import annotations

INSTALL_HINT = "the camera needs OpenCV and numpy: install diablotin[camera] (see docs/camera.md)"


class CameraMissing(RuntimeError):
    """The [camera] extra is not installed."""


def require() -> None:
    """Raise :class:`CameraMissing` unless OpenCV and numpy import."""
    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        raise CameraMissing(INSTALL_HINT) from None
