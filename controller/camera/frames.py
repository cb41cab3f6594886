"""What a camera that gives frames is (simulated, Picamera2, USB: :mod:`.sources`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class FrameSource(Protocol):
    """A camera that gives frames (``controller.camera.sources``: simulated, Picamera2, USB)."""

    def grab(self) -> np.ndarray:
        """One RGB frame; raises ``CameraFailed`` when the camera gives none."""

    def close(self) -> None: ...
