"""make_box: the configured backend, the right pin-map section, lazy serial/virtual imports."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from controller.box.base import FactoryUnavailable, Limits
from controller.box.factory import make_box
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap, PinMapError
from controller.box.toy import SimulatedToy
from controller.clock import ManualClock
from controller.config import BoxConfig


def config(**kw: Any) -> BoxConfig:
    return BoxConfig(**kw)


def test_simulated_gives_a_gpio_box_on_mock_pins_and_its_toy() -> None:
    clock = ManualClock()
    box, toy = make_box(config(backend="simulated", seed=4), clock)
    try:
        assert isinstance(box, GpioBox)
        assert isinstance(toy, SimulatedToy)
        assert box.pins == PinMap(coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19))
        toy.hide()
        clock.advance(0.05)
        assert box.slots() == {1: True, 2: True, 3: True, 4: True}
    finally:
        box.close()


def test_gpio_uses_the_configured_pin_factory_and_limits() -> None:
    clock = ManualClock()
    box, toy = make_box(
        config(backend="gpio", pin_factory="mock", limits=Limits(pulse_ms=20)), clock
    )
    try:
        assert toy is None
        assert box.status()["factory"] == "mock"
        assert box.limits.pulse_ms == 20
    finally:
        box.close()
    with pytest.raises(FactoryUnavailable, match="sudo apt install python3-lgpio"):
        make_box(config(backend="gpio", pin_factory="lgpio"), clock)


def test_an_unknown_backend_and_a_bad_pin_map_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown box backend 'usb': choose one of"):
        make_box(config(backend="usb"), ManualClock())
    bad = tmp_path / "pins.toml"
    bad.write_text("[pi]\ncoils = [1, 2, 3]\nsensors = [5, 6, 7, 8]\n")
    with pytest.raises(PinMapError, match=r"pins.toml \[pi\]: coils: needs exactly 4 pins"):
        make_box(config(backend="simulated", pins=bad), ManualClock())


def test_serial_and_virtual_are_imported_lazily_with_the_pico_pins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, tuple[Any, ...]]] = []

    def make_serial_box(*args: Any) -> Any:
        calls.append(("serial", args))
        return "serial box"

    class Toy:
        faces: tuple[Any, ...] = ()

        def set_number_faces(self, faces: tuple[Any, ...]) -> None:
            self.faces = faces

    pico_toy = Toy()

    def make_virtual_box(*args: Any) -> Any:
        calls.append(("virtual", args))
        return "vbox", types.SimpleNamespace(toy=pico_toy)

    serial = types.ModuleType("controller.box.serial")
    serial.make_serial_box = make_serial_box  # type: ignore[attr-defined]
    virtual = types.ModuleType("controller.box.virtual")
    virtual.make_virtual_box = make_virtual_box  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "controller.box.serial", serial)
    monkeypatch.setitem(sys.modules, "controller.box.virtual", virtual)
    clock = ManualClock()
    limits = Limits()
    pico = PinMap(coils=(10, 11, 12, 13), sensors=(2, 3, 4, 5), led=25)
    opened: list[tuple[Any, Any]] = [
        make_box(config(backend="serial", serial_port="/dev/ttyACM0", limits=limits), clock),
        make_box(config(backend="virtual", seed=9, limits=limits), clock, number_faces=(2, 4)),
    ]
    assert opened == [("serial box", None), ("vbox", pico_toy)]
    assert pico_toy.faces == (2, 4)
    assert calls == [
        ("serial", ("/dev/ttyACM0", pico, limits, clock)),
        ("virtual", (pico, limits, clock, 9, None)),
    ]
