"""Part 5, ``coils``: how long a coil really stays on under load (issue 26).

A :class:`~controller.box.gpio.GpioBox` on gpiozero's mock pins (thread-timed, as RPi.GPIO
is) in this process, with ``busy`` threads spinning in Python (the load that took 100 ms
pulses to 191 ms before issue 26), fires 100 ms pulses of one coil as fast as the guard
allows for ``seconds`` s. What the pin did is read from the mock pin's own records of its
changes (``pin.states``, ``time.monotonic``), never from the box:

- each pulse's high time (the spec's bound: 100 ms), and how late it ended after the
  timer it was armed for (the slack the 90 ms timer cap leaves: 10 ms);
- the on-time in every 10 s window (bound: 10 %), and the gaps (bound: 250 ms);
- deadline faults: a pulse still high at its 100 ms deadline is forced low by the deadline
  thread and latches a fault; here the fault is cleared and the run goes on, as a referee
  would, and every one is counted.

A scenario *held* when no pulse was over 100 ms, no window over 10 %, no gap under 250 ms.
On lgpio (lgpio's C thread times the pulse) and the Pico (its firmware times it) Python's
scheduling does not enter into it; ``docs/install-pi.md`` states the bound per backend.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gpiozero.pins.mock import MockPin

from ..box.base import BoxFault, LimitRefused, Limits
from ..box.gpio import DEADLINE_FAULT, GpioBox
from ..box.pins import PinMap
from ..clock import RealClock
from .common import Log

PULSE_MS = 100.0
"""Every pulse asks for the longest the spec allows (thread-timed: held for 90 ms)."""
MAX_ON_MS = Limits.MAX_PULSE_MS
MIN_GAP_MS = Limits.MIN_GAP_MS
MAX_DUTY = Limits.MAX_DUTY
WINDOW_S = Limits.DUTY_WINDOW_S
PINS = PinMap(coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19))


def _faults(box: GpioBox) -> list[Mapping[str, str]]:
    """The box's faults as its status lists them (``name`` and ``detail`` each)."""
    faults = box.status().get("faults")
    return [f for f in faults if isinstance(f, Mapping)] if isinstance(faults, list) else []


@dataclass
class CoilRun:
    """One scenario: ``busy`` spinning threads for ``seconds`` s."""

    busy: int
    seconds: float
    armed_ms: float = 0.0
    periods: list[tuple[float, float]] = field(default_factory=list)
    """(on, off) monotonic seconds of every high period of the coil's pin."""
    refused: int = 0
    faults: list[str] = field(default_factory=list)

    @property
    def on_ms(self) -> list[float]:
        return [(off - on) * 1000 for on, off in self.periods]

    @property
    def late_ms(self) -> list[float]:
        """How long after its timer each pulse ended (ms; negative: early)."""
        return [ms - self.armed_ms for ms in self.on_ms]

    @property
    def held(self) -> bool:
        return (
            bool(self.periods)
            and max(self.on_ms) <= MAX_ON_MS
            and max_duty(self.periods) <= MAX_DUTY
            and min_gap_ms(self.periods) >= MIN_GAP_MS
        )


def high_periods(pin: MockPin) -> list[tuple[float, float]]:
    """(on, off) ``time.monotonic`` seconds of each high period of a gpiozero ``MockPin``,
    from its own records (``states``: seconds since the previous change, and the level)."""
    states = pin.states
    t = pin._last_change - sum(s.timestamp for s in states[1:])
    periods: list[tuple[float, float]] = []
    on: float | None = None
    for i, change in enumerate(states):
        if i:
            t += change.timestamp
        if change.state and on is None:
            on = t
        elif not change.state and on is not None:
            periods.append((on, t))
            on = None
    return periods


def max_duty(periods: Sequence[tuple[float, float]], window_s: float = WINDOW_S) -> float:
    """The largest share of any ``window_s`` window the pin was high in (the on-time in a
    sliding window peaks when the window ends as a pulse ends)."""
    best = 0.0
    for _, end in periods:
        start = end - window_s
        on = sum(max(0.0, min(b, end) - max(a, start)) for a, b in periods)
        best = max(best, on / window_s)
    return best


def min_gap_ms(periods: Sequence[tuple[float, float]]) -> float:
    """The shortest low time between two high periods (ms; infinite for fewer than two)."""
    gaps = [(b_on - a_off) * 1000 for (_, a_off), (b_on, _) in itertools.pairwise(periods)]
    return min(gaps, default=float("inf"))


def _spin(stop: threading.Event) -> None:
    count = 0
    while not stop.is_set():
        count += 1


def run_scenario(busy: int, seconds: float) -> CoilRun:
    """Fire coil 1 for ``seconds`` s under ``busy`` spinning threads; see the module doc."""
    from gpiozero.pins.mock import MockFactory

    run = CoilRun(busy, seconds)
    stop = threading.Event()
    spinners = [threading.Thread(target=_spin, args=(stop,), daemon=True) for _ in range(busy)]
    factory = MockFactory()
    clock = RealClock()
    box = GpioBox(PINS, Limits(pulse_ms=PULSE_MS), clock, factory=factory)
    run.armed_ms = min(PULSE_MS, box.timer_cap_ms)
    for spinner in spinners:
        spinner.start()
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                box.fire(1)
            except LimitRefused:
                run.refused += 1
                time.sleep(min(max(box.cooldown_s(1), 0.001), 0.05))
            except BoxFault:
                faults = _faults(box)
                if [f["name"] for f in faults] != [DEADLINE_FAULT]:
                    raise
                run.faults.append(faults[0]["detail"])
                box.wait_idle(1.0)
                box.clear_faults()  # as the referee would, to measure on
        box.wait_idle(1.0)
        run.faults += [f["detail"] for f in _faults(box)]
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join(1.0)
        box.close()
        clock.close()
    run.periods = high_periods(factory.pin(PINS.coils[0]))
    return run


def run_coils(seconds: float, busy: Sequence[int] = (0, 4), log: Log = print) -> list[CoilRun]:
    """Each load in ``busy`` (spinning threads) for ``seconds`` s, one after the other."""
    runs = []
    for threads in busy:
        log(f"  100 ms pulses for {seconds:g} s with {threads} busy thread(s)")
        runs.append(run_scenario(threads, seconds))
    return runs


def coils_report(runs: Sequence[CoilRun]) -> list[str]:
    """The summary lines: per load, held or failed with what the pin did."""
    held = sum(r.held for r in runs)
    lines = [f"coils: {held}/{len(runs)} loads held (pulse <= 100 ms, duty <= 10 %, gap >= 250)"]
    for run in runs:
        on = sorted(run.on_ms)
        late = sorted(run.late_ms)
        if not on:
            lines.append(f"  {run.busy} busy: FAILED, no pulse")
            continue
        lines.append(
            f"  {run.busy} busy: {'held' if run.held else 'FAILED'}: {len(on)} pulses armed "
            f"{run.armed_ms:g} ms, high p50 {on[len(on) // 2]:.1f} max {on[-1]:.1f} ms "
            f"(late max {late[-1]:.1f} ms), duty max {max_duty(run.periods):.2%}, "
            f"gap min {min_gap_ms(run.periods):.0f} ms, {len(run.faults)} deadline fault(s)"
        )
    return lines
