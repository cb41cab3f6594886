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

from ..games.base import Said

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
            coils=data["coils"],  # type: ignore[arg-type]
            sensors=data["sensors"],  # type: ignore[arg-type]
            sensor_present=data.get("sensor_present", "low"),  # type: ignore[arg-type]
            lid=data.get("lid"),  # type: ignore[arg-type]
            led=data.get("led"),  # type: ignore[arg-type]
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
