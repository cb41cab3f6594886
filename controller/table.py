"""A table: one game bound to the journal and the live-update hub.

``submit`` runs the pure rules first (a refusal changes nothing and journals
nothing), then journals the action durably, then swaps in the new state and hands
the public view to the hub (built and sent on the hub's fan-out thread, not the
caller's). ``undo`` records an undo marker and takes back the state kept from before
the last action (the last :data:`UNDO_STATES` are kept; an older one is rebuilt by replaying
the remaining actions). A change that ends or reopens the game writes the finished flag in
the same transaction as its entry.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

from .games.base import Action, Refused, Rules, Viewer, replay
from .hub import Hub
from .journal import Journal, effective_actions

log = logging.getLogger(__name__)

UNDO_STATES = 64
"""States kept for undo: the state before each of the last 64 actions (states are never
changed in place, so keeping one is keeping a reference)."""

ChangeListener = Callable[["Table"], None]
_Facts = tuple[str, int, bool, bool, bool, list[dict[str, object]], object]
"""What a view is made of: title, version, finished, abandoned, deleted, seats, state."""


class Table:
    """Thread-safe holder of one game's state. ``version`` counts journal entries."""

    def __init__(self, rules: Rules[object], journal: Journal, game_id: int, hub: Hub) -> None:
        self.rules = rules
        self.journal = journal
        self.game_id = game_id
        self.hub = hub
        record = journal.game(game_id)
        self.options: dict[str, object] = record.options
        self.title = record.title
        self.created = record.created
        self.seats: list[dict[str, object]] = record.seats or []
        """Who sits where (:mod:`controller.players`); empty: nobody was named."""
        self.abandoned = record.abandoned is not None
        """Abandoned by the referee: kept, out of play and out of the stats."""
        self.deleted = False
        """Deleted from the journal while a page still shows it (then abandoned too)."""
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
        self._before: deque[object] = deque(maxlen=UNDO_STATES)
        """The state before each of the last actions, the last action's last."""
        self.last_change = time.time()
        self._now = self._facts()
        """What views are made of, as of the last change: read without the lock, so a
        page's request never waits for an action's commit."""
        self._views: tuple[_Facts | None, dict[Viewer, dict[str, object]]] = (None, {})
        """The views made of one change's facts, by viewer (:meth:`view`)."""

    @property
    def topic(self) -> str:
        return f"game:{self.game_id}"

    def check(self, action: Action) -> object:
        """The state ``action`` would lead to; raises :class:`Refused`. Changes nothing."""
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise Refused("an action is a JSON object with a 'type'", "bad-action")
        if self.abandoned:
            raise Refused("game {game_id} was abandoned", "abandoned", game_id=self.game_id)
        with self.lock:
            return self.rules.apply(self.state, action)

    def submit(self, action: Action) -> None:
        """Apply, journal, publish; raises :class:`Refused` (nothing changed then)."""
        with self.lock:
            new_state = self.check(action)
            self.journal.append(self.game_id, dict(action), finished=self._flag(new_state))
            self.version += 1
            self.actions.append(dict(action))
            self._before.append(self.state)
            self._set(new_state)

    def undo(self) -> None:
        """Take back the last action (recorded as an undo entry); raises :class:`Refused`."""
        with self.lock:
            if self.abandoned:
                raise Refused("game {game_id} was abandoned", "abandoned", game_id=self.game_id)
            if not self.actions:
                raise Refused("there is nothing to undo", "nothing-to-undo")
            remaining = self.actions[:-1]
            if self._before:
                state = self._before[-1]
            else:
                state = replay(self.rules, self.options, remaining)
            self.journal.append(
                self.game_id, {"type": "undo"}, undo=True, finished=self._flag(state)
            )
            if self._before:
                self._before.pop()
            self.version += 1
            self.actions = remaining
            self._set(state)

    def _flag(self, state: object) -> bool | None:
        """The finished flag to write with the entry that leads to ``state``: ``None`` when
        it does not change."""
        over = self.rules.is_over(state)
        return None if over == self.finished else over

    def legal_actions(self) -> list[dict[str, object]]:
        with self.lock:
            return self.rules.legal_actions(self.state)

    def view(self, viewer: Viewer) -> dict[str, object]:
        """The one choke point for what leaves the service about this game: the last
        committed change (never waits for one being committed). Built once per change and
        viewer, then shared (the reply, the phones' frames and pages): never change it."""
        return self._view_of(self._now, viewer)

    def committed(self) -> tuple[int, object]:
        """The version and state of the last committed change (never waits for a commit)."""
        facts = self._now
        return facts[1], facts[-1]

    def retitle(self, title: str) -> None:
        """The game's new title (already journaled)."""
        with self.lock:
            self.title = title
            self._now = self._facts()

    def leave_play(self, *, deleted: bool = False) -> None:
        """Abandoned or deleted (already journaled): ended, and nothing changes it."""
        with self.lock:
            self.abandoned = self.finished = True
            self.deleted = deleted
            self._now = self._facts()

    def _facts(self) -> _Facts:
        """What a view is made of, as it is now (the state itself is never changed: the
        rules return a new one)."""
        return (
            self.title,
            self.version,
            self.finished,
            self.abandoned,
            self.deleted,
            list(self.seats),
            self.state,
        )

    def _view_of(self, facts: _Facts, viewer: Viewer) -> dict[str, object]:
        made, views = self._views
        if made is not facts:  # a change since: forget the views of the one before
            views = {}
            self._views = (facts, views)
        view = views.get(viewer)
        if view is None:  # two threads may both build it: the same view either way
            view = views[viewer] = self._build_view(facts, viewer)
        return view

    def _build_view(self, facts: _Facts, viewer: Viewer) -> dict[str, object]:
        title, version, finished, abandoned, deleted, seats, state = facts
        return {
            "id": self.game_id,
            "kind": self.rules.name,
            "title": title,
            "version": version,
            "finished": finished,
            "abandoned": abandoned,
            "deleted": deleted,
            "seats": seats,
            "state": self.rules.view(state, viewer),
        }

    def summary(self) -> dict[str, object]:
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
                "to_act": self._to_act(),
            }

    def _to_act(self) -> str | None:
        """The seat key of whoever acts now (``None``: a fact awaited, or the end)."""
        if self.finished:
            return None
        seat = self.rules.to_act(self.state)
        return None if seat is None else str(seat)

    def _set(self, state: object) -> None:
        """Swap in ``state`` (already journaled), tell the listeners, publish its public
        view (built on the hub's thread, only if a phone listens). Listeners must return
        at once (hand work to a thread)."""
        self.state = state
        self.last_change = time.time()
        self.finished = self.rules.is_over(state)  # journaled with the entry (_flag)
        facts = self._now = self._facts()
        for listener in list(self.listeners):
            listener(self)
        self.hub.publish(self.topic, lambda: self._view_of(facts, "public"))
