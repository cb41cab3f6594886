"""Random legal games of Diable sauteur, checked after every action (OpenSpiel style).

Each step is compared with an independent oracle written from the spec: where
figures, the devil and the laps must be, what a capture takes, what a round is
worth, whose role is what. A subset of games also checks that the actions the
engine accepts are exactly ``legal_actions`` over a fixed universe of actions.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from controller.games.base import Refused, replay
from controller.games.sauteur import PLAYERS, SauteurState

from .test_sauteur_support import RULES

POINTS = {3: 10, 2: 5, 1: 2, 0: 0}

OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "A": [
        {"rule": "A"},
        {"rule": "A", "rounds": 4, "track_length": 30, "number_faces": [1, 2, 3, "devil"]},
        {"rule": "A", "devil_multiplier": 1, "first_hider": "p2", "devil_start": 3},
        {"rule": "A", "figures": {"x": 1, "y": 1, "z": 40}, "number_faces": [6, 6, 1]},
    ],
    "B": [
        {"rule": "B"},
        {"rule": "B", "rounds": 3, "circuit_length": 20, "number_faces": [1, 1, 2, "devil"]},
        {"rule": "B", "first_hider": "p2", "starts": {"p1": 5, "p2": 5}, "rounds": 2},
    ],
}


def other(player: str) -> str:
    return "p2" if player == "p1" else "p1"


def first_popper(state: SauteurState, round_no: int) -> str:
    hider = state.config.first_hider if round_no % 2 else other(state.config.first_hider)
    return other(hider)


def universe(state: SauteurState) -> list[dict[str, Any]]:
    """Right and wrong actions of every type, for the accepted == legal check."""
    config = state.config
    actions: list[dict[str, Any]] = [{"type": "hidden"}]
    for by in (*PLAYERS, "p3"):
        actions += [{"type": "pop", "key": key, "by": by} for key in range(6)]
        actions += [{"type": kind, "by": by} for kind in ("rehide", "stop")]
        actions += [
            {"type": "advance", "figure": name, "by": by}
            for name in (*config.figure_names, "nobody")
        ]
    faces = [*range(0, max(config.number_values) + 2), "devil", "Devil", None]
    actions += [{"type": "face", "face": value} for value in faces]
    return actions


# --- the oracle -------------------------------------------------------------------------------


def check_invariants(state: SauteurState) -> None:
    config = state.config
    assert len(state.popped) == len(set(state.popped)) <= 3
    assert all(key in (1, 2, 3, 4) for key in state.popped)
    assert state.popper == other(state.hider)
    over = state.phase == "over"
    assert (state.winner is not None) == over
    assert bool(RULES.legal_actions(state)) != over
    if config.rule == "A":
        for position, status in zip(state.figures, state.status, strict=True):
            if status == "in-play":
                assert state.devil < position < config.track_length
            elif status == "arrived":
                assert position == config.track_length
            else:
                assert status == "captured" and position <= state.devil
        assert state.pending > 0 if state.phase == "advance" else state.pending == 0
        assert all(score <= 10 * config.rounds // 2 for score in state.scores)
    else:
        assert (state.pot > 0) == (state.phase in ("pop", "face") and state.numbers > 0)
        if not over:
            assert all(0 <= lap < config.circuit_length for lap in state.laps)
        assert sum(state.scores) == len(state.results)


def check_step(before: SauteurState, action: dict[str, Any], after: SauteurState) -> None:
    kind = action["type"]
    expected_phase = {"hidden": "pop", "pop": "face", "rehide": "hiding"}.get(kind)
    if expected_phase:
        assert after.phase == expected_phase
    if kind == "pop":
        assert after.popped == (*before.popped, action["key"])
    if kind in ("hidden", "rehide"):
        assert after.popped == ()
        assert after.hidings == before.hidings + (kind == "hidden")
    if before.config.rule == "A":
        _check_step_a(before, action, after)
    else:
        _check_step_b(before, action, after)


def _round_over(before: SauteurState, after: SauteurState, points: int, winner: str) -> None:
    """``before``'s round ended with ``points`` for ``winner`` (rule A) or a race won."""
    result = after.results[-1]
    assert len(after.results) == len(before.results) + 1 == before.round
    assert (result.round, result.popper, result.points) == (before.round, winner, points)
    index = PLAYERS.index(winner)
    expected = list(before.scores)
    expected[index] += points
    assert after.scores == tuple(expected)
    if after.phase == "over":
        assert before.round == before.config.rounds
        best = max(after.scores)
        leaders = [p for p, s in zip(PLAYERS, after.scores, strict=True) if s == best]
        assert after.winner == (leaders[0] if len(leaders) == 1 else "draw")
    else:
        assert after.round == before.round + 1 and after.phase == "hiding"
        assert after.popper == first_popper(after, after.round)
        if after.config.rule == "A":
            assert after.popper == other(before.popper)  # roles swap every round
        assert after.figures == after.config.figure_starts and after.laps == (0, 0)
        assert after.devil == after.config.devil_start and after.pot == 0
        assert set(after.status) == {"in-play"}


def _check_step_a(before: SauteurState, action: dict[str, Any], after: SauteurState) -> None:
    config = before.config
    figures, status, devil = list(before.figures), list(before.status), before.devil
    kind = action["type"]
    phase = {"hidden": "pop", "pop": "face", "rehide": "hiding"}.get(kind, "pop")
    if kind == "face" and action["face"] == "devil":
        devil = min(devil + config.devil_multiplier * before.popped[-1], config.track_length)
        status = [
            "captured" if mark == "in-play" and pos <= devil else mark
            for pos, mark in zip(figures, status, strict=True)
        ]
        phase = "hiding"
    elif kind in ("face", "advance"):
        in_play = [i for i, mark in enumerate(status) if mark == "in-play"]
        if kind == "advance":
            squares, target = before.pending, config.figure_names.index(action["figure"])
        else:
            squares = before.popped[-1] * action["face"]
            target = in_play[0] if len(in_play) == 1 else -1
        if target < 0:
            phase = "advance"
            assert after.pending == squares
        else:
            figures[target] = min(figures[target] + squares, config.track_length)
            if figures[target] == config.track_length:
                status[target] = "arrived"
    if "in-play" not in status:
        _round_over(before, after, POINTS[status.count("arrived")], before.popper)
        return
    assert (after.round, after.hider, after.scores) == (before.round, before.hider, before.scores)
    assert after.figures == tuple(figures) and after.status == tuple(status)
    assert after.devil == devil >= before.devil and after.phase == phase
    assert all(new >= old for new, old in zip(after.figures, before.figures, strict=True))
    for old, new in zip(before.status, after.status, strict=True):
        assert old == new or (old == "in-play" and new in ("arrived", "captured"))


def _check_step_b(before: SauteurState, action: dict[str, Any], after: SauteurState) -> None:
    config = before.config
    kind = action["type"]
    pot, laps = before.pot, list(before.laps)
    bank = kind == "stop"
    swap = bank
    if kind == "face":
        if action["face"] == "devil":
            pot, swap = 0, True
        else:
            pot += before.popped[-1] * action["face"]
            bank = swap = len(before.popped) == 3
    if bank:
        index = PLAYERS.index(before.popper)
        laps[index] = min(laps[index] + pot, config.circuit_length)
        pot = 0
        if laps[index] == config.circuit_length:
            _round_over(before, after, 1, before.popper)
            return
    assert (after.round, after.scores, after.laps) == (before.round, before.scores, tuple(laps))
    assert after.pot == pot
    assert after.hider == (before.popper if swap else before.hider)
    if swap:
        assert after.phase == "hiding" and after.popped == ()


def check_explain(state: SauteurState) -> None:
    """Each explained button is refused by ``apply`` with that code; the rest are legal."""
    legal = RULES.legal_actions(state)
    explained = RULES.explain(state)
    if state.phase == "over":
        assert explained == [] == legal
        return
    for entry in explained:
        assert entry["action"] not in legal
        with pytest.raises(Refused) as caught:
            RULES.apply(state, entry["action"])
        assert (caught.value.code, caught.value.reason) == (entry["error"], entry["reason"])
    buttons = [e["action"] for e in explained] + [a for a in legal if "by" in a]
    keys = sorted(a["key"] for a in buttons if a["type"] == "pop")
    assert keys == [1, 2, 3, 4]


# --- the games --------------------------------------------------------------------------------


def play_random_game(
    options: dict[str, Any], rng: random.Random, full_check: bool
) -> tuple[SauteurState, list[dict[str, Any]]]:
    state = RULES.setup(options)
    actions: list[dict[str, Any]] = []
    everything = universe(state)
    while not RULES.is_over(state):
        legal = RULES.legal_actions(state)
        if full_check:
            accepted = []
            for candidate in everything:
                try:
                    RULES.apply(state, candidate)
                except Refused:
                    continue
                accepted.append(candidate)
            assert sorted(map(json.dumps, accepted)) == sorted(map(json.dumps, legal))
        else:
            for candidate in legal:
                RULES.apply(state, candidate)  # every legal action is accepted
            wrong = rng.choice(everything)
            if wrong not in legal:
                snapshot = tuple(state)
                try:
                    RULES.apply(state, wrong)
                except Refused:
                    pass
                else:
                    raise AssertionError(f"accepted {wrong} though not legal: {legal}")
                assert tuple(state) == snapshot
        action = rng.choice(legal)
        after = RULES.apply(state, action)
        check_step(state, action, after)
        check_invariants(after)
        actions.append(action)
        state = after
        if len(actions) % 25 == 0:
            view = RULES.view(state, "public")
            assert json.loads(json.dumps(view)) == view
            check_explain(state)
        assert len(actions) < 5000, "a game that does not end"
    return state, actions


def check_finished(options: dict[str, Any], state: SauteurState, actions: list[Any]) -> None:
    config = state.config
    assert len(state.results) == config.rounds == state.round
    if config.rule == "A":
        for result in state.results:
            assert result.popper == first_popper(state, result.round)
    totals = [0, 0]
    for result in state.results:
        totals[PLAYERS.index(result.popper)] += result.points
    assert tuple(totals) == state.scores
    assert replay(RULES, options, actions) == state
    cut = len(actions) // 2  # undo to the middle, then redo: the same game
    middle = replay(RULES, options, actions[:cut])
    for action in actions[cut:]:
        middle = RULES.apply(middle, action)
    assert middle == state
    view = RULES.view(state, "public")
    assert view["over"] and view["winner"] == state.winner
    assert len(view["history"]) >= len(state.results)


@pytest.mark.parametrize("rule", ["A", "B"])
def test_thousands_of_random_games(rule: str) -> None:
    rng = random.Random(20240 + ord(rule))
    games = 1000
    lengths = []
    for game in range(games):
        options = OPTION_SETS[rule][game % len(OPTION_SETS[rule])]
        state, actions = play_random_game(options, rng, full_check=game % 20 == 0)
        check_finished(options, state, actions)
        lengths.append(len(actions))
    assert min(lengths) >= 3 and max(lengths) < 5000
