"""The gpio backend's pin checks: claim every pin, watch the sensors, judge the readings."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

from .results import CheckResult

if TYPE_CHECKING:
    from ..box.pins import PinMap

SAMPLE_S = 0.3
"""How long the gpio check watches the sensors (seconds)."""
SAMPLE_INTERVAL_S = 0.005
"""Time between two sensor readings while watching them (seconds)."""
FLAP_CHANGES = 5
"""A sensor changing this many times or more while watched is flapping."""


class PinFactory(Protocol):
    """A gpiozero pin factory, as far as the checks use one (its devices take it as is)."""

    def close(self) -> None: ...


class Pin(Protocol):
    """A claimed gpiozero device, as far as the checks use one."""

    @property
    def is_active(self) -> bool: ...

    def close(self) -> None: ...


def _claim_and_watch(
    pins: PinMap, factory: PinFactory, sample_s: float, sleep: Callable[[float], None]
) -> list[CheckResult]:
    """Claim every pin (coils as outputs, off), watch the inputs, release everything."""
    from gpiozero import DigitalInputDevice, DigitalOutputDevice

    from ..box.pin_factory import coil_output

    devices: list[Pin] = []
    busy: list[str] = []
    inputs: dict[str, Pin | None] = {}

    def claim(role: str, make: Callable[[], Pin]) -> Pin | None:
        try:
            device = make()
        except Exception as exc:
            busy.append(f"{role} ({type(exc).__name__}: {exc})")
            return None
        devices.append(device)
        return device

    try:
        for key, pin in enumerate(pins.coils, 1):
            claim(
                f"coil {key} (GPIO{pin})",
                coil_output(pin, factory),
            )
        pull_up = pins.sensor_present == "low"
        for key, pin in enumerate(pins.sensors, 1):
            inputs[f"slot {key}"] = claim(
                f"sensor {key} (GPIO{pin})",
                partial(DigitalInputDevice, pin, pull_up=pull_up, pin_factory=factory),
            )
        if pins.lid is not None:
            lid = pins.lid
            inputs["lid"] = claim(
                f"lid (GPIO{lid})",
                partial(DigitalInputDevice, lid, pull_up=True, pin_factory=factory),
            )
        if pins.led is not None:
            led = pins.led
            claim(
                f"led (GPIO{led})",
                partial(DigitalOutputDevice, led, initial_value=False, pin_factory=factory),
            )
        if busy:
            return [
                CheckResult(
                    "pins free",
                    False,
                    "cannot claim " + "; ".join(busy),
                    "another program holds the pin: is diablotin already running "
                    "(`systemctl status diablotin`)? `gpioinfo` shows who holds each line; "
                    "an overlay in /boot/firmware/config.txt (I2C, SPI, 1-Wire) may own it; "
                    "or move the wire and change hardware pins.toml",
                )
            ]
        readers = {  # every input was claimed: none is None past the busy check
            name: _reader(device) for name, device in inputs.items() if device is not None
        }
        samples = _sample(readers, sample_s, sleep)
        return [
            CheckResult("pins free", True, f"{len(devices)} pins claimed and released"),
            sensor_sanity(samples, has_lid=pins.lid is not None),
        ]
    finally:
        for device in devices:
            with contextlib.suppress(Exception):
                device.close()


def _reader(device: Pin) -> Callable[[], bool]:
    return lambda: bool(device.is_active)


def _sample(
    readers: dict[str, Callable[[], bool]], duration_s: float, sleep: Callable[[float], None]
) -> list[dict[str, bool]]:
    """Read every input ``duration_s / SAMPLE_INTERVAL_S`` times (at least once)."""
    count = max(1, round(duration_s / SAMPLE_INTERVAL_S))
    samples = []
    for index in range(count):
        if index:
            sleep(SAMPLE_INTERVAL_S)
        samples.append({name: read() for name, read in readers.items()})
    return samples


def sensor_sanity(samples: list[dict[str, bool]], *, has_lid: bool) -> CheckResult:
    """Judge readings of ``slot 1``..``slot 4`` (True: present) and ``lid`` (True: closed).

    Suspicious (a soft failure): an input that changes ``FLAP_CHANGES`` times or more, or
    all four slots "present" while the lid switch reads open (dice are hidden with the lid
    open only for a moment; an inverted ``sensor_present`` reads empty slots as full).
    """
    names = list(samples[0])
    changes = {
        name: sum(a[name] != b[name] for a, b in itertools.pairwise(samples)) for name in names
    }
    flapping = [f"{name} ({n} changes)" for name, n in changes.items() if n >= FLAP_CHANGES]
    if flapping:
        return CheckResult(
            "sensors",
            False,
            f"flapping while watched for {len(samples)} readings: {', '.join(flapping)}",
            "check the wire and the ground of each; a TCRT5000 needs its potentiometer "
            "turned away from the edge; a switch needs sensor_present matching its wiring",
            hard=False,
        )
    last = samples[-1]
    slots = [name for name in names if name.startswith("slot")]
    state = ", ".join(f"{name} {'present' if last[name] else 'empty'}" for name in slots)
    if has_lid:
        state += f", lid {'closed' if last['lid'] else 'open'}"
    if has_lid and not last["lid"] and slots and all(last[name] for name in slots):
        return CheckResult(
            "sensors",
            False,
            f"all four slots read 'present' while the lid is open ({state})",
            "if the slots are empty, sensor_present in pins.toml is inverted (try the other "
            'of "low"/"high"); else check the sensors\' 3.3 V supply and potentiometers',
            hard=False,
        )
    return CheckResult("sensors", True, state)
