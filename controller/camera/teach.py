"""Teaching the camera from the Box page: show face X, take 5 snapshots, next face.

Only the devil and one number face are needed (the other numbers are counted by their
pips): ``skip`` passes over a number face; the devil cannot be skipped.

The snapshots go into ``<data dir>/teach/<face>/<n>.png``: the same folder layout that
``diablotin faces calibrate DIR`` reads, so finishing is just :func:`calibrate` on that
folder, and the profile it makes becomes the service's default profile. Nothing changes
until the last face is done and calibration succeeds; a failed calibration says why and
keeps the photos, so the referee can retake a face.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from ..sentences import Said, said_of
from .calibrate import CalibrationError, calibrate
from .profile import FACE_NAMES, Profile, face_from_name

SHOTS_PER_FACE = 5


class TeachRefused(ValueError):
    """A teaching step that cannot be taken now; ``code`` says which (API: 409)."""

    def __init__(self, code: str, reason: Said) -> None:
        super().__init__(reason)
        self.code = code


class Teacher:
    """One teaching session at a time.

    ``grab`` gives an RGB frame (raises OSError when the camera gives none);
    ``show(face | None)`` tells a simulated camera which face to show (a real camera
    ignores it: the referee holds the die); ``done(profile)`` installs the new profile.
    """

    def __init__(
        self,
        folder: Path,
        grab: Callable[[], np.ndarray],
        done: Callable[[Profile], None],
        show: Callable[[int | str | None], None] | None = None,
        shots_per_face: int = SHOTS_PER_FACE,
    ) -> None:
        self.folder = Path(folder)
        self._grab = grab
        self._done = done
        self._show = show or (lambda face: None)
        self.shots_per_face = shots_per_face
        self._lock = threading.Lock()
        self.active = False
        self.face_index = 0
        self.taken = 0
        self.error: str | None = None  # why the last calibration failed (a Said)

    def status(self) -> dict[str, object]:
        """What the Box page draws: the face to show, shots taken, progress 0..1."""
        with self._lock:
            return self._status()

    def _status(self) -> dict[str, object]:
        total = len(FACE_NAMES) * self.shots_per_face
        done = self.face_index * self.shots_per_face + self.taken
        return {
            "active": self.active,
            "face": FACE_NAMES[self.face_index] if self.active else None,
            "taken": self.taken,
            "shots_per_face": self.shots_per_face,
            "faces": list(FACE_NAMES),
            "progress": round(done / total, 3),
            "taught": sorted(
                p.name for p in self.folder.glob("*") if p.is_dir() and any(p.iterdir())
            )
            if self.folder.is_dir()
            else [],
            "error": self.error,
            "error_said": self.error.as_dict() if isinstance(self.error, Said) else None,
        }

    def start(self) -> dict[str, object]:
        """Begin (or begin again): earlier teaching photos are removed."""
        with self._lock:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.active, self.face_index, self.taken, self.error = True, 0, 0, None
            self._show(face_from_name(FACE_NAMES[0]))
            return self._status()

    def cancel(self) -> dict[str, object]:
        """Stop teaching; the current profile stays, the photos are removed."""
        with self._lock:
            self.active, self.face_index, self.taken = False, 0, 0
            self._show(None)
            shutil.rmtree(self.folder, ignore_errors=True)
            return self._status()

    def snap(self) -> dict[str, object]:
        """Take one snapshot of the face being taught. After the last one of the last face,
        calibrate and install the profile. Raises :class:`TeachRefused` (not teaching, no
        frame, calibration failed: the photos stay and that face can be retaken)."""
        with self._lock:
            if not self.active:
                raise TeachRefused("not-teaching", Said("start teaching first"))
            try:
                frame = self._grab()
            except OSError as exc:
                raise TeachRefused(
                    "camera-down", Said("the camera gave no picture: {why}", why=said_of(exc))
                ) from None
            face = FACE_NAMES[self.face_index]
            path = self.folder / face / f"{self.taken + 1}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(path), cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
            self.taken += 1
            if self.taken < self.shots_per_face:
                return self._status()
            if self.face_index + 1 < len(FACE_NAMES):
                self.face_index += 1
                self.taken = 0
                self._show(face_from_name(FACE_NAMES[self.face_index]))
                return self._status()
            try:
                profile = calibrate(self.folder)
            except CalibrationError as exc:
                self.error = said_of(exc)
                self.taken = 0  # retake the last face; the others are kept
                raise TeachRefused(
                    "calibration-failed", Said("calibration failed: {why}", why=self.error)
                ) from None
            self.active, self.face_index, self.taken, self.error = False, 0, 0, None
            self._show(None)
        self._done(profile)
        return self.status()

    def skip(self) -> dict[str, object]:
        """Pass over the number face being taught (its snapshots so far are dropped): the
        reader counts that face's pips without photos of it. The devil cannot be skipped."""
        with self._lock:
            if not self.active:
                raise TeachRefused("not-teaching", Said("start teaching first"))
            face = FACE_NAMES[self.face_index]
            if face == "devil":
                raise TeachRefused(
                    "devil-needed", Said("the devil cannot be skipped: it has no pips to count")
                )
            shutil.rmtree(self.folder / face, ignore_errors=True)
            self.face_index += 1
            self.taken = 0
            self._show(face_from_name(FACE_NAMES[self.face_index]))
            return self._status()

    def retake(self, face: str) -> dict[str, object]:
        """Go back to ``face`` (one of 1…6, devil) and take its photos again."""
        with self._lock:
            if not self.active:
                raise TeachRefused("not-teaching", Said("start teaching first"))
            if face not in FACE_NAMES:
                raise TeachRefused(
                    "bad-face", Said("face must be one of {names}", names=", ".join(FACE_NAMES))
                )
            shutil.rmtree(self.folder / face, ignore_errors=True)
            self.face_index, self.taken = FACE_NAMES.index(face), 0
            self._show(face_from_name(face))
            return self._status()
