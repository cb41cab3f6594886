"""Rule A (the chase), solved exactly (the hider uniform).

A round is a one-player game of chance against the devil: every pop moves the devil or one
of the popper's figures forward, so the round has no cycles and backward induction solves
it, every position at once (:mod:`.chase_table`, with numpy). The popper's objective is a
*utility* of the number of figures arrived at the round's end (:func:`utility`): the match's
win chance, a draw counting ½. In the last round the popper plays to beat the known target;
in an earlier round a round score of ``s`` is worth the chance to win the match after it,
the next popper replying best (:meth:`ChaseSolver.value_after_round`).

The tables equal an independent expectimax at every position of a reduced track
(``tests/games/test_sauteur_solve.py``). The hider is uniform (each slot equally likely to
hold the devil die) unless a hiding distribution is given (see :mod:`.hider`). Pure: the
data-dir cache is passed in as ``load`` (:mod:`controller.solver_cache`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.games.sauteur.cancel import Flag
from controller.games.sauteur.rules import (
    ADVANCE,
    HIDING,
    IN_PLAY,
    KEYS,
    MAX_NUMBERS,
    OVER,
    POP,
    ROUND_POINTS,
    SauteurConfig,
    SauteurState,
)

if TYPE_CHECKING:  # numpy comes with the first table, not with the levels
    from controller.games.sauteur.chase_table import ChaseMoves, ChaseTable, ChaseTables

Figures = tuple[int, ...]
"""Squares of the figures still in play, sorted (figures are alike but for their names)."""

Utility = tuple[float, float, float, float]
"""What the round is worth to the popper for 0, 1, 2, 3 figures arrived."""

# why the ignore below: one value per figure count (4)
POINTS_UTILITY: Utility = tuple(float(ROUND_POINTS[n]) for n in range(4))  # type: ignore[assignment]


def utility(target: int) -> Utility:
    """The last round's utility for a popper ``target`` points behind (negative: ahead):
    1 for beating it, ½ for equalling it, 0 below."""
    return tuple(  # type: ignore[return-value]  # one value per figure count (4)
        1.0 if ROUND_POINTS[n] > target else 0.5 if ROUND_POINTS[n] == target else 0.0
        for n in range(4)
    )


def _position(state: SauteurState) -> tuple[int, Figures, int, int]:
    """(devil, figures in play sorted, arrived, mask of keys popped this hiding)."""
    figs = tuple(
        sorted(x for x, mark in zip(state.figures, state.status, strict=True) if mark == IN_PLAY)
    )
    arrived = sum(1 for mark in state.status if mark == "arrived")
    mask = 0
    if state.phase in (POP, ADVANCE):
        for key in state.popped:
            mask |= 1 << (key - 1)
    return state.devil, figs, arrived, mask


Load = Callable[[SauteurConfig, Utility, Callable[[], "ChaseTables"]], "ChaseTables"]
"""``load(config, goal, solve)``: a cached table for ``goal``, else ``solve()`` and keep it."""


HELD = 3
"""Tables kept in memory when they are cached on disk (the match's, the next round's, the
coach's points: 42 MB on the default track); the others are read back (10 ms) when asked."""


class ChaseSolver:
    """Rule-A decisions and coach values for one configuration (uniform hider).

    A table is made per utility on first use (about 1 s), 13.9 MB each on the default
    track (:meth:`values`). With ``load`` (a cache on disk) the :data:`HELD` tables used
    last stay in memory; without, every table made is kept. Thread-safe. Once ``cancel``
    is set, a table still to make raises :class:`.cancel.Cancelled`.
    """

    def __init__(
        self, config: SauteurConfig, load: Load | None = None, cancel: Flag | None = None
    ) -> None:
        self.config = config
        self._load = load
        self._cancel = cancel
        self._values: OrderedDict[Utility, ChaseTable] = OrderedDict()
        self._after: dict[tuple[int, int], float] = {}
        self._moves: ChaseMoves | None = None
        self._lock = threading.RLock()

    def values(self, goal: Utility) -> ChaseTable:
        from controller.games.sauteur.chase_table import ChaseMoves, ChaseTable, solve

        with self._lock:
            table = self._values.get(goal)
            if table is not None:
                self._values.move_to_end(goal)
                return table

            def make() -> ChaseTables:
                if self._moves is None:
                    self._moves = ChaseMoves(self.config)
                return solve(self._moves, goal, self._cancel)

            tables = self._load(self.config, goal, make) if self._load else make()
            table = self._values[goal] = ChaseTable(self.config, goal, tables)
            while self._load is not None and len(self._values) > HELD:
                self._values.popitem(last=False)
            return table

    def held(self) -> int:
        """Bytes of the tables in memory."""
        with self._lock:
            tables = list(self._values.values())
        return sum(vector.nbytes for table in tables for vector in table.tables.values())

    def prepare(self) -> None:
        """Make every table a match needs (the coach's points included), then let go of
        the moves that made them (about 75 MB on the default track)."""
        self.round_start_value(self.goal_for(1, 0))
        self.values(POINTS_UTILITY)
        self._moves = None

    def round_start_value(self, goal: Utility) -> float:
        config = self.config
        figs = tuple(sorted(config.figure_starts))
        return self.values(goal).start(config.devil_start, figs, 0)

    def value_after_round(self, round_no: int, lead: int) -> float:
        """The chance to win the match (draw ½) of a player who leads by ``lead`` points
        when round ``round_no`` ends, both playing best from there on."""
        if round_no >= self.config.rounds:
            return 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0
        found = self._after.get((round_no, lead))
        if found is None:
            # The next popper is the other player, ``lead`` points behind.
            next_goal = self.goal_for(round_no + 1, -lead)
            found = 1.0 - self.round_start_value(next_goal)
            self._after[(round_no, lead)] = found
        return found

    def goal_for(self, round_no: int, lead: int) -> Utility:
        """The utility of round ``round_no``'s popper who leads by ``lead`` points."""
        return tuple(  # type: ignore[return-value]  # one value per figure count (4)
            self.value_after_round(round_no, lead + ROUND_POINTS[n]) for n in range(4)
        )

    def goal(self, state: SauteurState) -> Utility:
        index = 0 if state.popper == "p1" else 1
        lead = state.scores[index] - state.scores[1 - index]
        return self.goal_for(state.round, lead)

    def option_values(self, state: SauteurState, goal: Utility | None = None) -> dict[str, float]:
        """Each legal option's value to the popper now (phase ``hiding``, ``pop`` or
        ``advance``): ``{"pop 1": ..., "rehide": ...}`` or ``{"advance blue": ...}``.

        ``goal`` defaults to the match's win chance (draw ½); pass
        :data:`POINTS_UTILITY` for the expected round score.
        """
        if state.phase == OVER:
            return {}
        table = self.values(goal if goal is not None else self.goal(state))
        d, figs, arrived, mask = _position(state)
        options: dict[str, float] = {}
        if state.phase == ADVANCE:
            names = [
                name
                for name, mark in zip(state.config.figure_names, state.status, strict=True)
                if mark == IN_PLAY
            ]
            squares = [
                x for x, mark in zip(state.figures, state.status, strict=True) if mark == IN_PLAY
            ]
            order = sorted(range(len(squares)), key=lambda i: squares[i])
            values = table.advance(d, figs, arrived, mask, state.pending)
            for rank, index in enumerate(order):
                options[f"advance {names[index]}"] = values[rank]
            return options
        if state.phase == HIDING:
            mask = 0
        popped = bin(mask).count("1")
        if popped:
            options["rehide"] = table.hiding(d, figs, arrived)
        if popped < MAX_NUMBERS:
            for key in KEYS:
                if not mask >> (key - 1) & 1:
                    options[f"pop {key}"] = table.pop(d, figs, arrived, mask, key)
        return options

    def best_action(self, state: SauteurState) -> dict[str, Any]:
        """The popper's best action in phase ``pop`` or ``advance`` (ties: rehide, then
        the lowest key, then the figure nearest the devil)."""
        options = self.option_values(state)
        order = list(options)
        best = max(order, key=lambda name: (options[name], -order.index(name)))
        if state.phase == ADVANCE:
            return {"type": "advance", "figure": best.split(" ", 1)[1], "by": state.popper}
        if best == "rehide":
            return {"type": "rehide", "by": state.popper}
        return {"type": "pop", "key": int(best.split()[1]), "by": state.popper}


class ChaseHiding:
    """One rule-A hiding as a :class:`~.hider.HidingGame` (inner position: (figures in
    play, arrived)); later hidings valued by ``values.hiding`` (a uniform hider)."""

    def __init__(self, values: ChaseTable, devil: int) -> None:
        self.values = values
        self.d = devil
        self.q = values.q

    def terminal(self, inner: object) -> float | None:
        figs, arrived = _inner(inner)
        return None if figs else self.values.goal[arrived]

    def stop(self, inner: object) -> float:
        figs, arrived = _inner(inner)
        return self.values.hiding(self.d, figs, arrived)

    def devil(self, key: int, inner: object) -> float:
        figs, arrived = _inner(inner)
        reach, left = self.values.devil_move(self.d, figs, key)
        return self.values.hiding(reach, left, arrived)

    def numbers(self, key: int, inner: object) -> list[tuple[float, list[tuple[Figures, int]]]]:
        figs, arrived = _inner(inner)
        return [
            (
                share,
                [
                    (moved, arrived + gone)
                    for moved, gone in self.values.number_moves(figs, key * v)
                ],
            )
            for v, share in self.values.shares
        ]


def _inner(inner: object) -> tuple[Figures, int]:
    assert isinstance(inner, tuple)
    figs, arrived = inner
    return figs, arrived
