"""One rule-A hiding's whole tree as numpy arrays: the popper's best reply to any
placement by one backward pass (the fast path of :func:`.hider.best_reply`).

A hiding's positions are grouped by the keys popped so far (a mask): the group ``m``
holds every position (figures in play, arrived; the devil does not move inside a hiding)
reachable after numbers from the keys in ``m``. The groups with the same number of keys
popped make a level, their rows one after another. They are built once per hiding
(:class:`ChaseTree`), independent of the hider's placement: each position's value when
the popper stops (a new hiding), its value after a devil from each key, and for each
key, number and figure the position it leads to. Three numbers end the hiding, so the
positions after a third number are never made: popping the last key from two numbers
out is worth the same whatever the placement, and is worked out once
(:meth:`ChaseTree._last_pops`).

:meth:`ChaseTree.values` then gives, for a placement ``y``, every position's payoff per
devil slot under the popper's best reply, a level at a time from two numbers out back
to the hiding's start. It does what :func:`.hider.best_reply` does over a
:class:`.solve_a.ChaseHiding`, operation for operation in the same order (the same
posterior weights, the same sums, the same ties: the first figure, then stop, then the
lowest key), so the payoffs are the same doubles (``tests/games/test_sauteur_chase_tree.py``
checks it on random positions; :meth:`_last_pops` says why it holds there too).
Pure: no I/O.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from controller.games.sauteur import compiled
from controller.games.sauteur.chase_table import FIGURES, ChaseTable, Figures
from controller.games.sauteur.hider import GAP, ROUNDS, UNIFORM, Equilibrium, Vector
from controller.games.sauteur.rules import KEYS, MAX_NUMBERS

Ints = npt.NDArray[np.signedinteger[Any]]
"""Squares, keys, arrivals (int32), position numbers and rows (int64)."""
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

Solved = tuple[list[Floats], list[Floats], Floats]
"""For one placement, per level: every row's payoffs per devil slot under the best reply
(rows + 1, 4: the last a pad, 0), and each option's (rows, options, 4); and the
posteriors (:func:`posteriors`)."""

HELD = 24
"""Placements whose values a tree keeps (a hiding's plans and the adaptive reads)."""


def _count(mask: int) -> int:
    return bin(mask).count("1")


_FREE = [[key for key in KEYS if not mask >> (key - 1) & 1] for mask in range(16)]
"""Per mask: the keys not popped, in key order."""
_FREE_ROWS = [
    np.array([(_FREE[mask] + [0] * 4)[: len(KEYS) - numbers] for mask in range(16)], dtype=np.int32)
    for numbers in range(len(KEYS))
]
"""Per number of keys popped, per mask with that many: the keys not popped."""
_POPPED = np.array([[mask >> h & 1 for h in range(4)] for mask in range(16)], dtype=bool)


@dataclass
class _Level:
    """The positions after ``len(mask)`` numbers: the groups' rows one after another
    (each group's sorted by position number), ``free`` keys not popped per row."""

    masks: list[int]
    """The groups, in mask order."""
    bounds: list[int]
    """Where each group's rows start, and one past the last."""
    ids: Ints
    figs: Ints
    """(rows, 3) squares, sorted; the track's length where no figure is."""
    arrived: Ints
    mask: Ints
    """Each row's group."""
    terminal: Bools
    stop: Floats
    """The value of stopping (a new hiding), the goal's where terminal."""
    keys: Ints
    """(rows, free) the keys not popped, in key order."""
    devil: Floats
    """(rows, free) the value after a devil from each of ``keys``."""
    children: Ints
    """(rows, free, numbers, 3) rows of the next level, -1: no such figure (the pad)."""
    under: Bools
    """(rows, free, 4): each key's own slot."""
    popped: Bools
    """(rows, free, 4): the slots of the keys popped before."""
    last: Floats
    """Two numbers out, whatever the placement: (rows, 1 + free, 4) the options' payoffs
    per devil slot (stop, then popping each key)."""


@dataclass(frozen=True)
class _Moves:
    """Positions a level's rows lead to, each (rows, free keys, numbers, figure moved)."""

    valid: Bools
    """Whether that figure is there to move (the first of those on one square)."""
    lower: Ints
    middle: Ints
    upper: Ints
    """The figures after the move, sorted (the track's length: no figure)."""
    lands: Ints
    """Figures arrived after the move."""

    @property
    def figures(self) -> tuple[Ints, Ints, Ints]:
        return self.lower, self.middle, self.upper


@dataclass(frozen=True)
class Group:
    """One group's rows (views into its level)."""

    ids: Ints
    figs: Ints
    arrived: Ints
    terminal: Bools


class ChaseTree:
    """The rule-A hiding that starts at ``start`` = (figures in play, arrived) with the
    devil on square ``devil``, what follows valued by ``values`` (a uniform hider's
    table, as :class:`.solve_a.ChaseHiding`). Building it takes about 2 ms (0.2 ms
    compiled). Raises ``ValueError`` for a start that is no hiding's (no figure in play, a
    figure not between the devil and the track's end, figures out of order, more than
    three figures, a negative count home)."""

    def __init__(self, values: ChaseTable, devil: int, start: tuple[Figures, int]) -> None:
        self.table = values
        self.d = devil
        self.q = values.q
        self.shares = [share for _, share in values.shares]
        self._numbers = np.array([v for v, _ in values.shares], dtype=np.int32)
        self._goal = np.array(values.goal, dtype=np.float64)
        self._values: OrderedDict[Vector, Solved] = OrderedDict()
        self._lock = threading.Lock()
        figs, arrived = start
        if (
            not figs
            or not all(devil < x < values.track for x in figs)
            or list(figs) != sorted(figs)
            or not 0 <= arrived <= arrived + len(figs) <= FIGURES
        ):
            raise ValueError(f"no such rule-A hiding start: figures {figs}, arrived {arrived}")
        row = np.array([[*figs, *(values.track,) * (FIGURES - len(figs))]], dtype=np.int32)
        self._kernels = compiled.kernels()
        if self._kernels is not None:
            self.levels: list[_Level] = self._compiled_levels(row[0], arrived)
        else:
            level = self._level(0, [0], [0, 1], row, np.array([arrived], dtype=np.int32))
            self.levels = [level]
            for numbers in range(MAX_NUMBERS):  # a level at a time: few numpy calls per tree
                moves = self._expand(level)
                if numbers + 1 == MAX_NUMBERS:
                    self._last_pops(level, moves)
                else:
                    level = self._link(level, moves)
                    self.levels.append(level)

    @functools.cached_property
    def groups(self) -> dict[int, Group]:
        """Each group's rows, by mask (up to two numbers out)."""
        return {
            mask: Group(
                lv.ids[begin:end], lv.figs[begin:end], lv.arrived[begin:end], lv.terminal[begin:end]
            )
            for lv in self.levels
            for mask, begin, end in zip(lv.masks, lv.bounds[:-1], lv.bounds[1:], strict=True)
        }

    def _compiled_levels(self, start: Ints, arrived: int) -> list[_Level]:
        """The levels built by the compiled kernel (:mod:`.compiled`): the same arrays."""
        assert self._kernels is not None
        table = self.table
        built = self._kernels.tree_levels(
            start.astype(np.int64), arrived, *(rows.astype(np.int64) for rows in _FREE_ROWS[:3]),
            table.index.base, table.track, self.d, table.multiplier,
            self._numbers.astype(np.int64), np.array(self.shares), float(self.q),
            table.tables[0], self._goal, table.index.size, _thirds(table), _slots(table.index.size),
        )  # fmt: skip
        levels = []
        nothing = np.zeros(0, dtype=bool)
        for n, parts in enumerate(built):
            ids, figs, arrived_, mask, terminal, stop, keys, devil, linked = parts[:9]
            masks, bounds = ([0], [0, 1]) if n == 0 else (parts[9].tolist(), parts[10].tolist())
            children, last = (linked, np.zeros(0)) if n < MAX_NUMBERS - 1 else (nothing, linked)
            levels.append(
                _Level(
                    masks, bounds, ids, figs, arrived_, mask, terminal, stop, keys, devil,
                    children, nothing, nothing, last,
                )
            )  # fmt: skip
        none = np.zeros((0, 0, 0, 0), dtype=np.int64)
        self._compiled_args = (
            tuple(lv.mask for lv in levels),
            tuple(lv.terminal for lv in levels),
            tuple(lv.stop for lv in levels),
            tuple(lv.keys for lv in levels),
            tuple(lv.devil for lv in levels),
            (levels[0].children, levels[1].children, none),
            levels[2].last,
            np.array(self.shares),
            float(self.q),
        )
        return levels

    def _level(
        self, numbers: int, masks: list[int], bounds: list[int], figs: Ints, arrived: Ints
    ) -> _Level:
        table, track = self.table, self.table.track
        ids = table.index.split_indices(self.d, figs[:, 0], figs[:, 1], figs[:, 2], arrived)
        terminal = figs[:, 0] >= track
        stop = np.where(terminal, self._goal[arrived], table.tables[0][ids].astype(np.float64))
        mask = np.repeat(np.array(masks, dtype=np.int64), np.diff(bounds))
        keys = _FREE_ROWS[numbers][mask]
        empty = np.zeros(0)
        return _Level(
            masks, bounds, ids, figs, arrived, mask, terminal, stop, keys, empty,
            np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool), np.zeros(0, dtype=bool), empty,
        )  # fmt: skip

    def _expand(self, level: _Level) -> _Moves:
        """Each row popping each of its free keys: the value after a devil (``devil``),
        and the positions its numbers lead to, one per (row, free key, number, figure
        moved)."""
        table, track = self.table, self.table.track
        free = level.keys.shape[1]
        figs = np.repeat(level.figs, free, axis=0)
        arrived = np.repeat(level.arrived, free)
        keys = level.keys.reshape(-1)
        present = figs < track
        reach = np.minimum(self.d + table.multiplier * keys, track)
        caught = np.sort(np.where(present & (figs <= reach[:, None]), track, figs), axis=1)
        ids = table.index.indices(reach, caught, arrived)
        devil = np.where(
            caught[:, 0] >= track, self._goal[arrived], table.tables[0][ids].astype(np.float64)
        )
        level.devil = devil.reshape(-1, free)
        level.under = level.keys[:, :, None] - 1 == np.arange(4)
        level.popped = np.broadcast_to(_POPPED[level.mask][:, None, :], level.under.shape)
        # The figure moved lands at ``target`` (home: the track's length, no figure), and
        # joins the other two, sorted: (lower, middle, upper) without a sort.
        target = figs[:, None, :] + (keys[:, None] * self._numbers[None, :])[:, :, None]
        home = target >= track
        moved = np.minimum(target, track)
        first = figs[:, None, [1, 0, 0]]  # the others, per figure moved
        second = figs[:, None, [2, 2, 1]]
        lower = np.minimum(first, moved)
        upper = np.maximum(second, moved)
        middle = first + second + moved - lower - upper
        fresh = present.copy()
        fresh[:, 1:] &= figs[:, 1:] != figs[:, :-1]  # one move per square
        shape = (len(level.ids), free, len(self._numbers), FIGURES)
        return _Moves(
            np.broadcast_to(fresh[:, None, :], home.shape).reshape(shape),
            lower.reshape(shape),
            middle.reshape(shape),
            upper.reshape(shape),
            (arrived[:, None, None] + home).reshape(shape),
        )

    def _link(self, level: _Level, moves: _Moves) -> _Level:
        """The next level: the positions of :meth:`_expand`, each in the group of its
        row's mask and key (``children`` points at them)."""
        table, size = self.table, self.table.index.size
        after = level.mask[:, None] | 1 << (level.keys - 1)  # (rows, free)
        after = np.broadcast_to(after[:, :, None, None], moves.valid.shape)
        ids = table.index.split_indices(self.d, moves.lower, moves.middle, moves.upper, moves.lands)
        code = (after * size + ids).reshape(-1)  # np.unique sorts by group, then position
        ok = moves.valid.reshape(-1)
        unique, first = np.unique(code[ok], return_index=True)
        kept = np.flatnonzero(ok)[first]
        rows = np.searchsorted(unique, code).reshape(moves.valid.shape)
        level.children = np.where(moves.valid, rows, -1)
        masks = sorted({int(m) for m in after.reshape(-1)[kept]})
        bounds = np.searchsorted(unique, np.array(masks, dtype=np.int64) * size).tolist()
        figs = np.stack([part.reshape(-1)[kept] for part in moves.figures], axis=1)
        numbers = len(KEYS) - level.keys.shape[1] + 1
        arrived = moves.lands.reshape(-1)[kept]
        return self._level(numbers, masks, [*bounds, len(unique)], figs, arrived)

    def _last_pops(self, level: _Level, moves: _Moves) -> None:
        """Two numbers out: the options (stop, then each free key's pop), whatever the
        placement (``last``). A third number ends the hiding, so each position it may
        lead to is worth its ``stop`` value in every slot, and the popper's figure move
        takes the largest. The reference takes the first figure whose worth ``w x stop``
        is largest, ``w`` > 0 the one free slot's posterior weight: the same figure, as
        the stop values are float32 numbers (the table's; goals of 0, 1/2, 1 or whole
        points), and two different ones times the same ``w`` never round to one double
        (they differ by 2^-24 of their size at least, a product's rounding by 2^-53)."""
        table, track = self.table, self.table.track
        ok = moves.valid
        lands = np.where(ok, moves.lands, 0)  # no such figure: any position, then -inf
        ids = table.index.split_indices(self.d, moves.lower, moves.middle, moves.upper, lands)
        stop = np.where(
            moves.lower >= track, self._goal[lands], table.tables[0][np.where(ok, ids, 0)]
        )
        best = np.where(ok, stop, -np.inf).max(axis=3)  # (rows, free, numbers)
        best[best == -np.inf] = 0.0  # no figure to move (a terminal row): the pad's 0
        total = np.zeros(best.shape[:2])
        for number, share in enumerate(self.shares):
            total += share * best[:, :, number]
        pops = self._pops(level, np.repeat(total[:, :, None], 4, axis=2))
        level.last = np.concatenate([self._stops(level), pops], axis=1)

    @staticmethod
    def _stops(level: _Level) -> Floats:
        """Stopping: (rows, 1, 4) its value in every slot."""
        return np.repeat(level.stop[:, None, None], 4, axis=2)

    def _pops(self, level: _Level, total: Floats) -> Floats:
        """Popping each free key: (rows, free, 4) payoffs per devil slot, from each
        number's expected payoffs ``total`` (rows, free, 4)."""
        devil = level.devil[:, :, None]
        pops: Floats = self.q * devil + (1 - self.q) * total
        # The devil under the key popped: its value; under a key popped before: 0.
        return np.where(level.popped, 0.0, np.where(level.under, devil, pops))

    def values(self, y: Vector) -> dict[int, Floats]:
        """Every position's payoff per devil slot under the best reply to ``y``, per
        group: (rows, 4) (memoised for the last :data:`HELD` placements)."""
        out = self._solved(y)[0]
        return {
            mask: out[n][begin:end]
            for n, lv in enumerate(self.levels)
            for mask, begin, end in zip(lv.masks, lv.bounds[:-1], lv.bounds[1:], strict=True)
        }

    def _solved(self, y: Vector) -> Solved:
        """(every row's payoffs per level, each option's per level) for ``y``."""
        with self._lock:  # the service's worker and solver threads may share a tree
            found = self._values.get(y)
            if found is not None:
                self._values.move_to_end(y)
                return found
        if self._kernels is not None:
            *found, weights = self._kernels.tree_solve(np.array(y), *self._compiled_args)
            return self._keep(y, (list(found[:3]), list(found[3:]), weights))
        weights = posteriors(y)
        out: list[Floats] = [np.zeros(0)] * len(self.levels)
        options: list[Floats] = [np.zeros(0)] * len(self.levels)
        worth = np.zeros(0)
        for n in reversed(range(len(self.levels))):
            level = self.levels[n]
            if n == MAX_NUMBERS - 1:  # two numbers out: the same for every placement
                pops = level.last
            else:
                pops = self._expected(level, out[n + 1], worth)
                if n:  # stop, once a number is out
                    pops = np.concatenate([self._stops(level), pops], axis=1)
            w = weights[level.mask]
            scores = _dot(pops, w[:, None, :])
            rows = len(level.ids)
            picked = pops[np.arange(rows), scores.argmax(axis=1)]
            picked[level.terminal] = level.stop[level.terminal][:, None]
            value = np.vstack([picked, np.zeros((1, 4))])
            worth = np.append(_dot(picked, w), -np.inf)
            out[n], options[n] = value, pops
        return self._keep(y, (out, options, weights))

    def _keep(self, y: Vector, solved: Solved) -> Solved:
        with self._lock:
            self._values[y] = solved
            while len(self._values) > HELD:
                self._values.popitem(last=False)
        return solved

    def _expected(self, level: _Level, child: Floats, worth: Floats) -> Floats:
        """Popping each free key when the next level's rows are worth ``child`` (per
        slot) and ``worth`` (against their posterior; the pad -inf): (rows, free, 4)."""
        rows = level.children  # (rows, free, numbers, 3)
        choice = worth[rows].argmax(axis=3).reshape(-1)
        chosen = child[rows.reshape(-1, FIGURES)[np.arange(len(choice)), choice]]
        chosen = chosen.reshape(*rows.shape[:3], 4)  # (rows, free, numbers, 4)
        total = np.zeros((*rows.shape[:2], 4))
        for number, share in enumerate(self.shares):
            total += share * chosen[:, :, number]
        return self._pops(level, total)

    def row(self, mask: int, inner: tuple[Figures, int]) -> int | None:
        """The row of the position ``inner`` in the group ``mask``, or ``None`` if this
        hiding cannot reach it."""
        n = _count(mask)
        if n >= len(self.levels) or mask not in self.levels[n].masks:
            return None
        level = self.levels[n]
        place = level.masks.index(mask)
        begin, end = level.bounds[place], level.bounds[place + 1]
        figs, arrived = inner
        number = self.table.index.index(self.d, figs, arrived)
        at = int(np.searchsorted(level.ids[begin:end], number))
        return at if begin + at < end and level.ids[begin + at] == number else None

    def reply(self, y: Vector) -> Vector:
        """The best reply to ``y`` from the hiding's start: its payoff per devil slot
        (:func:`.hider.best_reply`'s first answer)."""
        best, options = self.options(y, 0, 0)
        return options[best]

    def options(self, y: Vector, mask: int, row: int) -> tuple[str, dict[str, Vector]]:
        """At the position ``row`` of the group ``mask``: (the best reply's option, each
        option's payoff per devil slot), named as :func:`.hider.best_reply` names them."""
        n, at = self._at(mask, row)
        _, options, weights = self._solved(y)
        found = options[n][at]
        names = (["stop"] if mask else []) + [f"pop {key}" for key in _FREE[mask]]
        rows: list[list[float]] = found.tolist()
        vectors: dict[str, Vector] = {
            name: (v[0], v[1], v[2], v[3]) for name, v in zip(names, rows, strict=True)
        }
        w0, w1, w2, w3 = weights[mask].tolist()
        best, worth = names[0], -np.inf
        for name, v in zip(names, rows, strict=True):  # the first of the most worth
            this = w0 * v[0] + w1 * v[1] + w2 * v[2] + w3 * v[3]
            if this > worth:
                best, worth = name, this
        return best, vectors

    def node(self, y: Vector, mask: int, row: int) -> Vector:
        """The best reply's payoff per devil slot from the position ``row`` of ``mask``."""
        n, at = self._at(mask, row)
        return _vector(self._solved(y)[0][n][at])

    def equilibrium(self) -> Equilibrium | None:
        """The hiding solved on both sides by the compiled double oracle
        (:func:`.compiled._equilibrium`), the same doubles as :func:`.hider.solve_hiding`
        with :meth:`reply` as its ``replier``; ``None`` without the compiled kernels.
        Raises ``ArithmeticError`` as :func:`.hider.solve_hiding` does."""
        if self._kernels is None:
            return None
        y, value, keys, weights, plans, count = self._kernels.equilibrium(
            ROUNDS, GAP, *self._compiled_args
        )
        if not count:
            raise ArithmeticError("hiding equilibrium: the double oracle did not converge")
        return Equilibrium(
            _vector(y),
            float(value),
            tuple(_vector(key) for key in keys),
            tuple(weights.tolist()),
            tuple(_vector(plan) for plan in plans),
        )

    def _at(self, mask: int, row: int) -> tuple[int, int]:
        """(the level of the group ``mask``, the level's row of its ``row``)."""
        n = _count(mask)
        level = self.levels[n]
        return n, level.bounds[level.masks.index(mask)] + row


_THIRDS: weakref.WeakKeyDictionary[ChaseTable, Floats] = weakref.WeakKeyDictionary()
_THIRDS_LOCK = threading.Lock()


def _thirds(table: ChaseTable) -> Floats:
    """The compiled trees' memo for ``table`` (:func:`.compiled._last`): per position and
    key, the expected worth of a third number, NaN until a tree works it out (10 MB on the
    default track, made when first asked for, dropped with the table)."""
    with _THIRDS_LOCK:
        found = _THIRDS.get(table)
        if found is None:
            found = _THIRDS[table] = np.full((table.index.size, len(KEYS)), np.nan)
    return found


_SLOTS = threading.local()


def _slots(size: int) -> Ints:
    """This thread's scratch for :func:`.compiled._grow`: one entry per position number,
    all -1 between trees (2.5 MB on the default track)."""
    found: Ints | None = getattr(_SLOTS, "slots", None)
    if found is None or len(found) != size:
        found = _SLOTS.slots = np.full(size, -1, dtype=np.int64)
    return found


def posteriors(y: Vector) -> Floats:
    """:func:`.hider.posteriors` as a (16, 4) array: the same numbers."""
    weights = np.where(_POPPED, 0.0, np.array(y, dtype=np.float64))
    unseen = ~(weights > 0).any(axis=1)  # nothing on the slots left: uniform over them
    weights[unseen] = np.where(_POPPED[unseen], 0.0, np.array(UNIFORM))
    return weights


def _dot(vectors: Floats, weights: Floats) -> Floats:
    """Each vector's worth against ``weights`` (broadcast), summed left to right as the
    reference does."""
    out: Floats = (
        weights[..., 0] * vectors[..., 0]
        + weights[..., 1] * vectors[..., 1]
        + weights[..., 2] * vectors[..., 2]
        + weights[..., 3] * vectors[..., 3]
    )
    return out


def _vector(row: Floats) -> Vector:
    return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))
