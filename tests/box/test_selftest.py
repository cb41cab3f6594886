"""The hardware self-test: a table per key, True only when nothing is wrong."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from controller.box.base import Box, BoxFault, Limits
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap, load_pin_map
from controller.box.selftest import run_selftest
from controller.box.toy import ToyFaults, make_simulated_box
from controller.clock import ManualClock

from .helpers import COILS, states


def settled(box: GpioBox, clock: ManualClock) -> Callable[[float], None]:
    """The self-test's ``wait``: the real pulse in progress ends, then the clock moves."""

    def wait(seconds: float) -> None:
        assert box.wait_idle(2.0)
        clock.advance(seconds)

    return wait


def test_the_simulated_toy_passes_with_every_pop_checked(pins: PinMap) -> None:
    clock = ManualClock()
    box, toy = make_simulated_box(pins, Limits(), clock, seed=1)
    out = io.StringIO()
    try:
        assert run_selftest(box, toy, out, wait=settled(box, clock)) is True
    finally:
        box.close()
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0].startswith("Diablotin self-test: backend gpio (MockFactory), pulse 30 ms")
    assert "lid: not fitted" in lines
    rows = [line for line in lines if line[:1] in "1234" and line[:1] != ""]
    assert len(rows) == 4
    assert all(row.split()[1] == "die" and "ok: the die jumped" in row for row in rows)
    assert "coils off at the end: yes" in lines
    assert lines[-1] == "RESULT: PASS (4 coils pulsed, 4 pops checked)"


def test_a_jammed_key_fails_the_self_test(pins: PinMap) -> None:
    clock = ManualClock()
    factory_box, toy = make_simulated_box(
        pins, Limits(), clock, seed=1, faults=ToyFaults(jam={2: None})
    )
    out = io.StringIO()
    try:
        assert run_selftest(factory_box, toy, out, wait=settled(factory_box, clock)) is False
    finally:
        factory_box.close()
    text = out.getvalue()
    assert "2    die      fired 30 ms      die      FAULT: the slot still holds its die" in text
    assert "RESULT: FAIL (1 fault(s))" in text
    assert "key 2: slot still full 0.3 s after its pulse" in text


def test_bare_hardware_pulses_every_coil_and_says_what_it_could_not_check(
    pins: PinMap,
) -> None:
    clock = ManualClock()
    factory = MockFactory()
    out = io.StringIO()
    with GpioBox(pins, Limits(), clock, factory=factory) as box:
        assert run_selftest(box, None, out, wait=settled(box, clock)) is True
        assert box.wait_idle(1.0)
    assert [states(factory.pin(p)) for p in COILS] == [[False, True, False]] * 4
    text = out.getvalue()
    assert text.count("not checked: no die in the slot") == 4
    assert "RESULT: PASS (4 coils pulsed, 0 pops checked)" in text
    assert "load a die into every slot" in text


def test_a_coil_fired_just_before_is_waited_out_once(pins: PinMap) -> None:
    clock = ManualClock()
    factory = MockFactory()
    out = io.StringIO()
    with GpioBox(pins, Limits(), clock, factory=factory) as box:
        box.fire(1)  # the self-test starts right after a pulse of coil 1
        assert run_selftest(box, None, out, wait=settled(box, clock)) is True
        assert box.wait_idle(1.0)
    assert states(factory.pin(COILS[0])) == [False, True, False, True, False]


class DeadBox(Box):
    kind = "dead"

    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        raise BoxFault("link to the Pico is down")

    def cooldown_s(self, key: int) -> float:
        return 0.0

    def slots(self) -> dict[int, bool]:
        return dict.fromkeys((1, 2, 3, 4), True)

    def lid_closed(self) -> bool | None:
        return True

    def status(self) -> dict[str, Any]:
        return {"backend": "dead", "link": "down", "faults": ["link lost"]}

    def all_off(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_box_that_cannot_fire_fails_without_raising() -> None:
    out = io.StringIO()
    assert run_selftest(DeadBox(), None, out, wait=lambda s: None) is False
    text = out.getvalue()
    assert text.count("refused          -        FAULT: link to the Pico is down") == 4
    assert "lid: closed" in text
    assert "coils off at the end: unknown" in text
    assert "box fault: link lost" in text
    assert "RESULT: FAIL (5 fault(s))" in text


def test_a_jammed_key_names_the_nets_and_pins_to_check() -> None:
    """The builder is told where to look: the schematic's net names and the header pins of
    ``hardware/pins.toml`` (key 2: coil on GPIO27, header pin 13; sensor on GPIO6, pin 31)."""
    clock = ManualClock()
    box, toy = make_simulated_box(
        load_pin_map(), Limits(), clock, seed=1, faults=ToyFaults(jam={2: None})
    )
    out = io.StringIO()
    try:
        assert run_selftest(box, toy, out, wait=settled(box, clock)) is False
    finally:
        box.close()
    line = (
        "  - key 2: slot still full 0.3 s after its pulse (check net COIL2 on GPIO27 "
        "(header pin 13) and net SENSE2 on GPIO6 (header pin 31))\n"
    )
    assert line in out.getvalue()
    guide = Path(__file__).resolve().parents[2] / "hardware" / "README.md"
    assert line in guide.read_text(encoding="utf-8"), "the build guide shows this very line"


class RefusingSerialBox(DeadBox):
    """A co-processor box whose coil 3 fails: the Pico's GP numbers are named."""

    kind = "serial"

    def __init__(self, pins: PinMap) -> None:
        super().__init__()
        self.pins = pins

    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        if key == 3:
            raise BoxFault("no reply")

    def slots(self) -> dict[int, bool]:
        return dict.fromkeys((1, 2, 3, 4), False)

    def status(self) -> dict[str, Any]:
        return {"backend": "serial", "link": "up"}


def test_a_failing_pico_coil_names_its_gp_pin() -> None:
    out = io.StringIO()
    box = RefusingSerialBox(load_pin_map(section="pico"))
    assert run_selftest(box, None, out, wait=lambda s: None) is False
    assert "  - coil 3: no reply (check net COIL3 on GP12 (Pico pin 16))\n" in out.getvalue()


def test_a_box_without_a_pin_map_still_reports_its_faults() -> None:
    out = io.StringIO()
    assert run_selftest(DeadBox(), None, out, wait=lambda s: None) is False
    assert "  - coil 1: link to the Pico is down\n" in out.getvalue()
