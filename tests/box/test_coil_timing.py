"""Coils timed by what really happened on the pin (issue 26): measured high times, the
deadline thread, the timer cap on thread-timed backends.

These run on real time (the pulse is real time; MockPin stamps its changes with
``time.monotonic``, the RealClock's scale); bounds on time are loose on purpose: the
timing targets are measured by ``diablotin reliability --only coils``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from controller.box.base import BoxFault, FaultChanged, Limits
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.clock import RealClock

from .helpers import COILS, Recorder, states

LOOSE_S = 0.5
"""A forced off must come within the 100 ms deadline plus this (a loaded test machine)."""


def high_periods(pin: MockPin) -> list[tuple[float, float]]:
    """(on, off) monotonic times of each high period of a mock pin, from its own records."""
    t = pin._last_change - sum(s.timestamp for s in pin.states[1:])
    periods: list[tuple[float, float]] = []
    on: float | None = None
    for i, change in enumerate(pin.states):
        if i:
            t += change.timestamp
        if change.state and on is None:
            on = t
        elif not change.state and on is not None:
            periods.append((on, t))
            on = None
    return periods


@pytest.fixture
def real_clock() -> Iterator[RealClock]:
    clock = RealClock()
    yield clock
    clock.close()


def test_the_gap_counts_from_when_the_pin_really_went_low(
    pins: PinMap, real_clock: RealClock
) -> None:
    """The write that switches the coil off takes 50 ms: the next pulse waits 250 ms from
    its end, not from the end the guard asked for."""
    factory = MockFactory()

    class SlowOffPin(MockPin):  # type: ignore[misc]
        def _change_state(self, value: bool) -> bool:
            if not value and self._state:
                time.sleep(0.05)
            changed: bool = super()._change_state(value)
            return changed

    factory.pin(COILS[0], pin_class=SlowOffPin)
    with GpioBox(pins, Limits(pulse_ms=10), real_clock, factory=factory) as box:
        box.fire(1)
        assert box.wait_idle(1.0)
        time.sleep(box.cooldown_s(1))
        box.fire(1)
        assert box.wait_idle(1.0)
    (_, first_off), (second_on, _) = high_periods(factory.pin(COILS[0]))
    assert second_on - first_off >= 0.250


def test_a_coil_thread_stalled_mid_pulse_cannot_hold_its_coil_on(
    pins: PinMap, real_clock: RealClock
) -> None:
    """The issue's stall: the coil thread's lock is held mid-pulse (it stayed on 6 s)."""
    factory = MockFactory()
    with GpioBox(pins, Limits(pulse_ms=30), real_clock, factory=factory) as box:
        events = Recorder()
        box.subscribe(events)
        box.fire(1)
        with box._coil_cond:  # the coil thread waits on this to end the pulse
            time.sleep(0.1 + LOOSE_S)
            on_during_stall = factory.pin(COILS[0]).state
        assert on_during_stall is False
        assert box.wait_idle(1.0)
    (on, off), *_ = high_periods(factory.pin(COILS[0]))
    assert off - on < 0.1 + LOOSE_S


def test_a_coil_thread_stuck_in_the_on_write_is_forced_off_and_latches_a_fault(
    pins: PinMap, real_clock: RealClock
) -> None:
    """The pin went high, then the write's own work hangs (a driver, a lock held
    elsewhere): the deadline thread forces every coil low and refuses pulses until the
    fault is cleared."""
    factory = MockFactory()
    release = threading.Event()

    class HangingPin(MockPin):  # type: ignore[misc]
        def _change_state(self, value: bool) -> bool:
            changed: bool = super()._change_state(value)
            if value:
                release.wait(5)
            return changed

    factory.pin(COILS[1], pin_class=HangingPin)
    with GpioBox(pins, Limits(pulse_ms=30), real_clock, factory=factory) as box:
        events = Recorder()
        box.subscribe(events)
        firing = threading.Thread(target=lambda: _fire_quietly(box, 2), daemon=True)
        firing.start()
        time.sleep(0.1 + LOOSE_S)
        coil_during_hang = factory.pin(COILS[1]).state
        release.set()
        firing.join(2)
        assert coil_during_hang is False
        assert box.wait_idle(1.0)
        faults = events.of(FaultChanged)
        assert [f.name for f in faults] == ["coil-deadline"]
        assert "coil 2 was still on" in faults[0].detail
        with pytest.raises(BoxFault, match="the box has a fault: coil 2 was still on"):
            box.fire(3)
        box.clear_faults()
        assert box.status()["faults"] == []
        box.fire(3)
        assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[2])) == [False, True, False]


def _fire_quietly(box: GpioBox, key: int) -> None:
    with contextlib.suppress(BoxFault):
        box.fire(key)
