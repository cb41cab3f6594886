"""Rule A's values for every position at once, with numpy: the table behind ``optimal``.

A *position* is (devil's square ``d``, the squares of the figures still in play, sorted,
figures arrived). :class:`ChaseIndex` numbers every position densely (316,254 on the default
50-square track): a block per (devil square, figures in play), inside it the combinatorial
rank of the figures' squares (relative to the devil) times the possible arrival counts.

:func:`solve` fills, for one utility (what 0–3 figures arrived are worth):

- ``start`` (key 0): the value when a hiding starts (the popper must pop a key);
- ``inner[mask]``: the value after numbers from the keys in ``mask`` (bit ``k-1`` = key ``k``,
  one or two numbers out): ask for a new hiding (``start`` here) or pop on. With three
  numbers out the only move is a new hiding, so that level is ``start``.

Every pop strictly raises the potential ``d + Σ squares`` (a figure out of play counts as the
track's length), and a new hiding at the same position needs a pop first, so every value
depends only on positions of higher potential: the positions are solved in falling potential,
one vector operation per level (about 200). That is the exact solve, checked against an
independent expectimax at every position of a reduced track. Solved in float64 and kept as
float32 (about 1e-7): 11 vectors, 13.9 MB a utility on the default track; about 1 s a utility
plus 1 s for the moves, shared by the utilities of a track. Pure: no I/O (the data-dir cache
is :mod:`controller.solver_cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from controller.games.sauteur.cancel import Flag, check
from controller.games.sauteur.rules import KEYS, MAX_NUMBERS, SauteurConfig
from controller.games.sauteur.solve_b import devil_chance, face_model

Figures = tuple[int, ...]
Utility = tuple[float, float, float, float]
Vector = npt.NDArray[np.float32]
Indices = npt.NDArray[np.int64]
Successors = npt.NDArray[np.int32]
Values = npt.NDArray[np.float64]
ChaseTables = dict[int, Vector]
"""One utility's tables: ``{0: start, mask: inner[mask], ...}``."""

FIGURES = 3
"""Rule A's figures (the index assumes at most three)."""

MASKS = tuple(m for m in range(1, 16) if 1 <= bin(m).count("1") < MAX_NUMBERS)
"""The masks with one or two numbers out: the stored ``inner`` levels (10)."""


def _multisets(n: int, k: int) -> int:
    """Sorted ``k``-tuples of ``n`` squares (repeats allowed)."""
    if k == 0:
        return 1
    top = n + k - 1
    if top < k:
        return 0
    out = 1
    for i in range(k):
        out = out * (top - i) // (i + 1)
    return out


class ChaseIndex:
    """Dense numbers for the positions of one track (``track`` squares, figures arrive there)."""

    def __init__(self, track: int) -> None:
        self.track = track
        base = np.zeros((track + 1, FIGURES + 1), dtype=np.int64)
        offset = 0
        for d in range(track + 1):
            free = max(track - 1 - d, 0)
            for k in range(FIGURES + 1):
                base[d, k] = offset
                offset += _multisets(free, k) * (FIGURES + 1 - k)
        self.base = base
        self._base = base.tolist()
        self._d_terms: dict[int, tuple[Indices, Indices, Indices, Indices]] = {}
        self.size = offset

    def index(self, d: int, figs: Figures, arrived: int) -> int:
        """The number of one position (``figs`` sorted, each ``d < x < track``)."""
        k = len(figs)
        rank = 0
        for i, x in enumerate(figs):
            c = x - d - 1 + i
            rank += c if i == 0 else c * (c - 1) // 2 if i == 1 else c * (c - 1) * (c - 2) // 6
        base: int = self._base[d][k]
        return base + rank * (FIGURES + 1 - k) + arrived

    def indices(self, d: Indices, figs: Indices, arrived: Indices) -> Indices:
        """Vectorised :meth:`index`: ``figs`` is (N, 3), sorted rows, ``track`` = no figure."""
        return self.split_indices(d, figs[:, 0], figs[:, 1], figs[:, 2], arrived)

    def split_indices(
        self, d: Indices | int, f0: Indices, f1: Indices, f2: Indices, arrived: Indices
    ) -> Indices:
        """:meth:`indices` of the figures ``f0 <= f1 <= f2`` given as arrays of any one
        shape (``d`` and ``arrived`` broadcast with them)."""
        track = self.track
        if isinstance(d, int):  # one devil square: each figure's share looked up
            count, first, second, third = self._terms(d)
            k = count[f0] + count[f1] + count[f2]
            rank = first[f0] + second[f1] + third[f2]
            found: Indices = self.base[d][k] + rank * (FIGURES + 1 - k) + arrived
            return found
        here0, here1, here2 = f0 < track, f1 < track, f2 < track
        k = here0.astype(np.int64) + here1 + here2
        c0 = np.where(here0, f0 - d - 1, 0)
        c1 = np.where(here1, f1 - d, 0)
        c2 = np.where(here2, f2 - d + 1, 0)
        rank = c0 + c1 * (c1 - 1) // 2 + c2 * (c2 - 1) * (c2 - 2) // 6
        out: Indices = self.base[d, k] + rank * (FIGURES + 1 - k) + arrived
        return out

    def _terms(self, d: int) -> tuple[Indices, Indices, Indices, Indices]:
        """Per square (the track's length: no figure), with the devil on ``d``: whether a
        figure is there, and its term in the rank as the first, second or third figure."""
        found = self._d_terms.get(d)
        if found is None:
            x = np.arange(self.track + 1, dtype=np.int64)
            here = x < self.track
            c0, c1, c2 = (np.where(here, x - d - 1 + i, 0) for i in range(FIGURES))
            found = self._d_terms[d] = (
                here.astype(np.int32),
                c0.astype(np.int32),
                (c1 * (c1 - 1) // 2).astype(np.int32),
                (c2 * (c2 - 1) * (c2 - 2) // 6).astype(np.int32),
            )
        return found

    def positions(self) -> tuple[Indices, Indices, Indices]:
        """Every position, in index order: (devil squares, figures (N, 3), arrived)."""
        ds, figs, arrived = [], [], []
        track = self.track
        for d in range(track + 1):
            for k in range(FIGURES + 1):
                squares = range(d + 1, track) if d < track else range(0)
                for combo in combinations_with_replacement(squares, k):
                    row = (*combo, *(track,) * (FIGURES - k))
                    for a in range(FIGURES + 1 - k):
                        ds.append(d)
                        figs.append(row)
                        arrived.append(a)
        d_, figs_, arrived_ = (
            np.array(ds, dtype=np.int64),
            np.array(figs, dtype=np.int64).reshape(-1, FIGURES),
            np.array(arrived, dtype=np.int64),
        )
        order = np.argsort(self.indices(d_, figs_, arrived_))
        return d_[order], figs_[order], arrived_[order]


class ChaseMoves:
    """Every position's successors (``-1``: no such figure), shared by the utilities of a track."""

    def __init__(self, config: SauteurConfig) -> None:
        self.index = ChaseIndex(config.track_length)
        self.q, self.shares = face_model(config.number_faces)
        track = config.track_length
        d, figs, arrived = self.index.positions()
        self.arrived = arrived
        self.terminal = np.flatnonzero(figs[:, 0] >= track)
        present = figs < track
        self.potential = d + figs.sum(axis=1)
        self.devil: dict[int, Successors] = {}
        for key in KEYS:
            reach = np.minimum(d + config.devil_multiplier * key, track)
            caught = np.where(present & (figs <= reach[:, None]), track, figs)
            succ = self.index.indices(reach, np.sort(caught, axis=1), arrived)
            self.devil[key] = succ.astype(np.int32)
        self.number: dict[int, list[Successors]] = {}
        amounts = sorted({key * v for key in KEYS for v, _ in self.shares})
        for amount in amounts:
            choices = []
            for c in range(FIGURES):
                moved = figs.copy()
                target = figs[:, c] + amount
                home = target >= track
                moved[:, c] = np.where(home, track, target)
                valid = present[:, c] & ((c == 0) | (figs[:, c] != figs[:, c - 1]))
                succ = self.index.indices(d, np.sort(moved, axis=1), arrived + home)
                choices.append(np.where(valid, succ, -1).astype(np.int32))
            self.number[amount] = choices


def _best_move(values: Values, choices: list[Successors], rows: Indices | slice) -> Values:
    """The best figure to move for each row: max over the choices' values (``-1``: none)."""
    best: Values | None = None
    for succ in choices:
        picked = succ[rows]
        worth = np.where(picked >= 0, values[picked], -1.0)
        best = worth if best is None else np.maximum(best, worth)
    assert best is not None
    return best


def _pop(
    moves: ChaseMoves,
    key: int,
    numbers_seen: int,
    after_devil: Values,
    after_number: Values,
    rows: Indices | slice,
) -> Values:
    """Value of popping ``key`` with ``numbers_seen`` numbers out, for ``rows``."""
    p = devil_chance(numbers_seen, moves.q)
    expected = np.zeros(len(moves.arrived[rows]), dtype=np.float64)
    for v, share in moves.shares:
        expected += share * _best_move(after_number, moves.number[key * v], rows)
    out: Values = p * after_devil[moves.devil[key][rows]] + (1 - p) * expected
    return out


def solve(moves: ChaseMoves, goal: Sequence[float], cancel: Flag | None = None) -> ChaseTables:
    """The tables for ``goal``: ``{0: start, mask: inner[mask] ...}`` (see the module's doc),
    solved in float64 and kept as float32; raises :class:`.cancel.Cancelled` once ``cancel``
    is set."""
    size = moves.index.size
    terminal, arrived = moves.terminal, moves.arrived
    tables: dict[int, Values] = {0: np.zeros(size)} | {mask: np.zeros(size) for mask in MASKS}
    worth = np.array(goal, dtype=np.float64)[arrived[terminal]]
    for table in tables.values():
        table[terminal] = worth
    start = tables[0]
    live = np.ones(size, dtype=bool)
    live[terminal] = False
    order = np.argsort(-moves.potential, kind="stable")
    order = order[live[order]]
    levels = np.flatnonzero(np.diff(moves.potential[order])) + 1

    def after(mask: int) -> Values:
        """The table that follows numbers from ``mask`` (three numbers: a new hiding)."""
        return tables[mask] if bin(mask).count("1") < MAX_NUMBERS else start

    for rows in np.split(order, levels):
        check(cancel)
        best = np.full(len(rows), -1.0)
        for key in KEYS:
            bit = 1 << (key - 1)
            best = np.maximum(best, _pop(moves, key, 0, start, after(bit), rows))
        start[rows] = best
        for numbers in range(MAX_NUMBERS - 1, 0, -1):
            for mask in (m for m in MASKS if bin(m).count("1") == numbers):
                best = start[rows]
                for key in KEYS:
                    bit = 1 << (key - 1)
                    if not mask & bit:
                        pop = _pop(moves, key, numbers, start, after(mask | bit), rows)
                        best = np.maximum(best, pop)
                tables[mask][rows] = best
    return {mask: table.astype(np.float32) for mask, table in tables.items()}


class ChaseTable:
    """One utility's solved values, looked up one position at a time (a few µs each).

    ``hiding(d, figs, arrived)``: a hiding's start, later hidings popping one die each;
    ``inner(d, figs, arrived, mask)``: after numbers from the keys in ``mask``, exact within
    this hiding; ``pop``, ``start`` and ``advance`` as the options' values.
    """

    def __init__(self, config: SauteurConfig, goal: Utility, tables: ChaseTables) -> None:
        self.track = config.track_length
        self.multiplier = config.devil_multiplier
        self.q, self.shares = face_model(config.number_faces)
        self.goal = goal
        self.tables = tables
        self.index = ChaseIndex(config.track_length)

    def devil_move(self, d: int, figs: Figures, key: int) -> tuple[int, Figures]:
        """(devil's new square, figures still in play) after a devil from ``key``."""
        reach = min(d + self.multiplier * key, self.track)
        return reach, tuple(x for x in figs if x > reach)

    def number_moves(self, figs: Figures, squares: int) -> list[tuple[Figures, int]]:
        """Each distinct choice of figure to move ``squares``: (figures after, arrivals)."""
        out: list[tuple[Figures, int]] = []
        for i, x in enumerate(figs):
            if i and figs[i - 1] == x:
                continue
            rest = figs[:i] + figs[i + 1 :]
            target = x + squares
            if target >= self.track:
                out.append((rest, 1))
            else:
                out.append((tuple(sorted((*rest, target))), 0))
        return out

    def _value(self, mask: int, d: int, figs: Figures, arrived: int) -> float:
        if not figs:
            return self.goal[arrived]
        table = self.tables[mask if bin(mask).count("1") < MAX_NUMBERS else 0]
        return float(table[self.index.index(d, figs, arrived)])

    def hiding(self, d: int, figs: Figures, arrived: int) -> float:
        return self._value(0, d, figs, arrived)

    def inner(self, d: int, figs: Figures, arrived: int, mask: int) -> float:
        return self._value(mask, d, figs, arrived)

    def pop(self, d: int, figs: Figures, arrived: int, mask: int, key: int) -> float:
        """Value of popping ``key`` now (keys in ``mask`` gave numbers this hiding)."""
        p = devil_chance(bin(mask).count("1"), self.q)
        reach, left = self.devil_move(d, figs, key)
        after = mask | 1 << (key - 1)
        value = 0.0
        for v, share in self.shares:
            value += share * max(
                self.inner(d, moved, arrived + gone, after)
                for moved, gone in self.number_moves(figs, key * v)
            )
        return p * self.hiding(reach, left, arrived) + (1 - p) * value

    def start(self, d: int, figs: Figures, arrived: int) -> float:
        """Value at a hiding's start, this hiding played exactly."""
        if not figs:
            return self.goal[arrived]
        return max(self.pop(d, figs, arrived, 0, key) for key in KEYS)

    def advance(self, d: int, figs: Figures, arrived: int, mask: int, squares: int) -> list[float]:
        """Value of moving each figure of ``figs`` (by index) ``squares`` squares."""
        values = []
        for i, x in enumerate(figs):
            rest = figs[:i] + figs[i + 1 :]
            target = x + squares
            if target >= self.track:
                values.append(self.inner(d, rest, arrived + 1, mask))
            else:
                values.append(self.inner(d, tuple(sorted((*rest, target))), arrived, mask))
        return values

    def size(self) -> int:
        """Values held."""
        return sum(len(t) for t in self.tables.values())
