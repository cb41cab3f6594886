"""Teufel Teufel's config section ``[teufel]``, declared as data (see
:mod:`controller.games.section`)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.games.base import Said
from controller.games.section import Key, Section, strings

from .board import DEFAULT_VINES
from .cards import DEFAULT_COLOURS


@dataclass
class TeufelSection:
    """``colours``: the board's six sled colours; ``vines``: its six vine squares."""

    colours: list[str]
    vines: list[str]


def _six_colours(value: object) -> Said | None:
    wrong = strings(value)
    if wrong is None and isinstance(value, list) and len(value) == len(set(value)) == 6:
        return None
    return wrong or Said("must name six distinct colours")


SECTION = Section(
    "teufel",
    TeufelSection,
    (
        Key("colours", (list,), list(DEFAULT_COLOURS), _six_colours),
        Key("vines", (list,), list(DEFAULT_VINES), strings),
    ),
)
