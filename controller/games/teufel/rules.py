"""``TeufelRules``: the engine the service binds to the journal."""

from __future__ import annotations

from collections.abc import Mapping

from ..base import Refused, Viewer, refusal_by_applying
from .actions import apply, legal_actions
from .setup import setup
from .state import State
from .view import view


class TeufelRules:
    """Teufel, Teufel / Diable, diable (see docs/rules-teufel.md)."""

    name = "teufel"

    def setup(self, options: Mapping[str, object]) -> State:
        return setup(options)

    def apply(self, state: State, action: Mapping[str, object]) -> State:
        return apply(state, action)

    def legal_actions(self, state: State) -> list[dict[str, object]]:
        return legal_actions(state)

    def is_over(self, state: State) -> bool:
        return state.pending.kind == "over"

    def view(self, state: State, viewer: Viewer) -> dict[str, object]:
        return view(state, viewer) | {"to_act": self.to_act(state)}

    def to_act(self, state: State) -> str | None:
        """The colour of whoever decides now (``None``: a card to reveal, or the end)."""
        player = state.pending.player
        return None if player is None else state.players[player].colour

    def refusal(self, state: State, action: Mapping[str, object]) -> Refused | None:
        return refusal_by_applying(self, state, action)
