"""Where frames come from: ``none``, ``simulated``, ``picamera2``, ``usb[:N]``.

Every source has ``kind``, ``grab() -> RGB uint8 array`` (raises :class:`CameraFailed`) and
``close()``. The simulated camera renders the dice the simulated toy has let out, each one
where it landed, under this hiding's light, with fresh noise every frame.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..box.base import Toy
from ..sentences import Said
from .frames import FrameSource

if TYPE_CHECKING:
    from .render import Scene

KINDS = ("none", "simulated", "picamera2", "usb")


class CameraFailed(OSError):
    """The camera gave no frame (unplugged, busy, driver error)."""


def parse_kind(value: str) -> tuple[str, int | str]:
    """``"usb:1"`` -> ``("usb", 1)``, ``"usb:/dev/video2"`` or ``"usb:clip.mp4"`` -> the path;
    ``ValueError`` for anything not in :data:`KINDS`."""
    kind, _, where = value.partition(":")
    if kind not in KINDS:
        raise ValueError(
            Said(
                "camera must be one of none, simulated, picamera2, usb[:N|:PATH], got {value!r}",
                value=value,
            )
        )
    if where and kind != "usb":
        raise ValueError(Said("only usb takes a device: usb:0, usb:/dev/video2 or usb:FILE"))
    if where.isdigit() or not where:
        return kind, int(where or 0)
    return kind, where


class SimulatedCamera:
    """Renders the simulated toy's popped dice (the faces the toy drew) in style ``style``."""

    kind = "simulated"

    def __init__(self, toy: Toy, style: str = "ivory", seed: int | None = None) -> None:
        from .render import STYLES

        self.toy = toy
        self.style = STYLES[style]
        self._rng = random.Random(seed)
        self._scenes: dict[int, Scene] = {}
        self._light = self._rng.getrandbits(32)
        self._lock = threading.Lock()
        self.failing = False
        """Set True to make :meth:`grab` fail (tests: a camera lost mid-game)."""
        self.shown: int | str | None = None
        """A face held up to the camera (teaching): each frame shows one die with that face
        somewhere new, whatever the toy has out. ``None``: the toy's dice."""

    def grab(self) -> np.ndarray:
        from .render import BACKGROUNDS, Scene, random_scene, render

        if self.failing:
            raise CameraFailed(Said("the simulated camera was unplugged"))
        if self.shown is not None:
            rng = random.Random(self._rng.getrandbits(32))
            return render(self.style, self.shown, rng, scene=random_scene(rng))
        with self._lock:
            out = self.toy.dice_out()
            if not out:
                self._scenes.clear()
                self._light = self._rng.getrandbits(32)
                self._surface = self._rng.choice(BACKGROUNDS)
            dice = []
            for key in sorted(
                out, key=lambda k: list(self._scenes).index(k) if k in self._scenes else 99
            ):
                try:
                    face = self.toy.face(key)
                except ValueError:
                    continue  # no die was hidden there (a missing die)
                if key not in self._scenes:
                    self._scenes[key] = self._place(random_scene)
                dice.append((face, self._scenes[key]))
            surface = getattr(self, "_surface", "grey")
            frame_seed = self._rng.getrandbits(32)
        rng = random.Random(frame_seed)
        if not dice:  # an empty table
            scene = Scene(90, (-500.0, -500.0), 0.0, surface, self._light)
            return render(self.style, 1, rng, scene=scene, light_seed=self._light)
        *others, (face, scene) = dice
        scene = Scene(scene.side, scene.centre, scene.angle, surface, self._light)
        return render(self.style, face, rng, scene=scene, others=others, light_seed=self._light)

    def _place(self, random_scene: Callable[[random.Random], Scene]) -> Scene:
        """A spot for a new die, apart from the dice already out."""
        for _ in range(50):
            scene = random_scene(self._rng)
            if all(
                abs(scene.centre[0] - s.centre[0]) > 150 or abs(scene.centre[1] - s.centre[1]) > 150
                for s in self._scenes.values()
            ):
                return scene
        return scene

    def close(self) -> None:
        pass


class Picamera2Camera:
    """The Pi camera through Pi OS's ``python3-picamera2`` (640×480 RGB)."""

    kind = "picamera2"

    def __init__(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraFailed(
                Said(
                    "picamera2 is missing: on Pi OS, sudo apt install python3-picamera2 "
                    "(the installer does it; the venv needs --system-site-packages)"
                )
            ) from None
        try:
            self._cam = Picamera2()
            config = self._cam.create_still_configuration(
                main={"size": (640, 480), "format": "RGB888"}
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # the library raises bare RuntimeErrors
            raise CameraFailed(Said("the Pi camera did not start: {exc}", exc=exc)) from None

    def grab(self) -> np.ndarray:
        try:
            frame = self._cam.capture_array("main")
        except Exception as exc:
            raise CameraFailed(Said("the Pi camera gave no frame: {exc}", exc=exc)) from None
        # picamera2's "RGB888" is B, G, R in memory
        return np.ascontiguousarray(frame[:, :, 2::-1])

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:
            pass


class UsbCamera:
    """A USB webcam through OpenCV's ``VideoCapture``, asked for 640×480: a device number
    (``/dev/videoN``), a device path, or a video file (replayed; tests and demos)."""

    kind = "usb"

    def __init__(self, source: int | str = 0) -> None:
        import cv2

        self._cv2 = cv2
        self._cap = cv2.VideoCapture(source)
        if not self._cap.isOpened():
            where = f"/dev/video{source}" if isinstance(source, int) else source
            raise CameraFailed(Said("no USB camera or readable video at {where}", where=where))
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, 640)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, 480)

    def grab(self) -> np.ndarray:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraFailed(Said("the USB camera gave no frame"))
        return self._cv2.cvtColor(frame, self._cv2.COLOR_BGR2RGB)

    def close(self) -> None:
        self._cap.release()


def open_camera(
    value: str, toy: Toy | None = None, style: str = "ivory", seed: int | None = None
) -> FrameSource | None:
    """The camera for a ``--camera`` value (``None`` for ``none``); :class:`CameraFailed`."""
    kind, index = parse_kind(value)
    if kind == "none":
        return None
    if kind == "simulated":
        if toy is None:
            raise CameraFailed(
                Said("--camera simulated draws the simulated toy's dice: use --box simulated")
            )
        return SimulatedCamera(toy, style, seed)
    if kind == "picamera2":
        return Picamera2Camera()
    return UsbCamera(index)
