"""The odds shown to the popper, checked against a brute-force Bayesian count over
the 24 arrangements of the dice; and the computer popper's choices."""

from __future__ import annotations

import functools
import itertools
import json
import random
from fractions import Fraction
from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.sauteur import SauteurState
from controller.games.sauteur.odds import choose, odds

from .test_sauteur_support import RULES, advance, face, hidden, pop, refused, run, stop

ARRANGEMENTS = list(itertools.permutations(["n1", "n2", "n3", "devil"]))


def posterior(state: SauteurState) -> list[tuple[tuple[str, ...], Fraction]]:
    """Arrangements (slot k = index k-1) with their chance given this hiding's numbers."""
    numbers = state.popped[:-1] if state.phase == "face" else state.popped
    if state.phase == "hiding":
        numbers = ()
    weights = [
        (arrangement, Fraction(0 if any(arrangement[k - 1] == "devil" for k in numbers) else 1))
        for arrangement in ARRANGEMENTS
    ]
    total = sum(weight for _, weight in weights)
    return [(arrangement, weight / total) for arrangement, weight in weights]


def face_chances(faces: tuple[int | str, ...]) -> dict[int | str, Fraction]:
    chances: dict[int | str, Fraction] = {}
    for value in faces:
        chances[value] = chances.get(value, Fraction(0)) + Fraction(1, len(faces))
    return chances


def brute_devil_chance(state: SauteurState, key: int) -> Fraction:
    on_number_die = face_chances(state.config.number_faces).get("devil", Fraction(0))
    return sum(
        (
            p * (1 if arrangement[key - 1] == "devil" else on_number_die)
            for arrangement, p in posterior(state)
        ),
        Fraction(0),
    )


def brute_pop_then_stop(state: SauteurState, key: int, left: int) -> Fraction:
    chances = face_chances(state.config.number_faces)
    total = Fraction(0)
    for arrangement, p in posterior(state):
        if arrangement[key - 1] == "devil":
            continue
        for value, q in chances.items():
            if value != "devil":
                total += p * q * min(state.pot + key * int(value), left)
    return total


@functools.cache
def brute_best(popped: tuple[int, ...], pot: int, left: int, faces: tuple[Any, ...]) -> Fraction:
    """Rule B, best expected banked squares by expectimax over explicit arrangements."""
    chances = face_chances(faces)
    alive = [a for a in ARRANGEMENTS if all(a[k - 1] != "devil" for k in popped)]
    best = Fraction(min(pot, left)) if popped else Fraction(-1)
    for key in (1, 2, 3, 4):
        if key in popped:
            continue
        value = Fraction(0)
        for arrangement in alive:
            if arrangement[key - 1] == "devil":
                continue
            for shown, q in chances.items():
                if shown == "devil":
                    continue
                new_pot = pot + key * int(shown)
                if len(popped) == 2 or new_pot >= left:
                    worth = Fraction(min(new_pot, left))
                else:
                    worth = brute_best((*popped, key), new_pot, left, faces)
                value += Fraction(1, len(alive)) * q * worth
        best = max(best, value)
    return best


def key_entry(report: dict[str, Any], key: int) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [e for e in report["keys"] if e["key"] == key]
    assert len(entries) == 1
    return entries[0]


# --- odds ------------------------------------------------------------------------------------


@pytest.mark.parametrize("faces", [[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, "devil"], [2, 2, "devil"]])
@pytest.mark.parametrize("rule", ["A", "B"])
def test_devil_chances_match_a_count_over_arrangements(rule: str, faces: list[Any]) -> None:
    rng = random.Random(7)
    seen = 0
    for _ in range(25):
        state = RULES.setup({"rule": rule, "number_faces": faces})
        steps = rng.randrange(1, 40)
        for _ in range(steps):
            if RULES.is_over(state):
                break
            report = odds(state)
            assert json.loads(json.dumps(report)) == report
            assert [entry["key"] for entry in report["keys"]] == [
                k for k in (1, 2, 3, 4) if state.phase == "hiding" or k not in state.popped
            ]
            for entry in report["keys"]:
                expected = brute_devil_chance(state, entry["key"])
                assert entry["devil_chance"] == pytest.approx(float(expected), abs=1e-4)
                total = sum(entry["number_squares"].values()) + entry["devil_chance"]
                assert total == pytest.approx(1.0, abs=1e-3)
                seen += 1
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
    assert seen > 200


def test_odds_through_a_hiding() -> None:
    state = run(RULES.setup({"rule": "A"}), hidden())
    chances = [entry["devil_chance"] for entry in odds(state)["keys"]]
    assert chances == [0.25, 0.25, 0.25, 0.25]
    state = run(state, pop(3, "p2"), face(2), advance("blue", "p2"))
    report = odds(state)
    assert [(e["key"], e["devil_chance"]) for e in report["keys"]] == [
        (1, 0.3333),
        (2, 0.3333),
        (4, 0.3333),
    ]
    entry = key_entry(report, 4)
    assert entry["devil_squares"] == 12 and entry["devil_captures"] == ["blue", "orange"]
    assert key_entry(report, 1)["devil_captures"] == []
    assert entry["number_squares"] == {str(4 * v): 0.1111 for v in range(1, 7)}
    assert entry["expected_squares"] == pytest.approx(2 / 3 * 14, abs=1e-3)
    state = run(state, pop(1, "p2"), face(1), advance("orange", "p2"))
    state = run(state, pop(2, "p2"), face(1), advance("orange", "p2"))
    (last,) = odds(state)["keys"]
    assert (last["key"], last["devil_chance"], last["can_pop"]) == (4, 1.0, False)
    assert last["number_squares"] == {str(4 * v): 0.0 for v in range(1, 7)}


def test_race_odds_values_and_advice() -> None:
    start = RULES.setup({"rule": "B"})
    state = run(start, hidden(), pop(4, "p2"), face(5))
    report = odds(state)
    assert (report["pot"], report["stop_value"], report["squares_to_finish"]) == (20, 20, 40)
    for entry in report["keys"]:
        once = brute_pop_then_stop(state, entry["key"], 40)
        assert entry["if_pop_then_stop"] == pytest.approx(float(once), abs=1e-4)
        assert once <= Fraction(entry["if_play_on"]) + Fraction(1, 10000)
        assert entry["if_play_on"] <= 40
    best = max(report["keys"], key=lambda e: e["if_play_on"])
    expected = brute_best((4,), 20, 40, (1, 2, 3, 4, 5, 6))
    assert best["if_play_on"] == pytest.approx(float(expected), abs=1e-4)
    advice = report["advice"]
    assert advice["action"] == ("pop" if expected > 20 else "stop")
    finished = run(start, hidden(), pop(4, "p2"), face(6), stop("p2"))  # p2 at 24 of 40
    finished = run(finished, hidden(), pop(4, "p1"), face(1), stop("p1"))
    near = run(finished, hidden(), pop(4, "p2"), face(4))  # pot 16 completes the lap
    assert odds(near)["advice"] == {"action": "stop", "expected": 16}
    assert choose(near) == stop("p2")


@pytest.mark.parametrize(
    ("popped", "pot", "left"), [((), 0, 40), ((4,), 8, 40), ((4, 3), 30, 40), ((2,), 6, 9)]
)
def test_race_values_match_expectimax(popped: tuple[int, ...], pot: int, left: int) -> None:
    state = RULES.setup({"rule": "B", "circuit_length": 40})
    state = state._replace(phase="pop", popped=popped, pot=pot, laps=(0, 40 - left))
    expected = brute_best(popped, pot, left, state.config.number_faces)
    report = odds(state)
    values = [e["if_play_on"] for e in report["keys"]]
    best = max([report["stop_value"] or 0, *values])
    assert best == pytest.approx(float(expected), abs=1e-4)


def test_odds_when_over_or_waiting_for_a_face() -> None:
    state = run(RULES.setup({"rule": "A"}), hidden(), pop(2, "p2"))
    report = odds(state)
    assert [e["key"] for e in report["keys"]] == [1, 3, 4]
    assert all(e["devil_chance"] == 0.25 and not e["can_pop"] for e in report["keys"])
    won = run(RULES.setup({"rule": "B", "circuit_length": 4}), hidden(), pop(4, "p2"), face(1))
    won = run(won, stop("p2"))
    assert won.phase == "over" and odds(won)["keys"] == []


# --- the computer popper -------------------------------------------------------------------------


def test_computer_rule_a() -> None:
    state = run(RULES.setup({"rule": "A"}), hidden())
    assert choose(state) == pop(1, "p2")
    state = run(state, pop(1, "p2"), face(3))
    assert choose(state) == advance("blue", "p2")  # the figure nearest the devil
    state = run(state, advance("blue", "p2"))  # blue 8, orange 10, green 15
    assert choose(state) == {"type": "rehide", "by": "p2"}
    state = run(state, {"type": "rehide", "by": "p2"}, hidden(), pop(1, "p2"), face(6))
    assert choose(state) == advance("blue", "p2")
    state = run(state, advance("blue", "p2"), {"type": "rehide", "by": "p2"})
    state = run(state, hidden(), pop(1, "p2"), face(1))  # orange 10 is now the nearest
    assert choose(state) == advance("orange", "p2")


def test_computer_rule_b_first_pop_is_the_best_key() -> None:
    state = run(RULES.setup({"rule": "B"}), hidden())
    report = odds(state)
    best = max(report["keys"], key=lambda e: (e["if_play_on"], e["key"]))
    assert choose(state) == pop(best["key"], "p2") == pop(4, "p2")


def test_computer_only_plays_the_popper() -> None:
    fresh = RULES.setup({"rule": "A"})
    for state in (fresh, run(fresh, hidden(), pop(1, "p2"))):
        with pytest.raises(Refused) as caught:
            choose(state)
        assert caught.value.code == "not-popper-turn"


@pytest.mark.parametrize("rule", ["A", "B"])
def test_computer_moves_are_always_legal(rule: str) -> None:
    rng = random.Random(3)
    checked = 0
    for _ in range(100):
        state = RULES.setup({"rule": rule})
        while not RULES.is_over(state):
            legal = RULES.legal_actions(state)
            if state.phase in ("pop", "advance"):
                assert choose(state) in legal
                checked += 1
            state = RULES.apply(state, rng.choice(legal))
    assert checked > 1000


def test_computer_pops_before_it_may_stop() -> None:
    state = run(RULES.setup({"rule": "B"}), hidden())
    refused(state, {"type": "stop", "by": "p2"}, "must-pop")
    assert choose(state)["type"] == "pop"
