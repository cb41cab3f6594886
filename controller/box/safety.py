"""Coil safety limits, enforced before any pin moves (``hardware/README.md``, *Safety*).

:class:`CoilGuard` books every pulse. ``admit`` either books a pulse or raises
:class:`~controller.box.base.LimitRefused` with the limit it would break and
books nothing: a request is never clipped into something else.
"""

from __future__ import annotations

import threading
from collections import deque

from ..clock import Clock
from ..games.base import Said
from .base import KEYS, LimitRefused, Limits


class CoilGuard:
    """Pulse cap, per-coil spacing, per-coil duty over a sliding window, one coil at a time.

    Times come from ``clock`` (seconds); pulse lengths are milliseconds. Thread-safe.
    """

    def __init__(self, limits: Limits, clock: Clock) -> None:
        self.limits = limits
        self.clock = clock
        self._lock = threading.Lock()
        self._pulses: dict[int, deque[tuple[float, float]]] = {k: deque() for k in KEYS}
        self._busy_until = float("-inf")

    def admit(self, key: int, pulse_ms: float | None = None) -> float:
        """Book a pulse of coil ``key`` starting now; returns its length in ms.

        Raises :class:`LimitRefused` (nothing booked) for an unknown key, a pulse
        over the cap, another coil still energised, a pulse too soon after the
        last one of this coil, or one that would exceed the duty limit.
        """
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
                    "a {length:g} ms pulse is outside (0, {max_ms:g}] ms",
                    length=length,
                    max_ms=self.limits.MAX_PULSE_MS,
                )
            )
        with self._lock:
            now = self.clock.now()
            if now < self._busy_until:
                raise LimitRefused(Said("another coil is energised: one coil at a time"))
            pulses = self._pulses[key]
            window = self.limits.duty_window_s
            while pulses and pulses[0][0] + pulses[0][1] / 1000 <= now - window:
                pulses.popleft()
            if pulses:
                gap_ms = (now - (pulses[-1][0] + pulses[-1][1] / 1000)) * 1000
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
            on_s = sum(min(d / 1000, s + d / 1000 - (now - window)) for s, d in pulses)
            if on_s + length / 1000 > self.limits.max_duty * window:
                raise LimitRefused(
                    Said(
                        "key {key} would be on {value:.0f} ms in {window:g} s: over its "
                        "{max_duty:.0%} duty limit",
                        key=key,
                        value=on_s * 1000 + length,
                        window=window,
                        max_duty=self.limits.max_duty,
                    )
                )
            pulses.append((now, length))
            self._busy_until = now + length / 1000
            return length

    def cooldown_s(self, key: int) -> float:
        """Seconds until coil ``key`` may fire a default pulse again (0 if now)."""
        with self._lock:
            now = self.clock.now()
            pulses = self._pulses[key]
            wait = self._busy_until - now
            if pulses:
                start, length = pulses[-1]
                wait = max(wait, start + length / 1000 + self.limits.min_gap_ms / 1000 - now)
            return max(0.0, wait)
