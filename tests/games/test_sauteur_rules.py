"""Scenario tests for the Diable sauteur rules engine (rules A and B)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games.base import Refused, replay
from controller.games.sauteur import SauteurState
from controller.games.sauteur.rules import ACTION_TYPES, history

from .test_sauteur_support import (
    RULES,
    advance,
    face,
    hidden,
    pop,
    refused,
    rehide,
    run,
    stop,
)


def start_a(**options: Any) -> SauteurState:
    return RULES.setup({"rule": "A", **options})


def start_b(**options: Any) -> SauteurState:
    return RULES.setup({"rule": "B", **options})


def figures(state: SauteurState) -> dict[str, tuple[int, str]]:
    names = state.config.figure_names
    return {n: (p, s) for n, p, s in zip(names, state.figures, state.status, strict=True)}


def bring_home(state: SauteurState, name: str) -> SauteurState:
    """Rule A: move ``name`` with 4 x 6 = 24 squares per hiding until it arrives."""
    popper, round_no = state.popper, state.round
    while figures(state)[name][1] == "in-play" and state.round == round_no:
        state = run(state, hidden(), pop(4, popper), face(6))
        if state.phase == "advance":
            state = run(state, advance(name, popper))
        if state.phase == "pop" and state.popper == popper:
            state = run(state, rehide(popper))
    return state


# --- setup ---------------------------------------------------------------------------------


def test_default_setup_matches_the_spec() -> None:
    a = start_a()
    assert figures(a) == {
        "blue": (5, "in-play"),
        "orange": (10, "in-play"),
        "green": (15, "in-play"),
    }
    assert (a.devil, a.config.track_length, a.config.rounds) == (0, 50, 2)
    assert (a.hider, a.popper, a.phase, a.round) == ("p1", "p2", "hiding", 1)
    b = start_b()
    assert (b.config.circuit_length, b.config.starts, b.config.rounds) == (40, (0, 20), 1)
    assert b.laps == (0, 0)
    assert RULES.legal_actions(a) == [hidden()]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"rule": "C"}, "rule"),
        ({"rounds": 3}, "rounds"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"rule": "B", "rounds": "2"}, "rounds"),
        ({"track_length": 1}, "track_length"),
        ({"track_length": 12}, "figures"),
        ({"figures": {"blue": 5}}, "figures"),
        ({"figures": {"blue": 5, "orange": 10, "": 15}}, "figures"),
        ({"figures": {"blue": 5, "orange": 10, "green": -1}}, "figures"),
        ({"figures": [5, 10, 15]}, "figures"),
        ({"devil_start": 5}, "devil_start"),
        ({"devil_multiplier": 0}, "devil_multiplier"),
        ({"circuit_length": 1}, "circuit_length"),
        ({"starts": {"p1": 0}}, "starts"),
        ({"starts": {"p1": 0, "p2": 40}}, "starts"),
        ({"number_faces": []}, "number_faces"),
        ({"number_faces": [1, 2, 100]}, "number_faces"),
        ({"number_faces": [1, "Devil"]}, "number_faces"),
        ({"number_faces": ["devil", "devil"]}, "number_faces"),
        ({"number_faces": "123456"}, "number_faces"),
        ({"first_hider": "p3"}, "first_hider"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, Any], name: str) -> None:
    with pytest.raises(Refused) as caught:
        RULES.setup(options)
    assert caught.value.code == "bad-option"
    assert f"'{name}'" in caught.value.reason


def test_options_round_trip_and_none_means_default() -> None:
    custom = {
        "rule": "A",
        "rounds": 4,
        "track_length": 30,
        "figures": {"red": 3, "white": 4, "black": 20},
        "devil_start": 2,
        "devil_multiplier": 2,
        "number_faces": [1, 1, 2, "devil"],
        "first_hider": "p2",
    }
    state = RULES.setup(custom)
    assert RULES.setup(state.config.options()) == state
    assert state.config.face_choices == (1, 2, "devil")
    assert RULES.setup({"rule": "B", "rounds": None}).config.rounds == 1


# --- rule A --------------------------------------------------------------------------------


def test_spec_example_key_2_and_a_4_moves_8() -> None:
    state = run(start_a(), hidden(), pop(2, "p2"), face(4))
    assert state.phase == "advance" and state.pending == 8
    state = run(state, advance("blue", "p2"))
    assert figures(state)["blue"] == (13, "in-play")
    assert [p.effect for p in history(state)] == ["blue +8 to 13"]
    assert state.phase == "pop" and state.popped == (2,)


@pytest.mark.parametrize(
    ("key", "captured"),
    [(1, []), (2, ["blue"]), (3, ["blue"]), (4, ["blue", "orange"])],
)
def test_devil_from_key_k_moves_3k_and_captures_what_it_reaches_or_passes(
    key: int, captured: list[str]
) -> None:
    state = run(start_a(), hidden(), pop(key, "p2"), face("devil"))
    assert state.devil == 3 * key
    assert [n for n, (_, s) in figures(state).items() if s == "captured"] == captured
    assert state.phase == "hiding" and state.popped == ()
    assert state.hider == "p1"  # the hider keeps the dice for the whole round


def test_a_figure_exactly_reached_is_captured_one_square_ahead_is_not() -> None:
    state = start_a(figures={"blue": 6, "orange": 7, "green": 15})
    state = run(state, hidden(), pop(2, "p2"), face("devil"))
    assert figures(state)["blue"] == (6, "captured")
    assert figures(state)["orange"] == (7, "in-play")


def test_devil_multiplier_option() -> None:
    state = run(start_a(devil_multiplier=5), hidden(), pop(3, "p2"), face("devil"))
    # 5 x 3 = 15 squares: blue, orange and green are all taken; the round ends, 0 points
    assert state.round == 2 and state.devil == 0
    assert history(state)[-1].effect == "devil +15 to 15, captured blue, orange, green"
    assert state.results[0].points == 0 and state.scores == (0, 0)


def test_arrived_figures_are_safe_and_positions_stop_at_the_finish() -> None:
    state = start_a(track_length=20)
    state = run(state, hidden(), pop(4, "p2"), face(2), advance("green", "p2"))
    assert figures(state)["green"] == (20, "arrived")
    assert [p.effect for p in history(state)] == ["green +8 to 20, arrived"]
    state = run(state, rehide("p2"), hidden(), pop(4, "p2"), face(1), advance("orange", "p2"))
    assert figures(state)["orange"] == (14, "in-play")
    state = run(state, rehide("p2"), hidden(), pop(4, "p2"), face("devil"))
    # the devil reaches 12: blue (5) is taken, orange (14) and the arrived green stay
    assert figures(state) == {
        "blue": (5, "captured"),
        "orange": (14, "in-play"),
        "green": (20, "arrived"),
    }
    state = run(state, hidden(), pop(3, "p2"), face("devil"))
    # the devil goes to 20 (capped): orange is taken; green is safe; the round is over
    assert state.round == 2 and state.results[0].arrived == 1
    assert state.results[0].points == 2 and state.scores == (0, 2)


def test_one_figure_left_moves_without_asking() -> None:
    state = run(start_a(), hidden(), pop(2, "p2"), face("devil"))  # blue captured
    state = run(state, hidden(), pop(4, "p2"), face("devil"))  # devil 18: all captured
    assert state.round == 2
    state = run(start_a(), hidden(), pop(4, "p2"), face("devil"))  # blue and orange
    state = run(state, hidden(), pop(1, "p2"), face(5))
    assert state.phase == "pop"
    assert figures(state)["green"] == (20, "in-play")
    assert RULES.legal_actions(state) == [
        pop(2, "p2"),
        pop(3, "p2"),
        pop(4, "p2"),
        rehide("p2"),
    ]


def test_after_three_numbers_only_rehide_is_legal() -> None:
    state = run(start_a(), hidden())
    for key in (1, 2, 3):
        state = run(state, pop(key, "p2"), face(1), advance("green", "p2"))
    assert state.popped == (1, 2, 3)
    assert RULES.legal_actions(state) == [rehide("p2")]
    refused(state, pop(4, "p2"), "three-numbers")
    state = run(state, rehide("p2"))
    assert state.phase == "hiding" and state.popped == ()


@pytest.mark.parametrize(
    ("arrive", "points"),
    [(("blue", "orange", "green"), 10), (("blue", "orange"), 5), (("green",), 2), ((), 0)],
)
def test_round_scores_by_figures_arrived(arrive: tuple[str, ...], points: int) -> None:
    state = start_a()
    for name in arrive:
        state = bring_home(state, name)
    while state.round == 1:  # the devil takes the rest: 4 x 3 = 12 squares a time
        state = run(state, hidden(), pop(4, "p2"), face("devil"))
    assert state.results[0].points == points and state.results[0].arrived == len(arrive)
    assert state.scores == (0, points)
    assert (state.hider, state.popper, state.phase) == ("p2", "p1", "hiding")
    assert figures(state) == figures(start_a()) and state.devil == 0 and state.history


def _round_of(state: SauteurState, arrive: tuple[str, ...]) -> SauteurState:
    round_no = state.round
    for name in arrive:
        state = bring_home(state, name)
    while state.round == round_no and state.phase != "over":
        state = run(state, hidden(), pop(4, state.popper), face("devil"))
    return state


def test_match_win_and_draw() -> None:
    won = _round_of(_round_of(start_a(), ("blue",)), ("blue", "green"))
    assert won.phase == "over" and won.scores == (5, 2) and won.winner == "p1"
    assert [(r.popper, r.points) for r in won.results] == [("p2", 2), ("p1", 5)]
    drawn = _round_of(_round_of(start_a(), ("orange",)), ("green",))
    assert drawn.winner == "draw" and drawn.scores == (2, 2)
    assert RULES.is_over(drawn) and RULES.legal_actions(drawn) == []
    assert RULES.explain(drawn) == []
    refused(drawn, hidden(), "game-over")


def test_four_rounds_alternate_roles() -> None:
    state = start_a(rounds=4, first_hider="p2")
    poppers = []
    while state.phase != "over":
        poppers.append(state.popper)
        state = _round_of(state, ())
    assert poppers == ["p1", "p2", "p1", "p2"]
    assert [r.round for r in state.results] == [1, 2, 3, 4]


# --- refusals, rule A ------------------------------------------------------------------------


def test_refusals_rule_a() -> None:
    fresh = start_a()
    refused(fresh, pop(1, "p2"), "not-hidden")
    refused(fresh, face(3), "not-hidden")
    refused(fresh, stop("p2"), "wrong-rule")
    ready = run(fresh, hidden())
    refused(ready, hidden(), "already-hidden")
    refused(ready, face(3), "no-pop")
    refused(ready, advance("blue", "p2"), "no-advance")
    refused(ready, pop(1, "p1"), "wrong-role")
    refused(ready, pop(1, "p3"), "bad-action")
    refused(ready, pop(1, None), "bad-action")
    for key in (0, 5, "1", 1.0, True, None, [1]):
        refused(ready, pop(key, "p2"), "bad-key")
    refused(ready, rehide("p2"), "must-pop")
    popped = run(ready, pop(2, "p2"))
    refused(popped, pop(3, "p2"), "face-pending")
    assert "a die cannot show 7" in refused(popped, face(7), "bad-face").reason
    for bad in (0, "4", 4.0, True, None, "Devil"):
        refused(popped, face(bad), "bad-face")
    moved = run(popped, face(4))
    refused(moved, pop(3, "p2"), "advance-pending")
    refused(moved, rehide("p2"), "advance-pending")
    refused(moved, advance("purple", "p2"), "bad-figure")
    refused(moved, advance("blue", "p1"), "wrong-role")
    after = run(moved, advance("blue", "p2"))
    assert "slot 2 is empty" in refused(after, pop(2, "p2"), "slot-empty").reason
    caught = run(fresh, hidden(), pop(2, "p2"), face("devil"), hidden(), pop(1, "p2"), face(2))
    reason = refused(caught, advance("blue", "p2"), "figure-out").reason
    assert reason == "the blue figure was captured by the devil: it cannot move"


@pytest.mark.parametrize(
    "action",
    [None, [], "pop", 3, {}, {"type": None}, {"type": ["pop"]}, {"key": 1}],
)
def test_malformed_actions_are_refused(action: Any) -> None:
    refused(run(start_a(), hidden()), action, "bad-action")


def test_an_unknown_action_type_is_unknown_action_as_in_every_game() -> None:
    refusal = refused(run(start_a(), hidden()), {"type": "jump"}, "unknown-action")
    assert refusal.params == {"kind": "jump", "known": ", ".join(ACTION_TYPES)}


def test_explain_names_the_empty_slots_and_spent_figures() -> None:
    state = run(start_a(), hidden(), pop(2, "p2"), face("devil"), hidden(), pop(4, "p2"), face(1))
    explained = {
        (e["action"]["type"], e["action"].get("key"), e["action"].get("figure")): e["error"]
        for e in RULES.explain(state)
    }
    assert explained == {("advance", None, "blue"): "figure-out"} | {
        ("pop", key, None): "advance-pending" for key in (1, 2, 3, 4)
    } | {("rehide", None, None): "advance-pending"}
    state = run(state, advance("green", "p2"))
    assert [(e["action"].get("key"), e["error"]) for e in RULES.explain(state)] == [
        (4, "slot-empty")
    ]


def test_extra_fields_are_ignored() -> None:
    state = run(start_a(), {"type": "hidden", "source": "sensor"})
    assert state.phase == "pop"


# --- rule B --------------------------------------------------------------------------------


def test_rule_b_stop_banks_the_pot_and_roles_swap() -> None:
    state = run(start_b(), hidden(), pop(4, "p2"), face(6))
    assert state.pot == 24 and state.phase == "pop"
    assert RULES.legal_actions(state)[-1] == stop("p2")
    refused(state, rehide("p2"), "wrong-rule")
    refused(state, advance("blue", "p2"), "wrong-rule")
    state = run(state, pop(1, "p2"), face(2), stop("p2"))
    assert state.laps == (0, 26) and state.pot == 0
    assert (state.hider, state.popper, state.phase) == ("p2", "p1", "hiding")
    assert [p.effect for p in history(state)] == ["pot 24", "pot 26", "p2 stops: p2 +26"]
    view = RULES.view(state, "public")
    assert view["players"][1] == {"player": "p2", "start": 20, "progress": 26, "position": 6}


def test_rule_b_devil_loses_the_pot() -> None:
    state = run(start_b(), hidden(), pop(4, "p2"), face(6), pop(3, "p2"), face("devil"))
    assert state.laps == (0, 0) and state.pot == 0
    assert (state.hider, state.popper, state.phase) == ("p2", "p1", "hiding")
    assert history(state)[-1].effect == "pot of 24 lost"


def test_rule_b_third_number_stops() -> None:
    state = run(start_b(), hidden())
    for key in (1, 2):
        state = run(state, pop(key, "p2"), face(1))
    state = run(state, pop(3, "p2"), face(1))
    assert state.laps == (0, 6) and state.popper == "p1" and state.phase == "hiding"
    assert history(state)[-1].effect == "pot 6, third number: p2 +6"


def test_rule_b_must_pop_before_stopping() -> None:
    ready = run(start_b(), hidden())
    refused(ready, stop("p2"), "must-pop")
    refused(ready, stop("p1"), "wrong-role")


def _bank(state: SauteurState, squares_by_key: tuple[tuple[int, int], ...]) -> SauteurState:
    popper = state.popper
    state = run(state, hidden())
    for key, value in squares_by_key:
        state = run(state, pop(key, popper), face(value))
    return run(state, stop(popper)) if state.phase == "pop" else state


def test_rule_b_first_to_complete_the_lap_wins() -> None:
    state = _bank(start_b(circuit_length=30), ((4, 6),))  # p2: 24
    state = _bank(state, ((4, 5),))  # p1: 20
    state = _bank(state, ((3, 2),))  # p2: 30, lap complete (back on square 20)
    assert state.phase == "over" and state.winner == "p2" and state.scores == (0, 1)
    assert state.laps == (20, 30)
    assert history(state)[-1].effect == "p2 stops: p2 +6, lap complete"
    view = RULES.view(state, "public")
    assert state.config.starts == (0, 15)  # p2 starts half-way round by default
    assert view["players"][1]["position"] == 15 and view["winner"] == "p2"


def test_rule_b_races_alternate_the_first_hider_and_can_draw() -> None:
    state = start_b(rounds=2, circuit_length=10)
    state = _bank(state, ((4, 3),))  # race 1: p2 pops first, banks 12 >= 10
    assert state.round == 2 and state.scores == (0, 1) and state.laps == (0, 0)
    assert (state.hider, state.popper) == ("p2", "p1")
    state = _bank(state, ((2, 5),))  # race 2: p1 pops first and finishes
    assert state.phase == "over" and state.scores == (1, 1) and state.winner == "draw"
    assert [(r.round, r.popper) for r in state.results] == [(1, "p2"), (2, "p1")]


# --- view, replay ----------------------------------------------------------------------------


def test_view_has_everything_the_dashboard_draws() -> None:
    state = run(start_a(), hidden(), pop(2, "p2"), face(4))
    view = RULES.view(state, "public")
    assert json.loads(json.dumps(view)) == view
    assert RULES.view(state, "referee") == view
    assert view["rule"] == "A" and view["round"] == 1 and view["rounds"] == 2
    assert view["roles"] == {"hider": "p1", "popper": "p2"}
    assert view["phase"] == "advance" and view["pending_squares"] == 8
    assert view["popped"] == [2] and view["devil"] == 0 and view["scores"] == {"p1": 0, "p2": 0}
    assert view["figures"][0] == {"name": "blue", "position": 5, "status": "in-play"}
    assert view["waiting_for"] == "p2 chooses a figure to move 8 squares"
    assert view["winner"] is None and view["over"] is False
    with pytest.raises(Refused):
        RULES.view(state, "player")  # type: ignore[arg-type]


def test_replay_rebuilds_the_state_and_names_the_bad_action() -> None:
    actions = [hidden(), pop(2, "p2"), face(4), advance("blue", "p2"), rehide("p2")]
    state = replay(RULES, {"rule": "A"}, actions)
    assert state == run(start_a(), *actions)
    with pytest.raises(Refused) as caught:
        replay(RULES, {"rule": "A"}, [*actions, pop(1, "p2")])
    assert caught.value.code == "not-hidden" and caught.value.reason.startswith("action 6:")
