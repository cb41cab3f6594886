"""Rule A's hiding trees and the hiding's matrix game, compiled by numba when it is
installed (the optional extra ``fast``): the same doubles as the numpy and Python code
they stand in for, about ten times faster (issue 21: ``adaptive`` and ``optimal`` in a
rule-A simulation solve an equilibrium at every hiding, about 45 a match).

:func:`kernels` compiles them on first use (a few seconds, then cached on disk by numba)
and returns ``None`` when numba is not installed or ``DIABLOTIN_COMPILED=0``
(``DIABLOTIN_COMPILED=checked``: every index checked, as the tests run them; numba checks
none by default, and a read past an array's end gives wrong numbers): the caller,
:class:`.chase_tree.ChaseTree`, then uses its numpy code and :func:`.hider.solve_hiding`.
Each kernel does what that code does, operation for operation and in the same order, so
the answers are equal, not close (``tests/games/test_sauteur_chase_tree.py``,
``tests/games/test_sauteur_compiled.py``).
Numba compiles without ``fastmath``: no reassociation, no fused multiply-adds.
Pure: no I/O but numba's cache.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import FunctionType, SimpleNamespace
from typing import TypeVar

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
Stops = npt.NDArray[np.float32]
"""A utility's table of values at a hiding's start (:class:`.chase_table.ChaseTable`)."""
Level0 = tuple[Ints, Ints, Ints, Ints, Bools, Floats, Ints, Floats, Ints]
"""ids, figures, arrived, row masks, terminal, stop, keys, devil, children."""
Level1 = tuple[Ints, Ints, Ints, Ints, Bools, Floats, Ints, Floats, Ints, Ints, Ints]
"""As :data:`Level0`, then the level's masks and bounds."""
Level2 = tuple[Ints, Ints, Ints, Ints, Bools, Floats, Ints, Floats, Floats, Ints, Ints]
"""As :data:`Level1`, the options whatever the placement in place of the children."""
Solved = tuple[Floats, Floats, Floats, Floats, Floats, Floats, Floats]
"""Per level 0-2 every row's payoffs, per level each option's, the posteriors."""
F = TypeVar("F", bound=Callable[..., object])

_KERNELS: list[SimpleNamespace | None] = []


def kernels() -> SimpleNamespace | None:
    """The compiled kernels (``tree_levels``, ``tree_solve``, ``equilibrium``), or
    ``None`` without numba or with ``DIABLOTIN_COMPILED=0`` (read once)."""
    if not _KERNELS:
        _KERNELS.append(compile_kernels(os.environ.get("DIABLOTIN_COMPILED", "1")))
    return _KERNELS[0]


def compile_kernels(mode: str) -> SimpleNamespace | None:
    """The kernels for ``mode`` (``DIABLOTIN_COMPILED``'s values: "0", "1", "checked"),
    compiled when first called; ``None`` for "0" or without numba."""
    if mode == "0":
        return None
    try:
        import numba
    except ImportError:
        return None
    checked = mode == "checked"  # the tests: every index checked, nothing cached

    def jit(fn: Callable[..., object]) -> object:
        """``fn`` compiled, calling the kernels compiled before it."""
        made: object = numba.njit(cache=not checked, boundscheck=checked)(_with(fn, found))
        return made

    found: dict[str, object] = {}
    helpers: tuple[Callable[..., object], ...] = (
        _index, _devil, _move, _third, _level_from, _rows, _grow, _last, _pops, _tree_solve,
        _matrix_game,
    )  # fmt: skip
    for fn in helpers:  # each after those it calls
        found[fn.__name__] = jit(fn)
    return SimpleNamespace(
        mode=mode,
        tree_levels=jit(_tree_levels),
        tree_solve=found["_tree_solve"],
        equilibrium=jit(_equilibrium),
    )


def _with(fn: F, names: dict[str, object]) -> F:
    """``fn`` with the compiled helpers it calls in its globals (numba resolves globals
    when it compiles)."""
    assert isinstance(fn, FunctionType)
    scope = dict(fn.__globals__)
    scope.update(names)
    # why the ignore below: FunctionType() is typed as a plain function; it is fn's copy
    made: F = FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)  # type: ignore[assignment]
    return made


# -- the tree (chase_tree.ChaseTree's build) ---------------------------------------------
def _index(base: Ints, track: int, d: int, f0: int, f1: int, f2: int, arrived: int) -> int:
    """:meth:`.chase_table.ChaseIndex.index` of sorted figures (``track``: none)."""
    k = 0
    rank = 0
    if f0 < track:
        k += 1
        rank += f0 - d - 1
    if f1 < track:
        k += 1
        c = f1 - d
        rank += c * (c - 1) // 2
    if f2 < track:
        k += 1
        c = f2 - d + 1
        rank += c * (c - 1) * (c - 2) // 6
    return int(base[d, k] + rank * (4 - k) + arrived)


def _level_from(
    figs: Ints, arrived: Ints, mask: Ints, free_rows: Ints, base: Ints, track: int, d: int,
    stops: Stops, goal: Floats,
) -> tuple[Ints, Bools, Floats, Ints]:  # fmt: skip
    """A level's per-row arrays from its figures: (ids, terminal, stop, keys)."""
    rows = figs.shape[0]
    ids = np.empty(rows, np.int64)
    terminal = np.empty(rows, np.bool_)
    stop = np.empty(rows, np.float64)
    keys = np.empty((rows, free_rows.shape[1]), np.int64)
    for r in range(rows):
        ids[r] = _index(base, track, d, figs[r, 0], figs[r, 1], figs[r, 2], arrived[r])
        terminal[r] = figs[r, 0] >= track
        stop[r] = goal[arrived[r]] if terminal[r] else np.float64(stops[ids[r]])
        keys[r] = free_rows[mask[r]]
    return ids, terminal, stop, keys


def _devil(
    figs: Ints, r: int, a: int, key: int, base: Ints, track: int, d: int, multiplier: int,
    stops: Stops, goal: Floats,
) -> float:  # fmt: skip
    """The value after the devil from ``key`` for the row ``r``."""
    reach = min(d + multiplier * key, track)
    # The figures the devil reached leave play (``track``); the rest stay sorted.
    x0, x1, x2 = figs[r, 0], figs[r, 1], figs[r, 2]
    x0 = track if x0 < track and x0 <= reach else x0
    x1 = track if x1 < track and x1 <= reach else x1
    x2 = track if x2 < track and x2 <= reach else x2
    if x0 > x1:
        x0, x1 = x1, x0
    if x1 > x2:
        x1, x2 = x2, x1
    if x0 > x1:
        x0, x1 = x1, x0
    if x0 >= track:
        return float(goal[a])
    return float(stops[_index(base, track, reach, x0, x1, x2, a)])


def _move(figs: Ints, r: int, f: int, squares: int, track: int) -> tuple[bool, int, int, int, int]:
    """Figure ``f`` of row ``r`` moved ``squares``: (whether it is there to move, the
    figures after, sorted (``track``: none), and 1 if it came home)."""
    x = figs[r, f]
    target = x + squares
    moved = min(target, track)
    first = figs[r, 1] if f == 0 else figs[r, 0]
    second = figs[r, 1] if f == 2 else figs[r, 2]
    low = min(first, moved)
    high = max(second, moved)
    valid = x < track and (f == 0 or x != figs[r, f - 1])
    return valid, low, first + second + moved - low - high, high, 1 if target >= track else 0


def _grow(
    figs: Ints, arrived: Ints, mask: Ints, keys: Ints, base: Ints, track: int, d: int,
    multiplier: int, numbers: Ints, stops: Stops, goal: Floats, size: int, slots: Ints,
) -> tuple[Floats, Ints, Ints, Ints, Ints, Ints, Ints]:  # fmt: skip
    """:meth:`.chase_tree.ChaseTree._expand` then :meth:`~.chase_tree.ChaseTree._link`
    in one pass: (devil (rows, free), children (rows, free, numbers, 3; -1: no such
    figure), the next level's masks, bounds, figures (rows, 3), arrived and row masks),
    its rows sorted by group, then position."""
    rows, free = keys.shape
    count = numbers.shape[0]
    devil = np.empty((rows, free), np.float64)
    children = np.full((rows, free, count, 3), -1, np.int64)
    most = rows * free * count * 3
    codes = np.empty(most, np.int64)
    where = np.empty(most, np.int64)
    moved = np.empty((most, 4), np.int64)
    n = 0
    for r in range(rows):
        a = arrived[r]
        for j in range(free):
            key = keys[r, j]
            devil[r, j] = _devil(figs, r, a, key, base, track, d, multiplier, stops, goal)
            after = mask[r] | 1 << (key - 1)
            for v in range(count):
                for f in range(3):
                    ok, low, mid, high, home = _move(figs, r, f, key * numbers[v], track)
                    if ok:
                        at = _index(base, track, d, low, mid, high, a + home)
                        codes[n] = after * size + at
                        where[n] = ((r * free + j) * count + v) * 3 + f
                        moved[n, 0], moved[n, 1], moved[n, 2] = low, mid, high
                        moved[n, 3] = a + home
                        n += 1
    masks, bounds, after_figs, after_arrived, row_masks = _rows(
        codes[:n], where[:n], moved[:n], size, slots, children.reshape(-1)
    )
    return devil, children, masks, bounds, after_figs, after_arrived, row_masks


def _rows(
    codes: Ints, where: Ints, moved: Ints, size: int, slots: Ints, flat: Ints
) -> tuple[Ints, Ints, Ints, Ints, Ints]:
    """The next level's rows from its entries (``codes``: mask x size + position number;
    ``where``: each entry's place in ``flat``, the children, which gets its row;
    ``moved``: its figures and arrived): each distinct (mask, position) once, sorted by
    mask, then position (as ``np.unique`` then ``searchsorted``): (masks, bounds,
    figures, arrived, row masks). Entries are bucketed by mask, and a bucket's positions
    deduplicated through ``slots`` (a row per position number, -1 when unused; left all
    -1 again), so only the distinct positions are sorted."""
    n = codes.shape[0]
    per_mask = np.zeros(17, np.int64)
    for i in range(n):
        per_mask[codes[i] // size + 1] += 1
    starts = np.cumsum(per_mask)
    bucketed = np.empty(n, np.int64)
    filled = starts[:16].copy()
    for i in range(n):
        m = codes[i] // size
        bucketed[filled[m]] = i
        filled[m] += 1
    row_ids = np.empty(n, np.int64)
    first_entry = np.empty(n, np.int64)
    row_masks = np.empty(n, np.int64)
    held = 0
    for m in range(16):
        begin, end = starts[m], starts[m + 1]
        distinct = 0
        for b in range(begin, end):
            e = bucketed[b]
            at = codes[e] - m * size
            if slots[at] < 0:
                slots[at] = 0
                row_ids[held + distinct] = at
                first_entry[held + distinct] = e
                distinct += 1
        order = np.argsort(row_ids[held : held + distinct])
        ids = row_ids[held : held + distinct][order]
        entries = first_entry[held : held + distinct][order]
        row_ids[held : held + distinct] = ids
        first_entry[held : held + distinct] = entries
        for t in range(distinct):
            slots[ids[t]] = held + t
            row_masks[held + t] = m
        for b in range(begin, end):
            e = bucketed[b]
            flat[where[e]] = slots[codes[e] - m * size]
        for t in range(distinct):
            slots[ids[t]] = -1
        held += distinct
    after_figs = np.empty((held, 3), np.int64)
    after_arrived = np.empty(held, np.int64)
    for t in range(held):
        e = first_entry[t]
        after_figs[t] = moved[e, :3]
        after_arrived[t] = moved[e, 3]
    row_masks = row_masks[:held]
    masks = np.unique(row_masks)
    bounds = np.empty(masks.shape[0] + 1, np.int64)
    bounds[:-1] = np.searchsorted(row_masks, masks)
    bounds[-1] = held
    return masks, bounds, after_figs, after_arrived, row_masks


def _third(
    figs: Ints, r: int, a: int, key: int, base: Ints, track: int, d: int, numbers: Ints,
    stops: Stops, goal: Floats, shares: Floats,
) -> float:  # fmt: skip
    """Row ``r`` two numbers out: the expected worth of a third number from ``key``
    (the hiding ends; the popper moves the figure worth most), as
    :meth:`.chase_tree.ChaseTree._last_pops` sums it."""
    total = 0.0
    for v in range(numbers.shape[0]):
        best = -np.inf
        for f in range(3):
            ok, low, mid, high, home = _move(figs, r, f, key * numbers[v], track)
            if ok:
                if low >= track:
                    worth = float(goal[a + home])
                else:
                    worth = float(stops[_index(base, track, d, low, mid, high, a + home)])
                best = max(best, worth)
        if best == -np.inf:
            best = 0.0
        total += shares[v] * best
    return total


def _last(
    figs: Ints, arrived: Ints, ids: Ints, stop: Floats, mask: Ints, keys: Ints, base: Ints,
    track: int, d: int, multiplier: int, numbers: Ints, stops: Stops, goal: Floats,
    shares: Floats, q: float, thirds: Floats,
) -> tuple[Floats, Floats]:  # fmt: skip
    """:meth:`.chase_tree.ChaseTree._expand` then :meth:`~.chase_tree.ChaseTree._last_pops`
    two numbers out, in one pass: (devil (rows, free), the options (rows, 1 + free, 4)).
    ``thirds`` (positions, 4 keys; NaN: not yet known) memoises :func:`_third`, which
    depends on the position and the table only, not on the hiding."""
    rows, free = keys.shape
    devil = np.empty((rows, free), np.float64)
    last = np.empty((rows, 1 + free, 4), np.float64)
    for r in range(rows):
        a = arrived[r]
        for h in range(4):
            last[r, 0, h] = stop[r]
        for j in range(free):
            key = keys[r, j]
            devil[r, j] = _devil(figs, r, a, key, base, track, d, multiplier, stops, goal)
            total = thirds[ids[r], key - 1]
            if total != total:  # NaN: not worked out yet
                total = _third(figs, r, a, key, base, track, d, numbers, stops, goal, shares)
                thirds[ids[r], key - 1] = total
            pop = q * devil[r, j] + (1 - q) * total
            for h in range(4):
                if mask[r] >> h & 1:
                    last[r, 1 + j, h] = 0.0
                elif key - 1 == h:
                    last[r, 1 + j, h] = devil[r, j]
                else:
                    last[r, 1 + j, h] = pop
    return devil, last


def _tree_levels(
    start: Ints, arrived0: int, free_rows0: Ints, free_rows1: Ints, free_rows2: Ints, base: Ints,
    track: int, d: int, multiplier: int, numbers: Ints, shares: Floats, q: float, stops: Stops,
    goal: Floats, size: int, thirds: Floats, slots: Ints,
) -> tuple[Level0, Level1, Level2]:  # fmt: skip
    """The whole tree: per level (0, 1, 2 numbers out) its rows' arrays, the links
    between them and, two numbers out, the options whatever the placement."""
    figs0 = start.reshape(1, 3)
    arrived_0 = np.full(1, arrived0, np.int64)
    mask0 = np.zeros(1, np.int64)
    ids0, terminal0, stop0, keys0 = _level_from(
        figs0, arrived_0, mask0, free_rows0, base, track, d, stops, goal
    )
    devil0, children0, masks1, bounds1, figs1, arrived1, mask1 = _grow(
        figs0, arrived_0, mask0, keys0, base, track, d, multiplier, numbers, stops, goal, size,
        slots,
    )  # fmt: skip
    ids1, terminal1, stop1, keys1 = _level_from(
        figs1, arrived1, mask1, free_rows1, base, track, d, stops, goal
    )
    devil1, children1, masks2, bounds2, figs2, arrived2, mask2 = _grow(
        figs1, arrived1, mask1, keys1, base, track, d, multiplier, numbers, stops, goal, size,
        slots,
    )  # fmt: skip
    ids2, terminal2, stop2, keys2 = _level_from(
        figs2, arrived2, mask2, free_rows2, base, track, d, stops, goal
    )
    devil2, last = _last(
        figs2, arrived2, ids2, stop2, mask2, keys2, base, track, d, multiplier, numbers, stops,
        goal, shares, q, thirds,
    )  # fmt: skip
    return (
        (ids0, figs0, arrived_0, mask0, terminal0, stop0, keys0, devil0, children0),
        (ids1, figs1, arrived1, mask1, terminal1, stop1, keys1, devil1, children1, masks1, bounds1),
        (ids2, figs2, arrived2, mask2, terminal2, stop2, keys2, devil2, last, masks2, bounds2),
    )


# -- a best reply (chase_tree.ChaseTree._solved) ------------------------------------------
def _tree_solve(
    y: Floats, levels_mask: tuple[Ints, Ints, Ints],
    levels_terminal: tuple[Bools, Bools, Bools], levels_stop: tuple[Floats, Floats, Floats],
    levels_keys: tuple[Ints, Ints, Ints], levels_devil: tuple[Floats, Floats, Floats],
    levels_children: tuple[Ints, Ints, Ints], last: Floats, shares: Floats, q: float,
) -> Solved:  # fmt: skip
    """:meth:`.chase_tree.ChaseTree._solved` for the placement ``y``: (per level, every
    row's payoffs (rows + 1, 4, the last a pad of 0); per level, each option's
    (rows, options, 4); the posteriors (16, 4))."""
    weights = np.empty((16, 4), np.float64)
    for m in range(16):
        seen = False
        for h in range(4):
            weights[m, h] = 0.0 if m >> h & 1 else y[h]
            seen = seen or weights[m, h] > 0
        if not seen:
            for h in range(4):
                weights[m, h] = 0.0 if m >> h & 1 else 0.25
    out = []
    options = []
    child = np.zeros((1, 4), np.float64)
    worth = np.full(1, -np.inf)
    for n in range(2, -1, -1):
        mask = levels_mask[n]
        rows = mask.shape[0]
        pops = last
        if n < 2:
            pops = _pops(
                mask, levels_stop[n], levels_keys[n], levels_devil[n], levels_children[n],
                child, worth, shares, q, 1 if n else 0,
            )  # fmt: skip
        value = np.zeros((rows + 1, 4), np.float64)
        worth = np.empty(rows + 1, np.float64)
        worth[rows] = -np.inf
        terminal = levels_terminal[n]
        for r in range(rows):
            w = weights[mask[r]]
            pick = 0
            best = -np.inf
            for o in range(pops.shape[1]):
                p = pops[r, o]
                score = w[0] * p[0] + w[1] * p[1] + w[2] * p[2] + w[3] * p[3]
                if o == 0 or score > best:
                    best, pick = score, o
            for h in range(4):
                value[r, h] = levels_stop[n][r] if terminal[r] else pops[r, pick, h]
            p = value[r]
            worth[r] = w[0] * p[0] + w[1] * p[1] + w[2] * p[2] + w[3] * p[3]
        out.append(value)
        options.append(pops)
        child = value
    return out[2], out[1], out[0], options[2], options[1], options[0], weights


def _pops(
    mask: Ints, stop: Floats, keys: Ints, devil: Floats, children: Ints, child: Floats,
    worth: Floats, shares: Floats, q: float, off: int,
) -> Floats:  # fmt: skip
    """:meth:`.chase_tree.ChaseTree._expected` (and the stop in front when ``off`` is 1):
    each row's options when the next level's rows are worth ``child`` per slot and
    ``worth`` against their posterior (the last of each a pad: 0, -inf)."""
    rows, free = keys.shape
    pops = np.empty((rows, off + free, 4), np.float64)
    total = np.empty(4, np.float64)
    pad = child.shape[0] - 1
    for r in range(rows):
        if off:
            for h in range(4):
                pops[r, 0, h] = stop[r]
        for j in range(free):
            for h in range(4):
                total[h] = 0.0
            for v in range(children.shape[2]):
                choice = 0
                best = -np.inf
                for f in range(3):
                    c = children[r, j, v, f]
                    w = worth[c] if c >= 0 else worth[pad]
                    if w > best:
                        best, choice = w, f
                c = children[r, j, v, choice]
                at = c if c >= 0 else pad
                for h in range(4):
                    total[h] += shares[v] * child[at, h]
            key = keys[r, j]
            for h in range(4):
                if mask[r] >> h & 1:
                    pops[r, off + j, h] = 0.0
                elif key - 1 == h:
                    pops[r, off + j, h] = devil[r, j]
                else:
                    pops[r, off + j, h] = q * devil[r, j] + (1 - q) * total[h]
    return pops


# -- the hiding's matrix game (hider.matrix_game) ------------------------------------------
def _matrix_game(plans: Floats) -> tuple[Floats, Floats, float]:
    """:func:`.hider.matrix_game` of ``plans`` (n, 4): (y (4), x (n), value); raises
    ``ArithmeticError`` if the simplex does not end (Bland's rule never cycles)."""
    n = plans.shape[0]
    low = plans.min()
    scale = plans.max() - low
    if scale == 0.0:
        scale = 1.0
    width = 4 + n + 1
    rows = np.zeros((n, width), np.float64)
    for j in range(n):
        for h in range(4):
            rows[j, h] = 1.0 + (plans[j, h] - low) / scale
        rows[j, 4 + j] = 1.0
        rows[j, width - 1] = 1.0
    objective = np.zeros(width, np.float64)
    objective[:4] = -1.0
    basis = np.arange(4, 4 + n)
    ended = False
    for _ in range(1000):
        entering = -1
        for c in range(4 + n):
            if objective[c] < -1e-12:
                entering = c
                break
        if entering < 0:
            ended = True
            break
        leaving, best = -1, np.inf
        for r in range(n):
            a = rows[r, entering]
            if a > 1e-12:
                ratio = rows[r, width - 1] / a
                if ratio < best - 1e-15 or (
                    abs(ratio - best) <= 1e-15 and basis[r] < basis[leaving]
                ):
                    leaving, best = r, ratio
        pivot = rows[leaving, entering]
        for c in range(width):
            rows[leaving, c] = rows[leaving, c] / pivot
        for r in range(n):
            if r != leaving:
                f = rows[r, entering]
                if f != 0.0:
                    for c in range(width):
                        rows[r, c] -= f * rows[leaving, c]
        f = objective[entering]
        for c in range(width):
            objective[c] = objective[c] - f * rows[leaving, c]
        basis[leaving] = entering
    if not ended:
        raise ArithmeticError("matrix game: the simplex did not end")
    z = np.zeros(4, np.float64)
    for r in range(n):
        if basis[r] < 4:
            z[basis[r]] = rows[r, width - 1]
    total = z[0] + z[1] + z[2] + z[3]
    y = z / total
    duals = np.empty(n, np.float64)
    weight = 0.0
    for j in range(n):
        duals[j] = max(0.0, objective[4 + j])
        weight += duals[j]
    return y, duals / weight, low + (1.0 / total - 1.0) * scale


# -- the double oracle (hider.solve_hiding over a tree) ------------------------------------
def _equilibrium(
    rounds: int, gap: float, levels_mask: tuple[Ints, Ints, Ints],
    levels_terminal: tuple[Bools, Bools, Bools], levels_stop: tuple[Floats, Floats, Floats],
    levels_keys: tuple[Ints, Ints, Ints], levels_devil: tuple[Floats, Floats, Floats],
    levels_children: tuple[Ints, Ints, Ints], last: Floats, shares: Floats, q: float,
) -> tuple[Floats, float, Floats, Floats, Floats, int]:  # fmt: skip
    """:func:`.hider.solve_hiding` from the tree's start with its best replies
    (``replier``), from the uniform placement: (y, value, the placements the plans reply
    to (n, 4), the popper's chances (n), the plans' payoffs (n, 4), n); n = 0: the double
    oracle did not close in ``rounds`` plans."""
    keys = np.empty((rounds + 1, 4), np.float64)
    plans = np.empty((rounds + 1, 4), np.float64)
    keys[0] = 0.25
    found = _tree_solve(
        keys[0], levels_mask, levels_terminal, levels_stop, levels_keys, levels_devil,
        levels_children, last, shares, q,
    )  # fmt: skip
    plans[0] = found[0][0]
    held = 1
    for _ in range(rounds):
        y, x, worth = _matrix_game(plans[:held])
        reply = _tree_solve(
            y, levels_mask, levels_terminal, levels_stop, levels_keys, levels_devil,
            levels_children, last, shares, q,
        )[0][0]  # fmt: skip
        gain = y[0] * reply[0] + y[1] * reply[1] + y[2] * reply[2] + y[3] * reply[3]
        again = False
        for k in range(held):
            if (plans[k] == reply).all():
                again = True
        if gain <= worth + gap or again:
            used = np.flatnonzero(x > 1e-12)
            total = 0.0
            for used_one in used:
                total += x[used_one]
            return y, worth, keys[used], x[used] / total, plans[used], used.shape[0]
        keys[held] = y
        plans[held] = reply
        held += 1
    return keys[0], 0.0, keys[:0], np.zeros(0), plans[:0], 0
