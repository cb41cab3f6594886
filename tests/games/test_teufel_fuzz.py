"""Malformed actions: any JSON thrown at the engine is refused with a reason, never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.bench.teufel import random_game
from controller.games.base import Refused, Rules
from controller.games.teufel import TeufelRules
from controller.games.teufel.actions import ALLOWED, FIELDS
from controller.games.teufel.state import State

RULES = TeufelRules()
GAME = random_game(1, keep_states=True)  # a devilish game: every kind of decision
STATES = [RULES.setup(GAME.options), *GAME.states]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 60),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.sampled_from(["c4", "d4", "a1", "g7", "blue", "devil", "tower", "blue-A", "A", "B"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=6)


@st.composite
def actions(draw: st.DrawFn, state: State) -> dict[str, Any]:
    """Mostly a type that answers the pending decision, with junk (or plausible) values."""
    fitting = list(ALLOWED[state.pending.kind])
    usually = draw(st.integers(0, 4)) > 0
    if fitting and usually:
        kind: Any = draw(st.sampled_from(fitting))
    else:
        kind = draw(st.sampled_from([*FIELDS, "jump", 7]))
    action: dict[str, Any] = {"type": kind}
    for field in FIELDS.get(kind, ()) if isinstance(kind, str) else ():
        if draw(st.integers(0, 9)):  # now and then a field is missing
            action[field] = draw(values)
    if draw(st.booleans()):
        action[draw(st.sampled_from(["player", "extra"]))] = draw(values)
    return action


def test_the_engine_is_a_rules_engine() -> None:
    engine: Rules[State] = RULES
    assert engine.name == "teufel"
    assert len(STATES) > 20
    kinds = {s.pending.kind for s in STATES}
    assert kinds >= {"place", "turn", "move", "pass_or_flip", "reveal", "shuffle", "over"}


@settings(max_examples=600, deadline=None)
@given(data=st.data())
def test_junk_is_refused_or_applied_never_a_crash(data: st.DataObject) -> None:
    state = data.draw(st.sampled_from(STATES))
    action = data.draw(actions(state))
    try:
        after = RULES.apply(state, action)
    except Refused as refusal:
        assert refusal.reason and refusal.code
    else:
        assert isinstance(after, State)
