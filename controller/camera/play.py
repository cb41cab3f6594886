"""The camera in play: a frame before each press, then frames until the new die reads clearly.

:class:`CameraWatch` runs the camera on its own thread (a frame is tens of ms; the service's
worker thread never waits on it). ``baseline()`` keeps a frame of the table as it lies before
the next press (the service calls it whenever the popper may press); ``read_pop(key, done)``
grabs frames for at most ``read_s`` seconds, reads the die that appeared since the baseline
(the frames' difference), and calls ``done(CameraRead)`` with the best read and a 640×480
JPEG snapshot. A camera that fails is marked down and every later read returns at once with
``face=None`` (the referee taps, as without a camera).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from ..sentences import Said, said_of
from .frames import FrameSource
from .on_edge import LENS_DEG
from .profile import Profile
from .reader import read_face
from .sources import CameraFailed

if TYPE_CHECKING:
    from .teach import Teacher

log = logging.getLogger(__name__)
SNAPSHOT_SIZE = (640, 480)


@dataclass(frozen=True)
class CameraRead:
    key: int
    face: int | str | None
    confidence: float
    snapshot: bytes
    """A 640×480 JPEG of the frame read (empty when the camera gave none)."""
    error: str = ""


def snapshot_jpeg(rgb: np.ndarray) -> bytes:
    small = cv2.resize(rgb, SNAPSHOT_SIZE, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 75]
    )
    return buf.tobytes() if ok else b""


def changed_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Where ``after`` differs from ``before`` in any colour channel (uint8 0/255, dilated)."""
    a = cv2.GaussianBlur(before, (5, 5), 0)
    b = cv2.GaussianBlur(after, (5, 5), 0)
    diff = cv2.absdiff(a, b).max(axis=2)  # in colour: a blue die on a red lid is as grey
    mask = (diff > 30).astype(np.uint8) * 255
    return cv2.dilate(mask, np.ones((9, 9), np.uint8))


class CameraWatch:
    """One camera, one thread. ``status()`` is JSON-ready for ``GET /api/box``."""

    def __init__(
        self,
        camera: FrameSource,
        profile: Profile,
        *,
        read_s: float = 3.0,
        lens_deg: float = LENS_DEG,
        frame_gap_s: float = 0.1,
        on_down: Callable[[str], None] | None = None,
    ) -> None:
        self.camera = camera
        self.profile = profile
        self.read_s = read_s
        self.lens_deg = lens_deg
        """The lens's field of view across the frame (degrees; ``[camera] lens_deg``)."""
        self.frame_gap_s = frame_gap_s
        self.on_down = on_down
        self.up = True
        self.error = ""
        self.last: dict[str, object] | None = None
        self.last_frame_jpeg = b""
        self.last_frame: np.ndarray | None = None
        """The last frame grabbed (RGB, full size), at ``last_frame_at``."""
        self.last_frame_at = 0.0
        self.landed: dict[int, tuple[float, float]] = {}
        """Where the last die read from each key lay (its centre, frame pixels): the Box
        page marks it on the live view (the calibration does not know where the slots are)."""
        self._before: np.ndarray | None = None
        self.teacher: Teacher | None = None
        """The Box page's teaching session (:func:`controller.camera.service.teacher`)."""
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    # -- the service's calls (any thread) --------------------------------------
    def baseline(self) -> None:
        """Keep a frame of the table as it is now (before the next press)."""
        self._jobs.put(self._take_baseline)

    def read_pop(self, key: int, done: Callable[[CameraRead], None]) -> None:
        """Read the die that came out of ``key``; ``done`` is called on the camera thread."""
        self._jobs.put(lambda: done(self._read(key)))

    def live_jpeg(self, max_age_s: float = 1.0) -> bytes:
        """A 320×240 JPEG of the table, at most ``max_age_s`` old (one grab at most per
        ``max_age_s``, however many phones ask). Empty when the camera is down."""
        if self.up and time.monotonic() - self.last_frame_at > max_age_s:
            done = threading.Event()

            def grab() -> None:
                self._grab()
                done.set()

            self._jobs.put(grab)
            done.wait(2.0)
        return self.last_frame_jpeg

    def frame(self, timeout_s: float = 3.0) -> np.ndarray:
        """A full-size RGB frame, grabbed on the camera thread (teaching); raises
        :class:`CameraFailed` when the camera is down or gives none in ``timeout_s``."""
        got: list[np.ndarray | None] = []
        done = threading.Event()

        def grab() -> None:
            got.append(self._grab())
            done.set()

        self._jobs.put(grab)
        if not done.wait(timeout_s) or got[0] is None:
            raise CameraFailed(
                self.error or Said("no frame in {timeout_s:g} s", timeout_s=timeout_s)
            )
        return got[0]

    def status(self) -> dict[str, object]:
        return {
            "kind": getattr(self.camera, "kind", "?"),
            "up": self.up,
            "error": self.error,
            "error_said": self.error.as_dict() if isinstance(self.error, Said) else None,
            "last_read": self.last,
            "auto_threshold": self.profile.auto_threshold,
        }

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=3)
        try:
            self.camera.close()
        except Exception:
            log.exception("closing the camera")

    # -- the camera thread -------------------------------------------------------
    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                log.exception("camera job failed")

    def _grab(self) -> np.ndarray | None:
        if not self.up:
            return None
        try:
            frame = self.camera.grab()
        except (CameraFailed, OSError, RuntimeError) as exc:
            self.up = False
            self.error = said_of(exc)
            if self.on_down is not None:
                self.on_down(self.error)
            return None
        small = cv2.resize(frame, (320, 240), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(
            ".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 70]
        )
        if ok:
            self.last_frame_jpeg = buf.tobytes()
            self.last_frame = frame
            self.last_frame_at = time.monotonic()
        return frame

    def _take_baseline(self) -> None:
        frame = self._grab()
        if frame is not None:
            self._before = frame

    def _read(self, key: int) -> CameraRead:
        deadline = time.monotonic() + self.read_s
        best: tuple[float, int | str, np.ndarray] | None = None
        while True:
            frame = self._grab()
            if frame is None:
                return CameraRead(key, None, 0.0, b"", self.error)
            changed = None if self._before is None else changed_mask(self._before, frame)
            result = read_face(frame, self.profile, changed, lens_deg=self.lens_deg)
            if result.face is not None and (best is None or result.confidence > best[0]):
                best = (result.confidence, result.face, frame)
                if result.box is not None:
                    self.landed[key] = (float(result.box[0][0]), float(result.box[0][1]))
            if best is not None and best[0] >= self.profile.auto_threshold:
                break
            if time.monotonic() + self.frame_gap_s > deadline:
                break
            time.sleep(self.frame_gap_s)
        self._before = None  # the next press takes its own
        if best is None:
            read = CameraRead(key, None, 0.0, snapshot_jpeg(frame))
        else:
            read = CameraRead(key, best[1], best[0], snapshot_jpeg(best[2]))
        self.last = {
            "key": key,
            "face": read.face,
            "confidence": round(read.confidence, 3),
            "at": time.time(),
        }
        return read
