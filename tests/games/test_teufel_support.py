"""Helpers shared by the Teufel tests (and a check that they work)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.teufel import TeufelRules
from controller.games.teufel.state import State

RULES = TeufelRules()


def start(players: tuple[str, ...] = ("blue", "green"), **position: Any) -> State:
    """A game started from a position (``sleds`` defaults to blue c3, green g7, ...)."""
    defaults = {
        "blue": "c3",
        "green": "g7",
        "purple": "a7",
        "white": "g1",
        "yellow": "a1",
        "black": "e5",
    }
    options: dict[str, Any] = {"players": list(players)}
    if "first" in position:
        options["first"] = position.pop("first")
    left = position.get("left", [])
    if "sleds" not in position:
        position["sleds"] = {c: defaults[c] for c in players if c not in left}
    options["position"] = position
    return RULES.setup(options)


def act(kind: str, **fields: Any) -> dict[str, Any]:
    """An action; ``from_`` stands for the ``from`` field."""
    if "from_" in fields:
        fields["from"] = fields.pop("from_")
    return {"type": kind, **fields}


def play(state: State, *actions: Mapping[str, Any]) -> State:
    for action in actions:
        state = RULES.apply(state, action)
    return state


def refuse(state: State, action: Mapping[str, Any], code: str) -> str:
    """Assert ``action`` is refused with ``code`` and changes nothing; return the reason."""
    before = json.dumps(RULES.view(state, "referee"), sort_keys=True)
    with pytest.raises(Refused) as caught:
        RULES.apply(state, action)
    assert caught.value.code == code, caught.value.reason
    assert json.dumps(RULES.view(state, "referee"), sort_keys=True) == before
    assert action not in RULES.legal_actions(state)
    return caught.value.reason


def seen(state: State) -> dict[str, Any]:
    return RULES.view(state, "public")


def player(state: State, colour: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in seen(state)["players"] if p["colour"] == colour)
    return found


def test_start_places_default_sleds() -> None:
    state = start(("blue", "green", "purple"))
    assert [p["square"] for p in seen(state)["players"]] == ["c3", "g7", "a7"]
    assert seen(state)["pending"] == {
        "kind": "turn",
        "player": "blue",
        "prompt": "blue's turn: move or exchange two cards",
        "choices": seen(state)["pending"]["choices"],
        "unavailable": {
            "pick_up": "only a player holding a devil may shuffle; blue holds none",
            "pass": "blue can still move, exchange or shuffle: passing is only for a player "
            "who can do none of these",
        },
    }
    assert seen(state)["pending"]["choices"]["step"] == ["c2", "b3", "d3", "c4"]
