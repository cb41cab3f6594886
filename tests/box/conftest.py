"""Fixtures for the box tests: a manual clock, pin maps, gpiozero mock factories, a box."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from controller.box.base import Limits
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.clock import ManualClock

from .helpers import COILS, LID, SENSORS, Recorder


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def pins() -> PinMap:
    return PinMap(coils=COILS, sensors=SENSORS)


@pytest.fixture
def lid_pins() -> PinMap:
    return PinMap(coils=COILS, sensors=SENSORS, lid=LID)


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def box(pins: PinMap, clock: ManualClock, factory: MockFactory) -> Iterator[GpioBox]:
    # A pulse the loaded test machine stretches past 100 ms is forced off and logged, not
    # latched: these tests are not about that (test_coil_timing.py is).
    gpio_box = GpioBox(pins, Limits(), clock, factory=factory, deadline_fault=False)
    yield gpio_box
    gpio_box.close()


@pytest.fixture
def events(box: GpioBox) -> Recorder:
    recorder = Recorder()
    box.subscribe(recorder)
    return recorder
