"""Following the devils' tails and scoring them.

``cards`` is a tuple over cells: −1 for an empty cell, else the card's code
(see :mod:`.cards`). From a devil's body the tail enters the body's cell, follows
the card's piece to its other point, crosses into the neighbour, and so on until
it leaves the board (at a body or a tail end) or reaches an empty cell (open).
Every pass through a cell counts 1.

Points: ending at a tail end scores the length; ending at a body scores 0; an
open tail shows its length so far as provisional points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .board import BODY, TAIL_END, Board
from .cards import LINKS

End = Literal["tail", "body", "open"]


@dataclass(frozen=True)
class Tail:
    """One devil's tail as it stands."""

    devil: int
    length: int
    end: End
    end_devil: int
    """The devil whose body or tail end the tail reached; −1 while open."""
    points: int
    segments: tuple[tuple[int, int, int], ...]
    """(cell, point in, point out) for each pass, in order from the body."""

    @property
    def provisional(self) -> bool:
        return self.end == "open"

    @property
    def cells(self) -> tuple[int, ...]:
        return tuple(segment[0] for segment in self.segments)


def follow(neighbour: Sequence[int], cards: Sequence[int], start: int) -> tuple[int, int, bool]:
    """Walk from flat point ``start`` (entering its cell there).

    Returns ``(passes, flat, is_open)``: the number of cells passed through, and
    either the boundary point where the walk left the board (``is_open`` False)
    or the point where it entered an empty cell (``is_open`` True).
    """
    passes = 0
    current = start
    while True:
        cell6 = current - current % 6
        code = cards[cell6 // 6]
        if code < 0:
            return passes, current, True
        out = cell6 + LINKS[code][current - cell6]
        passes += 1
        current = neighbour[out]
        if current < 0:
            return passes, out, False


def devil_points(board: Board, cards: Sequence[int]) -> list[int]:
    """Points of every devil (devil index order); the fast path, no segments."""
    neighbour = board.neighbour
    end_kind = board.end_kind
    result = []
    for body in board.body:
        length, flat, is_open = follow(neighbour, cards, body)
        result.append(length if is_open or end_kind[flat] == TAIL_END else 0)
    return result


def side_totals(board: Board, players: int, points: Sequence[int]) -> list[int]:
    """Sum of ``points`` per side, in the board's side order for ``players``."""
    return [sum(points[d] for d in group) for group in board.sides[players]]


def score(board: Board, cards: Sequence[int], players: int) -> tuple[list[int], list[int]]:
    """(points per devil, totals per side) — provisional while tails are open."""
    points = devil_points(board, cards)
    return points, side_totals(board, players, points)


def trace(board: Board, cards: Sequence[int], devil: int) -> Tail:
    """The full tail of ``devil``, with each pass through a cell."""
    neighbour = board.neighbour
    segments: list[tuple[int, int, int]] = []
    current = board.body[devil]
    while True:
        cell, point = divmod(current, 6)
        code = cards[cell]
        if code < 0:
            return Tail(devil, len(segments), "open", -1, len(segments), tuple(segments))
        out_point = LINKS[code][point]
        segments.append((cell, point, out_point))
        out = cell * 6 + out_point
        current = neighbour[out]
        if current < 0:
            break
    length = len(segments)
    kind = board.end_kind[out]
    if kind == BODY:
        return Tail(devil, length, "body", board.end_devil[out], 0, tuple(segments))
    return Tail(devil, length, "tail", board.end_devil[out], length, tuple(segments))


def trace_all(board: Board, cards: Sequence[int]) -> list[Tail]:
    return [trace(board, cards, devil) for devil in range(len(board.devils))]
