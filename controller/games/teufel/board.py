"""The 7×7 board: square names, neighbours and distances.

Squares are named like a chess board (files ``a``–``g`` left to right, ranks
``1``–``7`` bottom to top) and stored as indexes 0–48 (``a1`` = 0, ``b1`` = 1,
…, ``g7`` = 48).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..base import Said

FILES = "abcdefg"
SIZE = 7
SQUARES = SIZE * SIZE
DEVIL_FACE = 3 + 3 * SIZE
"""``d4``, where the devil pegs live."""

DEFAULT_VINES = ("b2", "f2", "d1", "d7", "b6", "f6")


NAMES = tuple(f"{FILES[square % SIZE]}{square // SIZE + 1}" for square in range(SQUARES))


def name(square: int) -> str:
    """``0`` → ``"a1"``."""
    return NAMES[square]


def names(squares: Iterable[int]) -> list[str]:
    """Names of some squares, in board order."""
    return [name(square) for square in sorted(squares)]


def parse(text: object) -> int:
    """``"c4"`` → its index; raises ``ValueError`` for anything else."""
    if (
        not isinstance(text, str)
        or len(text) != 2
        or text[0] not in FILES
        or text[1] not in "1234567"
    ):
        raise ValueError(
            Said("{text!r} is not a square: use a file a-g and a rank 1-7, like 'c4'", text=text)
        )
    return FILES.index(text[0]) + (int(text[1]) - 1) * SIZE


def distance(a: int, b: int) -> int:
    """Manhattan distance in steps."""
    return abs(a % SIZE - b % SIZE) + abs(a // SIZE - b // SIZE)


def _neighbours(square: int) -> tuple[int, ...]:
    file, rank = square % SIZE, square // SIZE
    around = []
    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        f, r = file + df, rank + dr
        if 0 <= f < SIZE and 0 <= r < SIZE:
            around.append(f + r * SIZE)
    return tuple(around)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(s) for s in range(SQUARES))
"""Orthogonal neighbours of each square (up, right, down, left where on the board)."""
