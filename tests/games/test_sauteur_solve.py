"""The solvers: rule B against an independent brute force, rule A's approximation
against an exact expectimax on a reduced track, and the hider's equilibrium."""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pytest

from controller.games.sauteur import SauteurRules
from controller.games.sauteur.chase_table import MASKS, ChaseIndex, ChaseMoves, ChaseTable
from controller.games.sauteur.chase_table import solve as solve_chase
from controller.games.sauteur.hider import UNIFORM, best_reply, equilibrium, minimax_hider
from controller.games.sauteur.levels import Tables, coach_popper
from controller.games.sauteur.solve_a import utility
from controller.games.sauteur.solve_b import TOLERANCE, RaceHiding, solve

RULES = SauteurRules()


def brute_force_race(circuit: int, faces: list[int | str]) -> dict[tuple[int, int], float]:
    """W(a, b) by plain value iteration over every state of a turn, the devil die's slot
    enumerated explicitly (prior 1/4 each, kept if consistent with what came out)."""
    keys = (1, 2, 3, 4)
    value: dict[tuple[int, int, tuple[int, ...], int], float] = {}

    def turn_start(a: int, b: int) -> float:
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        return value.get((a, b, (), 0), 0.5)

    def worth(a: int, b: int, popped: tuple[int, ...], pot: int) -> float:
        if pot >= a:
            return 1.0
        options = []
        if popped:
            options.append(1.0 - turn_start(b, a - pot))
        if len(popped) < 3:
            for key in keys:
                if key in popped:
                    continue
                consistent = [slot for slot in keys if slot not in popped]
                p_devil_die = sum(1 for slot in consistent if slot == key) / len(consistent)
                lose = 1.0 - turn_start(b, a)
                total = p_devil_die * lose
                for face in faces:
                    share = (1 - p_devil_die) / len(faces)
                    if face == "devil":
                        total += share * lose
                        continue
                    assert isinstance(face, int)
                    new_pot = pot + key * face
                    after = tuple(sorted((*popped, key)))
                    if len(after) == 3:
                        bank = 1.0 if new_pot >= a else 1.0 - turn_start(b, a - new_pot)
                    else:
                        bank = worth_of(a, b, after, new_pot)
                    total += share * bank
                options.append(total)
        return max(options)

    def worth_of(a: int, b: int, popped: tuple[int, ...], pot: int) -> float:
        if pot >= a:
            return 1.0
        return value.get((a, b, popped, pot), 0.5)

    biggest = 4 * max(f for f in faces if isinstance(f, int)) * 3
    states = [
        (a, b, popped, pot)
        for a in range(1, circuit + 1)
        for b in range(1, circuit + 1)
        for size in range(3)
        for popped in combinations(keys, size)
        for pot in (range(1, min(a, biggest + 1)) if size else (0,))
    ]
    for _ in range(10_000):
        change = 0.0
        for state in states:
            new = worth(*state)
            change = max(change, abs(new - value.get(state, 0.5)))
            value[state] = new
        if change < 1e-14:
            break
    return {
        (a, b): value[(a, b, (), 0)] for a in range(1, circuit + 1) for b in range(1, circuit + 1)
    }


@pytest.mark.parametrize(("circuit", "faces"), [(6, [1, 2, 3]), (5, [1, 2, "devil"])])
def test_rule_b_table_equals_a_brute_force_expectimax(circuit: int, faces: list[int | str]) -> None:
    table = solve(circuit, faces)
    expected = brute_force_race(circuit, faces)
    for (a, b), chance in expected.items():
        assert table.win(a, b) == pytest.approx(chance, abs=1e-9), (a, b)
    assert TOLERANCE <= 1e-9


def test_rule_b_table_is_a_fixed_point_of_the_bellman_update_on_the_real_circuit() -> None:
    table = solve(40, [1, 2, 3, 4, 5, 6])
    for a, b in [(40, 40), (1, 40), (40, 1), (13, 29), (29, 13), (7, 7)]:
        vector, _ = best_reply(RaceHiding(table, a, b), UNIFORM, 0)
        assert sum(vector) / 4 == pytest.approx(table.win(a, b), abs=1e-9)
    assert 0.5 < table.win(40, 40) < 0.7  # popping first is an advantage
    assert table.win(1, 40) > table.win(40, 1)


@cache
def _exact_chase(d: int, figs: tuple[int, ...], arrived: int, popped: int, cfg: tuple) -> float:
    """Full expectimax of a rule-A round (uniform hider), written apart from the solver:
    ``popped`` keys gave numbers this hiding (0: a hiding starts)."""
    track, multiplier, faces, goal = cfg
    if not figs:
        return goal[arrived]
    options = []
    if popped:
        options.append(_exact_chase(d, figs, arrived, 0, cfg))
    count = bin(popped).count("1")
    if count < 3:
        for key in (1, 2, 3, 4):
            if popped >> key & 1:
                continue
            p = 1 / (4 - count)
            reach = min(d + multiplier * key, track)
            total = p * _exact_chase(reach, tuple(x for x in figs if x > reach), arrived, 0, cfg)
            for face in faces:
                best = -1.0
                for i in range(len(figs)):
                    moved = figs[i] + key * face
                    rest = figs[:i] + figs[i + 1 :]
                    if moved >= track:
                        value = _exact_chase(d, rest, arrived + 1, popped | 1 << key, cfg)
                    else:
                        new = tuple(sorted((*rest, moved)))
                        value = _exact_chase(d, new, arrived, popped | 1 << key, cfg)
                    best = max(best, value)
                total += (1 - p) / len(faces) * best
            options.append(total)
    return max(options)


@pytest.mark.parametrize("target", [2, 5])
def test_rule_a_tables_equal_the_exact_expectimax_on_a_reduced_track(target: int) -> None:
    options = {"rule": "A", "track_length": 16, "figures": {"a": 2, "b": 4, "c": 6}}
    config = RULES.setup(options).config
    goal = utility(target)
    table = ChaseTable(config, goal, solve_chase(ChaseMoves(config), goal))
    cfg = (16, 3, (1, 2, 3, 4, 5, 6), goal)
    index = ChaseIndex(16)
    ds, figures, arrivals = index.positions()
    checked = 0
    for d, row, arrived in zip(ds.tolist(), figures.tolist(), arrivals.tolist(), strict=True):
        figs = tuple(x for x in row if x < 16)
        if not figs:
            continue
        assert table.hiding(d, figs, arrived) == pytest.approx(
            _exact_chase(d, figs, arrived, 0, cfg), abs=1e-6
        )
        for mask in MASKS:  # the expectimax numbers keys from bit 1
            assert table.inner(d, figs, arrived, mask) == pytest.approx(
                _exact_chase(d, figs, arrived, mask << 1, cfg), abs=1e-6
            )
        checked += 1
    assert checked > 4000


def test_rule_a_positions_are_numbered_one_to_one() -> None:
    index = ChaseIndex(50)
    ds, figures, arrivals = index.positions()
    numbers = index.indices(ds, figures, arrivals)
    assert (numbers == np.arange(index.size)).all()
    assert index.size == 316_254
    assert (
        index.index(0, (5, 10, 15), 0)
        == numbers[
            (ds == 0)
            & (figures[:, 0] == 5)
            & (figures[:, 1] == 10)
            & (figures[:, 2] == 15)
            & (arrivals == 0)
        ][0]
    )


def test_rule_a_positions_of_one_devil_square_are_numbered_the_same() -> None:
    """``split_indices`` with one devil square (its per-square lookups) gives what the
    arithmetic gives, on every position of a few squares."""
    index = ChaseIndex(50)
    ds, figures, arrivals = index.positions()
    for d in (0, 7, 31, 49, 50):
        at = ds == d
        figs = figures[at]
        found = index.split_indices(d, figs[:, 0], figs[:, 1], figs[:, 2], arrivals[at])
        assert (found == np.flatnonzero(at)).all()
        assert (found == index.indices(ds[at], figs, arrivals[at])).all()


def test_minimax_hider_solves_a_known_game() -> None:
    # Matching pennies on slots 1 and 2: plan A pays 1 on slot 1, plan B on slot 2.
    y, value = minimax_hider([(1.0, 0.0, 1.0, 1.0), (0.0, 1.0, 1.0, 1.0)])
    assert value == pytest.approx(0.5)
    assert y[0] == pytest.approx(0.5) and y[1] == pytest.approx(0.5)


def test_equilibrium_hiding_is_no_better_for_the_popper_than_uniform() -> None:
    table = solve(40, [1, 2, 3, 4, 5, 6])
    game = RaceHiding(table, 40, 40)
    y, value = equilibrium(game, 0)
    assert sum(y) == pytest.approx(1.0) and min(y) >= 0
    assert value < table.win(40, 40) - 0.02  # hiding well matters
    # No popper plan does better against y than the game's value (it is a best reply).
    reply, _ = best_reply(game, y, 0)
    assert sum(share * pay for share, pay in zip(y, reply, strict=True)) == pytest.approx(value)
    assert y[3] > y[0]  # the devil die goes under the big keys more often


def test_coach_ranks_the_options_of_the_current_state() -> None:
    tables = Tables()
    state = RULES.setup({"rule": "B", "first_hider": "p1"})
    state = RULES.apply(state, {"type": "hidden"})
    report = coach_popper(tables, state)
    assert report["measure"] == "win"
    names = [row["option"] for row in report["options"]]
    assert sorted(names) == ["pop 1", "pop 2", "pop 3", "pop 4"]
    assert report["options"][0]["win"] == pytest.approx(
        tables.race(state.config).win(40, 40), abs=1e-4
    )
