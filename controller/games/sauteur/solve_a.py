"""Rule A (the chase), solved as far as a Raspberry Pi allows.

A round is a one-player game of chance against the devil: every pop moves the
devil or one of the popper's figures forward, so the round has no cycles and
backward induction (memoised expectimax) solves it. The popper's objective is a
*utility* of the number of figures arrived at the round's end (:func:`utility`):
the match's win chance, a draw counting ½. In the last round the popper plays to
beat the known target; in an earlier round a round score of ``s`` is worth the
chance to win the match after it, the next popper replying best
(:meth:`ChaseSolver.value_after_round`).

The exact solve runs through every hiding's inner tree (up to three pops, each
with a figure to choose) for every position: millions of states, minutes in pure
Python. So the solver is exact *within the hiding being played* and values a new
hiding with :meth:`ChaseValues.hiding`, the exact value of the round when every
later hiding pops one die only (the best key and figure for that one pop). The
gap to the exact solve, measured on reduced tracks (16 and 24 squares) against an
independent expectimax, is zero there (``tests/games/test_sauteur_solve.py``,
``docs/strategy.md``).

The hider is uniform (each slot equally likely to hold the devil die) unless a
hiding distribution is given (see :mod:`.hider`). Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

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
from controller.games.sauteur.solve_b import devil_chance, face_model

Figures = tuple[int, ...]
"""Squares of the figures still in play, sorted (figures are alike but for their names)."""

Utility = tuple[float, float, float, float]
"""What the round is worth to the popper for 0, 1, 2, 3 figures arrived."""

POINTS_UTILITY: Utility = tuple(float(ROUND_POINTS[n]) for n in range(4))  # type: ignore[assignment]


INNER_LIMIT = 400_000
"""Mid-hiding values kept before the memo is emptied (about 60 MB of positions)."""


class ChaseValues:
    """Values of rule-A positions for one :data:`Utility` (memoised as they are asked).

    ``hiding(d, figs, arrived)``: the value at a hiding's start, later hidings
    popping one die each. ``inner(d, figs, arrived, mask)``: the value in the middle
    of a hiding (``mask``: keys popped, all numbers), exact within this hiding.
    """

    def __init__(self, config: SauteurConfig, goal: Utility) -> None:
        self.track = config.track_length
        self.multiplier = config.devil_multiplier
        self.q, self.shares = face_model(config.number_faces)
        self.goal = goal
        self._hiding: dict[tuple[int, Figures, int], float] = {}
        self._inner: dict[tuple[int, Figures, int, int], float] = {}

    # -- moves ----------------------------------------------------------------------
    def devil_move(self, d: int, figs: Figures, key: int) -> tuple[int, Figures]:
        """(devil's new square, figures still in play) after a devil from ``key``."""
        reach = min(d + self.multiplier * key, self.track)
        return reach, tuple(x for x in figs if x > reach)

    def number_moves(self, figs: Figures, squares: int) -> list[tuple[Figures, int]]:
        """Each distinct choice of figure to move ``squares``: (figures after, arrivals).

        Written out per number of figures (this is the solver's innermost step)."""
        track = self.track
        if len(figs) == 3:
            a, b, c = figs
            out: list[tuple[Figures, int]] = []
            t = a + squares
            if t >= track:
                out.append(((b, c), 1))
            else:
                out.append(((t, b, c) if t <= b else (b, t, c) if t <= c else (b, c, t), 0))
            if b != a:
                t = b + squares
                out.append(((a, c), 1) if t >= track else ((a, t, c) if t <= c else (a, c, t), 0))
            if c != b:
                t = c + squares
                out.append(((a, b), 1) if t >= track else ((a, b, t), 0))
            return out
        if len(figs) == 2:
            a, b = figs
            t = a + squares
            pair: list[tuple[Figures, int]] = [
                ((b,), 1) if t >= track else ((t, b) if t <= b else (b, t), 0)
            ]
            if b != a:
                t = b + squares
                pair.append(((a,), 1) if t >= track else ((a, t), 0))
            return pair
        t = figs[0] + squares
        return [((), 1) if t >= track else ((t,), 0)]

    # -- values ---------------------------------------------------------------------
    def hiding(self, d: int, figs: Figures, arrived: int) -> float:
        """Value at a hiding's start when this and every later hiding pop one die."""
        if not figs:
            return self.goal[arrived]
        key_ = (d, figs, arrived)
        found = self._hiding.get(key_)
        if found is not None:
            return found
        p = devil_chance(0, self.q)
        best = -1.0
        for key in KEYS:
            reach, left = self.devil_move(d, figs, key)
            value = 0.0
            for v, share in self.shares:
                best_move = -1.0
                for after, gone in self.number_moves(figs, key * v):
                    worth = self.hiding(d, after, arrived + gone)
                    if worth > best_move:
                        best_move = worth
                value += share * best_move
            value = p * self.hiding(reach, left, arrived) + (1 - p) * value
            best = max(best, value)
        self._hiding[key_] = best
        return best

    def start(self, d: int, figs: Figures, arrived: int) -> float:
        """Value at a hiding's start, this hiding played exactly."""
        if not figs:
            return self.goal[arrived]
        return max(self.pop(d, figs, arrived, 0, key) for key in KEYS)

    def inner(self, d: int, figs: Figures, arrived: int, mask: int) -> float:
        """Best value after numbers from the keys in ``mask`` (bit k-1 = key k): ask for
        a new hiding, or pop on (exact within this hiding)."""
        if not figs:
            return self.goal[arrived]
        key_ = (d, figs, arrived, mask)
        found = self._inner.get(key_)
        if found is not None:
            return found
        best = self.hiding(d, figs, arrived)
        if bin(mask).count("1") < MAX_NUMBERS:
            for key in KEYS:
                if not mask >> (key - 1) & 1:
                    best = max(best, self.pop(d, figs, arrived, mask, key))
        if len(self._inner) >= INNER_LIMIT:
            self._inner.clear()
        self._inner[key_] = best
        return best

    def pop(self, d: int, figs: Figures, arrived: int, mask: int, key: int) -> float:
        """Value of popping ``key`` now (keys in ``mask`` gave numbers this hiding)."""
        p = devil_chance(bin(mask).count("1"), self.q)
        reach, left = self.devil_move(d, figs, key)
        after = mask | 1 << (key - 1)
        value = 0.0
        for v, share in self.shares:
            best_move = -1.0
            for moved, gone in self.number_moves(figs, key * v):
                worth = self.inner(d, moved, arrived + gone, after)
                if worth > best_move:
                    best_move = worth
            value += share * best_move
        return p * self.hiding(reach, left, arrived) + (1 - p) * value

    def advance(self, d: int, figs: Figures, arrived: int, mask: int, squares: int) -> list[float]:
        """Value of moving each figure of ``figs`` (by index) ``squares`` squares."""
        values = []
        for index, x in enumerate(figs):
            rest = figs[:index] + figs[index + 1 :]
            target = x + squares
            if target >= self.track:
                values.append(self.inner(d, rest, arrived + 1, mask))
            else:
                values.append(self.inner(d, tuple(sorted((*rest, target))), arrived, mask))
        return values

    def size(self) -> int:
        """Positions memoised so far."""
        return len(self._hiding) + len(self._inner)


def utility(target: int) -> Utility:
    """The last round's utility for a popper ``target`` points behind (negative: ahead):
    1 for beating it, ½ for equalling it, 0 below."""
    return tuple(  # type: ignore[return-value]
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


class ChaseSolver:
    """Rule-A decisions and coach values for one configuration (uniform hider).

    Value tables are made per utility on first use and kept (see :meth:`values`).
    """

    def __init__(self, config: SauteurConfig) -> None:
        self.config = config
        self._values: dict[Utility, ChaseValues] = {}
        self._after: dict[tuple[int, int], float] = {}

    def values(self, goal: Utility) -> ChaseValues:
        table = self._values.get(goal)
        if table is None:
            table = self._values[goal] = ChaseValues(self.config, goal)
        return table

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
        return tuple(  # type: ignore[return-value]
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
    play, arrived)); later hidings valued by ``values.hiding``."""

    def __init__(self, values: ChaseValues, devil: int) -> None:
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
