"""The coil and sensor limits (``hardware/README.md``, *Safety*): one checked type that the
config reads, the box's guard enforces and the firmware is flashed with. Core layer
(docs/architecture.md, "Layers"): the config reads it without importing the box.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import ClassVar

from .sentences import Said


class LimitsError(ValueError):
    """A coil limit outside the box's bounds (``hardware/README.md``, *Safety*). ``key``
    names it; ``str()`` is the reason."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(reason)
        self.key = key


@dataclass(frozen=True)
class Limits:
    """Every coil and sensor bound (``hardware/README.md``, *Safety*), in one place (config,
    guard, firmware).

    Built only with finite numbers inside the bounds below; anything else (NaN, inf,
    out of range, not a number) raises :class:`LimitsError` naming the field. Frozen, so
    a checked set of limits cannot be changed into an unchecked one.

    - ``pulse_ms``: default pulse length, in (0, ``MAX_PULSE_MS``] ms;
    - ``min_gap_ms``: per coil, off to next on, in [``MIN_GAP_MS``, ``MAX_GAP_MS``] ms;
    - ``max_duty``: per coil on-time share over any ``DUTY_WINDOW_S`` s, in (0, ``MAX_DUTY``];
    - ``debounce_ms``: sensor debounce, in [``MIN_DEBOUNCE_MS``, ``MAX_DEBOUNCE_MS``] ms.

    The duty window is not a setting: it is exactly ``DUTY_WINDOW_S`` (a shorter one
    lets a coil exceed 10 % over some 10 s).
    """

    MAX_PULSE_MS: ClassVar[float] = 100.0
    MIN_GAP_MS: ClassVar[float] = 250.0
    MAX_GAP_MS: ClassVar[float] = 60000.0
    MAX_DUTY: ClassVar[float] = 0.10
    DUTY_WINDOW_S: ClassVar[float] = 10.0
    MIN_DEBOUNCE_MS: ClassVar[float] = 1.0
    MAX_DEBOUNCE_MS: ClassVar[float] = 500.0

    pulse_ms: float = 30.0
    min_gap_ms: float = 250.0
    max_duty: float = 0.10
    debounce_ms: float = 20.0

    def __post_init__(self) -> None:
        # (field, low, high, low end open, unit)
        bounds = (
            ("pulse_ms", 0.0, self.MAX_PULSE_MS, True, " ms"),
            ("min_gap_ms", self.MIN_GAP_MS, self.MAX_GAP_MS, False, " ms"),
            ("max_duty", 0.0, self.MAX_DUTY, True, " (at most 10 % on-time)"),
            ("debounce_ms", self.MIN_DEBOUNCE_MS, self.MAX_DEBOUNCE_MS, False, " ms"),
        )
        for name, low, high, low_open, unit in bounds:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise LimitsError(
                    name, Said("{name} must be a number, got {value!r}", name=name, value=value)
                )
            if not math.isfinite(value):
                raise LimitsError(
                    name,
                    Said("{name} must be a finite number, got {value!r}", name=name, value=value),
                )
            if (value <= low if low_open else value < low) or value > high:
                span = f"({low:g}, {high:g}]" if low_open else f"[{low:g}, {high:g}]"
                raise LimitsError(
                    name,
                    Said(
                        "{name} must be in {span}{unit}, got {value:g}",
                        name=name,
                        span=span,
                        unit=unit,
                        value=value,
                    ),
                )
            object.__setattr__(self, name, float(value))

    @classmethod
    def from_settings(cls, values: Mapping[str, object]) -> Limits:
        """Limits from a config's ``[limits]`` table (keys as the fields).

        ``duty_window_s`` is read for old configs only when it equals ``DUTY_WINDOW_S``.
        Raises :class:`LimitsError` (naming the key) for anything else, unknown keys too.
        """
        values = dict(values)
        window = values.pop("duty_window_s", cls.DUTY_WINDOW_S)
        if isinstance(window, bool) or window != cls.DUTY_WINDOW_S:  # NaN != 10 too
            raise LimitsError(
                "duty_window_s",
                Said(
                    "the duty window is fixed at {fixed:g} s (hardware/README.md), got "
                    "{window!r}: remove the key",
                    fixed=cls.DUTY_WINDOW_S,
                    window=window,
                ),
            )
        known = [f.name for f in fields(cls)]
        for key in values:
            if key not in known:
                raise LimitsError(
                    key, Said("unknown key (known: {names}, duty_window_s)", names=", ".join(known))
                )
        return cls(**values)  # type: ignore[arg-type]  # __post_init__ checks every type

    @property
    def duty_window_s(self) -> float:
        """The sliding window duty is measured over (s): always ``DUTY_WINDOW_S``."""
        return self.DUTY_WINDOW_S

    def as_dict(self) -> dict[str, float]:
        """JSON-ready (finite numbers only), with the fixed bounds spelled out."""
        return {
            "pulse_ms": self.pulse_ms,
            "max_pulse_ms": self.MAX_PULSE_MS,
            "min_gap_ms": self.min_gap_ms,
            "duty_window_s": self.DUTY_WINDOW_S,
            "max_duty": self.max_duty,
            "debounce_ms": self.debounce_ms,
        }

    def for_firmware(self) -> dict[str, float]:
        """The limits as the Pico's settings carry them (``firmware/diablotin_fw/core.py``)."""
        return {
            "max_ms": self.MAX_PULSE_MS,
            "gap_ms": self.min_gap_ms,
            "window_s": self.DUTY_WINDOW_S,
            "duty": self.max_duty,
            "debounce_ms": self.debounce_ms,
        }
