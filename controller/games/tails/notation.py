"""The one-line notation of a placement: ``14n:E2`` (cell, kind, rotation) or ``pass``."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..base import Said
from .cards import SYMMETRIC

_PLACE = re.compile(r"^(?P<cell>[^:\s]+)\s*:\s*(?P<kind>[A-Za-z])(?P<rotation>[0-9]?)$")


class NotationError(ValueError):
    """Text that is not a placement in the notation; the message says what was expected."""


def parse_move(text: str) -> dict[str, object]:
    """``"14n:E2"`` → ``{"type": "place", "cell": "14n", "kind": "E", "rotation": 2}``;
    ``"pass"`` → ``{"type": "pass"}``. The kind letter may be lower case; A/B/C may omit
    the rotation. Whether the cell, kind and rotation exist is for the rules to say.
    Raises NotationError."""
    stripped = text.strip()
    if stripped.lower() == "pass":
        return {"type": "pass"}
    match = _PLACE.match(stripped)
    if match is None:
        raise NotationError(
            Said(
                "cannot read {stripped!r}: expected a placement like 14n:E2, or pass",
                stripped=stripped,
            )
        )
    action: dict[str, object] = {
        "type": "place",
        "cell": match.group("cell"),
        "kind": match.group("kind").upper(),
    }
    if match.group("rotation"):
        action["rotation"] = int(match.group("rotation"))
    return action


def format_move(action: Mapping[str, object]) -> str:
    """The notation of an accepted action (rotation normalised to 0 for A/B/C)."""
    if action["type"] == "pass":
        return "pass"
    kind = action["kind"]
    rotation = 0 if kind in SYMMETRIC else action["rotation"]
    return f"{action['cell']}:{kind}{rotation}"
