"""Le Diable sauteur's config section ``[sauteur]``, declared as data (see
:mod:`controller.games.section`)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.games.base import Said
from controller.games.section import Key, Section, one_of


@dataclass
class SauteurSection:
    """``rule``: A (the chase) or B (the race) for a new game; ``rounds``: how many
    (``None``: the rule's own count); ``number_faces``: the dice's faces, 1-99 or
    ``"devil"``."""

    rule: str
    rounds: int | None
    number_faces: list[int | str]


def _faces(value: object) -> Said | None:
    if isinstance(value, list) and value and all(_face(face) for face in value):
        return None
    return Said('faces are numbers 1-99 or "devil"')


def _face(face: object) -> bool:
    return (isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= 99) or (
        face == "devil"
    )


SECTION = Section(
    "sauteur",
    SauteurSection,
    (
        Key("rule", (str,), "A", one_of(("A", "B"), Said("must be 'A' or 'B'"))),
        Key("rounds", (int,), None),
        Key("number_faces", (list,), [1, 2, 3, 4, 5, 6], _faces),
    ),
)
