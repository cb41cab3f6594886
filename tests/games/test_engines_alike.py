"""The three engines speak alike: ``to_act`` in every view, ``refusal(state, action)``
agreeing with ``apply``, and the Diable sauteur's actions as a table."""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.registry import get
from controller.games.sauteur.rules import ACTIONS, SauteurRules

OPTIONS: dict[str, dict[str, Any]] = {
    "sauteur": {"rule": "B", "first_hider": "p1"},
    "teufel": {"players": ["blue", "green", "white"]},
    "tails": {"players": 2},
}


def _play(kind: str, seed: int, steps: int) -> list[tuple[Any, Any]]:
    """(state, a legal or made-up action) pairs along a random game."""
    rules = get(kind).rules()
    rng = random.Random(seed)
    state = rules.setup(OPTIONS[kind])
    pairs = []
    for _ in range(steps):
        legal = rules.legal_actions(state)
        if not legal:
            break
        wrong = {**rng.choice(legal), "type": rng.choice(["pop", "face", "step", "place", "x"])}
        pairs += [(state, rng.choice(legal)), (state, wrong)]
        state = rules.apply(state, pairs[-2][1])
    return pairs


@pytest.mark.parametrize("kind", ["sauteur", "teufel", "tails"])
def test_refusal_agrees_with_apply_and_every_view_says_who_acts(kind):
    rules = get(kind).rules()
    checked = 0
    for state, action in _play(kind, seed=5, steps=60):
        refused = rules.refusal(state, action)
        try:
            rules.apply(state, action)
            applied = None
        except Refused as exc:
            applied = exc
        assert (refused is None) == (applied is None), action
        if refused is not None:
            assert (refused.code, refused.params) == (applied.code, applied.params)
        view = rules.view(state, "public")
        assert view["to_act"] == rules.to_act(state)
        checked += 1
    assert checked >= 40


def test_who_acts_follows_the_game():
    sauteur = SauteurRules()
    state = sauteur.setup(OPTIONS["sauteur"])
    assert sauteur.to_act(state) == "p1"  # the first hider hides
    state = sauteur.apply(state, {"type": "hidden"})
    assert sauteur.to_act(state) == "p2"  # the popper pops
    state = sauteur.apply(state, {"type": "pop", "key": 1, "by": "p2"})
    assert sauteur.to_act(state) is None  # a fact: the die's face
    teufel = get("teufel").rules()
    assert teufel.to_act(teufel.setup(OPTIONS["teufel"])) == "blue"
    tails = get("tails").rules()
    assert tails.to_act(tails.setup(OPTIONS["tails"])) == 0


@pytest.mark.parametrize("kind", sorted(ACTIONS))
def test_the_sauteur_action_table_refuses_by_rule_phase_and_player(kind):
    row = ACTIONS[kind]
    rules = SauteurRules()
    for rule in "AB":
        state = rules.setup({"rule": rule, "first_hider": "p1"})
        refused = rules.refusal(state, {"type": kind, "by": "p2", "key": 1, "face": 2})
        if rule not in row.rules:
            assert refused is not None and refused.code == "wrong-rule"
            assert refused.params == {"kind": kind, "uses": row.rules, "rule": rule}
        elif row.phase != "hiding":
            assert refused is not None and refused.code == "not-hidden"
    state = rules.apply(rules.setup({"rule": "B", "first_hider": "p1"}), {"type": "hidden"})
    if row.who == "popper" and "B" in row.rules and row.phase == "pop":
        refused = rules.refusal(state, {"type": kind, "by": "p1", "key": 1})
        assert refused is not None and refused.code == "wrong-role"
