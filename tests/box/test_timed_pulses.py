"""Pulses timed by lgpio (tx_pulse) where the factory has it, by the coil thread otherwise.

A fake lgpio module stands in for the real one (which needs a Pi): its ``tx_pulse`` drives
the MockFactory pin from its own timer thread, as lgpio's C thread drives the real line.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.box.base import Limits
from controller.box.gpio import PULSE_OFF_US, GpioBox, timed_pulses
from controller.box.pins import PinMap
from controller.clock import ManualClock

from .helpers import COILS, pulse_lengths, states


class FakeLgpio:
    """``lgpio.tx_pulse`` on a MockFactory: one cycle = high for on_us, then low."""

    def __init__(self, factory: MockFactory) -> None:
        self.factory = factory
        self.calls: list[tuple[int, ...]] = []
        self._timers: dict[int, threading.Timer] = {}

    def tx_pulse(
        self, handle: int, gpio: int, on_us: int, off_us: int, offset: int = 0, cycles: int = 0
    ) -> int:
        self.calls.append((handle, gpio, on_us, off_us, offset, cycles))
        pin = self.factory.pin(gpio)
        old = self._timers.pop(gpio, None)
        if old is not None:
            old.cancel()
        if on_us == 0 and off_us == 0:
            return 0
        assert cycles == 1, "a coil pulse is exactly one cycle"
        pin.state = True
        timer = threading.Timer(on_us / 1e6, lambda: setattr(pin, "state", False))
        self._timers[gpio] = timer
        timer.start()
        return 0


class LgpioLikeFactory(MockFactory):  # type: ignore[misc]
    """MockFactory pins with an lgpio chip handle, as gpiozero's LGPIOFactory has."""

    def __init__(self) -> None:
        super().__init__()
        self._handle = 3


@pytest.fixture
def fake_lgpio(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LgpioLikeFactory, FakeLgpio]]:
    factory = LgpioLikeFactory()
    lgpio = FakeLgpio(factory)
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)
    yield factory, lgpio


def test_selection(fake_lgpio: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    factory, _ = fake_lgpio
    assert timed_pulses(factory) is not None
    assert timed_pulses(MockFactory()) is None  # mock, rpigpio: no chip handle
    monkeypatch.delitem(sys.modules, "lgpio")
    assert timed_pulses(factory) is None  # a handle but no lgpio module


def test_mock_factory_pulses_are_timed_by_the_coil_thread(pins: PinMap, clock: ManualClock) -> None:
    with GpioBox(pins, Limits(), clock, factory=MockFactory()) as box:
        assert box.status()["pulse_timing"] == "thread"


def test_on_lgpio_a_pulse_is_one_tx_pulse_cycle(
    fake_lgpio: Any, pins: PinMap, clock: ManualClock
) -> None:
    factory, lgpio = fake_lgpio
    with GpioBox(pins, Limits(pulse_ms=40), clock, factory=factory) as box:
        assert box.status()["pulse_timing"] == "lgpio"
        box.fire(2)
        assert box.wait_idle(1.0)
    assert (3, COILS[1], 40_000, PULSE_OFF_US, 0, 1) in lgpio.calls
    assert states(factory.pin(COILS[1]))[:3] == [False, True, False]


def hold_coil_thread(box: GpioBox, seconds: float) -> bool:
    """The Python side hangs mid-pulse: the coil thread cannot reach its off for ``seconds``.
    Returns whether the coil was still on at the end of the hang."""
    key_pin = box._coils[1]
    with box._coil_cond:  # the coil thread waits on this condition to end the pulse
        time.sleep(seconds)
        return bool(key_pin.value)


def test_a_hang_mid_pulse_holds_an_lgpio_coil_no_longer_than_the_pulse(
    fake_lgpio: Any, pins: PinMap, clock: ManualClock
) -> None:
    factory, _ = fake_lgpio
    with GpioBox(pins, Limits(pulse_ms=30), clock, factory=factory) as box:
        box.fire(1)
        assert hold_coil_thread(box, 0.3) is False  # off after 30 ms, Python still stuck
        assert box.wait_idle(1.0)
        assert box.status()["faults"] == []  # lgpio ended it on time: the coil thread was late


def test_without_timed_pulses_a_hang_mid_pulse_is_ended_by_the_deadline_thread(
    pins: PinMap, clock: ManualClock
) -> None:
    """On rpigpio/mock only our threads end the pulse: the deadline thread, which needs
    none of the coil thread's locks, forces it off and latches a fault."""
    with GpioBox(pins, Limits(pulse_ms=30), clock, factory=MockFactory()) as box:
        box.fire(1)
        assert hold_coil_thread(box, 0.6) is False
        assert box.wait_idle(1.0)
        assert box._coils[1].value == 0
        assert [f["name"] for f in box.status()["faults"]] == ["coil-deadline"]


def test_a_thread_timed_pulse_is_armed_for_at_most_90_ms_and_says_so(
    pins: PinMap, clock: ManualClock
) -> None:
    """Allowed (never refused for its length), held for 90 ms: the 10 ms left is the slack
    for a late wake-up, so the pin's high time stays within 100 ms."""
    factory = MockFactory()
    with GpioBox(pins, Limits(), clock, factory=factory) as box:
        events: list[object] = []
        box.subscribe(events.append)
        assert box.status()["timer_cap_ms"] == 90.0
        box.fire(1, 100)
        assert box.wait_idle(1.0)
        clock.advance(1.0)
        box.fire(2, 60)  # under the cap: as asked
        assert box.wait_idle(1.0)
    assert [(e.key, e.pulse_ms) for e in events] == [(1, 90.0), (2, 60.0)]  # type: ignore[attr-defined]
    (length,) = pulse_lengths(factory.pin(COILS[0]))
    assert 0 < length < 0.1 + 0.5  # loose: the timing is measured by reliability --only coils


def test_on_lgpio_the_full_request_is_timed(
    fake_lgpio: Any, pins: PinMap, clock: ManualClock
) -> None:
    factory, lgpio = fake_lgpio
    with GpioBox(pins, Limits(), clock, factory=factory) as box:
        assert box.status()["timer_cap_ms"] == 100.0
        box.fire(3, 100)
        assert box.wait_idle(1.0)
    assert (3, COILS[2], 100_000, PULSE_OFF_US, 0, 1) in lgpio.calls


def test_the_coil_threads_ask_for_real_time_scheduling(box: GpioBox) -> None:
    """Where the service may (root, or the unit's CAP_SYS_NICE), the coil thread and the
    deadline thread are SCHED_FIFO: an off write waits for no ordinary thread's CPU."""
    import os
    import threading

    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        pytest.skip("this process may not use real-time scheduling (not root, no CAP_SYS_NICE)")
    assert box.wait_idle(2.0)
    threads = {t.name: t.native_id for t in threading.enumerate()}
    for name in ("coils", "coil-deadline"):
        assert os.sched_getscheduler(threads[name]) == os.SCHED_FIFO, name
