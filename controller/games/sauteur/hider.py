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

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from controller.games.sauteur.cancel import Flag, check
from controller.games.sauteur.rules import KEYS, MAX_NUMBERS

Vector = tuple[float, float, float, float]
"""A payoff to the popper for each slot the devil die may be under (slots 1..4)."""

UNIFORM: Vector = (0.25, 0.25, 0.25, 0.25)
GAP = 1e-9
"""Double oracle stops when the popper's best reply gains less than this."""
ROUNDS = 40
"""Plans the double oracle may add before it gives up (:func:`solve_hiding`)."""


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


class Memo:
    """A hiding game whose answers (they do not depend on the hider's placement) are
    worked out once: the best replies of one double oracle share them."""

    def __init__(self, game: HidingGame) -> None:
        self.game = game
        self.q = game.q
        self._terminal: dict[Hashable, float | None] = {}
        self._stop: dict[Hashable, float] = {}
        self._devil: dict[tuple[int, Hashable], float] = {}
        self._numbers: dict[tuple[int, Hashable], Sequence[tuple[float, Sequence[Hashable]]]] = {}

    def terminal(self, inner: Hashable) -> float | None:
        if inner not in self._terminal:
            self._terminal[inner] = self.game.terminal(inner)
        return self._terminal[inner]

    def stop(self, inner: Hashable) -> float:
        found = self._stop.get(inner)
        if found is None:
            found = self._stop[inner] = self.game.stop(inner)
        return found

    def devil(self, key: int, inner: Hashable) -> float:
        found = self._devil.get((key, inner))
        if found is None:
            found = self._devil[(key, inner)] = self.game.devil(key, inner)
        return found

    def numbers(self, key: int, inner: Hashable) -> Sequence[tuple[float, Sequence[Hashable]]]:
        found = self._numbers.get((key, inner))
        if found is None:
            found = self._numbers[(key, inner)] = self.game.numbers(key, inner)
        return found


def posteriors(y: Sequence[float]) -> list[Vector]:
    """Per keys-popped mask: the posterior's weights with the popped slots zeroed, so a
    vector's worth is a plain dot product (the same sums, term for term, as :func:`value`'s);
    a ``y`` that gives every unpopped slot 0 is taken as uniform over them."""
    zeroed: list[Vector] = []
    for m in range(16):
        free = [h for h in range(4) if not m >> h & 1]
        weights = y if any(y[h] > 0 for h in free) else UNIFORM
        zeroed.append(_vector([weights[h] if h in free else 0.0 for h in range(4)]))
    return zeroed


def _choose(weights: Vector, choices: dict[str, Vector]) -> str:
    """The option worth most against the posterior ``weights`` (ties: the first)."""
    w0, w1, w2, w3 = weights
    best_name, best_val = "", -math.inf
    for name, v in choices.items():
        val = w0 * v[0] + w1 * v[1] + w2 * v[2] + w3 * v[3]
        if val > best_val:
            best_name, best_val = name, val
    return best_name


def best_reply(
    game: HidingGame,
    y: Sequence[float],
    start: Hashable,
    mask: int = 0,
    plan: dict[tuple[int, Hashable], str] | None = None,
) -> tuple[Vector, dict[str, Vector]]:
    """The popper's best plan against the hider's ``y`` from ``(mask, start)``:
    (its payoff per devil slot, each option's payoff per slot now).

    Options are ``"pop k"`` and, once a number came out, ``"stop"``. Slots already
    popped get payoff 0 (they cannot hold the devil die). When ``y`` gives every
    unpopped slot 0, the posterior is taken as uniform over them. ``plan``, when given,
    receives the option the plan takes at every ``(mask, inner)`` it may reach (ties:
    the first option in the order above). Figure choices (rule A) are not recorded.
    """
    memo: dict[tuple[int, Hashable], Vector] = {}
    zeroed = posteriors(y)
    game = game if isinstance(game, Memo) else Memo(game)
    q = game.q

    def options(m: int, inner: Hashable) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        if m:
            s = game.stop(inner)
            out["stop"] = (s, s, s, s)
        if _COUNT[m] >= MAX_NUMBERS:
            return out
        for key in KEYS:
            bit = 1 << (key - 1)
            if m & bit:
                continue
            devil = game.devil(key, inner)
            after = m | bit
            w0, w1, w2, w3 = zeroed[after]
            t0 = t1 = t2 = t3 = 0.0
            for share, choices in game.numbers(key, inner):
                best_vec: Vector | None = None
                best_val = -1.0
                for choice in choices:
                    vec = node(after, choice)
                    val = w0 * vec[0] + w1 * vec[1] + w2 * vec[2] + w3 * vec[3]
                    if val > best_val:
                        best_val, best_vec = val, vec
                assert best_vec is not None
                t0 += share * best_vec[0]
                t1 += share * best_vec[1]
                t2 += share * best_vec[2]
                t3 += share * best_vec[3]
            total = (t0, t1, t2, t3)
            # why the ignore below: one value per key (4): a Vector
            out[_POP[key]] = tuple(  # type: ignore[assignment]
                0.0 if m >> h & 1 else devil if h == key - 1 else q * devil + (1 - q) * total[h]
                for h in range(4)
            )
        return out

    def node(m: int, inner: Hashable) -> Vector:
        found = memo.get((m, inner))
        if found is not None:
            return found
        end = game.terminal(inner)
        if end is not None:
            best = memo[(m, inner)] = (end, end, end, end)
            return best
        choices = options(m, inner)
        name = _choose(zeroed[m], choices)
        if plan is not None:
            plan[(m, inner)] = name
        best = memo[(m, inner)] = choices[name]
        return best

    now = options(mask, start)
    name = _choose(zeroed[mask], now)
    if plan is not None:
        plan[(mask, start)] = name
    return now[name], now


_COUNT = [bin(m).count("1") for m in range(16)]
_POP = {key: f"pop {key}" for key in KEYS}


def value(y: Sequence[float], vector: Sequence[float], mask: int = 0) -> float:
    """The popper's expected payoff of ``vector`` when the hider plays ``y`` and the keys
    in ``mask`` showed numbers (the posterior is ``y`` restricted to the other slots)."""
    total = weighted = plain = 0.0  # summed slot by slot, in slot order
    for h in range(4):
        if not mask >> h & 1:
            total += y[h]
            weighted += y[h] * vector[h]
            plain += vector[h]
    if total <= 0:
        return plain / (4 - _COUNT[mask])
    return weighted / total


def matrix_game(plans: Sequence[Sequence[float]]) -> tuple[Vector, tuple[float, ...], float]:
    """The hiding's matrix game over ``plans`` (rows: popper plans, columns: the devil
    die's slot 1-4, entries: the popper's payoff), solved exactly on both sides:
    (the hider's minimax ``y``, the popper's maximin weights ``x`` over ``plans``, the
    game's value).

    The hider's linear programme ``max sum z`` subject to ``plan_j . z <= 1``, ``z >= 0``
    (payoffs mapped onto [1, 2], which changes neither side's strategies) is solved by the
    simplex method with Bland's rule, so it always ends; ``y = z / sum z`` and the
    popper's ``x`` are the dual values of the plans' constraints, read off the final
    tableau (its dual). The mapping matters: rule-A payoffs can all lie within 1e-6 of 1,
    and shifted only, the tableau's pivots were off by 2e-6 (a hiding whose double oracle
    never closed; ``test_matrix_game_of_payoffs_all_near_one``).
    """
    n = len(plans)  # at least one: the double oracle starts with a plan
    low = min(min(plan) for plan in plans)
    scale = (max(max(plan) for plan in plans) - low) or 1.0
    # Tableau: rows = plans (4 slot columns, n slack columns, rhs); last row = objective.
    rows = [
        [1.0 + (plan[h] - low) / scale for h in range(4)]
        + [1.0 if i == j else 0.0 for i in range(n)]
        + [1.0]
        for j, plan in enumerate(plans)
    ]
    objective = [-1.0] * 4 + [0.0] * n + [0.0]
    basis = [4 + j for j in range(n)]
    width = 4 + n + 1
    for _ in range(1000):
        entering = next((c for c in range(4 + n) if objective[c] < -1e-12), None)
        if entering is None:
            break
        leaving, best = -1, math.inf
        for r in range(n):
            a = rows[r][entering]
            if a > 1e-12:
                ratio = rows[r][-1] / a
                if ratio < best - 1e-15 or (
                    abs(ratio - best) <= 1e-15 and basis[r] < basis[leaving]
                ):
                    leaving, best = r, ratio
        pivot_row = rows[leaving]
        pivot = pivot_row[entering]
        pivot_row[:] = [value / pivot for value in pivot_row]
        for r in range(n):
            if r != leaving:
                f = rows[r][entering]
                if f:
                    row = rows[r]
                    for c in range(width):
                        row[c] -= f * pivot_row[c]
        f = objective[entering]
        objective[:] = [objective[c] - f * pivot_row[c] for c in range(width)]
        basis[leaving] = entering
    else:  # pragma: no cover - Bland's rule never cycles
        raise ArithmeticError("matrix game: the simplex did not end")
    z = [0.0] * 4
    for r, var in enumerate(basis):
        if var < 4:
            z[var] = rows[r][-1]
    total = sum(z)
    y: Vector = (z[0] / total, z[1] / total, z[2] / total, z[3] / total)
    duals = [max(0.0, objective[4 + j]) for j in range(n)]
    weight = sum(duals)
    x = tuple(share / weight for share in duals)
    return y, x, low + (1.0 / total - 1.0) * scale


def minimax_hider(plans: Sequence[Sequence[float]]) -> tuple[Vector, float]:
    """The hider's ``y`` minimising ``max_j y . plans[j]`` over the simplex, and that value
    (:func:`matrix_game`)."""
    y, _, worth = matrix_game(plans)
    return y, worth


@dataclass(frozen=True)
class Equilibrium:
    """One hiding solved on both sides.

    ``y``: the hider's placement; ``value``: the popper's payoff when both play it;
    ``plans``: the popper's pure plans in its mixture, each named by the hider
    placement it is the best reply to (follow it with :func:`best_reply` against that
    placement); ``weights``: the popper's chance of each plan; ``payoffs``: each plan's
    payoff per devil slot. Whatever the hider does, the mixture's expected payoff is at
    least ``value``.
    """

    y: Vector
    value: float
    plans: tuple[Vector, ...]
    weights: tuple[float, ...]
    payoffs: tuple[Vector, ...]

    def plan(self, draw: float) -> Vector:
        """The plan chosen by a uniform ``draw`` in [0, 1)."""
        for plan, weight in zip(self.plans, self.weights, strict=True):
            draw -= weight
            if draw < 0:
                return plan
        return self.plans[-1]


def solve_hiding(
    game: HidingGame,
    start: Hashable,
    rounds: int = ROUNDS,
    first: Sequence[float] = UNIFORM,
    cancel: Flag | None = None,
    moves: dict[Vector, dict[tuple[int, Hashable], str]] | None = None,
    replier: Callable[[Vector], Vector] | None = None,
) -> Equilibrium:
    """Both sides' equilibrium of the hiding at ``start`` by double oracle: the matrix
    game over the popper plans found so far is solved exactly (:func:`matrix_game`), the
    popper's best reply to the hider's ``y`` is added, until it gains less than
    :data:`GAP`. ``first``: the placement whose best reply starts the plan list (a
    guess of the answer saves rounds). Raises ``ArithmeticError`` if the gap is still
    open after ``rounds`` plans (it never was in the tests), :class:`.cancel.Cancelled`
    once ``cancel`` is set. ``moves``, when given, receives each plan's moves (as
    :func:`best_reply`'s ``plan``), keyed by the placement it replies to. ``replier``,
    when given, is the popper's best reply from ``start`` (its payoff per slot) worked out
    another way, as :class:`.chase_tree.ChaseTree` does for rule A (no ``moves`` then)."""

    def reply_to(y: Vector) -> Vector:
        if replier is not None:
            return replier(y)
        recorded: dict[tuple[int, Hashable], str] | None = None if moves is None else {}
        vector, _ = best_reply(game, y, start, plan=recorded)
        if moves is not None and recorded is not None:
            moves[y] = recorded
        return vector

    game = Memo(game)
    plan = reply_to(_vector(first))
    keys: list[Vector] = [_vector(first)]
    plans: list[Vector] = [plan]
    for _ in range(rounds):
        check(cancel)
        y, x, worth = matrix_game(plans)
        reply = reply_to(y)
        gain = sum(y[h] * reply[h] for h in range(4))
        # A reply already held cannot close the gap further: the matrix game's rounding.
        if gain <= worth + GAP or reply in plans:
            used = [j for j in range(len(plans)) if x[j] > 1e-12]
            total = sum(x[j] for j in used)
            return Equilibrium(
                y,
                worth,
                tuple(keys[j] for j in used),
                tuple(x[j] / total for j in used),
                tuple(plans[j] for j in used),
            )
        keys.append(y)
        plans.append(reply)
    raise ArithmeticError("hiding equilibrium: the double oracle did not converge")


def _vector(y: Sequence[float]) -> Vector:
    return (y[0], y[1], y[2], y[3])


def equilibrium(game: HidingGame, start: Hashable, rounds: int = 40) -> tuple[Vector, float]:
    """The hider's equilibrium placement at a hiding's start and the game's value (the
    popper's payoff when both play best); see :func:`solve_hiding`."""
    found = solve_hiding(game, start, rounds)
    return found.y, found.value
