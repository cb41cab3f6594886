"""One rule-A hiding's whole tree as numpy arrays: the popper's best reply to any
placement by one backward pass (the fast path of :func:`.hider.best_reply`).

A hiding's positions are grouped by the keys popped so far (a mask; at most three
numbers): the group ``m`` holds every position (figures in play, arrived; the devil does
not move inside a hiding) reachable after numbers from the keys in ``m``. They are built
once per hiding (:class:`ChaseTree`), independent of the hider's placement: each
position's value when the popper stops (a new hiding), its value after a devil from each
key, and for each key, number and figure the position it leads to.

:meth:`ChaseTree.values` then gives, for a placement ``y``, every position's payoff per
devil slot under the popper's best reply, a group at a time from three numbers out back
to the hiding's start. It does what :func:`.hider.best_reply` does over a
:class:`.solve_a.ChaseHiding`, operation for operation in the same order (the same
posterior weights, the same sums, the same ties: the first figure, then stop, then the
lowest key), so the payoffs are the same doubles (``tests/games/test_sauteur_equilibrium.py``
checks it on random positions). Pure: no I/O.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from controller.games.sauteur.chase_table import FIGURES, ChaseTable, Figures
from controller.games.sauteur.hider import Vector, posteriors
from controller.games.sauteur.rules import KEYS, MAX_NUMBERS

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

Solved = tuple[dict[int, Floats], dict[int, Floats], list[Vector]]
"""For one placement: each group's values, their worths, the posteriors (``_solved``)."""

HELD = 24
"""Placements whose values a tree keeps (a hiding's plans and the adaptive reads)."""


def _count(mask: int) -> int:
    return bin(mask).count("1")


@dataclass
class _Group:
    """The positions after numbers from the keys of one mask (rows sorted by number)."""

    ids: Ints
    figs: Ints
    """(rows, 3) squares, sorted; the track's length where no figure is."""
    arrived: Ints
    terminal: Bools
    stop: Floats
    stops: Floats
    """(rows + 1, 4): ``stop`` for every slot, and a pad row."""
    devil: dict[int, Floats] = field(default_factory=dict)
    """Per key not popped: the value after a devil from it."""
    children: dict[int, Ints] = field(default_factory=dict)
    """Per key not popped: (rows, numbers, 3) rows of the next group, -1: no such figure."""


class ChaseTree:
    """The rule-A hiding that starts at ``start`` = (figures in play, arrived) with the
    devil on square ``devil``, what follows valued by ``values`` (a uniform hider's
    table, as :class:`.solve_a.ChaseHiding`). Building it takes a few ms."""

    def __init__(self, values: ChaseTable, devil: int, start: tuple[Figures, int]) -> None:
        self.table = values
        self.d = devil
        self.q = values.q
        self.shares = [share for _, share in values.shares]
        self._numbers = np.array([v for v, _ in values.shares], dtype=np.int64)
        self._goal = np.array(values.goal, dtype=np.float64)
        figs, arrived = start
        row = np.array([[*figs, *(values.track,) * (FIGURES - len(figs))]], dtype=np.int64)
        self.groups: dict[int, _Group] = {0: self._group(row, np.array([arrived]))}
        self._values: OrderedDict[Vector, Solved] = OrderedDict()
        self._lock = threading.Lock()
        for numbers in range(MAX_NUMBERS):
            found: dict[int, list[tuple[int, int, Bools, Ints, Ints]]] = {}
            for mask in [m for m in self.groups if _count(m) == numbers]:
                for key in KEYS:
                    if not mask >> (key - 1) & 1:
                        after = mask | 1 << (key - 1)
                        found.setdefault(after, []).append((mask, key, *self._expand(mask, key)))
            for after, parts in found.items():
                self._link(after, parts)

    def _group(self, figs: Ints, arrived: Ints) -> _Group:
        table, track = self.table, self.table.track
        ids = table.index.indices(np.full(len(figs), self.d), figs, arrived)
        terminal = figs[:, 0] >= track
        stop = np.where(terminal, self._goal[arrived], table.tables[0][ids].astype(np.float64))
        stops = np.vstack([np.repeat(stop[:, None], 4, axis=1), np.zeros((1, 4))])
        return _Group(ids, figs, arrived, terminal, stop, stops)

    def _expand(self, mask: int, key: int) -> tuple[Bools, Ints, Ints]:
        """The devil's value after ``key`` for the group ``mask``, and the positions its
        numbers lead to: (which (rows, numbers, 3) figure moves exist, the figures they
        lead to, the arrivals)."""
        group, table, track = self.groups[mask], self.table, self.table.track
        figs, arrived = group.figs, group.arrived
        present = figs < track
        reach = min(self.d + table.multiplier * key, track)
        caught = np.sort(np.where(present & (figs <= reach), track, figs), axis=1)
        ids = table.index.indices(np.full(len(figs), reach), caught, arrived)
        group.devil[key] = np.where(
            caught[:, 0] >= track, self._goal[arrived], table.tables[0][ids].astype(np.float64)
        )
        rows, count = len(figs), len(self._numbers)
        moved = np.broadcast_to(figs[:, None, None, :], (rows, count, FIGURES, FIGURES)).copy()
        lands = np.broadcast_to(arrived[:, None, None], (rows, count, FIGURES)).copy()
        valid = np.zeros((rows, count, FIGURES), dtype=bool)
        for c in range(FIGURES):
            target = figs[:, None, c] + key * self._numbers[None, :]
            home = target >= track
            moved[:, :, c, c] = np.where(home, track, target)
            lands[:, :, c] += home
            fresh = present[:, c] & ((figs[:, c] != figs[:, c - 1]) if c else True)
            valid[:, :, c] = fresh[:, None]
        moved.sort(axis=3)
        return valid, moved.reshape(-1, FIGURES), lands.reshape(-1)

    def _link(self, after: int, parts: list[tuple[int, int, Bools, Ints, Ints]]) -> None:
        """Make the group ``after`` from the positions its predecessors ``(mask, key,
        …)`` lead to, and point each predecessor's numbers at its rows."""
        table = self.table
        figs = np.concatenate([part[3] for part in parts])
        arrived = np.concatenate([part[4] for part in parts])
        ids = table.index.indices(np.full(len(figs), self.d), figs, arrived)
        valid = np.concatenate([part[2].reshape(-1) for part in parts])
        unique, first = np.unique(ids[valid], return_index=True)
        kept = np.flatnonzero(valid)[first]
        self.groups[after] = self._group(figs[kept], arrived[kept])
        rows = np.where(valid, np.searchsorted(unique, ids), -1)
        start = 0
        for mask, key, moves, _, _ in parts:
            self.groups[mask].children[key] = rows[start : start + moves.size].reshape(moves.shape)
            start += moves.size

    def values(self, y: Vector) -> dict[int, Floats]:
        """Every position's payoff per devil slot under the best reply to ``y``, per
        group: (rows + 1, 4), the last row a pad for "no such figure" (memoised for the
        last :data:`HELD` placements)."""
        return self._solved(y)[0]

    def _solved(self, y: Vector) -> Solved:
        """(:meth:`values`, each row's worth against the group's posterior, the pad's
        -inf, the posteriors)."""
        with self._lock:  # the service's worker and solver threads may share a tree
            found = self._values.get(y)
            if found is not None:
                self._values.move_to_end(y)
                return found
        weights = posteriors(y)
        out: dict[int, Floats] = {}
        worth: dict[int, Floats] = {}
        for mask in sorted(self.groups, key=lambda m: -_count(m)):
            group = self.groups[mask]
            if _count(mask) >= MAX_NUMBERS:
                out[mask] = group.stops  # stop is the only option
            else:
                options = self._options(mask, out, worth)
                options.append(np.zeros((1, 4)))
                size = len(group.ids)
                if len(options) == 2:
                    picked = options[0]
                else:
                    scores = np.stack([_dot(option, weights[mask]) for option in options[:-1]])
                    picked = np.stack(options[:-1])[scores.argmax(axis=0), np.arange(size)]
                picked = np.vstack([picked, options[-1]])
                picked[:size][group.terminal] = self._goal[group.arrived[group.terminal]][:, None]
                out[mask] = picked
            worth[mask] = _dot(out[mask], weights[mask])
            worth[mask][-1] = -np.inf
        solved = (out, worth, weights)
        with self._lock:
            self._values[y] = solved
            while len(self._values) > HELD:
                self._values.popitem(last=False)
        return solved

    def _options(self, mask: int, out: dict[int, Floats], worth: dict[int, Floats]) -> list[Floats]:
        """The group's options, each (rows, 4): stop (once a number is out), then pop
        each key not popped, in key order (as :func:`.hider.best_reply`)."""
        group = self.groups[mask]
        options: list[Floats] = []
        if mask:
            options.append(group.stops[:-1])
        if _count(mask) >= MAX_NUMBERS:
            return options
        size = len(group.ids)
        flat = np.arange(size * len(self.shares))
        for key in KEYS:
            bit = 1 << (key - 1)
            if mask & bit:
                continue
            child = out[mask | bit]
            rows = group.children[key]  # -1 (no such figure): the pad, worth -inf
            choice = worth[mask | bit][rows].argmax(axis=2)
            chosen = rows.reshape(-1, FIGURES)[flat, choice.reshape(-1)].reshape(choice.shape)
            total = np.zeros((size, 4))
            for number, share in enumerate(self.shares):
                total += share * child[chosen[:, number]]
            devil = group.devil[key]
            pop = self.q * devil[:, None] + (1 - self.q) * total
            pop[:, key - 1] = devil
            for h in range(4):
                if mask >> h & 1:
                    pop[:, h] = 0.0
            options.append(pop)
        return options

    def row(self, mask: int, inner: tuple[Figures, int]) -> int | None:
        """The row of the position ``inner`` in the group ``mask``, or ``None`` if this
        hiding cannot reach it."""
        group = self.groups.get(mask)
        if group is None:
            return None
        figs, arrived = inner
        number = self.table.index.index(self.d, figs, arrived)
        at = int(np.searchsorted(group.ids, number))
        return at if at < len(group.ids) and group.ids[at] == number else None

    def reply(self, y: Vector) -> Vector:
        """The best reply to ``y`` from the hiding's start: its payoff per devil slot
        (:func:`.hider.best_reply`'s first answer)."""
        best, options = self.options(y, 0, 0)
        return options[best]

    def options(self, y: Vector, mask: int, row: int) -> tuple[str, dict[str, Vector]]:
        """At the position ``row`` of the group ``mask``: (the best reply's option, each
        option's payoff per devil slot), named as :func:`.hider.best_reply` names them."""
        out, worth, weights = self._solved(y)
        found = self._options(mask, out, worth)
        names = (["stop"] if mask else []) + [
            f"pop {key}" for key in KEYS if not mask >> (key - 1) & 1
        ]
        names = names[: len(found)]  # three numbers out: stop only
        vectors = {name: _vector(option[row]) for name, option in zip(names, found, strict=True)}
        w0, w1, w2, w3 = weights[mask]
        best = max(
            names,
            key=lambda n: (
                w0 * vectors[n][0] + w1 * vectors[n][1] + w2 * vectors[n][2] + w3 * vectors[n][3],
                -names.index(n),
            ),
        )
        return best, vectors

    def node(self, y: Vector, mask: int, row: int) -> Vector:
        """The best reply's payoff per devil slot from the position ``row`` of ``mask``."""
        return _vector(self.values(y)[mask][row])


def _dot(vectors: Floats, weights: Vector) -> Floats:
    """Each row's worth against ``weights``, summed left to right as the reference does."""
    w0, w1, w2, w3 = weights
    out: Floats = w0 * vectors[:, 0] + w1 * vectors[:, 1] + w2 * vectors[:, 2] + w3 * vectors[:, 3]
    return out


def _vector(row: Floats) -> Vector:
    return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))
