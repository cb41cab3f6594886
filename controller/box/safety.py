"""Coil safety limits, enforced before any pin moves (``hardware/README.md``, *Safety*).

:class:`CoilGuard` books every pulse. ``admit`` (and ``admit_measured``) either books a
pulse or raises :class:`~controller.box.base.LimitRefused` with the limit it would break
and books nothing: a request is never clipped into something else.

Two ways to book:

- :meth:`CoilGuard.admit` books the requested length as the coil's on-time, for
  backends whose pulses are timed where the host cannot see the pin (the Pico's firmware).
- :meth:`CoilGuard.admit_measured` books a pulse the backend times itself and measures
  (``GpioBox``): the booking is open, and holds its coil and every other coil, until the
  backend reports the pin's real high time with :meth:`CoilGuard.switched_on` and
  :meth:`CoilGuard.switched_off` (times of the writes that set the pin high and low).
  Spacing and duty then count those measured times, never the requested length; until
  the pulse ends it counts as ``reserve_ms`` long (its deadline), or as long as the longest
  pulse the coil really had within the window if that was longer, so a pulse that ends on
  time can never take its coil past the duty limit.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from ..clock import Clock
from ..sentences import Said
from .base import KEYS, LimitRefused, Limits

_ROUNDING_S = 1e-9
"""Float sums of on-times may miss the duty budget by this much (s); not a real excess."""


@dataclass
class Booking:
    """One booked pulse of coil ``key``: ``start``-``end`` in the guard's clock seconds.

    ``end`` is None while a measured pulse is still open (not yet switched off);
    ``reserve_s`` is how long it counts as until then.
    """

    key: int
    length_ms: float
    start: float
    end: float | None
    reserve_s: float

    def until(self) -> float:
        """When the pulse ended, or the latest it may end while still open."""
        return self.start + self.reserve_s if self.end is None else self.end


class CoilGuard:
    """Pulse cap, per-coil spacing, per-coil duty over a sliding window, one coil at a time.

    Times come from ``clock`` (seconds); pulse lengths are milliseconds. Thread-safe.
    """

    def __init__(self, limits: Limits, clock: Clock) -> None:
        self.limits = limits
        self.clock = clock
        self._lock = threading.Lock()
        self._pulses: dict[int, deque[Booking]] = {k: deque() for k in KEYS}
        self._busy_until = float("-inf")
        self._open: Booking | None = None

    def admit(self, key: int, pulse_ms: float | None = None) -> float:
        """Book a pulse of coil ``key`` starting now, on for exactly its length; returns
        the length in ms.

        Raises :class:`LimitRefused` (nothing booked) for an unknown key, a pulse
        over the cap, another coil still energised, a pulse too soon after the
        last one of this coil, or one that would exceed the duty limit.
        """
        length = self._length(key, pulse_ms)
        with self._lock:
            now = self.clock.now()
            self._check(key, length, now)
            self._pulses[key].append(Booking(key, length, now, now + length / 1000, length / 1000))
            self._busy_until = now + length / 1000
            return length

    def admit_measured(
        self, key: int, pulse_ms: float | None = None, reserve_ms: float | None = None
    ) -> Booking:
        """Book a pulse of coil ``key`` that stays open until :meth:`switched_off`.

        ``reserve_ms`` (default: the length; at most ``MAX_PULSE_MS``) is the longest the
        pulse may last (its deadline): the duty check counts it that long. Raises
        :class:`LimitRefused` as :meth:`admit` does, and while another pulse is open.
        """
        length = self._length(key, pulse_ms)
        reserve = length if reserve_ms is None else max(length, reserve_ms)
        reserve = min(reserve, self.limits.MAX_PULSE_MS)
        with self._lock:
            now = self.clock.now()
            self._check(key, reserve, now, measured=True)
            booking = Booking(key, length, now, None, reserve / 1000)
            self._pulses[key].append(booking)
            self._open = booking
            return booking

    def switched_on(self, booking: Booking, at: float) -> None:
        """The write that set ``booking``'s pin high happened at ``at`` (clock seconds)."""
        with self._lock:
            if booking.end is None:
                booking.start = at

    def switched_off(self, booking: Booking, at: float) -> float:
        """The write that set ``booking``'s pin low happened at ``at``: the pulse is over.

        Returns its measured on-time (ms). A second report of the same pulse changes nothing.
        """
        with self._lock:
            if booking.end is None:
                booking.end = max(at, booking.start)
                if self._open is booking:
                    self._open = None
            return (booking.end - booking.start) * 1000

    def cancel(self, booking: Booking) -> None:
        """``booking``'s pin was never switched on: forget it."""
        with self._lock:
            if booking.end is None:
                pulses = self._pulses[booking.key]
                if booking in pulses:
                    pulses.remove(booking)
                if self._open is booking:
                    self._open = None

    def cooldown_s(self, key: int) -> float:
        """Seconds until coil ``key`` may fire a default pulse again (0 if now)."""
        with self._lock:
            now = self.clock.now()
            wait = self._busy_until - now
            if self._open is not None:
                wait = max(wait, self._open.until() - now)
            pulses = self._pulses[key]
            if pulses:
                wait = max(wait, pulses[-1].until() + self.limits.min_gap_ms / 1000 - now)
            return max(0.0, wait)

    # -- the checks ------------------------------------------------------------------

    def _length(self, key: int, pulse_ms: float | None) -> float:
        """The requested length (ms), or :class:`LimitRefused` for a bad key or length."""
        if not isinstance(key, int) or isinstance(key, bool) or key not in KEYS:
            raise LimitRefused(Said("there is no key {key!r}: keys are 1-4", key=key))
        if pulse_ms is not None and (
            not isinstance(pulse_ms, int | float) or isinstance(pulse_ms, bool)
        ):
            raise LimitRefused(
                Said(
                    "pulse_ms must be a number of milliseconds, got {pulse_ms!r}", pulse_ms=pulse_ms
                )
            )
        length = self.limits.pulse_ms if pulse_ms is None else float(pulse_ms)
        if not 0 < length <= self.limits.MAX_PULSE_MS:
            raise LimitRefused(
                Said(
                    "a pulse lasts more than 0 ms and at most {max_ms:g} ms, not {length:g} ms",
                    length=length,
                    max_ms=self.limits.MAX_PULSE_MS,
                )
            )
        return length

    def _check(self, key: int, reserve_ms: float, now: float, measured: bool = False) -> None:
        """Raise :class:`LimitRefused` if a pulse of coil ``key`` lasting up to
        ``reserve_ms`` from ``now`` would break a limit (called under the lock).

        ``measured``: the pulse counts at least as long as the longest this coil really
        had within the window (one that outlived its deadline makes the next count more).
        """
        if now < self._busy_until or self._open is not None:
            raise LimitRefused(Said("another coil is energised: one coil at a time"))
        pulses = self._pulses[key]
        window = self.limits.duty_window_s
        while pulses and pulses[0].until() <= now - window:
            pulses.popleft()
        if pulses:
            gap_ms = (now - pulses[-1].until()) * 1000
            if gap_ms < self.limits.min_gap_ms:
                raise LimitRefused(
                    Said(
                        "key {key} fired {gap_ms:.0f} ms ago: wait at least {min_gap_ms:g} "
                        "ms between pulses",
                        key=key,
                        gap_ms=gap_ms,
                        min_gap_ms=self.limits.min_gap_ms,
                    )
                )
        if measured:
            reserve_ms = max([reserve_ms] + [(b.until() - b.start) * 1000 for b in pulses])
        on_s = sum(max(0.0, b.until() - max(b.start, now - window)) for b in pulses)
        if on_s + reserve_ms / 1000 > self.limits.max_duty * window + _ROUNDING_S:
            raise LimitRefused(
                Said(
                    "key {key} would be on {value:.0f} ms in {window:g} s: over its "
                    "{max_duty:.0%} duty limit",
                    key=key,
                    value=on_s * 1000 + reserve_ms,
                    window=window,
                    max_duty=self.limits.max_duty,
                )
            )
