"""Rule B (the race) solved: the popper's play that maximises the chance to win.

The race is close kin to the dice game Pig (Neller & Presser, *Optimal Play of the
Dice Game Pig*, 2004) and is solved the same way. A turn starts with the popper
``a`` squares from completing the lap and the hider ``b`` squares from it;
``W[a][b]`` is the popper's chance to win from there, the hider placing the devil
die uniformly at random (the odds model of :mod:`.odds`).

Within a turn (:func:`turn_values`) the popper's choices form a small tree (at
most three pops): pop a key (devil: the pot is lost and the roles swap, worth
``1 - W[b][a]``) or stop (worth ``1 - W[b][a - pot]``, or 1 when the pot finishes
the lap). A bank always lowers ``a + b``; only a devil keeps it, swapping the
pair. So the table is filled in order of ``a + b``, and each mirror pair
``(a, b)``/``(b, a)`` is a two-state fixed point solved by value iteration,
accelerated by Newton steps (a turn's value is convex and piecewise linear in the
devil outcome's value, so the Newton steps are exact once the policy settles).
Iteration stops when both states' Bellman residual is below :data:`TOLERANCE`.

Pure: no I/O. :class:`RaceTable` holds ``W`` as a flat ``array('d')``
(``L x L`` doubles: 12.8 kB for the 40-square circuit); the service caches it in
the data dir (``controller/solver_cache.py``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence

from controller.games.sauteur.cancel import Flag, check
from controller.games.sauteur.rules import KEYS, MAX_NUMBERS, PLAYERS, POP, SauteurState

TOLERANCE = 1e-12
"""Stop iterating a mirror pair when ``max |W - T(W)|`` over its two states is below this."""

FULL = (1 << len(KEYS)) - 1  # bits 0..3 = keys 1..4


def face_model(faces: Sequence[int | str]) -> tuple[float, tuple[tuple[int, float], ...]]:
    """(chance a number die shows a devil face, ((number, chance given a number), ...)).

    The chances of the numbers add up to 1: a pop shows a devil with
    :func:`devil_chance`, else number ``v`` with its share."""
    numbers = [face for face in faces if isinstance(face, int)]
    shares: dict[int, float] = {}
    for face in numbers:
        shares[face] = shares.get(face, 0.0) + 1.0 / len(numbers)
    return 1.0 - len(numbers) / len(faces), tuple(sorted(shares.items()))


def devil_chance(numbers_seen: int, q: float) -> float:
    """Chance the next pop shows a devil, uniform hider: ``1/(4-n)`` for the devil die,
    else the number die's own devil faces (share ``q``)."""
    slot = 1.0 / (len(KEYS) - numbers_seen)
    return slot + (1.0 - slot) * q


def _bits(mask: int) -> int:
    return bin(mask).count("1")


class RaceTable:
    """``W[a][b]`` for ``1 <= a, b <= circuit``: the popper's chance to win at a turn's start."""

    def __init__(
        self, circuit: int, faces: Sequence[int | str], values: array[float] | None = None
    ):
        self.circuit = circuit
        self.faces = tuple(faces)
        self.q, self.shares = face_model(self.faces)
        size = (circuit + 1) * (circuit + 1)
        self.values = values if values is not None else array("d", bytes(8 * size))
        if len(self.values) != size:
            raise ValueError(f"a table for circuit {circuit} holds {size} values")

    def win(self, a: int, b: int) -> float:
        """The popper's chance to win at a turn's start; 1 when ``a <= 0``, 0 when ``b <= 0``."""
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return self.values[a * (self.circuit + 1) + b]

    def stop_values(self, a: int, b: int) -> list[float]:
        """``S[pot]`` for ``pot`` in ``0..a``: the popper's chance after banking ``pot``
        (``S[0]`` unused; ``S[a]`` is 1: the lap is complete)."""
        row = self.circuit + 1
        values = self.values
        stops = [0.0] * (a + 1)
        for pot in range(1, a):
            stops[pot] = 1.0 - values[b * row + a - pot]
        stops[a] = 1.0
        return stops


def turn_values(
    a: int,
    stops: Sequence[float],
    devil: float,
    q: float,
    shares: Sequence[tuple[int, float]],
) -> tuple[float, float]:
    """(value, d value / d ``devil``) of a turn's start under the best play.

    ``stops[pot]`` is the value of banking ``pot`` (``pot`` capped at ``a``), ``devil``
    the value after a devil. The derivative is the chance the turn ends in a devil.
    """
    pd = [devil_chance(n, q) for n in range(MAX_NUMBERS)]
    last = pd[2]
    # After two numbers: stop, or pop one of the two keys left (the third number banks).
    expected_bank: dict[int, list[float]] = {}

    def bank_after(key: int) -> list[float]:
        row = expected_bank.get(key)
        if row is None:
            row = [0.0] * (a + 1)
            for pot in range(1, a):
                row[pot] = sum(share * stops[min(pot + key * v, a)] for v, share in shares)
            expected_bank[key] = row
        return row

    two: dict[tuple[int, int], tuple[float, float]] = {}

    def after_two(mask: int, pot: int) -> tuple[float, float]:
        if pot >= a:
            return 1.0, 0.0
        found = two.get((mask, pot))
        if found is not None:
            return found
        best, slope = stops[pot], 0.0
        for key in KEYS:
            if not mask >> (key - 1) & 1:
                value = last * devil + (1 - last) * bank_after(key)[pot]
                if value > best:
                    best, slope = value, last
        two[(mask, pot)] = (best, slope)
        return best, slope

    def after_one(mask: int, pot: int) -> tuple[float, float]:
        if pot >= a:
            return 1.0, 0.0
        best, slope = stops[pot], 0.0
        p = pd[1]
        for key in KEYS:
            bit = 1 << (key - 1)
            if mask & bit:
                continue
            value = slope_sum = 0.0
            for v, share in shares:
                child, child_slope = after_two(mask | bit, min(pot + key * v, a))
                value += share * child
                slope_sum += share * child_slope
            value = p * devil + (1 - p) * value
            if value > best:
                best, slope = value, p + (1 - p) * slope_sum
        return best, slope

    best, slope = -1.0, 0.0
    p = pd[0]
    for key in KEYS:
        value = slope_sum = 0.0
        for v, share in shares:
            child, child_slope = after_one(1 << (key - 1), min(key * v, a))
            value += share * child
            slope_sum += share * child_slope
        value = p * devil + (1 - p) * value
        if value > best:
            best, slope = value, p + (1 - p) * slope_sum
    return best, slope


def solve(circuit: int, faces: Sequence[int | str], cancel: Flag | None = None) -> RaceTable:
    """The solved table for a circuit of ``circuit`` squares and number dice ``faces``
    (raises :class:`.cancel.Cancelled` once ``cancel`` is set).

    About ``circuit**2`` turn evaluations of a few thousand steps each: 40 squares
    take a few seconds in pure Python (``diablotin bench solver`` measures it).
    """
    table = RaceTable(circuit, faces)
    row = circuit + 1
    values = table.values
    q, shares = table.q, table.shares
    for total in range(2, 2 * circuit + 1):
        for a in range(max(1, total - circuit), total // 2 + 1):
            b = total - a
            check(cancel)
            _solve_pair(table, values, row, a, b, q, shares)
    return table


def _solve_pair(
    table: RaceTable,
    values: array[float],
    row: int,
    a: int,
    b: int,
    q: float,
    shares: Sequence[tuple[int, float]],
) -> None:
    """Fixed point of ``W[a][b] = T(1 - W[b][a])`` and its mirror (value iteration with
    Newton steps); everything with a smaller ``a + b`` is already solved."""
    stops_ab = table.stop_values(a, b)
    stops_ba = table.stop_values(b, a)
    w1 = w2 = 0.5
    for _ in range(200):
        v1, s1 = turn_values(a, stops_ab, 1.0 - w2, q, shares)
        v2, s2 = turn_values(b, stops_ba, 1.0 - w1, q, shares)
        residual = max(abs(v1 - w1), abs(v2 - w2))
        if residual < TOLERANCE:
            break
        # Linearise V1(1 - w2), V2(1 - w1) around the current point and solve exactly.
        # w1' = v1 - s1 (w2' - w2); w2' = v2 - s2 (w1' - w1).
        denominator = 1.0 - s1 * s2
        n1 = (v1 - s1 * (v2 - w2) - s1 * s2 * w1) / denominator
        n2 = v2 - s2 * (n1 - w1)
        w1, w2 = n1, n2
    else:  # pragma: no cover - a contraction with factor < 1 always converges
        raise ArithmeticError(f"rule B solver did not converge at ({a}, {b})")
    values[a * row + b] = w1
    values[b * row + a] = w2


# --- using the table at any moment of a turn -------------------------------------------


def remaining(state: SauteurState) -> tuple[int, int]:
    """(popper's squares to finish, hider's squares to finish)."""
    lap = state.config.circuit_length
    index = PLAYERS.index(state.popper)
    return lap - state.laps[index], lap - state.laps[1 - index]


def option_values(table: RaceTable, state: SauteurState) -> dict[str, float]:
    """The popper's chance to win after each option now (rule B, phase ``hiding`` or
    ``pop``): ``{"pop 1": ..., "pop 4": ..., "stop": ...}``; only legal options.

    In ``hiding`` the options are those of the coming turn (no stop).
    """
    a, b = remaining(state)
    popped = state.popped if state.phase == POP else ()
    pot, carried = state.pot, state.carried  # 0 and 0 at a turn's start
    mask = 0
    for key in popped:
        mask |= 1 << (key - 1)
    stops = table.stop_values(a, b)
    devil = 1.0 - table.win(b, a)
    options: dict[str, float] = {}
    memo: dict[tuple[int, int], float] = {}
    if state.phase == POP and (popped or carried):
        options["stop"] = stops[min(pot, a)]
    if carried + len(popped) < MAX_NUMBERS:
        for key in KEYS:
            if not mask >> (key - 1) & 1:
                options[f"pop {key}"] = _pop_value(
                    table, a, stops, devil, mask, pot, key, memo, carried
                )
    return options


def _pop_value(
    table: RaceTable,
    a: int,
    stops: Sequence[float],
    devil: float,
    mask: int,
    pot: int,
    key: int,
    memo: dict[tuple[int, int], float],
    carried: int = 0,
) -> float:
    """Chance to win if ``key`` is popped now and the rest of the turn is played best;
    ``carried``: numbers counted from earlier hidings of this turn (the box's new hiding)."""
    numbers = _bits(mask)
    p = devil_chance(numbers, table.q)
    after = mask | 1 << (key - 1)
    total = 0.0
    for v, share in table.shares:
        new_pot = min(pot + key * v, a)
        total += share * _best(table, a, stops, devil, after, new_pot, memo, carried)
    return p * devil + (1 - p) * total


def _best(
    table: RaceTable,
    a: int,
    stops: Sequence[float],
    devil: float,
    mask: int,
    pot: int,
    memo: dict[tuple[int, int], float],
    carried: int = 0,
) -> float:
    if pot >= a or carried + _bits(mask) >= MAX_NUMBERS:
        return stops[min(pot, a)]
    found = memo.get((mask, pot))
    if found is None:
        found = stops[pot]
        for key in KEYS:
            if not mask >> (key - 1) & 1:
                found = max(
                    found, _pop_value(table, a, stops, devil, mask, pot, key, memo, carried)
                )
        memo[(mask, pot)] = found
    return found


def best_action(table: RaceTable, state: SauteurState) -> dict[str, object]:
    """The optimal popper's action in phase ``pop`` (ties: stop, then the highest key)."""
    options = option_values(table, state)
    best = max(options, key=lambda name: (options[name], name == "stop", name))
    if best == "stop":
        return {"type": "stop", "by": state.popper}
    return {"type": "pop", "key": int(best.split()[1]), "by": state.popper}


class RaceHiding:
    """One rule-B turn as a :class:`~.hider.HidingGame` (inner position: the pot),
    what follows the turn valued by ``table``."""

    def __init__(self, table: RaceTable, a: int, b: int) -> None:
        self.a = a
        self.q = table.q
        self.shares = table.shares
        self.stops = table.stop_values(a, b)
        self.devil_value = 1.0 - table.win(b, a)

    def terminal(self, inner: object) -> float | None:
        return 1.0 if isinstance(inner, int) and inner >= self.a else None

    def stop(self, inner: object) -> float:
        assert isinstance(inner, int)
        return self.stops[min(inner, self.a)]

    def devil(self, key: int, inner: object) -> float:
        return self.devil_value

    def numbers(self, key: int, inner: object) -> list[tuple[float, tuple[int]]]:
        assert isinstance(inner, int)
        return [(share, (min(inner + key * v, self.a),)) for v, share in self.shares]


# --- the race under equilibrium play on both sides -----------------------------------


EQUILIBRIUM_TOLERANCE = 1e-9
"""Stop a mirror pair's search when its fixed-point residual is below this."""


def solve_equilibrium(
    circuit: int,
    faces: Sequence[int | str],
    cancel: Flag | None = None,
    progress: Callable[[int], None] | None = None,
) -> RaceTable:
    """``W[a][b]`` when both sides play the hiding's equilibrium at every turn
    (Shapley's value iteration: one small matrix game per turn start, solved by
    :func:`.hider.solve_hiding`, what follows valued by this table itself).

    Filled in order of ``a + b`` like :func:`solve`; each mirror pair is the fixed point
    of ``w = G_ab(G_ba(w))`` (``G``: the turn's game value given the mirror state's
    value), a contraction, found by the secant method to :data:`EQUILIBRIUM_TOLERANCE`.
    About 10 matrix games a pair: minutes in pure Python for 40 squares (cached by the
    service and the simulator). Raises :class:`.cancel.Cancelled` once ``cancel`` is set.
    ``progress(percent)`` is told each tenth of the turn starts solved (10, 20, ... 100).
    """
    table = RaceTable(circuit, faces)
    row = circuit + 1
    pairs = circuit * (circuit + 1) // 2
    done = told = 0
    for total in range(2, 2 * circuit + 1):
        for a in range(max(1, total - circuit), total // 2 + 1):
            b = total - a
            check(cancel)
            w_ab, w_ba = _equilibrium_pair(table, a, b)
            table.values[a * row + b] = w_ab
            table.values[b * row + a] = w_ba
            done += 1
            if progress is not None and 10 * done // pairs > told:
                told = 10 * done // pairs
                progress(10 * told)
    return table


def _equilibrium_pair(table: RaceTable, a: int, b: int) -> tuple[float, float]:
    """(``W[a][b]``, ``W[b][a]``) under equilibrium play, everything with a smaller
    ``a + b`` already in ``table``."""
    from controller.games.sauteur.hider import solve_hiding

    games = {(a, b): RaceHiding(table, a, b), (b, a): RaceHiding(table, b, a)}
    guesses: dict[tuple[int, int], Sequence[float]] = {}

    def value(x: int, y: int, mirror: float) -> float:
        """The turn (x, y)'s game value when the mirror state (y, x) is worth ``mirror``
        to its popper."""
        game = games[(x, y)]
        game.devil_value = 1.0 - mirror
        found = solve_hiding(game, 0, first=guesses.get((x, y), (0.25,) * 4))
        guesses[(x, y)] = found.y
        return found.value

    def step(w: float) -> float:
        """``G_ab(G_ba(w)) - w`` for the popper's value ``w`` at (a, b)."""
        return value(a, b, value(b, a, w) if a != b else w) - w

    w0, w1 = 0.5, 0.5 + step(0.5)
    f0 = w1 - w0
    for _ in range(100):
        f1 = step(w1)
        if abs(f1) < EQUILIBRIUM_TOLERANCE:
            return w1, value(b, a, w1)
        guess = w1 - f1 * (w1 - w0) / (f1 - f0) if f1 != f0 else w1 + f1
        w0, f0, w1 = w1, f1, min(1.0, max(0.0, guess))
    raise ArithmeticError(  # pragma: no cover - a contraction: the secant closes in on it
        f"rule B equilibrium did not converge at ({a}, {b})"
    )
