"""The simulated toy on real MockFactory pins: hiding, pops, faces, faults."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from controller.box.base import Limits, SlotChanged
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.box.toy import (
    DEVIL,
    POP_DELAY_S,
    Face,
    SimulatedToy,
    ToyFaults,
    make_simulated_box,
)
from controller.clock import ManualClock

from .helpers import COILS, LID, SENSORS, Recorder, states

KEYS = (1, 2, 3, 4)


@pytest.fixture
def sim(pins: PinMap, clock: ManualClock) -> Iterator[tuple[GpioBox, SimulatedToy]]:
    box, toy = make_simulated_box(pins, Limits(), clock, seed=7)
    yield box, toy
    box.close()


def pop_all(box: GpioBox, toy: SimulatedToy, clock: ManualClock) -> list[Face]:
    faces: list[Face] = []
    for key in KEYS:
        box.fire(key)
        assert box.wait_idle(1.0)
        clock.advance(0.3)
        faces.append(toy.face(key))
    return faces


def test_hide_fills_every_slot_and_the_box_sees_it(
    sim: tuple[GpioBox, SimulatedToy], clock: ManualClock
) -> None:
    box, toy = sim
    events = Recorder()
    box.subscribe(events)
    toy.hide()
    clock.advance(0.021)
    assert box.slots() == {1: True, 2: True, 3: True, 4: True}
    assert sorted(e.key for e in events.of(SlotChanged)) == [1, 2, 3, 4]  # type: ignore[attr-defined]


def test_a_pulse_empties_its_slot_after_a_realistic_delay(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    toy = SimulatedToy(factory, pins, clock, seed=1)
    box = GpioBox(pins, Limits(), clock, factory=factory)
    toy.hide()
    sensor = factory.pin(SENSORS[1])
    sensor.clear_states()
    box.fire(2)
    clock.advance(POP_DELAY_S[0] - 0.001)
    assert states(sensor) == [False]  # present = low: the die is still there
    clock.advance(POP_DELAY_S[1] - POP_DELAY_S[0] + 0.002)
    assert states(sensor) == [False, True]
    assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[1])) == [False, True, False]
    clock.advance(0.05)
    assert box.slots()[2] is False
    box.close()


def test_exactly_one_die_is_the_devil_and_faces_are_kept(
    sim: tuple[GpioBox, SimulatedToy], clock: ManualClock
) -> None:
    box, toy = sim
    toy.hide()
    faces = pop_all(box, toy, clock)
    assert faces.count(DEVIL) == 1
    assert all(f in (1, 2, 3, 4, 5, 6) for f in faces if f != DEVIL)
    assert [toy.face(k) for k in KEYS] == faces  # drawn once, then kept


def test_the_same_seed_replays_the_same_dice(pins: PinMap) -> None:
    def game(seed: int) -> list[Face]:
        clock = ManualClock()
        box, toy = make_simulated_box(pins, Limits(pulse_ms=2), clock, seed=seed)
        try:
            results = []
            for _ in range(3):
                toy.hide()
                clock.advance(1.0)
                results += pop_all(box, toy, clock)
                clock.advance(1.0)
            return results
        finally:
            box.close()

    assert game(42) == game(42)
    assert len({tuple(game(seed)) for seed in (1, 2, 3, 4)}) > 1


def test_face_refuses_a_hidden_die_and_an_empty_slot(
    sim: tuple[GpioBox, SimulatedToy], clock: ManualClock
) -> None:
    _box, toy = sim
    with pytest.raises(ValueError, match="no die was hidden under key 1"):
        toy.face(1)
    toy.hide()
    with pytest.raises(ValueError, match="the die under key 3 has not jumped out"):
        toy.face(3)
    with pytest.raises(ValueError, match="there is no key 5"):
        toy.face(5)


def test_number_faces_are_configurable(pins: PinMap, clock: ManualClock) -> None:
    box, toy = make_simulated_box(pins, Limits(), clock, seed=3, number_faces=(DEVIL,))
    try:
        toy.hide()
        assert pop_all(box, toy, clock) == [DEVIL] * 4
    finally:
        box.close()
    with pytest.raises(ValueError, match="number_faces must be positive ints"):
        make_simulated_box(pins, Limits(), clock, number_faces=(0, 1))
    with pytest.raises(ValueError, match="number_faces must be positive ints"):
        make_simulated_box(pins, Limits(), clock, number_faces=())


def test_press_by_hand_empties_a_slot_without_any_coil(
    sim: tuple[GpioBox, SimulatedToy], clock: ManualClock
) -> None:
    box, toy = sim
    toy.hide()
    clock.advance(0.05)
    assert toy.press_by_hand(4) is True
    assert toy.press_by_hand(4) is False  # empty now: nothing happens
    clock.advance(0.05)
    assert box.slots() == {1: True, 2: True, 3: True, 4: False}
    assert toy.face(4) in (DEVIL, 1, 2, 3, 4, 5, 6)
    with pytest.raises(ValueError, match="there is no key 0"):
        toy.press_by_hand(0)


def test_a_jammed_trapdoor_holds_its_die(pins: PinMap, clock: ManualClock) -> None:
    box, toy = make_simulated_box(
        pins, Limits(), clock, seed=5, faults=ToyFaults(jam={1: None, 2: 1})
    )
    try:
        toy.hide()
        clock.advance(0.05)
        for _ in range(3):  # key 1 stays stuck
            box.fire(1)
            assert box.wait_idle(1.0)
            clock.advance(0.3)
        assert box.slots()[1] is True
        box.fire(2)  # key 2 sticks for one pulse only
        assert box.wait_idle(1.0)
        clock.advance(0.3)
        assert box.slots()[2] is True
        box.fire(2)
        assert box.wait_idle(1.0)
        clock.advance(0.3)
        assert box.slots()[2] is False
        assert toy.faults.jam == {1: None}
        toy.clear_jam(1)
        box.fire(1)
        assert box.wait_idle(1.0)
        clock.advance(0.3)
        assert box.slots()[1] is False
    finally:
        box.close()


def test_a_hand_frees_a_jammed_die(sim: tuple[GpioBox, SimulatedToy], clock: ManualClock) -> None:
    _box, toy = sim
    toy.set_jam(3)
    toy.hide()
    assert toy.press_by_hand(3) is True


def test_chatter_bounces_the_pin_but_the_box_reports_once(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    toy = SimulatedToy(factory, pins, clock, seed=11, faults=ToyFaults(chatter=True))
    box = GpioBox(pins, Limits(), clock, factory=factory)
    events = Recorder()
    box.subscribe(events)
    toy.hide()
    clock.advance(0.05)
    sensor = factory.pin(SENSORS[0])
    sensor.clear_states()
    events.events.clear()
    pressed_at = clock.now()
    toy.press_by_hand(1)
    clock.advance(0.011)
    edges = states(sensor)
    assert len(edges) >= 4  # the initial state, the edge, at least two bounces
    assert edges[-1] is True  # settled: empty (present = low)
    assert all(a != b for a, b in itertools.pairwise(edges))
    clock.advance(0.05)
    assert len(events.events) == 1
    event = events.events[0]
    assert isinstance(event, SlotChanged)
    assert (event.key, event.present) == (1, False)
    assert pressed_at < event.at <= pressed_at + 0.010  # the time of the last bounce
    box.close()


def test_a_missing_die_leaves_its_slot_empty(pins: PinMap, clock: ManualClock) -> None:
    box, toy = make_simulated_box(pins, Limits(), clock, seed=2, faults=ToyFaults(missing_die=3))
    try:
        toy.hide()
        clock.advance(0.05)
        assert box.slots() == {1: True, 2: True, 3: False, 4: True}
        with pytest.raises(ValueError, match="no die was hidden under key 3"):
            toy.face(3)
        toy.set_missing_die(None)
        toy.hide()
        clock.advance(0.05)
        assert box.slots() == {1: True, 2: True, 3: True, 4: True}
    finally:
        box.close()


def test_the_lid_closes_when_hiding(lid_pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    toy = SimulatedToy(factory, lid_pins, clock, seed=1)
    box = GpioBox(lid_pins, Limits(), clock, factory=factory)
    assert box.lid_closed() is False
    toy.hide()
    clock.advance(0.05)
    assert box.lid_closed() is True
    assert states(factory.pin(LID))[-1] is False  # closed = low
    toy.open_lid()
    clock.advance(0.05)
    assert box.lid_closed() is False
    toy.close_lid()
    clock.advance(0.05)
    assert box.lid_closed() is True
    assert toy.status()["lid"] is True
    box.close()


def test_a_toy_without_a_lid_refuses_lid_moves(sim: tuple[GpioBox, SimulatedToy]) -> None:
    _, toy = sim
    with pytest.raises(ValueError, match="this toy has no lid switch"):
        toy.open_lid()


def test_sensors_that_read_high_for_a_die(clock: ManualClock) -> None:
    pins = PinMap(coils=COILS, sensors=SENSORS, sensor_present="high")
    box, toy = make_simulated_box(pins, Limits(), clock, seed=1)
    try:
        toy.hide()
        clock.advance(0.05)
        assert box.slots() == {1: True, 2: True, 3: True, 4: True}
    finally:
        box.close()


def test_the_toy_must_come_before_the_box(pins: PinMap, clock: ManualClock) -> None:
    factory = MockFactory()
    box = GpioBox(pins, Limits(), clock, factory=factory)
    with pytest.raises(ValueError, match="create the SimulatedToy before the GpioBox"):
        SimulatedToy(factory, pins, clock)
    box.close()


def test_fault_switches_validate_and_status_hides_the_arrangement(
    sim: tuple[GpioBox, SimulatedToy],
) -> None:
    _, toy = sim
    with pytest.raises(ValueError, match="pulses must be None or an int >= 1"):
        toy.set_jam(1, 0)
    with pytest.raises(ValueError, match="there is no key 9"):
        toy.set_missing_die(9)
    toy.set_jam(2, 2)
    toy.set_chatter(True)
    toy.hide()
    assert toy.status() == {"jam": {"2": 2}, "chatter": True, "missing_die": None, "lid": None}


def test_move_die_is_the_hiders_hand(sim: tuple[GpioBox, SimulatedToy], clock: ManualClock) -> None:
    box, toy = sim
    with pytest.raises(ValueError, match="no die was hidden under key 2"):
        toy.move_die(2, False)
    toy.hide()
    toy.move_die(2, False)
    clock.advance(0.05)
    assert box.slots()[2] is False
    toy.move_die(2, True)
    clock.advance(0.05)
    assert box.slots()[2] is True
