"""The contract every rules engine keeps.

A game is its setup options plus its list of actions. ``apply`` is the only
thing that changes state, and it never mutates its argument: it returns the
new state or raises :class:`Refused` with a reason a referee can read.

Actions are JSON objects (a mapping of names to JSON values) with a ``"type"`` key, so they
can be journaled, exported and replayed as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol, TypeVar

# The sentences live in the bottom layer (controller/sentences.py); named here too, so that
# `from controller.games.base import Refused, Said` goes on working.
from controller.sentences import Refused as Refused
from controller.sentences import Said as Said
from controller.sentences import said_of as said_of
from controller.sentences import words as words

Action = Mapping[str, Any]
"""A JSON object with at least a ``"type"`` key."""

Viewer = Literal["public", "referee"]
"""Who a view is for: spectators, or the referee (who may see more)."""

S = TypeVar("S")


class Rules(Protocol[S]):
    """What the service needs from a rules engine."""

    name: str
    """Short slug used in URLs, the journal and the CLI (``"sauteur"``)."""

    def setup(self, options: Mapping[str, Any]) -> S:
        """Initial state from setup options; raises :class:`Refused` on bad options."""
        ...

    def apply(self, state: S, action: Action) -> S:
        """The state after ``action``; raises :class:`Refused` and changes nothing."""
        ...

    def legal_actions(self, state: S) -> list[dict[str, Any]]:
        """Every action ``apply`` would accept now (chance actions included)."""
        ...

    def is_over(self, state: S) -> bool:
        """True once the game has ended."""
        ...

    def view(self, state: S, viewer: Viewer) -> dict[str, Any]:
        """The JSON-serialisable picture of ``state`` that ``viewer`` may see; every view
        has ``to_act`` (see :meth:`to_act`)."""
        ...

    def to_act(self, state: S) -> str | int | None:
        """Who acts next, named as the actions name players (``"p1"``, a colour, a seat);
        ``None`` when the next entry is a fact of chance (a die's face, a card turned
        over) or the game is over."""
        ...

    def refusal(self, state: S, action: Action) -> Refused | None:
        """Why ``action`` is refused now, or ``None`` when ``apply`` would take it."""
        ...


def refusal_by_applying(rules: Rules[S], state: S, action: Action) -> Refused | None:
    """:meth:`Rules.refusal` for an engine whose ``apply`` is its only check."""
    try:
        rules.apply(state, action)
    except Refused as refused:
        return refused
    return None


def replay(rules: Rules[S], options: Mapping[str, Any], actions: Iterable[Action]) -> S:
    """Rebuild a game from its setup and action list; raises :class:`Refused`
    (with the action's index in the reason) if the record is not legal."""
    state = rules.setup(options)
    for index, action in enumerate(actions):
        try:
            state = rules.apply(state, action)
        except Refused as refusal:
            raise Refused(
                "action {index}: {reason}", refusal.code, index=index + 1, reason=refusal.reason
            ) from None
    return state
