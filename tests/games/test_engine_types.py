"""Every engine checks the types of what it is given: wrong JSON types are refused
(:class:`Refused` with a code), never a ``TypeError`` or other crash (an HTTP 500).

Legal actions of a few random plays, each field replaced by hostile JSON values
(nested lists, objects, huge ints, NaN, booleans, null, a lone surrogate), and setup
options likewise.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config import Config
from controller.games.base import Refused
from controller.games.registry import names
from controller.service import rules_for

GAME_KINDS = names()

HOSTILE: list[Any] = [
    [["A"], ["B"]],
    [["A"]],
    ["A", ["B"]],
    {"a": 1},
    [{"x": []}],
    2**63,
    -(2**70),
    float("nan"),
    float("inf"),
    1e308,
    True,
    None,
    "\ud800",
    "",
    [],
    [[]],
    [1, 2],
]

OPTION_SAMPLES: dict[str, dict[str, Any]] = {
    "sauteur": {"rule": "A"},
    "teufel": {"players": ["blue", "green"]},
    "tails": {"players": 2},
}


def states(kind: str, seed: int, steps: int = 40) -> list[Any]:
    """States along a random legal play."""
    rules = rules_for(kind, Config())
    rng = random.Random(seed)
    state = rules.setup(OPTION_SAMPLES[kind])
    out = [state]
    for _ in range(steps):
        legal = rules.legal_actions(state)
        if not legal or rules.is_over(state):
            break
        state = rules.apply(state, rng.choice(legal))
        out.append(state)
    return out


def refused_or_fine(fn: Any) -> None:
    try:
        fn()
    except Refused as exc:
        assert exc.code and exc.reason


@pytest.mark.parametrize("kind", GAME_KINDS)
def test_hostile_action_fields_are_refused(kind: str) -> None:
    rules = rules_for(kind, Config())
    tried = 0
    for seed in range(3):
        for state in states(kind, seed)[::3]:
            for action in rules.legal_actions(state)[:6]:
                for field in [*action, "extra"]:
                    for value in HOSTILE:
                        hostile = {**action, field: value}
                        refused_or_fine(lambda h=hostile, s=state: rules.apply(s, h))
                        tried += 1
    assert tried > 500


def test_teufel_give_up_letters_with_lists() -> None:
    """The adversarial run's case: letters given as lists instead of text."""
    from .test_teufel_support import act, play, refuse, start

    state = start(devils=["blue"], face_up={"c4": "devil"}, letters={"blue": ["A", "B", "C"]})
    state = play(state, act("step", to="c4"))
    assert state.pending.kind == "give_up"
    for value in HOSTILE:
        refuse(state, act("give_up_letters", letters=value), "bad-choice")


@pytest.mark.parametrize("key", ["left", "devils", "letters", "sleds", "face_up", "empty"])
def test_teufel_position_with_nested_values(key: str) -> None:
    rules = rules_for("teufel", Config())
    for value in [*HOSTILE, {"blue": [["A"]]}, {"blue": ["A", ["B"]]}, {"blue": ["c3"]}]:
        position = {"sleds": {"blue": "c3", "green": "e5"}, key: value}
        refused_or_fine(
            lambda p=position: rules.setup({"players": ["blue", "green"], "position": p})
        )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=6)
    | st.sampled_from(["A", "blue", "c3", "p1", "B", "\ud800"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(GAME_KINDS), name=st.text(max_size=10), value=json_values)
def test_hostile_setup_options_are_refused(kind: str, name: str, value: Any) -> None:
    rules = rules_for(kind, Config())
    known = {
        "sauteur": [
            "rule",
            "rounds",
            "number_faces",
            "figures",
            "starts",
            "first_hider",
            "track_length",
            "devil_start",
            "devil_multiplier",
            "circuit_length",
        ],
        "teufel": ["players", "colours", "vines", "first", "position"],
        "tails": ["players", "board", "stock"],
    }[kind]
    for key in [name, *known]:
        refused_or_fine(lambda k=key: rules.setup({**OPTION_SAMPLES[kind], k: value}))


def test_teufel_colour_names_follow_the_text_policy() -> None:
    """Colours name the players: free text, so the one policy applies (controller.text)."""
    rules = rules_for("teufel", Config())
    colours = ["yellow", "green", "blue", "purple", "white", "black"]
    for bad in ["a\u202eb", "x\u200by", "\ud800", "ctl\x07"]:
        with pytest.raises(Refused) as caught:
            rules.setup({"colours": [bad, *colours[1:]]})
        assert caught.value.code.startswith("bad")
    state = rules.setup({"colours": ["<b>x</b>", *colours[1:]], "players": ["<b>x</b>", "green"]})
    assert state.players[0].colour == "<b>x</b>"
