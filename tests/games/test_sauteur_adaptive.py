"""The adaptive level's belief, hand-worked; seeds that replay; every hider ends its games."""

from __future__ import annotations

from typing import Any

import pytest

from controller.games.sauteur import SauteurRules
from controller.games.sauteur.adaptive import Seen, belief_now, hidings_seen, learn
from controller.games.sauteur.rules import IDLE_LIMIT
from controller.sim import HIDERS, game_seeds, play_game, simulate

RULES = SauteurRules()


def play(options: dict[str, Any], actions: list[dict[str, Any]]) -> Any:
    state = RULES.setup(options)
    for action in actions:
        state = RULES.apply(state, action)
    return state


def hidden() -> dict[str, Any]:
    return {"type": "hidden"}


def pop(key: int, by: str) -> dict[str, Any]:
    return {"type": "pop", "key": key, "by": by}


def face(value: int | str) -> dict[str, Any]:
    return {"type": "face", "face": value}


def test_the_belief_after_revealed_and_censored_hidings_is_the_hand_worked_one() -> None:
    state = play(
        {"rule": "B", "first_hider": "p1"},
        [
            hidden(), pop(4, "p2"), face("devil"),  # p1 hid under 4: seen
            hidden(), pop(1, "p1"), face(2), {"type": "stop", "by": "p1"},  # p2: censored, 1 out
            hidden(), pop(2, "p2"), face(3), pop(3, "p2"), face(1),
            {"type": "stop", "by": "p2"},  # p1: censored, 2 and 3 out
            hidden(), pop(3, "p1"), face("devil"),  # p2 hid under 3: seen
            hidden(), pop(1, "p2"), face(1),  # p1's hiding still being played: not counted
        ],
    )  # fmt: skip
    assert hidings_seen(state) == [
        Seen("p1", (), 4),
        Seen("p2", (1,), None),
        Seen("p1", (2, 3), None),
        Seen("p2", (), 3),
    ]
    belief = belief_now({"p1": [2.0, 1.0, 1.0, 1.0]}, state)
    # p1 from (2, 1, 1, 1): the devil under 4 -> (2, 1, 1, 2); 2 and 3 showed numbers, the
    # devil stayed hidden -> slots 1 and 4 get 1/2 each -> (2.5, 1, 1, 2.5).
    assert belief["p1"] == pytest.approx([2.5, 1.0, 1.0, 2.5])
    # p2 from the prior (1, 1, 1, 1): key 1 a number -> 1/3 to slots 2, 3, 4; then the
    # devil under 3 -> (1, 4/3, 7/3, 4/3).
    assert belief["p2"] == pytest.approx([1.0, 4 / 3, 7 / 3, 4 / 3])
    assert learn([1, 1, 1, 1], [(1, 2, 3)]) == [1, 1, 1, 2]  # three numbers: it is under 4


def test_rule_a_hidings_are_read_by_round_and_hider() -> None:
    state = play(
        {"rule": "A", "first_hider": "p1"},
        [
            hidden(), pop(1, "p2"), face(3), {"type": "advance", "figure": "blue", "by": "p2"},
            {"type": "rehide", "by": "p2"},
            hidden(), pop(2, "p2"), face("devil"),
        ],
    )  # fmt: skip
    assert hidings_seen(state) == [Seen("p1", (1,), None), Seen("p1", (), 2)]


def test_a_game_replays_exactly_from_its_own_seed() -> None:
    options = {"rule": "B", "circuit_length": 8}
    seats = {"p1": "optimal", "p2": "adaptive"}
    hiders = {"p1": "biased-2", "p2": "equilibrium"}
    for seed in game_seeds(4, 5):
        first = play_game(options, seed, seats, hiders, {"p1": [1.0, 5.0, 1.0, 1.0]})
        again = play_game(options, seed, seats, hiders, {"p1": [1.0, 5.0, 1.0, 1.0]})
        assert first[0] == again[0] and first[1:] == again[1:]
    report = simulate("B", 30, 9, seats, hiders, options)
    assert simulate("B", 30, 9, seats, hiders, options).wins == report.wins


@pytest.mark.parametrize("hider", sorted(HIDERS))
def test_sim_with_every_hider_ends_every_game(hider: str) -> None:
    # The loop of issue 21: both seats pop key 4 first against a devil-on-4 hider.
    circuit = {"circuit_length": 8 if hider == "equilibrium" else 40}  # 8: solved at once
    report = simulate("B", 20, 1, {"p1": "heuristic", "p2": "random"}, hider, circuit)
    assert sum(report.wins.values()) == 20
    small = simulate("B", 10, 2, {"p1": "optimal", "p2": "adaptive"}, hider, {"circuit_length": 8})
    assert sum(small.wins.values()) == 10


def test_a_hundred_turns_without_a_move_draw_the_match() -> None:
    state = play({"rule": "B", "first_hider": "p1"}, [])
    for turn in range(IDLE_LIMIT):
        assert state.phase == "hiding" and state.idle == turn
        state = RULES.apply(state, hidden())
        state = RULES.apply(state, pop(4, state.popper))
        state = RULES.apply(state, face("devil"))
    assert state.phase == "over" and state.winner == "draw" and state.idle == IDLE_LIMIT
    view = RULES.view(state, "public")
    assert view["history"][-1]["said"]["template"].endswith("the match is a draw")
    # A move resets the count.
    state = play({"rule": "B", "first_hider": "p1"}, [hidden(), pop(4, "p2"), face("devil")])
    state = play_on(state, [hidden(), pop(1, "p1"), face(2), {"type": "stop", "by": "p1"}])
    assert state.idle == 0


def play_on(state: Any, actions: list[dict[str, Any]]) -> Any:
    for action in actions:
        state = RULES.apply(state, action)
    return state
