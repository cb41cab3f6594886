"""A table: one game bound to the journal and the live-update hub.

``submit`` runs the pure rules first (a refusal changes nothing and journals
nothing), then journals the action durably, then swaps in the new state and
publishes the public view. ``undo`` records an undo marker and rebuilds the
state by replaying the remaining actions.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from .games.base import Action, Refused, Rules, Viewer, replay
from .hub import Hub
from .journal import DiskFull, Journal, effective_actions

log = logging.getLogger(__name__)

ChangeListener = Callable[["Table"], None]


class Table:
    """Thread-safe holder of one game's state. ``version`` counts journal entries."""

    def __init__(self, rules: Rules[Any], journal: Journal, game_id: int, hub: Hub) -> None:
        self.rules = rules
        self.journal = journal
        self.game_id = game_id
        self.hub = hub
        record = journal.game(game_id)
        self.options: dict[str, Any] = record.options
        self.title = record.title
        self.created = record.created
        self.seats: list[dict[str, Any]] = record.seats or []
        """Who sits where (:mod:`controller.players`); empty: nobody was named."""
        self.abandoned = record.abandoned is not None
        self.deleted = False
        """Deleted from the journal while a page still shows it (then abandoned too)."""
        """Abandoned by the referee: kept, out of play and out of the stats."""
        self.lock = threading.RLock()
        entries = journal.entries(game_id)
        self.version = len(entries)
        self.actions = effective_actions(entries)
        self.state = replay(rules, self.options, self.actions)
        # the replay decides, not the stored flag (an abandoned game stays ended)
        self.finished = rules.is_over(self.state) or self.abandoned
        if self.finished != (record.finished is not None):
            journal.mark_finished(game_id, self.finished)  # killed between the two writes
        self.listeners: list[ChangeListener] = []
        self.last_change = time.time()

    @property
    def topic(self) -> str:
        return f"game:{self.game_id}"

    def check(self, action: Action) -> Any:
        """The state ``action`` would lead to; raises :class:`Refused`. Changes nothing."""
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise Refused("an action is a JSON object with a 'type'", "bad-action")
        if self.abandoned:
            raise Refused("game {game_id} was abandoned", "abandoned", game_id=self.game_id)
        with self.lock:
            return self.rules.apply(self.state, action)

    def submit(self, action: Action) -> dict[str, Any]:
        """Apply, journal, publish. Returns the new public view; raises :class:`Refused`."""
        with self.lock:
            new_state = self.check(action)
            self.journal.append(self.game_id, dict(action))
            self.version += 1
            self.actions.append(dict(action))
            return self._set(new_state)

    def undo(self) -> dict[str, Any]:
        """Take back the last action (recorded as an undo entry); raises :class:`Refused`."""
        with self.lock:
            if self.abandoned:
                raise Refused("game {game_id} was abandoned", "abandoned", game_id=self.game_id)
            if not self.actions:
                raise Refused("there is nothing to undo", "nothing-to-undo")
            remaining = self.actions[:-1]
            state = replay(self.rules, self.options, remaining)
            self.journal.append(self.game_id, {"type": "undo"}, undo=True)
            self.version += 1
            self.actions = remaining
            return self._set(state)

    def legal_actions(self) -> list[dict[str, Any]]:
        with self.lock:
            return self.rules.legal_actions(self.state)

    def view(self, viewer: Viewer) -> dict[str, Any]:
        """The one choke point for what leaves the service about this game."""
        with self.lock:
            return {
                "id": self.game_id,
                "kind": self.rules.name,
                "title": self.title,
                "version": self.version,
                "finished": self.finished,
                "abandoned": self.abandoned,
                "deleted": self.deleted,
                "seats": self.seats,
                "state": self.rules.view(self.state, viewer),
            }

    def summary(self) -> dict[str, Any]:
        with self.lock:
            return {
                "id": self.game_id,
                "kind": self.rules.name,
                "title": self.title,
                "created": self.created,
                "version": self.version,
                "finished": self.finished,
                "abandoned": self.abandoned,
                "seats": self.seats,
                "actions": len(self.actions),
            }

    def _set(self, state: Any) -> dict[str, Any]:
        """Swap in ``state`` (already journaled), tell the listeners, publish its public
        view and return that view. Listeners must return at once (hand work to a thread)."""
        self.state = state
        self.last_change = time.time()
        over = self.rules.is_over(state)
        if over != self.finished:
            self.finished = over
            try:
                self.journal.mark_finished(self.game_id, over)
            except DiskFull:  # the action is journaled; the next start replays the flag
                log.warning("game %d: the finished flag waits for disk space", self.game_id)
        for listener in list(self.listeners):
            listener(self)
        view = self.view("public")
        self.hub.publish(self.topic, view)
        return view
