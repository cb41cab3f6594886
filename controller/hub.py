"""Live-update fan-out: one publisher, many subscribers (the phones' event streams).

Each event is serialised once to an SSE frame and handed to every subscriber's
queue, so 50 phones cost one ``json.dumps``. A subscriber that falls more than
``max_backlog`` events behind is cut off (its stream ends; the phone reconnects
and gets a fresh snapshot) so a stalled phone cannot grow the service's memory.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any


class Subscription:
    """A subscriber's queue of SSE frames (bytes). ``get`` blocks up to ``timeout`` s."""

    def __init__(self, hub: Hub, topics: frozenset[str], max_backlog: int) -> None:
        self.hub = hub
        self.topics = topics
        self.max_backlog = max_backlog
        self._frames: deque[bytes] = deque()
        self._cond = threading.Condition()
        self.closed = False

    def put(self, frame: bytes) -> None:
        with self._cond:
            if self.closed:
                return
            if len(self._frames) >= self.max_backlog:
                self.closed = True
            else:
                self._frames.append(frame)
            self._cond.notify()

    def get(self, timeout: float) -> bytes | None:
        """The next frame, ``None`` on timeout; raises ``EOFError`` once closed and drained."""
        with self._cond:
            if not self._frames and not self.closed:
                self._cond.wait(timeout)
            if self._frames:
                return self._frames.popleft()
            if self.closed:
                raise EOFError("subscription closed")
            return None

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify()
        self.hub.unsubscribe(self)


class Hub:
    """Topics are strings such as ``"game:3"``, ``"games"`` or ``"box"``."""

    def __init__(self, max_backlog: int = 256) -> None:
        self.max_backlog = max_backlog
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def subscribe(self, topics: Iterable[str]) -> Subscription:
        sub = Subscription(self, frozenset(topics), self.max_backlog)
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, topic: str, data: Any) -> int:
        """Send ``data`` (JSON-ready) to every subscriber of ``topic``; returns how many."""
        frame = sse_frame(topic, data, next(self._ids))
        with self._lock:
            targets = [s for s in self._subs if topic in s.topics]
        for sub in targets:
            sub.put(frame)
        return len(targets)

    def close_all(self) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.close()


def sse_frame(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One server-sent-events frame: ``event:``, optional ``id:``, one ``data:`` line."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (head + "data: " + body + "\n\n").encode("utf-8")
