"""The pin map: which pin drives each coil and reads each sensor (``hardware/pins.toml``).

``[pi]`` holds BCM numbers (0-27) for the gpio backend; ``[pico]`` holds GP
numbers (0-28) for the co-processor firmware. Keys and slots are numbered 1-4,
left to right; ``coils[0]`` is key 1.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from controller import data

from ..sentences import Said

DEFAULT_PATH = data.pins_file()

SECTIONS = ("pi", "pico")
PIN_RANGES = {"pi": range(0, 28), "pico": range(0, 29)}
"""Valid pin numbers per section: BCM 0-27 on a Pi's header, GP0-GP28 on a Pico."""

_REQUIRED = ("coils", "sensors")
_OPTIONAL = ("sensor_present", "lid", "led")
_PRESENT_LEVELS = ("low", "high")


class PinMapError(ValueError):
    """A pin map that cannot be used; the message names the file, the key and the reason."""

    def __init__(self, source: str, key: str | None, reason: str) -> None:
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {reason}")
        self.source = source
        self.key = key
        self.reason = reason


@dataclass(frozen=True)
class PinMap:
    """Pins of the four coils, the four slot sensors and the optional lid switch and LED.

    ``sensor_present`` is the level a sensor reads when a die is in its slot
    (``"low"``: the sensor pulls the line to ground; the backend then enables
    the pull-up). The lid switch closes to ground (closed = low).
    """

    coils: tuple[int, int, int, int]
    sensors: tuple[int, int, int, int]
    sensor_present: Literal["low", "high"] = "low"
    lid: int | None = None
    led: int | None = None

    def __post_init__(self) -> None:
        for key in ("coils", "sensors"):
            if isinstance(getattr(self, key), list):
                object.__setattr__(self, key, tuple(getattr(self, key)))
        _check(self, "PinMap", None)

    def all_pins(self) -> dict[str, int]:
        """Every pin in use by role name (``"coil 1"``, ``"sensor 3"``, ``"lid"``, ``"led"``)."""
        roles = {f"coil {k}": p for k, p in enumerate(self.coils, 1)}
        roles.update({f"sensor {k}": p for k, p in enumerate(self.sensors, 1)})
        if self.lid is not None:
            roles["lid"] = self.lid
        if self.led is not None:
            roles["led"] = self.led
        return roles


def _is_pin(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(pins: PinMap, source: str, valid: range | None) -> None:
    """Raise :class:`PinMapError` for wrong types, counts, duplicates, or pins not in ``valid``."""
    for key in ("coils", "sensors"):
        value = getattr(pins, key)
        if not isinstance(value, tuple | list) or not all(_is_pin(p) for p in value):
            raise PinMapError(
                source, key, Said("must be a list of 4 pin numbers, got {value!r}", value=value)
            )
        if len(value) != 4:
            raise PinMapError(
                source, key, Said("needs exactly 4 pins (keys 1-4), got {count}", count=len(value))
            )
    if pins.sensor_present not in _PRESENT_LEVELS:
        raise PinMapError(
            source,
            "sensor_present",
            Said(
                'must be "low" or "high", got {sensor_present!r}',
                sensor_present=pins.sensor_present,
            ),
        )
    for key in ("lid", "led"):
        value = getattr(pins, key)
        if value is not None and not _is_pin(value):
            raise PinMapError(source, key, Said("must be a pin number, got {value!r}", value=value))
    seen: dict[int, str] = {}
    for role, pin in pins.all_pins().items():
        key = role.split()[0] + "s" if " " in role else role
        if valid is not None and pin not in valid:
            raise PinMapError(
                source,
                key,
                Said(
                    "{role}: pin {pin} is outside {start}-{value}",
                    role=role,
                    pin=pin,
                    start=valid.start,
                    value=valid.stop - 1,
                ),
            )
        if pin in seen:
            raise PinMapError(
                source,
                key,
                Said(
                    "pin {pin} is used twice ({seen} and {role})",
                    pin=pin,
                    seen=seen[pin],
                    role=role,
                ),
            )
        seen[pin] = role


def pin_map_from_mapping(data: Mapping[str, object], source: str, section: str = "pi") -> PinMap:
    """Build a :class:`PinMap` from a TOML table; ``source`` names it in errors."""
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        allowed = ", ".join(_REQUIRED + _OPTIONAL)
        raise PinMapError(
            source, unknown[0], Said("unknown key (allowed: {allowed})", allowed=allowed)
        )
    for key in _REQUIRED:
        if key not in data:
            raise PinMapError(source, key, Said("missing (a list of 4 pin numbers)"))
    try:
        pins = PinMap(
            coils=data["coils"],  # type: ignore[arg-type]  # PinMap.__post_init__ checks
            sensors=data["sensors"],  # type: ignore[arg-type]  # PinMap.__post_init__ checks
            sensor_present=data.get("sensor_present", "low"),  # type: ignore[arg-type]  # PinMap.__post_init__ checks
            lid=data.get("lid"),  # type: ignore[arg-type]  # PinMap.__post_init__ checks
            led=data.get("led"),  # type: ignore[arg-type]  # PinMap.__post_init__ checks
        )
    except PinMapError as exc:
        raise PinMapError(source, exc.key, exc.reason) from None
    _check(pins, source, PIN_RANGES[section])
    return pins


def load_pin_map(path: str | Path | None = None, section: str = "pi") -> PinMap:
    """Read ``section`` (``"pi"`` or ``"pico"``) of the pin map at ``path``.

    ``path`` defaults to the repository's ``hardware/pins.toml``. Raises
    :class:`PinMapError` for a missing or unreadable file, a TOML syntax error,
    a missing section, unknown keys, wrong types or counts, pins out of range,
    and pins used twice.
    """
    if section not in SECTIONS:
        raise ValueError(f"section must be one of {SECTIONS}, got {section!r}")
    file = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PinMapError(
            str(file), None, Said("cannot read the pin map ({strerror})", strerror=exc.strerror)
        ) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PinMapError(str(file), None, Said("not valid TOML: {exc}", exc=exc)) from exc
    table = data.get(section)
    if not isinstance(table, dict):
        raise PinMapError(str(file), f"[{section}]", Said("section missing (or not a table)"))
    return pin_map_from_mapping(table, f"{file} [{section}]", section)


def load_circuit_pin_map(path: str | Path | None = None, section: str = "pi") -> PinMap:
    """The pin map the circuit is drawn from: ``section`` plus its ``[<section>_optional]``.

    ``[pi_optional]`` / ``[pico_optional]`` name where the optional lid switch and status LED
    are wired (the service ignores these tables until a line is copied into ``[pi]``). A pin
    set in both places must agree. Raises :class:`PinMapError` as :func:`load_pin_map` does,
    also for an optional table with other keys than ``lid`` and ``led``.
    """
    pins = load_pin_map(path, section)
    file = Path(path) if path is not None else DEFAULT_PATH
    optional = tomllib.loads(file.read_text(encoding="utf-8")).get(f"{section}_optional", {})
    source = f"{file} [{section}_optional]"
    if not isinstance(optional, dict):
        raise PinMapError(source, None, Said("not a table"))
    unknown = sorted(set(optional) - {"lid", "led"})
    if unknown:
        raise PinMapError(source, unknown[0], Said("unknown key (allowed: lid, led)"))
    merged: dict[str, object] = {
        "coils": list(pins.coils),
        "sensors": list(pins.sensors),
        "sensor_present": pins.sensor_present,
    }
    for key in ("lid", "led"):
        fitted, planned = getattr(pins, key), optional.get(key)
        if fitted is not None and planned is not None and fitted != planned:
            raise PinMapError(
                source,
                key,
                Said(
                    "pin {planned} differs from [{section}] {key} = {fitted}",
                    planned=planned,
                    section=section,
                    key=key,
                    fitted=fitted,
                ),
            )
        value = fitted if fitted is not None else planned
        if value is not None:
            merged[key] = value
    return pin_map_from_mapping(merged, source, section)


# -- where a role is wired: the circuit's net names and header positions ---------------------

PI_HEADER = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip
"""BCM GPIO number -> position (1-40) on the Pi's 40-pin header."""

PICO_HEADER = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip
"""Pico GP number -> position (1-40) on its castellated edge; GP23-25 and GP29 are on-board
(GP25 is the on-board LED)."""


def net_name(role: str) -> str:
    """The circuit's net name for a role of :meth:`PinMap.all_pins` (``"coil 2"`` -> ``COIL2``).

    The same names are printed on the schematic (``hardware/schematic.svg``) and by the
    self-test. Raises ValueError for an unknown role.
    """
    kind, _, number = role.partition(" ")
    prefix = {"coil": "COIL", "sensor": "SENSE", "lid": "LID", "led": "LED"}.get(kind)
    if prefix is None or (number and not number.isdigit()):
        raise ValueError(f"unknown role {role!r}")
    return prefix + number


def describe_pin(role: str, pin: int, section: str = "pi") -> str:
    """``"net COIL2 on GPIO27 (header pin 13)"``: where a role is wired, for messages.

    ``section`` is ``"pi"`` (BCM numbers) or ``"pico"`` (GP numbers).
    """
    if section == "pico":
        position = PICO_HEADER.get(pin)
        at = f"Pico pin {position}" if position else "on the Pico's board"
        return f"net {net_name(role)} on GP{pin} ({at})"
    position = PI_HEADER.get(pin)
    at = f"header pin {position}" if position else "not on the header"
    return f"net {net_name(role)} on GPIO{pin} ({at})"
