"""The tail-tile game's config section ``[tails]``, declared as data (see
:mod:`controller.games.section`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.games.base import Said
from controller.games.section import Key, Section


@dataclass
class TailsSection:
    """``board``: a board file of one's own (absolute once loaded); empty: the built-in
    board."""

    board: str


def _board_file(value: object) -> Said | None:
    if not value or Path(str(value)).is_file():
        return None
    return Said("no board file at {board}", board=value)


SECTION = Section("tails", TailsSection, (Key("board", (str,), "", _board_file, path=True),))
