"""The serial backend's checks: the Pico's port is there and usable, its handshake fits."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .pins import sensor_sanity
from .results import CheckResult, current_user

if TYPE_CHECKING:
    from ..box.pins import PinMap
    from ..config import Config

SERIAL_WAIT_S = 3.0
"""How long the serial check waits for the Pico's handshake (seconds)."""


def _serial_checks(config: Config, pins: PinMap | None) -> list[CheckResult]:
    from ..box.serial import PortNotFound, resolve_port

    setting = config.box.serial_port
    try:
        path = resolve_port(setting)
    except PortNotFound as exc:
        return [
            CheckResult(
                "Pico port",
                False,
                str(exc),
                "plug the Pico in (a data cable, not a charge-only one), flash MicroPython "
                "and `diablotin firmware flash` (docs/firmware.md), or set box.serial_port",
                hard=False,
            )
        ]
    device = Path(path)
    if "://" not in path and not device.exists():
        return [
            CheckResult(
                "Pico port",
                False,
                f"{path} does not exist",
                'plug the Pico in, or set box.serial_port = "auto" to find it under '
                "/dev/serial/by-id",
                hard=False,
            )
        ]
    if "://" not in path and not os.access(device, os.R_OK | os.W_OK):
        user = current_user()
        return [
            CheckResult(
                "Pico port",
                False,
                f"{user} may not open {path}",
                f"add {user} to the dialout group: `sudo usermod -aG dialout {user}`, then "
                "log in again (scripts/install-pi does this for the diablotin user)",
                hard=False,
            )
        ]
    results = [CheckResult("Pico port", True, path)]
    if pins is not None:
        results.extend(_handshake(path, pins, config))
    return results


def _handshake(path: str, pins: PinMap, config: Config) -> list[CheckResult]:
    from ..box.serial import SerialBox
    from ..clock import RealClock

    clock = RealClock()
    box = SerialBox(path, pins, config.box.limits, clock)
    try:
        deadline = time.monotonic() + SERIAL_WAIT_S
        up = box.wait_until_up(0.05)
        while not up and time.monotonic() < deadline:
            if box.status()["link"]["phase"] == "mismatch":
                break  # the handshake came back and does not fit: no need to wait longer
            up = box.wait_until_up(0.05)
        status = box.status()
        slots, lid = box.slots(), box.lid_closed()
    finally:
        box.close()
        clock.close()
    link = status["link"]
    if up:
        results = [CheckResult("Pico firmware", True, f"{path}: {link['detail']}")]
        reading = {f"slot {key}": present for key, present in slots.items()}
        if lid is not None:
            reading["lid"] = lid
        results.append(sensor_sanity([reading], has_lid=lid is not None))
        return results
    if link["phase"] == "mismatch":
        fix = (
            "stop the service (`sudo systemctl stop diablotin`), run `diablotin firmware "
            "flash`, start it again; if the message says so, update the service instead"
        )
        return [CheckResult("Pico firmware", False, link["detail"], fix, hard=False)]
    return [
        CheckResult(
            "Pico firmware",
            False,
            f"the Pico on {path} did not complete the handshake in {SERIAL_WAIT_S:g} s: "
            f"{link['detail']}",
            "is MicroPython and the firmware on it (`diablotin firmware flash`)? does another "
            "program hold the port (a serial console, mpremote, the service itself)?",
            hard=False,
        )
    ]
