"""Coils timed by what really happened on the pin (issue 26): measured high times, the
deadline thread, the timer cap on thread-timed backends.

These run on real time (the pulse is real time; MockPin stamps its changes with
``time.monotonic``, the RealClock's scale); bounds on time are loose on purpose: the
timing targets are measured by ``diablotin reliability --only coils``.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.box.base import BoxFault, FaultChanged, LimitRefused, Limits
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.clock import RealClock
from controller.reliability.coils import high_periods

from .helpers import COILS, Recorder, states

LOOSE_S = 0.5
"""A forced off must come within the 100 ms deadline plus this (a loaded test machine)."""


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


def test_without_deadline_faults_a_late_pulse_is_forced_off_and_only_logged(
    pins: PinMap, real_clock: RealClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The simulated toy's box (mock coils): host load alone never stops a demo."""
    factory = MockFactory()
    with GpioBox(
        pins, Limits(pulse_ms=30), real_clock, factory=factory, deadline_fault=False
    ) as box:
        box.fire(1)
        with box._coil_cond:  # stalled mid-pulse
            time.sleep(0.1 + LOOSE_S)
            on_during_stall = factory.pin(COILS[0]).state
        assert on_during_stall is False
        assert box.wait_idle(1.0)
        assert box.status()["faults"] == []
        assert "coil 1 was still on 100 ms after its pulse began" in caplog.text
        time.sleep(box.cooldown_s(1))
        box.fire(1)
        assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[0])) == [False, True, False, True, False]


def _fire_quietly(box: GpioBox, key: int) -> None:
    with contextlib.suppress(BoxFault):
        box.fire(key)


class Spinning:
    """``count`` threads spinning in Python: the load that took 100 ms pulses to 191 ms."""

    def __init__(self, count: int) -> None:
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._spin, daemon=True) for _ in range(count)]

    def _spin(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1

    def __enter__(self) -> Spinning:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(1)


LOADED_LIMITS = Limits(max_duty=0.03)  # 300 ms per 10 s: reachable within a second


@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 4),
            st.one_of(st.none(), st.floats(1.0, 100.0)),
            st.floats(0.0, 0.1),  # wait before the request (s)
        ),
        min_size=3,
        max_size=7,
    )
)
def test_under_four_busy_threads_the_pins_keep_the_limits(
    pins: PinMap, reqs: list[tuple[int, float | None, float]]
) -> None:
    """Read from the mock pins' own change times. Strict: no pulse over 100 ms (the coil
    thread is armed for at most 90 ms, wakes first (SCHED_FIFO where allowed) and the other
    threads give up the GIL within 0.5 ms while a pulse is on), one coil at a time, 250 ms
    gaps, the duty limit. The timing itself is measured by ``diablotin reliability --only
    coils``."""
    factory = MockFactory()
    clock = RealClock()
    box = GpioBox(pins, LOADED_LIMITS, clock, factory=factory)
    try:
        with Spinning(4):
            for key, pulse, wait in reqs:
                time.sleep(wait)
                try:
                    box.fire(key, pulse)
                except (LimitRefused, BoxFault):  # a limit, or the deadline fault
                    continue
            assert box.wait_idle(2.0)
        faults = [f["name"] for f in box.status()["faults"]]
        if faults:  # a latched fault refuses every later request
            time.sleep(1.0)
            with pytest.raises(BoxFault, match="the box has a fault"):
                box.fire(1)
    finally:
        box.close()
        clock.close()
    periods = {key: high_periods(factory.pin(COILS[key - 1])) for key in range(1, 5)}
    every = sorted(p for mine in periods.values() for p in mine)
    for (_, off), (on, _) in itertools.pairwise(every):
        assert on >= off  # one coil at a time
    overran = [p for p in every if p[1] - p[0] > 0.1]
    assert not overran, overran
    assert faults == []
    for mine in periods.values():
        for (_, off), (on, _) in itertools.pairwise(mine):
            assert on - off >= 0.250
        for _, end in mine:
            on_s = sum(max(0.0, min(b, end) - max(a, end - 10.0)) for a, b in mine)
            assert on_s <= 0.03 * 10.0
