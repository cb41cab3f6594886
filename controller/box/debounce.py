"""Edge debouncing with an injectable clock (our own code, not the backends' ``bounce_time``;
``docs/config.md``, ``debounce_ms``).

Every raw edge (re)starts a timer of ``debounce_ms``; when the timer fires and
the level differs from the last reported one, the new level is reported once.
A sensor that chatters for less than ``debounce_ms`` between edges therefore
gives exactly one report, ``debounce_ms`` after its last edge. No polling: the
only work happens on edges and on the timer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..clock import Clock, Timer

log = logging.getLogger(__name__)

Report = Callable[[bool, float], None]
"""``report(level, at)``: the settled level and the clock time (s) of the edge that began it."""


class Debouncer:
    """Debounce one digital input.

    ``report`` is called on the clock's timer thread (or inside ``edge`` when
    ``debounce_ms`` is 0), never twice at once, in order. ``read_level``, when
    given, is read when the timer fires instead of trusting the last edge's
    level (some pin drivers report an edge's level late or not at all).
    Thread-safe.
    """

    def __init__(
        self,
        clock: Clock,
        report: Report,
        initial: bool,
        debounce_ms: float = 20.0,
        read_level: Callable[[], bool] | None = None,
    ) -> None:
        if debounce_ms < 0:
            raise ValueError(f"debounce_ms must be >= 0, got {debounce_ms:g}")
        self._clock = clock
        self._report = report
        self._read_level = read_level
        self._delay_s = debounce_ms / 1000
        self._lock = threading.RLock()
        self._level = initial
        self._raw = initial
        self._raw_since = clock.now()
        self._timer: Timer | None = None
        self._generation = 0  # bumped by every edge; a timer of an older one is stale
        self._closed = False

    @property
    def level(self) -> bool:
        """The last reported (settled) level."""
        return self._level

    def edge(self, level: bool) -> None:
        """A raw edge to ``level``: restart the settle timer (report now if debounce_ms is 0)."""
        with self._lock:
            if self._closed:
                return
            self._raw = level
            self._raw_since = self._clock.now()
            self._generation += 1
            generation = self._generation
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._delay_s == 0:
                self._settle(generation)
            else:
                self._timer = self._clock.call_later(
                    self._delay_s, lambda: self._settle(generation)
                )

    def _settle(self, generation: int) -> None:
        with self._lock:
            if self._closed or generation != self._generation:
                return  # superseded by a later edge, or closed
            self._timer = None
            level = self._raw
            if self._read_level is not None:
                try:
                    level = self._read_level()
                except Exception:
                    log.exception("reading the input failed; keeping the last edge's level")
            if level == self._level:
                return
            self._level = level
            self._report(level, self._raw_since)

    def close(self) -> None:
        """Drop the pending timer; no report after this."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
