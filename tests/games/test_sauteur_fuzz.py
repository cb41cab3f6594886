"""Hypothesis: arbitrary input never breaks the engine or changes a state."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.games.base import Refused
from controller.games.sauteur import SauteurState

from .test_sauteur_support import RULES, advance, face, hidden, pop, run, stop


def states() -> list[SauteurState]:
    """One state per phase of both rules."""
    a = RULES.setup({"rule": "A"})
    b = RULES.setup({"rule": "B"})
    over = run(RULES.setup({"rule": "B", "circuit_length": 2}), hidden(), pop(1, "p2"), face(2))
    return [
        a,
        run(a, hidden()),
        run(a, hidden(), pop(3, "p2")),
        run(a, hidden(), pop(3, "p2"), face(2)),
        run(a, hidden(), pop(3, "p2"), face(2), advance("green", "p2")),
        b,
        run(b, hidden(), pop(2, "p2"), face(5)),
        run(over, stop("p2")),
    ]


STATES = states()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 9) | st.floats(0, 5) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
FIELD_VALUES = (
    st.sampled_from([1, 2, 3, 4, 5, 0, "p1", "p2", "devil", "blue", "green", True, None]) | JSON
)
ACTIONS = (
    st.fixed_dictionaries(
        {"type": st.sampled_from(["hidden", "pop", "face", "advance", "rehide", "stop", "x"])},
        optional={
            "key": FIELD_VALUES,
            "by": FIELD_VALUES,
            "face": FIELD_VALUES,
            "figure": FIELD_VALUES,
            "extra": JSON,
        },
    )
    | JSON
)


@settings(max_examples=250, deadline=None)
@given(index=st.integers(0, len(STATES) - 1), action=ACTIONS)
def test_any_input_is_accepted_only_if_legal(index: int, action: Any) -> None:
    state = STATES[index]
    snapshot = json.dumps(RULES.view(state, "public"), sort_keys=True)
    try:
        after = RULES.apply(state, action)
    except Refused as refusal:
        assert refusal.code and len(refusal.reason) > 15
        assert json.dumps(RULES.view(state, "public"), sort_keys=True) == snapshot
        return
    legal = RULES.legal_actions(state)
    # accepted: the action is a legal one, give or take fields the engine ignores
    matches = [one for one in legal if all(action.get(k) == v for k, v in one.items())]
    assert matches, (action, legal)
    assert all(type(action[k]) is type(v) for k, v in matches[0].items())
    assert after == RULES.apply(state, matches[0])


OPTION_VALUES = st.sampled_from([0, 1, 2, 3, 4, 15, 40, 50, "A", "B", "p2", None]) | JSON


@settings(max_examples=200, deadline=None)
@given(
    options=st.dictionaries(
        st.sampled_from(
            [
                "rule",
                "rounds",
                "track_length",
                "figures",
                "devil_start",
                "devil_multiplier",
                "circuit_length",
                "starts",
                "number_faces",
                "first_hider",
            ]
        ),
        OPTION_VALUES,
    )
)
def test_any_options_give_a_game_or_a_named_refusal(options: dict[str, Any]) -> None:
    try:
        state = RULES.setup(options)
    except Refused as refusal:
        assert refusal.code == "bad-option"
        assert any(f"'{name}'" in refusal.reason for name in options)
        return
    assert RULES.setup(state.config.options()) == state
    assert RULES.legal_actions(state) == [hidden()]
    view = RULES.view(state, "public")
    assert json.loads(json.dumps(view)) == view
