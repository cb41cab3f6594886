"""Live-update fan-out: one publisher, many subscribers (the phones' event streams).

``publish`` only notes who is subscribed and hands the event to the hub's fan-out
thread, so the thread that made the change (a referee's request) answers without
waiting for the phones: the fan-out thread builds the data (``publish`` takes a
zero-argument function too, called there once), serialises it once to an SSE frame
and hands that frame to every subscriber's queue, in publishing order. 50 phones
cost one ``json.dumps``; no phone costs nothing. A subscriber that falls more than
``max_backlog`` events behind is cut off (its stream ends; the phone reconnects
and gets a fresh snapshot) so a stalled phone cannot grow the service's memory.

A subscriber may instead give a ``deliver`` function: the fan-out thread calls it with
each frame (the web server's thread-less streams write it to the phone's connection
there, :mod:`controller.server`), so no subscriber's thread wakes up; ``deliver``
returning ``False`` (the phone is gone or too far behind) or raising ends the
subscription, and ending it (also :meth:`Hub.close_all`) calls its ``ended``.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class _Event:
    topic: str
    data: object
    event_id: int
    targets: list[Subscription]
    ready: bool
    """False while the thread that published it holds it (:meth:`Hub.hold`)."""


class Subscription:
    """A subscriber's queue of SSE frames (bytes), ``get`` blocking up to ``timeout`` s; or,
    with ``deliver``, each frame handed to that function on the fan-out thread."""

    def __init__(
        self,
        hub: Hub,
        topics: frozenset[str],
        max_backlog: int,
        deliver: Callable[[bytes], bool] | None = None,
        ended: Callable[[], None] | None = None,
    ) -> None:
        self.hub = hub
        self.topics = topics
        self.max_backlog = max_backlog
        self.deliver = deliver
        self.ended = ended
        self._frames: deque[bytes] = deque()
        self._cond = threading.Condition()
        self.closed = False

    def put(self, frame: bytes) -> None:
        if self.deliver is not None:  # no lock held: deliver may take the connection's
            if self.closed:
                return
            try:
                kept = self.deliver(frame)
            except Exception:
                log.exception("live update not delivered: subscriber dropped")
                kept = False
            if not kept:
                self.close()
            return
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
            first = not self.closed
            self.closed = True
            self._cond.notify()
        self.hub.unsubscribe(self)
        if first and self.ended is not None:
            self.ended()


class Hub:
    """Topics are strings such as ``"game:3"``, ``"games"`` or ``"box"``."""

    def __init__(self, max_backlog: int = 256) -> None:
        self.max_backlog = max_backlog
        self._subs: set[Subscription] = set()
        self._by_topic: dict[str, set[Subscription]] = {}
        """The subscriptions of each topic (a publish finds its phones without a scan)."""
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._outbox: deque[_Event | None] = deque()
        """Events in publishing order (``None``: the fan-out thread ends)."""
        self._pending = threading.Condition()
        self._busy = 0
        """Events handed over and not yet delivered (under ``_pending``)."""
        self._fanout: threading.Thread | None = None
        self._holding = threading.local()

    def hold(self) -> None:
        """Keep what this thread publishes from now until :meth:`release` (the web server
        holds a request's live updates until its reply is handed over, so the reply never
        waits for the phones). What is published later on the same topic, by any thread,
        waits behind them: a topic's events go out in publishing order (a game's versions).
        Holding again releases what was held first."""
        self.release()
        self._holding.events = []

    @property
    def holding(self) -> bool:
        """This thread holds events not yet released."""
        return bool(getattr(self._holding, "events", None))

    def release(self) -> None:
        """Send what this thread held, in order (nothing held: nothing happens)."""
        held: list[_Event] | None = getattr(self._holding, "events", None)
        self._holding.events = None
        if held:
            with self._pending:
                for event in held:
                    event.ready = True
                self._busy += len(held)
                self._pending.notify_all()

    def _start_fanout(self) -> None:
        if self._fanout is None:  # under _pending
            self._fanout = threading.Thread(target=self._fan_out, name="hub-fanout", daemon=True)
            self._fanout.start()

    def subscribe(
        self,
        topics: Iterable[str],
        deliver: Callable[[bytes], bool] | None = None,
        ended: Callable[[], None] | None = None,
    ) -> Subscription:
        """A subscription to ``topics``: a queue, or ``deliver`` called with each frame on
        the fan-out thread and ``ended`` once when it ends (see :class:`Subscription`)."""
        sub = Subscription(self, frozenset(topics), self.max_backlog, deliver, ended)
        with self._lock:
            self._subs.add(sub)
            for topic in sub.topics:
                self._by_topic.setdefault(topic, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.discard(sub)
                for topic in sub.topics:
                    held = self._by_topic[topic]
                    held.discard(sub)
                    if not held:
                        del self._by_topic[topic]

    def subscribed(self, topic: str) -> bool:
        """Does anybody listen to ``topic`` now?"""
        with self._lock:
            return topic in self._by_topic

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, topic: str, data: object | Callable[[], object]) -> int:
        """Send ``data`` (JSON-ready, or a function that returns it) to every subscriber of
        ``topic`` now; returns how many. Delivery happens on the fan-out thread, in order;
        a subscriber that comes later does not get it. ``data`` is not read again by the
        caller's thread: pass a fresh object (or a function of immutable values)."""
        with self._lock:
            targets = list(self._by_topic.get(topic, ()))
        if not targets:
            return 0
        held = getattr(self._holding, "events", None)
        with self._pending:
            event = _Event(topic, data, next(self._ids), targets, ready=held is None)
            self._outbox.append(event)
            if held is not None:
                held.append(event)
            else:
                self._busy += 1
                self._pending.notify_all()
            self._start_fanout()
        return len(targets)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event published so far has reached its subscribers' queues;
        ``False`` after ``timeout`` s."""
        with self._pending:
            return self._pending.wait_for(lambda: self._busy == 0, timeout)

    def _next(self) -> _Event | bool:
        """Take the first event that may go out now (under ``_pending``): ready, and no
        event still held before it on its topic; ``True``: the end; ``False``: none."""
        waiting: set[str] = set()
        for at, event in enumerate(self._outbox):
            if event is None:
                del self._outbox[at]
                return True
            if event.ready and event.topic not in waiting:
                del self._outbox[at]
                return event
            waiting.add(event.topic)
        return False

    def _fan_out(self) -> None:
        while True:
            with self._pending:
                item = self._pending.wait_for(self._next)
            if not isinstance(item, _Event):
                return
            try:
                data = item.data() if callable(item.data) else item.data
                frame = sse_frame(item.topic, data, item.event_id)
                for sub in item.targets:
                    sub.put(frame)
            except Exception:  # one bad event must not end the live updates
                log.exception("live update on %s not sent", item.topic)
            finally:
                with self._pending:
                    self._busy -= 1
                    self._pending.notify_all()

    def close_all(self) -> None:
        """Deliver what is pending, end the fan-out thread, close every subscription."""
        self.flush(2.0)
        with self._pending:
            if self._fanout is not None:
                self._outbox.append(None)
                self._pending.notify_all()
            fanout, self._fanout = self._fanout, None
        if fanout is not None:
            fanout.join(2.0)
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.close()


def sse_frame(event: str, data: object, event_id: int | None = None) -> bytes:
    """One server-sent-events frame: ``event:``, optional ``id:``, one ``data:`` line."""
    head = f"event: {event}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (head + "data: " + body + "\n\n").encode("utf-8")
