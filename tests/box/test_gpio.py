"""GpioBox on gpiozero's MockFactory: strict pulses, refusals, coils off on close and errors."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from controller.box.base import (
    BoxFault,
    CoilFired,
    FactoryUnavailable,
    FaultChanged,
    LidChanged,
    LimitRefused,
    Limits,
    SlotChanged,
)
from controller.box.gpio import GpioBox
from controller.box.pin_factory import load_pin_factory
from controller.box.pins import PinMap
from controller.clock import ManualClock

from .helpers import COILS, LID, SENSORS, Recorder, near, pulse_lengths, states

EARLY_S = 0.002
"""A pulse may end this much before its timer (the on write's own duration)."""
LATE_S = 0.5
"""Loose: how late a thread-timed pulse may end on a loaded test machine (the timing itself
is measured by ``diablotin reliability --only coils``)."""


def held(seconds: float, armed_s: float) -> bool:
    """Whether a measured high time fits a pulse armed for ``armed_s``, loosely."""
    return armed_s - EARLY_S <= seconds <= armed_s + LATE_S


def coil_pins(factory: MockFactory) -> list[MockPin]:
    return [factory.pin(p) for p in COILS]


def all_coil_states(factory: MockFactory) -> list[list[bool]]:
    return [states(p) for p in coil_pins(factory)]


def test_one_fire_is_exactly_one_pulse_of_the_configured_length(
    box: GpioBox, factory: MockFactory, events: Recorder, clock: ManualClock
) -> None:
    box.fire(2)
    assert box.wait_idle(1.0)
    pin = factory.pin(COILS[1])
    assert states(pin) == [False, True, False]
    (length,) = pulse_lengths(pin)
    assert held(length, 0.030)
    assert [states(factory.pin(p)) for p in (COILS[0], COILS[2], COILS[3])] == [[False]] * 3
    assert events.events == [CoilFired(2, 30.0, clock.now())]


def test_a_configured_pulse_length_is_held(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    with GpioBox(pins, Limits(pulse_ms=60), clock, factory=factory) as box:
        box.fire(4)
        assert box.wait_idle(1.0)
        clock.advance(0.1)
        box.fire(1, 15)
        assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[3])) == [False, True, False]
    (sixty,) = pulse_lengths(factory.pin(COILS[3]))
    (fifteen,) = pulse_lengths(factory.pin(COILS[0]))
    assert held(sixty, 0.060) and held(fifteen, 0.015)


def _fire_coil_1_and_settle(box: GpioBox, clock: ManualClock) -> None:
    box.fire(1)
    assert box.wait_idle(1.0)


@pytest.mark.parametrize(
    ("setup", "key", "pulse", "reason"),
    [
        (None, 1, 100.5, r"a pulse lasts more than 0 ms and at most 100 ms, not 100.5 ms"),
        (None, 1, 0, r"more than 0 ms and at most 100 ms, not 0 ms"),
        (None, 0, None, "there is no key 0"),
        (None, 5, None, "there is no key 5"),
        (None, True, None, "there is no key True"),
        (None, "2", None, "there is no key '2'"),
        # 100 ms after the pulse began, less its measured length (about 30 ms)
        ("recent", 1, None, r"key 1 fired \d+ ms ago: wait at least 250 ms"),
        ("energised", 2, None, "another coil is energised: one coil at a time"),
    ],
)
def test_a_request_that_breaks_a_limit_is_refused_and_moves_no_pin(
    box: GpioBox,
    factory: MockFactory,
    events: Recorder,
    clock: ManualClock,
    setup: str | None,
    key: Any,
    pulse: float | None,
    reason: str,
) -> None:
    if setup == "recent":
        _fire_coil_1_and_settle(box, clock)
        clock.advance(0.1)
    elif setup == "energised":
        box.fire(1, 100)  # still on: the guard books it open until its off write
    before = all_coil_states(factory)
    fired_before = len(events.events)
    with pytest.raises(LimitRefused, match=reason):
        box.fire(key, pulse)
    assert box.wait_idle(1.0)
    if setup == "energised":  # coil 1's pulse ended by itself meanwhile
        before[0] = [*before[0], False]
    assert all_coil_states(factory) == before
    assert len(events.events) == fired_before


def test_the_duty_limit_refuses_and_moves_no_pin(pins: PinMap, clock: ManualClock) -> None:
    """2 % of 10 s is 200 ms: a pulse is admitted while the measured on-time so far plus
    its 100 ms deadline fits (three or four 30 ms pulses), then refused."""
    factory = MockFactory()
    with GpioBox(pins, Limits(max_duty=0.02), clock, factory=factory) as box:
        with pytest.raises(LimitRefused, match="over its 2% duty limit"):
            for _ in range(10):
                box.fire(1)
                assert box.wait_idle(1.0)
                clock.advance(0.6)  # past the spacing, however long the real pulse took
        assert box.wait_idle(1.0)
    pulses = pulse_lengths(factory.pin(COILS[0]))
    assert 2 <= len(pulses) <= 4  # 2: a loaded machine stretched one past 100 ms
    assert states(factory.pin(COILS[0])) == [False] + [True, False] * len(pulses)
    assert sum(pulses) <= 0.200


def test_close_switches_coils_off_then_releases_them(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    log: list[tuple[str, str, bool]] = []

    class LoggedPin(MockPin):  # type: ignore[misc]
        def _change_state(self, value: bool) -> bool:
            changed: bool = super()._change_state(value)
            if changed:
                log.append((self.info.name, "state", value))
            return changed

        def close(self) -> None:
            log.append((self.info.name, "close", bool(self._state)))
            super().close()

    for pin in COILS:
        factory.pin(pin, pin_class=LoggedPin)
    box = GpioBox(pins, Limits(pulse_ms=100), clock, factory=factory)
    box.fire(3)  # closing mid-pulse cuts it short
    box.close()
    box.close()  # idempotent
    coil3 = factory.pin(COILS[2])
    assert states(coil3) == [False, True, False]
    assert pulse_lengths(coil3)[0] < 0.0995
    closes = [entry for entry in log if entry[1] == "close"]
    assert sorted(name for name, _, _ in closes) == sorted(f"GPIO{p}" for p in COILS)
    assert all(state is False for _, _, state in closes)  # off before released
    last_on = max(i for i, entry in enumerate(log) if entry[1] == "state" and entry[2])
    first_close = min(i for i, entry in enumerate(log) if entry[1] == "close")
    assert last_on < first_close
    assert [p.function for p in coil_pins(factory)] == ["input"] * 4
    with pytest.raises(BoxFault, match="closed"):
        box.fire(1)
    assert box.status()["coils"] == {1: None, 2: None, 3: None, 4: None}
    assert box.status()["closed"] is True


def test_a_listener_raising_on_coil_fired_switches_every_coil_off(
    pins: PinMap, clock: ManualClock
) -> None:
    factory = MockFactory()
    box = GpioBox(pins, Limits(pulse_ms=100), clock, factory=factory)

    def broken(event: object) -> None:
        raise RuntimeError("listener bug")

    box.subscribe(broken)
    with pytest.raises(RuntimeError, match="listener bug"):
        box.fire(1)
    assert [p.state for p in coil_pins(factory)] == [False] * 4  # at once, not after 100 ms
    assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[0])) == [False, True, False]
    assert pulse_lengths(factory.pin(COILS[0]))[0] < 0.0995
    box.close()


def test_a_listener_raising_on_a_sensor_event_switches_every_coil_off(
    pins: PinMap, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    factory = MockFactory()
    box = GpioBox(pins, Limits(pulse_ms=100), clock, factory=factory)

    def broken(event: object) -> None:
        if isinstance(event, SlotChanged):
            raise RuntimeError("listener bug")

    box.subscribe(broken)
    box.fire(2)
    factory.pin(SENSORS[0]).drive_low()  # a die arrives in slot 1
    clock.advance(0.05)  # debounced: the listener raises on the clock's thread (here)
    assert [p.state for p in coil_pins(factory)] == [False] * 4
    assert "a box listener failed on SlotChanged(key=1, present=True" in caplog.text
    assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[1])) == [False, True, False]
    assert pulse_lengths(factory.pin(COILS[1]))[0] < 0.0995
    box.close()


def test_a_pin_raising_mid_pulse_leaves_the_coil_off(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()

    class HiccupPin(MockPin):  # type: ignore[misc]
        def _set_state(self, value: bool) -> None:
            super()._set_state(value)
            if value:
                raise RuntimeError("driver hiccup")

    factory.pin(COILS[0], pin_class=HiccupPin)
    box = GpioBox(pins, Limits(), clock, factory=factory)
    with pytest.raises(BoxFault, match="coil 1 failed: driver hiccup"):
        box.fire(1)
    assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[0])) == [False, True, False]
    assert [p.state for p in coil_pins(factory)] == [False] * 4
    assert box.status()["faults"] == []  # it did switch off: no latched fault
    box.close()


def test_a_coil_that_cannot_switch_off_latches_a_fault(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()

    class StuckPin(MockPin):  # type: ignore[misc]
        def _set_state(self, value: bool) -> None:
            if not value and self._state:
                raise RuntimeError("gate driver dead")
            super()._set_state(value)

    factory.pin(COILS[3], pin_class=StuckPin)
    box = GpioBox(pins, Limits(), clock, factory=factory)
    events = Recorder()
    box.subscribe(events)
    box.fire(4)
    assert box.wait_idle(1.0)
    faults = events.of(FaultChanged)
    assert len(faults) == 1
    assert faults[0] == FaultChanged(
        "coil4", True, "coil 4 could not be switched off: gate driver dead", clock.now()
    )
    assert box.status()["faults"] == [
        {"name": "coil4", "detail": "coil 4 could not be switched off: gate driver dead"}
    ]
    clock.advance(1.0)
    with pytest.raises(BoxFault, match="the box has a fault: coil 4 could not be switched off"):
        box.fire(1)
    assert [states(p) for p in coil_pins(factory)[:3]] == [[False]] * 3
    box.close()


def test_all_off_cuts_a_pulse_short_and_does_not_latch(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    with GpioBox(pins, Limits(pulse_ms=100), clock, factory=factory) as box:
        box.fire(1)
        box.all_off()
        assert factory.pin(COILS[0]).state is False
        assert box.wait_idle(1.0)
        clock.advance(0.5)
        box.fire(1)
        assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[0])) == [False, True, False, True, False]
    first, second = pulse_lengths(factory.pin(COILS[0]))
    assert first < 0.0995
    assert held(second, 0.090)  # thread-timed: a 100 ms request is held for 90 ms


def test_a_pulse_holds_every_other_coil_until_its_pin_is_low_even_when_the_clock_runs_ahead(
    pins: PinMap, clock: ManualClock
) -> None:
    factory = MockFactory()
    log: list[tuple[str, bool]] = []
    lock = threading.Lock()

    class LoggedPin(MockPin):  # type: ignore[misc]
        def _change_state(self, value: bool) -> bool:
            changed: bool = super()._change_state(value)
            if changed:
                with lock:
                    log.append((self.info.name, value))
            return changed

    for pin in COILS:
        factory.pin(pin, pin_class=LoggedPin)
    with GpioBox(pins, Limits(pulse_ms=80), clock, factory=factory) as box:
        for key in (1, 2, 3, 4):
            box.fire(key)
            clock.advance(0.081)  # the requested length is over; the real pulse is not
            with pytest.raises(LimitRefused, match="one coil at a time"):
                box.fire(key % 4 + 1)
            assert box.wait_idle(1.0)
    assert log == [(f"GPIO{p}", on) for p in COILS for on in (True, False)]


def test_sensors_are_debounced_and_follow_sensor_present(clock: ManualClock) -> None:
    for present_level, pull in (("low", "up"), ("high", "down")):
        factory = MockFactory()
        pins = PinMap(coils=COILS, sensors=SENSORS, sensor_present=present_level)  # type: ignore[arg-type]
        with GpioBox(pins, Limits(), clock, factory=factory) as box:
            events = Recorder()
            box.subscribe(events)
            sensor = factory.pin(SENSORS[2])
            assert sensor.pull == pull
            assert box.slots() == {1: False, 2: False, 3: False, 4: False}
            start = clock.now()
            for i in range(5):  # chatter: present, absent, present, absent, present
                (
                    sensor.drive_low
                    if (i % 2 == 0) == (present_level == "low")
                    else sensor.drive_high
                )()
                clock.advance(0.002)
            clock.advance(0.017)  # the last edge was at +8 ms; now it is +27 ms
            assert events.events == []
            clock.advance(0.002)
            assert events.events == [SlotChanged(3, True, near(start + 0.008))]
            assert box.slots() == {1: False, 2: False, 3: True, 4: False}


def test_the_lid_switch_is_debounced_and_reported(clock: ManualClock) -> None:
    factory = MockFactory()
    pins = PinMap(coils=COILS, sensors=SENSORS, lid=LID)
    with GpioBox(pins, Limits(), clock, factory=factory) as box:
        events = Recorder()
        box.subscribe(events)
        assert box.lid_closed() is False  # pulled up: open
        factory.pin(LID).drive_low()
        clock.advance(0.03)
        assert box.lid_closed() is True
        assert events.events == [LidChanged(True, near(clock.now() - 0.03))]


def test_no_lid_means_none(box: GpioBox) -> None:
    assert box.lid_closed() is None


def test_the_status_led_is_on_while_the_box_is_open(clock: ManualClock) -> None:
    factory = MockFactory()
    pins = PinMap(coils=COILS, sensors=SENSORS, led=12)
    box = GpioBox(pins, Limits(), clock, factory=factory)
    assert factory.pin(12).state is True
    box.close()
    assert states(factory.pin(12)) == [False, True, False]


def test_status_is_json_ready(box: GpioBox) -> None:
    status = json.loads(json.dumps(box.status()))
    assert status["backend"] == "gpio"
    assert status["factory"] == "MockFactory"
    assert status["coils"] == {"1": False, "2": False, "3": False, "4": False}
    assert status["limits"]["pulse_ms"] == 30.0
    assert status["faults"] == []


def test_the_mock_factory_loads_by_name(pins: PinMap, clock: ManualClock) -> None:
    with GpioBox(pins, Limits(), clock, factory="mock") as box:
        box.fire(1)
        assert box.wait_idle(1.0)
        assert box.status()["factory"] == "mock"


@pytest.mark.parametrize(
    ("name", "fixes"),
    [
        ("lgpio", ["pip install 'diablotin[pi]'", "sudo apt install python3-lgpio"]),
        ("rpigpio", ["pip install 'diablotin[rpigpio]'", "does not work on a Pi 5: use lgpio"]),
    ],
)
def test_a_pin_factory_that_cannot_load_names_the_fix(name: str, fixes: list[str]) -> None:
    with pytest.raises(FactoryUnavailable) as caught:
        load_pin_factory(name)
    message = str(caught.value)
    assert message.startswith(f"pin factory {name!r} cannot load")
    for fix in fixes:
        assert fix in message


def test_an_unknown_pin_factory_is_refused(pins: PinMap) -> None:
    with pytest.raises(FactoryUnavailable, match="unknown pin factory 'pigpio': choose one of"):
        GpioBox(pins, factory="pigpio")


def test_a_pin_that_cannot_open_releases_the_others(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    first = GpioBox(pins, Limits(), clock, factory=factory)
    other = PinMap(coils=(24, 25, 16, 20), sensors=(21, 6, 12, 7))  # sensor 2 is taken
    with pytest.raises(BoxFault, match=r"cannot open the sensor 2 \(GPIO6\) pin"):
        GpioBox(other, Limits(), clock, factory=factory)
    third = GpioBox(
        PinMap(coils=(24, 25, 16, 20), sensors=(21, 9, 12, 7)), clock=clock, factory=factory
    )
    third.close()
    first.close()
