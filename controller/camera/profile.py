"""A calibration profile: what one toy's dice look like to the reader (a small JSON file).

Format ``diablotin-faces/2`` (documented in docs/camera.md)::

    {"format": "diablotin-faces/2", "created": "...", "images": 12,
     "faces_seen": ["3", "5", "devil"], "die_side": 90.0,
     "pip_area": 0.02, "pip_polarity": "dark",
     "devil_threshold": 0.45, "answer_threshold": 0.5, "auto_threshold": 0.7,
     "devil": [[900 numbers], ...], "numbers": [[900 numbers], ...]}

``die_side`` is pixels of a 640×480 frame (a preference when finding the die, not a gate);
``pip_area`` a fraction of the die's top; ``devil`` and ``numbers`` are HOG descriptors
(:func:`controller.camera.hog.hog`) of the calibration photos' tops in 4 rotations (the
numbers also of drawn faces). ``answer_threshold``: below it ``faces read`` answers null;
``auto_threshold``: at or above it the box journals a read with no tap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ..sentences import Said

FORMAT = "diablotin-faces/2"
DEVIL = "devil"
FACES: tuple[int | str, ...] = (1, 2, 3, 4, 5, 6, DEVIL)
FACE_NAMES = tuple(str(f) for f in FACES)
DEFAULT_NAME = "faces-profile.json"
"""The service's default profile, in the data dir."""
POLARITIES = ("dark", "light", "either")


class ProfileError(ValueError):
    """A profile file that cannot be used: missing, not JSON, wrong format or version."""


def face_from_name(name: str) -> int | str:
    return DEVIL if name == DEVIL else int(name)


def pip_darks(polarity: str) -> tuple[bool, ...]:
    """Which pips to look for, by a profile's ``pip_polarity``: dark ones (``(True,)``),
    light ones (``(False,)``), or both (``either``, or anything else)."""
    return {"dark": (True,), "light": (False,)}.get(polarity, (True, False))


@dataclass
class Profile:
    die_side: float
    pip_area: float
    pip_polarity: str
    devil: list[list[float]]
    numbers: list[list[float]]
    devil_threshold: float
    answer_threshold: float = 0.5
    auto_threshold: float = 0.7
    faces_seen: list[str] = field(default_factory=list)
    created: str = ""
    images: int = 0

    @cached_property
    def _matrices(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.devil, np.float32), np.array(self.numbers, np.float32)

    def devil_distances(self, descriptor: np.ndarray) -> tuple[float, float]:
        """Distance (0–2, unit vectors) from ``descriptor`` to the nearest devil example
        and to the nearest number example."""
        devil, numbers = self._matrices
        d_devil = float(np.sqrt(max(0.0, 2 - 2 * float((devil @ descriptor).max()))))
        d_number = float(np.sqrt(max(0.0, 2 - 2 * float((numbers @ descriptor).max()))))
        return d_devil, d_number

    def to_json(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "created": self.created,
            "images": self.images,
            "faces_seen": self.faces_seen,
            "die_side": round(self.die_side, 2),
            "pip_area": round(self.pip_area, 5),
            "pip_polarity": self.pip_polarity,
            "devil_threshold": round(self.devil_threshold, 4),
            "answer_threshold": self.answer_threshold,
            "auto_threshold": self.auto_threshold,
            "devil": [[round(x, 4) for x in v] for v in self.devil],
            "numbers": [[round(x, 4) for x in v] for v in self.numbers],
        }

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json()) + "\n", encoding="utf-8")
        tmp.replace(path)


def load_profile(path: Path) -> Profile:
    """Read a profile; :class:`ProfileError` (with the path and reason) if it is unusable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(
            Said("{path}: no such profile (make one with diablotin faces calibrate)", path=path)
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(Said("{path}: not a profile ({exc})", path=path, exc=exc)) from None
    if isinstance(data, dict) and data.get("format") == "diablotin-faces/1":
        raise ProfileError(Said("{path}: a profile of an older reader: calibrate again", path=path))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProfileError(Said("{path}: not a {form} profile", path=path, form=FORMAT))
    try:
        polarity = str(data["pip_polarity"])
        if polarity not in POLARITIES or not data["devil"] or not data["numbers"]:
            raise ValueError(polarity)
        return Profile(
            die_side=float(data["die_side"]),
            pip_area=float(data["pip_area"]),
            pip_polarity=polarity,
            devil=[[float(x) for x in v] for v in data["devil"]],
            numbers=[[float(x) for x in v] for v in data["numbers"]],
            devil_threshold=float(data["devil_threshold"]),
            answer_threshold=float(data["answer_threshold"]),
            auto_threshold=float(data["auto_threshold"]),
            faces_seen=[str(f) for f in data.get("faces_seen", [])],
            created=str(data.get("created", "")),
            images=int(data.get("images", 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ProfileError(Said("{path}: damaged profile ({exc!r})", path=path, exc=exc)) from None
