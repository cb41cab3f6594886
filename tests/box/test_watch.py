"""ToyWatch: hiding done, pops by coil and by hand, the jam rule, refusals, faults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.box.base import (
    Box,
    BoxFault,
    CoilFired,
    FaultChanged,
    LimitRefused,
    Limits,
    LinkChanged,
    SlotChanged,
)
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.box.toy import SimulatedToy, ToyFaults
from controller.box.watch import (
    HidingDone,
    HidingStarted,
    Jammed,
    Popped,
    PressRefused,
    ToyWatch,
)
from controller.clock import ManualClock

from .helpers import COILS, Recorder, near, states


class Rig:
    """A simulated box and toy on mock pins, a watch on top, one manual clock."""

    def __init__(self, pins: PinMap, faults: ToyFaults | None = None, seed: int = 3) -> None:
        self.clock = ManualClock()
        self.factory = MockFactory()
        self.toy = SimulatedToy(self.factory, pins, self.clock, seed, faults)
        self.box = GpioBox(pins, Limits(), self.clock, factory=self.factory)
        self.seen = Recorder()
        self.watch = ToyWatch(self.box, self.clock, self.seen)

    def hidden(self) -> None:
        """Hide and wait until the watch says so."""
        self.toy.hide()
        self.clock.advance(0.6)
        assert self.seen.events[-1] == HidingDone(near(self.clock.now(), abs=0.1))
        self.seen.events.clear()

    def advance(self, seconds: float) -> None:
        """Time passes: a real pulse in progress (30 ms) ends before the clock moves, and one
        fired meanwhile ends before the next step."""
        assert self.box.wait_idle(2.0)
        self.clock.advance(seconds)
        assert self.box.wait_idle(2.0)

    def coil_states(self, key: int) -> list[bool]:
        assert self.box.wait_idle(2.0)
        return states(self.factory.pin(COILS[key - 1]))

    def close(self) -> None:
        self.watch.close()
        self.box.close()


@pytest.fixture
def rig(pins: PinMap) -> Iterator[Rig]:
    r = Rig(pins)
    yield r
    r.close()


# -- hiding -------------------------------------------------------------------


def test_all_present_and_steady_for_half_a_second_gives_one_hiding_done(rig: Rig) -> None:
    rig.toy.hide()
    rig.advance(0.020)  # debounced: all four present from the hide's instant
    hidden_at = rig.clock.now()
    rig.advance(0.499)
    assert rig.seen.events == []
    assert rig.watch.hiding_done() is False
    rig.advance(0.002)
    assert rig.seen.events == [HidingDone(near(hidden_at + 0.5))]
    rig.advance(5.0)
    assert len(rig.seen.events) == 1
    assert rig.watch.hiding_done() is True
    assert rig.watch.state()["phase"] == "hidden"


def test_a_slot_flicker_restarts_the_half_second(rig: Rig) -> None:
    rig.toy.hide()
    rig.advance(0.3)
    rig.toy.move_die(2, False)
    rig.advance(0.03)
    rig.toy.move_die(2, True)
    rig.advance(0.02)  # slot 2 back, debounced, at +0.35 s
    back_at = rig.clock.now()
    rig.advance(0.45)  # past the first 0.5 s mark, not the restarted one
    assert rig.seen.events == []
    rig.advance(0.051)
    assert rig.seen.events == [HidingDone(near(back_at + 0.5))]


def test_a_missing_die_never_finishes_hiding(pins: PinMap) -> None:
    rig = Rig(pins, ToyFaults(missing_die=2))
    try:
        rig.toy.hide()
        rig.advance(10.0)
        assert rig.seen.events == []
        assert rig.watch.hiding_done() is False
    finally:
        rig.close()


def test_with_a_lid_an_open_lid_is_not_done(lid_pins: PinMap) -> None:
    rig = Rig(lid_pins)
    try:
        rig.toy.hide()
        rig.advance(0.1)
        rig.toy.open_lid()  # before the 0.5 s are up
        rig.advance(10.0)
        assert rig.seen.events == []
        rig.toy.close_lid()
        rig.advance(0.52)
        assert [type(e) for e in rig.seen.events] == [HidingDone]
        rig.toy.open_lid()  # opening the lid once hidden starts a new hiding
        rig.advance(0.03)
        assert [type(e) for e in rig.seen.events] == [HidingDone, HidingStarted]
        assert rig.seen.events[-1].reason == "lid opened"  # type: ignore[attr-defined]
        rig.toy.close_lid()
        rig.advance(0.52)
        assert [type(e) for e in rig.seen.events] == [HidingDone, HidingStarted, HidingDone]
    finally:
        rig.close()


def test_dice_put_back_after_pops_start_and_finish_a_new_hiding(rig: Rig) -> None:
    rig.hidden()
    rig.watch.press(1)
    rig.advance(0.2)
    assert [type(e) for e in rig.seen.events] == [Popped]
    assert rig.watch.hiding_done() is False  # a die has jumped: a new hiding is needed
    rig.toy.hide()
    rig.advance(0.02)
    assert rig.seen.events[1:] == [HidingStarted("die put back", near(rig.clock.now(), abs=0.03))]
    rig.advance(0.5)
    assert [type(e) for e in rig.seen.events] == [Popped, HidingStarted, HidingDone]
    assert rig.watch.state()["popped"] == []


def test_start_hiding_makes_emptying_slots_not_pops(rig: Rig) -> None:
    rig.hidden()
    rig.watch.start_hiding()
    assert rig.seen.events == [HidingStarted("asked", rig.clock.now())]
    rig.toy.move_die(3, False)  # the hider takes a die out
    rig.advance(0.1)
    assert [type(e) for e in rig.seen.events] == [HidingStarted]
    rig.toy.move_die(3, True)
    rig.advance(0.6)
    assert [type(e) for e in rig.seen.events] == [HidingStarted, HidingDone]


# -- pressing -------------------------------------------------------------------


def test_a_press_that_pops_is_one_pulse_and_one_pop(rig: Rig) -> None:
    rig.hidden()
    pressed_at = rig.clock.now()
    rig.watch.press(2)
    assert rig.watch.state()["pressing"] == 2
    rig.advance(1.0)
    assert len(rig.seen.events) == 1
    popped = rig.seen.events[0]
    assert isinstance(popped, Popped)
    assert (popped.key, popped.by_hand) == (2, False)
    assert pressed_at + 0.04 <= popped.at <= pressed_at + 0.08
    assert rig.coil_states(2) == [False, True, False]
    assert [rig.coil_states(k) for k in (1, 3, 4)] == [[False]] * 3
    assert rig.watch.state()["popped"] == [2]
    assert rig.watch.state()["pressing"] is None


def test_a_jam_gives_exactly_one_retry_then_key_jammed(pins: PinMap) -> None:
    rig = Rig(pins, ToyFaults(jam={3: None}))
    try:
        rig.hidden()
        pressed_at = rig.clock.now()
        rig.watch.press(3)
        rig.advance(0.329)
        assert rig.coil_states(3) == [False, True, False]  # no retry before 0.3 s after the pulse
        rig.advance(0.002)
        assert rig.coil_states(3) == [False, True, False, True, False]
        rig.advance(0.329)
        assert rig.seen.events == []
        rig.advance(0.002)
        assert rig.seen.events == [Jammed(3, near(pressed_at + 2 * 0.33))]
        assert rig.seen.events[0].message == "key 3 jammed"  # type: ignore[attr-defined]
        rig.advance(5.0)
        assert rig.coil_states(3) == [False, True, False, True, False]  # exactly two pulses
        assert len(rig.seen.events) == 1
        assert rig.watch.faults() == ["key 3 jammed"]
        with pytest.raises(BoxFault, match="key 3 jammed: retry it or mark it popped by hand"):
            rig.watch.press(1)
        with pytest.raises(PressRefused, match="key 2 is not jammed"):
            rig.watch.popped_by_hand(2)
        rig.watch.popped_by_hand(3)  # the referee
        assert rig.seen.events[1:] == [Popped(3, True, rig.clock.now())]
        assert rig.watch.faults() == []
        rig.watch.press(1)
        rig.advance(0.2)
        assert rig.seen.events[2:3] == [Popped(1, False, near(rig.clock.now(), abs=0.2))]
        with pytest.raises(PressRefused, match="slot 3 is empty"):
            rig.watch.press(3)  # already popped (by hand), even if its sensor still sees a die
    finally:
        rig.close()


def test_a_trapdoor_stuck_for_one_pulse_pops_on_the_retry(pins: PinMap) -> None:
    rig = Rig(pins, ToyFaults(jam={1: 1}))
    try:
        rig.hidden()
        rig.watch.press(1)
        rig.advance(2.0)
        assert rig.coil_states(1) == [False, True, False, True, False]
        assert [(type(e), e.key, e.by_hand) for e in rig.seen.events] == [(Popped, 1, False)]  # type: ignore[attr-defined]
    finally:
        rig.close()


def test_the_referee_retries_a_jammed_key(pins: PinMap) -> None:
    rig = Rig(pins, ToyFaults(jam={4: None}))
    try:
        rig.hidden()
        rig.watch.press(4)
        rig.advance(1.0)
        assert [type(e) for e in rig.seen.events] == [Jammed]
        with pytest.raises(PressRefused, match="key 1 is not jammed"):
            rig.watch.retry(1)
        rig.toy.clear_jam(4)  # the referee frees the trapdoor
        rig.watch.retry(4)
        rig.advance(1.0)
        assert [type(e) for e in rig.seen.events] == [Jammed, Popped]
        assert rig.seen.events[1].by_hand is False  # type: ignore[attr-defined]
        assert rig.coil_states(4) == [False] + [True, False] * 3
    finally:
        rig.close()


def test_a_key_pressed_by_hand_is_a_pop_by_hand(rig: Rig) -> None:
    rig.hidden()
    rig.toy.press_by_hand(4)
    rig.advance(0.05)
    assert rig.seen.events == [Popped(4, True, near(rig.clock.now() - 0.05))]
    assert [rig.coil_states(k) for k in (1, 2, 3, 4)] == [[False]] * 4


def test_a_chattering_sensor_gives_exactly_one_event(rig: Rig) -> None:
    rig.toy.set_chatter(True)
    rig.toy.hide()
    rig.advance(1.0)
    assert [type(e) for e in rig.seen.events] == [HidingDone]
    rig.toy.press_by_hand(2)
    rig.advance(1.0)
    assert [type(e) for e in rig.seen.events] == [HidingDone, Popped]
    rig.watch.press(3)
    rig.advance(1.0)
    assert [(type(e), getattr(e, "key", None)) for e in rig.seen.events] == [
        (HidingDone, None),
        (Popped, 2),
        (Popped, 3),
    ]


def test_a_coil_fired_outside_the_watch_still_pops_by_coil(rig: Rig) -> None:
    rig.hidden()
    rig.box.fire(1)  # e.g. the Box page's coil test
    rig.advance(0.2)
    assert [(e.key, e.by_hand) for e in rig.seen.events] == [(1, False)]  # type: ignore[attr-defined]


def test_presses_that_make_no_sense_are_refused_and_change_nothing(rig: Rig) -> None:
    with pytest.raises(PressRefused, match="the dice are not hidden yet"):
        rig.watch.press(1)
    rig.hidden()
    for bad in (0, 5, True, "1"):
        with pytest.raises(PressRefused, match="keys are 1-4"):
            rig.watch.press(bad)  # type: ignore[arg-type]
    rig.watch.press(1)
    with pytest.raises(PressRefused, match="key 1 is still being pressed"):
        rig.watch.press(2)
    rig.advance(0.5)
    with pytest.raises(PressRefused, match="slot 1 is empty: its die already jumped"):
        rig.watch.press(1)
    assert rig.coil_states(1) == [False, True, False]
    assert [rig.coil_states(k) for k in (2, 3, 4)] == [[False]] * 3


def test_a_limit_refusal_passes_through_and_changes_nothing(rig: Rig) -> None:
    rig.hidden()
    rig.box.fire(1)  # coil 1 is on (for the guard's clock) right now
    with pytest.raises(LimitRefused, match="one coil at a time"):
        rig.watch.press(2)
    assert rig.watch.state()["pressing"] is None
    assert rig.coil_states(2) == [False]
    rig.advance(0.05)
    rig.watch.press(2)
    rig.advance(0.5)
    assert [(e.key, e.by_hand) for e in rig.seen.events] == [(1, False), (2, False)]  # type: ignore[attr-defined]


def test_a_listener_may_press_from_inside_an_event(pins: PinMap) -> None:
    """The computer popper reacting on the same thread: no deadlock, events in order."""
    clock = ManualClock()
    factory = MockFactory()
    toy = SimulatedToy(factory, pins, clock, seed=9)
    box = GpioBox(pins, Limits(), clock, factory=factory)
    seen: list[Any] = []

    def listener(event: Any) -> None:
        seen.append(event)
        if isinstance(event, HidingDone):
            watch.press(2)

    watch = ToyWatch(box, clock, listener)
    toy.hide()
    clock.advance(1.0)
    assert [type(e) for e in seen] == [HidingDone, Popped]
    watch.close()
    box.close()


def test_a_failing_listener_does_not_stop_the_watch(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[Any] = []

    def flaky(event: Any) -> None:
        calls.append(event)
        if len(calls) == 1:
            raise RuntimeError("listener bug")

    watch = ToyWatch(rig.box, rig.clock, flaky)
    rig.toy.hide()
    rig.advance(0.6)
    rig.toy.press_by_hand(1)
    rig.advance(0.1)
    assert [type(e) for e in calls] == [HidingDone, Popped]
    assert "watch listener failed" in caplog.text
    watch.close()


def test_after_close_nothing_is_reported(rig: Rig) -> None:
    rig.toy.hide()
    rig.advance(0.1)
    rig.watch.close()
    rig.advance(1.0)
    assert rig.seen.events == []
    with pytest.raises(BoxFault, match="the watch is closed"):
        rig.watch.press(1)


# -- any Box: only its interface -------------------------------------------------------


class ScriptedBox(Box):
    """A Box whose events a test emits by hand (like a serial backend would)."""

    kind = "scripted"

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(Limits())
        self.clock = clock
        self.present = dict.fromkeys((1, 2, 3, 4), False)
        self.fired: list[int] = []
        self.refuse_from = 99  # fire number from which fire() raises

    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        if len(self.fired) + 1 >= self.refuse_from:
            raise LimitRefused(f"key {key} would be on too long: over its 10% duty limit")
        self.fired.append(key)
        self.emit(CoilFired(key, 30.0, self.clock.now()))

    def cooldown_s(self, key: int) -> float:
        return 0.0

    def slot(self, key: int, present: bool) -> None:
        self.present[key] = present
        self.emit(SlotChanged(key, present, self.clock.now()))

    def slots(self) -> dict[int, bool]:
        return dict(self.present)

    def lid_closed(self) -> bool | None:
        return None

    def status(self) -> dict[str, Any]:
        return {"backend": self.kind}

    def all_off(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def scripted() -> tuple[ScriptedBox, ToyWatch, Recorder, ManualClock]:
    clock = ManualClock()
    box = ScriptedBox(clock)
    seen = Recorder()
    watch = ToyWatch(box, clock, seen)
    for key in (1, 2, 3, 4):
        box.slot(key, True)
    clock.advance(0.5)
    assert seen.events == [HidingDone(clock.now())]
    seen.events.clear()
    return box, watch, seen, clock


def test_faults_and_a_lost_link_block_presses_until_cleared(
    scripted: tuple[ScriptedBox, ToyWatch, Recorder, ManualClock],
) -> None:
    box, watch, seen, clock = scripted
    box.emit(FaultChanged("heartbeat", True, "the Pico heard nothing for 1 s", clock.now()))
    with pytest.raises(BoxFault, match="the box has a fault: the Pico heard nothing for 1 s"):
        watch.press(1)
    box.emit(FaultChanged("heartbeat", False, "", clock.now()))
    box.emit(LinkChanged(False, "USB unplugged", clock.now()))
    with pytest.raises(BoxFault, match="the box link is down: USB unplugged"):
        watch.press(1)
    assert box.fired == []
    box.emit(LinkChanged(True, "", clock.now()))
    watch.press(1)
    assert box.fired == [1]
    box.slot(1, False)
    assert seen.events == [Popped(1, False, clock.now())]


def test_a_refused_second_pulse_is_reported_as_a_jam(
    scripted: tuple[ScriptedBox, ToyWatch, Recorder, ManualClock],
) -> None:
    box, watch, seen, clock = scripted
    box.refuse_from = 2
    pressed_at = clock.now()
    watch.press(2)
    clock.advance(0.331)
    assert box.fired == [2]
    assert seen.events == [
        Jammed(
            2,
            near(pressed_at + 0.33),
            "second pulse refused: key 2 would be on too long: over its 10% duty limit",
        )
    ]


def test_a_late_pop_after_a_jam_resolves_it(
    scripted: tuple[ScriptedBox, ToyWatch, Recorder, ManualClock],
) -> None:
    box, watch, seen, clock = scripted
    watch.press(4)
    clock.advance(0.7)
    assert box.fired == [4, 4]
    assert [type(e) for e in seen.events] == [Jammed]
    clock.advance(2.0)
    box.slot(4, False)  # the referee shook the toy: the die came out
    assert seen.events[1:] == [Popped(4, True, clock.now())]
    assert watch.faults() == []
    box.slot(4, True)  # a die back in: a new hiding
    assert seen.events[2:] == [HidingStarted("die put back", clock.now())]
