"""A calibration profile: what one toy's dice look like to the reader (a small JSON file).

Format ``diablotin-faces/1`` (documented in docs/camera.md)::

    {"format": "diablotin-faces/1", "created": "...", "images": 42,
     "die_colour": [r, g, brightness], "pip_colour": [r, g, brightness],
     "brightness_weight": 0.7, "die_threshold": 14.0,
     "die_side": 90.0, "pip_area": 60.0,
     "answer_threshold": 0.5, "auto_threshold": 0.7,
     "templates": {"1": [[576 numbers], ...], ..., "devil": [...]}}

Colours are :func:`controller.camera.reader.colour_features` values; sizes are pixels of a
640×480 frame. ``answer_threshold``: below it ``faces read`` answers null;
``auto_threshold``: at or above it the box journals a read with no tap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..games.base import Said

FORMAT = "diablotin-faces/1"
DEVIL = "devil"
FACES: tuple[int | str, ...] = (1, 2, 3, 4, 5, 6, DEVIL)
FACE_NAMES = tuple(str(f) for f in FACES)
DEFAULT_NAME = "faces-profile.json"
"""The service's default profile, in the data dir."""


class ProfileError(ValueError):
    """A profile file that cannot be used: missing, not JSON, wrong format or version."""


def face_from_name(name: str) -> int | str:
    return DEVIL if name == DEVIL else int(name)


@dataclass
class Profile:
    die_colour: list[float]
    pip_colour: list[float]
    die_side: float
    pip_area: float
    die_threshold: float
    templates: dict[str, list[list[float]]]
    brightness_weight: float = 0.7
    answer_threshold: float = 0.5
    auto_threshold: float = 0.7
    created: str = ""
    images: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def _matrix(self) -> tuple[np.ndarray, list[int | str]]:
        rows: list[list[float]] = []
        labels: list[int | str] = []
        for name, vectors in self.templates.items():
            rows += vectors
            labels += [face_from_name(name)] * len(vectors)
        return np.array(rows, np.float32), labels

    def template_matrix(self) -> np.ndarray:
        return self._matrix[0]

    def template_labels(self) -> list[int | str]:
        return self._matrix[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "created": self.created,
            "images": self.images,
            "die_colour": [round(v, 3) for v in self.die_colour],
            "pip_colour": [round(v, 3) for v in self.pip_colour],
            "brightness_weight": self.brightness_weight,
            "die_threshold": round(self.die_threshold, 3),
            "die_side": round(self.die_side, 2),
            "pip_area": round(self.pip_area, 2),
            "answer_threshold": self.answer_threshold,
            "auto_threshold": self.auto_threshold,
            "templates": {
                k: [[round(x, 4) for x in v] for v in vs] for k, vs in self.templates.items()
            },
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
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProfileError(Said("{path}: not a {form} profile", path=path, form=FORMAT))
    try:
        templates = data["templates"]
        if set(templates) != set(FACE_NAMES) or not all(templates.values()):
            raise ProfileError(
                Said(
                    "{path}: templates must cover faces {names}",
                    path=path,
                    names=", ".join(FACE_NAMES),
                )
            )
        return Profile(
            die_colour=[float(v) for v in data["die_colour"]],
            pip_colour=[float(v) for v in data["pip_colour"]],
            die_side=float(data["die_side"]),
            pip_area=float(data["pip_area"]),
            die_threshold=float(data["die_threshold"]),
            templates={k: [[float(x) for x in v] for v in vs] for k, vs in templates.items()},
            brightness_weight=float(data["brightness_weight"]),
            answer_threshold=float(data["answer_threshold"]),
            auto_threshold=float(data["auto_threshold"]),
            created=str(data.get("created", "")),
            images=int(data.get("images", 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ProfileError):
            raise
        raise ProfileError(Said("{path}: damaged profile ({exc!r})", path=path, exc=exc)) from None
