"""The popper's equilibrium (issue 21): each hiding's matrix game solved on both sides,
checked against an independent brute force on small tracks, and rule B's Shapley table."""

from __future__ import annotations

from itertools import product

import pytest

from controller.games.sauteur.hider import best_reply, matrix_game, solve_hiding
from controller.games.sauteur.levels import SHIPPED, Tables, shipped_race_equilibrium
from controller.games.sauteur.solve_b import RaceHiding, RaceTable, solve, solve_equilibrium

KEYS = (1, 2, 3, 4)
Vector = tuple[float, float, float, float]


def all_plans(game: RaceHiding, mask: int = 0, pot: int = 0) -> list[Vector]:
    """Every pure popper plan of a rule-B turn, as its payoff per devil slot: a plan picks
    an option at every point it may reach (enumerated outright, nothing merged)."""
    if pot >= game.a:
        return [(1.0, 1.0, 1.0, 1.0)]
    plans: list[Vector] = []
    if mask:
        stop = game.stops[pot]
        plans.append((stop, stop, stop, stop))
    if bin(mask).count("1") == 3:
        return plans
    for key in KEYS:
        bit = 1 << (key - 1)
        if mask & bit:
            continue
        outcomes = [(share, min(pot + key * v, game.a)) for v, share in game.shares]
        children = [all_plans(game, mask | bit, new_pot) for _, new_pot in outcomes]
        for choice in product(*children):
            vector = []
            for slot in range(4):
                if mask >> slot & 1:
                    vector.append(0.0)  # a popped slot cannot hold the devil die
                elif slot == key - 1:
                    vector.append(game.devil_value)
                else:
                    vector.append(
                        sum(
                            share * child[slot]
                            for (share, _), child in zip(outcomes, choice, strict=True)
                        )
                    )
            plans.append((vector[0], vector[1], vector[2], vector[3]))
    return sorted(set(plans))


def follow(game: RaceHiding, plan: dict, mask: int = 0, pot: int = 0) -> Vector:  # type: ignore[type-arg]
    """The payoff per devil slot of following ``plan`` ({(mask, pot): option}), evaluated
    outright (not by the solver's code)."""
    if pot >= game.a:
        return (1.0, 1.0, 1.0, 1.0)
    option = plan[(mask, pot)]
    if option == "stop":
        stop = game.stops[pot]
        return tuple(0.0 if mask >> h & 1 else stop for h in range(4))  # type: ignore[return-value]
    key = int(option.split()[1])
    bit = 1 << (key - 1)
    out = [0.0] * 4
    for v, share in game.shares:
        new_pot = min(pot + key * v, game.a)
        if bin(mask | bit).count("1") == 3 and new_pot < game.a:
            child: Vector = (game.stops[new_pot],) * 4  # type: ignore[assignment]
        else:
            child = follow(game, plan, mask | bit, new_pot)
        for h in range(4):
            out[h] += share * child[h]
    return tuple(  # type: ignore[return-value]
        0.0 if mask >> h & 1 else game.devil_value if h == key - 1 else out[h] for h in range(4)
    )


def certified_value(game: RaceHiding) -> float:
    """The hiding's game value, proved outright: the solver's hider placement holds every
    enumerated pure plan to at most ``v``, and the solver's popper mixture, each plan
    followed and evaluated here, gets at least ``v`` wherever the devil die is."""
    found = solve_hiding(game, 0)
    ceiling = max(sum(found.y[h] * p[h] for h in range(4)) for p in all_plans(game))
    mixed = [0.0] * 4
    for y, weight in zip(found.plans, found.weights, strict=True):
        plan: dict = {}  # type: ignore[type-arg]
        best_reply(game, y, 0, plan=plan)
        vector = follow(game, plan)
        for h in range(4):
            mixed[h] += weight * vector[h]
    assert sum(found.weights) == pytest.approx(1.0) and min(found.weights) > 0
    assert ceiling - min(mixed) < 1e-9  # the hider's guarantee meets the popper's
    assert found.value == pytest.approx(ceiling, abs=1e-9)
    return ceiling


@pytest.mark.parametrize(("a", "b"), [(3, 4), (5, 2), (5, 5)])
def test_the_poppers_mixture_is_an_equilibrium_checked_by_brute_force(a: int, b: int) -> None:
    table = solve(5, [1, 2])
    game = RaceHiding(table, a, b)
    value = certified_value(game)
    assert value < table.win(a, b) + 1e-12  # the uniform hider is no better for the hider


def test_matrix_game_both_sides_of_matching_pennies() -> None:
    y, x, value = matrix_game([(1.0, 0.0, 1.0, 1.0), (0.0, 1.0, 1.0, 1.0)])
    assert value == pytest.approx(0.5)
    assert y[:2] == pytest.approx((0.5, 0.5)) and x == pytest.approx((0.5, 0.5))


def test_rule_b_equilibrium_table_is_the_brute_force_fixed_point_on_a_small_circuit() -> None:
    # Every turn start's value is its own hiding game's value, the hidings after it
    # valued by the table itself (Shapley's equations), each proved by brute force.
    table = solve_equilibrium(4, [1, 2])
    for a in range(1, 5):
        for b in range(1, 5):
            assert table.win(a, b) == pytest.approx(
                certified_value(RaceHiding(table, a, b)), abs=1e-8
            )
    assert table.win(4, 4) != pytest.approx(solve(4, [1, 2]).win(4, 4), abs=1e-3)


def test_the_shipped_default_table_is_a_fixed_point_of_equilibrium_play() -> None:
    table = shipped_race_equilibrium(*SHIPPED)
    assert isinstance(table, RaceTable)
    assert table.win(40, 40) == pytest.approx(0.548, abs=0.03)
    for a, b in [(40, 40), (40, 20), (20, 40), (7, 33), (1, 1)]:
        found = solve_hiding(RaceHiding(table, a, b), 0)
        assert found.value == pytest.approx(table.win(a, b), abs=1e-8)


def test_rule_b_hiding_uses_the_equilibrium_continuation() -> None:
    from controller.games.sauteur import SauteurRules

    rules = SauteurRules()
    state = rules.apply(rules.setup({"rule": "B", "circuit_length": 6}), {"type": "hidden"})
    tables = Tables()
    y, value = tables.placement(state)
    assert value == pytest.approx(tables.race_equilibrium(state.config).win(6, 6), abs=1e-9)
    assert sum(y) == pytest.approx(1.0)


def test_the_mixtures_plans_are_kept_as_their_best_replies_moves(monkeypatch):
    """Rule B: :meth:`Tables.equilibrium` keeps each mixture plan's moves (found while
    solving), so following a plan solves nothing more; they are those of a fresh best
    reply to the plan's placement."""
    from controller.games.sauteur import SauteurRules, hider

    tables = Tables()
    state = SauteurRules().setup({"rule": "B", "first_hider": "p1"})
    found = tables.equilibrium(state)
    game, start, _ = tables.hiding_game(state)
    assert found.plans
    with monkeypatch.context() as patch:
        patch.setattr(hider, "best_reply", lambda *args, **kwargs: pytest.fail("solved again"))
        kept = [tables.reply(state, y) for y in found.plans]
    for y, payoff, got in zip(found.plans, found.payoffs, kept, strict=True):
        moves: dict = {}
        vector, _ = best_reply(game, y, start, plan=moves)
        assert got == (vector, moves)
        assert vector == payoff


def test_matrix_game_of_payoffs_all_near_one() -> None:
    """A rule-A hiding met in the simulator (devil on 18, figures on 22 and 49, one
    arrived, the match's last round): every plan wins with chance 1 - 1e-6 or more. The
    hider's placement must hold every plan to the value and the popper's mixture get it
    on every slot; shifted only (not scaled) the simplex was off by 1.8e-6 here and the
    double oracle never closed."""
    plans = [
        (0.9999995231628418, 0.9999999999999999, 0.9999999999999999, 0.9999999999999999),
        (0.9999999999999999, 0.9999980926513672, 0.9999999999999999, 0.9999999999999999),
        (0.9999999999999998, 0.9999999999999998, 0.9999923706054688, 0.9999694824218748),
        (0.9999999999999999, 0.9999999999999999, 0.9999923706054688, 0.9999999999999999),
        (0.9999999999999999, 0.9999999999999999, 0.9999999999999999, 0.999969482421875),
    ]
    y, x, value = matrix_game(plans)
    assert min(y) >= 0 and sum(y) == pytest.approx(1.0)
    assert max(sum(y[h] * plan[h] for h in range(4)) for plan in plans) <= value + 1e-12
    for h in range(4):
        assert sum(w * plan[h] for w, plan in zip(x, plans, strict=True)) >= value - 1e-12
