"""Clocks with timers: the real one, and a manual one for tests.

Everything time-dependent outside the pure rules (debouncing, jam and hiding
detection, duty-cycle bookkeeping) takes a :class:`Clock`, so tests can step
time exactly instead of sleeping. Times are seconds (``time.monotonic`` scale).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Timer:
    """A scheduled callback; ``cancel()`` before it runs and it never will."""

    __slots__ = ("callback", "cancelled", "due")

    def __init__(self, due: float, callback: Callable[[], None]) -> None:
        self.due = due
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """Interface: ``now()`` in seconds and ``call_later(delay_s, fn)``."""

    def now(self) -> float:
        raise NotImplementedError

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> Timer:
        raise NotImplementedError

    def close(self) -> None:
        """Stop running timers (pending ones are dropped)."""


class _Heap:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()

    def push(self, timer: Timer) -> None:
        heapq.heappush(self._heap, (timer.due, next(self._order), timer))

    def pop_due(self, now: float) -> Timer | None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        if self._heap and self._heap[0][0] <= now:
            return heapq.heappop(self._heap)[2]
        return None

    def next_due(self) -> float | None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None


class RealClock(Clock):
    """Monotonic time; timers run on one daemon thread, started lazily.

    Waits on a condition until the next timer is due: no polling. A callback
    that raises is logged and does not stop the thread.
    """

    def __init__(self) -> None:
        self._heap = _Heap()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(self.now() + max(0.0, delay_s), callback)
        with self._cond:
            self._heap.push(timer)
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="clock", daemon=True)
                self._thread.start()
            self._cond.notify()
        return timer

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                timer = self._heap.pop_due(self.now())
                if timer is None:
                    due = self._heap.next_due()
                    self._cond.wait(None if due is None else max(0.0, due - self.now()))
                    continue
            try:
                timer.callback()
            except Exception:
                log.exception("timer callback failed")

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)


class ManualClock(Clock):
    """A clock that only moves when told: ``advance(dt)`` runs due timers in order."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._heap = _Heap()
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(self._now + max(0.0, delay_s), callback)
        with self._lock:
            self._heap.push(timer)
        return timer

    def advance(self, dt: float) -> None:
        """Move time forward by ``dt`` seconds, firing each due timer at its own time."""
        target = self._now + dt
        while True:
            with self._lock:
                due = self._heap.next_due()
                if due is None or due > target:
                    break
                timer = self._heap.pop_due(due)
                self._now = max(self._now, due)
            if timer is not None:
                timer.callback()
        self._now = target
