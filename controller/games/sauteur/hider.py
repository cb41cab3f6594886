"""The hider's side: where to put the devil die, against a popper who replies best.

One hiding is a zero-sum game. The hider picks a slot for the devil die (a mixed
strategy ``y`` over the four slots); the popper, not seeing it, pops keys one by
one, learning only that a key which showed a number did not hold the devil die.
:func:`best_reply` is the popper's best plan against a given ``y`` (expectimax
over the hiding with the Bayesian posterior ``y`` restricted to the unpopped
slots) and returns its payoff *per slot* of the devil die. :func:`equilibrium`
finds the hider's minimax ``y`` by the double-oracle method: solve the small
matrix game over the popper plans found so far exactly (:func:`minimax_hider`,
vertex enumeration over 4 slots), add the popper's best reply to that ``y``, and
stop when the reply gains nothing (:data:`GAP`).

A :class:`HidingGame` says what the hiding's outcomes are worth; rule A and rule
B provide one each (:mod:`.solve_a`, :mod:`.solve_b`). What follows the hiding is
valued by the uniform-hider solution (see ``docs/strategy.md``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Protocol

from controller.games.sauteur.rules import KEYS, MAX_NUMBERS

Vector = tuple[float, float, float, float]
"""A payoff to the popper for each slot the devil die may be under (slots 1..4)."""

UNIFORM: Vector = (0.25, 0.25, 0.25, 0.25)
GAP = 1e-9
"""Double oracle stops when the popper's best reply gains less than this."""


class HidingGame(Protocol):
    """What one hiding's outcomes are worth to the popper (``inner``: the position
    inside the hiding other than the keys popped, e.g. the pot or the figures)."""

    q: float
    """Chance a number die shows a devil face."""

    def terminal(self, inner: Hashable) -> float | None:
        """The value when the hiding's outcome ends the round or turn, else ``None``."""

    def stop(self, inner: Hashable) -> float:
        """The value of ending the hiding now (rule A: a new hiding; B: bank the pot)."""

    def devil(self, key: int, inner: Hashable) -> float:
        """The value after a devil from ``key``."""

    def numbers(self, key: int, inner: Hashable) -> Sequence[tuple[float, Sequence[Hashable]]]:
        """For each number a die from ``key`` may show: (chance, positions to choose from)."""


def _weighted(y: Sequence[float], vector: Sequence[float], mask: int) -> float:
    return sum(y[h] * vector[h] for h in range(4) if not mask >> h & 1)


def best_reply(
    game: HidingGame, y: Sequence[float], start: Hashable, mask: int = 0
) -> tuple[Vector, dict[str, Vector]]:
    """The popper's best plan against the hider's ``y`` from ``(mask, start)``:
    (its payoff per devil slot, each option's payoff per slot now).

    Options are ``"pop k"`` and, once a number came out, ``"stop"``. Slots already
    popped get payoff 0 (they cannot hold the devil die). When ``y`` gives every
    unpopped slot 0, the posterior is taken as uniform over them.
    """
    memo: dict[tuple[int, Hashable], Vector] = {}

    def posterior_weights(m: int) -> Sequence[float]:
        if any(y[h] > 0 for h in range(4) if not m >> h & 1):
            return y
        return UNIFORM

    def options(m: int, inner: Hashable) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        if m:
            s = game.stop(inner)
            out["stop"] = (s, s, s, s)
        if bin(m).count("1") >= MAX_NUMBERS:
            return out
        for key in KEYS:
            bit = 1 << (key - 1)
            if m & bit:
                continue
            devil = game.devil(key, inner)
            after = m | bit
            child_weights = posterior_weights(after)
            total = [0.0, 0.0, 0.0, 0.0]
            for share, choices in game.numbers(key, inner):
                best_vec: Vector | None = None
                best_val = -1.0
                for choice in choices:
                    vec = node(after, choice)
                    val = _weighted(child_weights, vec, after)
                    if val > best_val:
                        best_val, best_vec = val, vec
                assert best_vec is not None
                for h in range(4):
                    total[h] += share * best_vec[h]
            q = game.q
            out[f"pop {key}"] = tuple(  # type: ignore[assignment]
                0.0 if m >> h & 1 else devil if h == key - 1 else q * devil + (1 - q) * total[h]
                for h in range(4)
            )
        return out

    def node(m: int, inner: Hashable) -> Vector:
        end = game.terminal(inner)
        if end is not None:
            return (end, end, end, end)
        found = memo.get((m, inner))
        if found is not None:
            return found
        weights = posterior_weights(m)
        choices = options(m, inner)
        best = max(choices.values(), key=lambda vec: _weighted(weights, vec, m))
        memo[(m, inner)] = best
        return best

    now = options(mask, start)
    weights = posterior_weights(mask)
    best = max(now.values(), key=lambda vec: _weighted(weights, vec, mask))
    return best, now


def value(y: Sequence[float], vector: Sequence[float], mask: int = 0) -> float:
    """The popper's expected payoff of ``vector`` when the hider plays ``y`` and the keys
    in ``mask`` showed numbers (the posterior is ``y`` restricted to the other slots)."""
    total = sum(y[h] for h in range(4) if not mask >> h & 1)
    if total <= 0:
        return sum(vector[h] for h in range(4) if not mask >> h & 1) / (4 - bin(mask).count("1"))
    return _weighted(y, vector, mask) / total


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; ``None`` when singular."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    return [a[i][n] / a[i][i] for i in range(n)]


def minimax_hider(plans: Sequence[Sequence[float]]) -> tuple[Vector, float]:
    """The hider's ``y`` minimising ``max_j y . plans[j]`` over the simplex, and that value.

    Exact: the minimum of a convex piecewise-linear function lies at a vertex, where
    on some support ``S`` of ``y``, ``|S|`` plans pay the same; every such vertex is
    tried. Ties go to the ``y`` found first (smaller supports first).
    """
    best_y: Vector = UNIFORM
    best = max(sum(0.25 * p for p in plan) for plan in plans)
    for size in range(1, 5):
        for support in combinations(range(4), size):
            for tied in combinations(range(len(plans)), size):
                # Unknowns: y_h for h in support, then t. Rows: sum y = 1; plan_j . y - t = 0.
                matrix = [[1.0] * size + [0.0]]
                rhs = [1.0]
                for j in tied:
                    matrix.append([plans[j][h] for h in support] + [-1.0])
                    rhs.append(0.0)
                solution = _solve(matrix, rhs)
                if solution is None or min(solution[:size]) < -1e-12:
                    continue
                y = [0.0] * 4
                for h, share in zip(support, solution[:size], strict=True):
                    y[h] = max(0.0, share)
                total = sum(y)
                y = [share / total for share in y]
                worth = max(sum(y[h] * plan[h] for h in range(4)) for plan in plans)
                if worth < best - 1e-15:
                    best, best_y = worth, (y[0], y[1], y[2], y[3])
    return best_y, best


def equilibrium(game: HidingGame, start: Hashable, rounds: int = 30) -> tuple[Vector, float]:
    """The hider's equilibrium placement at a hiding's start and the game's value (the
    popper's payoff when both play best). Raises ``ArithmeticError`` if the double
    oracle has not closed the gap after ``rounds`` plans (it never did in the tests)."""
    plan, _ = best_reply(game, UNIFORM, start)
    plans: list[Vector] = [plan]
    for _ in range(rounds):
        y, worth = minimax_hider(plans)
        reply, _ = best_reply(game, y, start)
        gain = sum(y[h] * reply[h] for h in range(4))
        if gain <= worth + GAP:
            return y, worth
        plans.append(reply)
    raise ArithmeticError("hider equilibrium: the double oracle did not converge")
