"""The box interface every backend implements, its events and its errors.

Keys and slots are numbered 1-4 (key ``k`` presses the trapdoor over slot ``k``).
Times are seconds from the backend's clock (monotonic); pulse lengths are
milliseconds.
"""

from __future__ import annotations

import abc
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar, Protocol

from ..games.base import Said

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockPin

KEYS = (1, 2, 3, 4)


class BoxError(Exception):
    """Base class of everything the box raises."""


class LimitRefused(BoxError, ValueError):
    """A request that would break a safety limit; nothing was switched.

    The message says which limit (pulse cap, spacing, duty, one coil at a time).
    """


class BoxFault(BoxError, RuntimeError):
    """The box cannot act: a latched fault, a lost link, a closed backend."""


class FactoryUnavailable(BoxError, RuntimeError):
    """The configured pin factory cannot be loaded; the message names the fix."""


@dataclass(frozen=True)
class SlotChanged:
    """A debounced change of slot ``key``'s presence sensor."""

    key: int
    present: bool
    at: float


@dataclass(frozen=True)
class LidChanged:
    """A debounced change of the lid switch (only on boxes that have one)."""

    closed: bool
    at: float


@dataclass(frozen=True)
class CoilFired:
    """Coil ``key`` was energised for ``pulse_ms`` starting at ``at``."""

    key: int
    pulse_ms: float
    at: float


@dataclass(frozen=True)
class LinkChanged:
    """The link to a co-processor went up or down (serial backends only)."""

    up: bool
    detail: str
    at: float


@dataclass(frozen=True)
class FaultChanged:
    """A fault was raised (``active``) or cleared."""

    name: str
    active: bool
    detail: str
    at: float


BoxEvent = SlotChanged | LidChanged | CoilFired | LinkChanged | FaultChanged
Listener = Callable[[BoxEvent], None]


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


def status_faults(status: Mapping[str, object]) -> list[str]:
    """The faults a box's :meth:`Box.status` lists (a list, or a dict keyed by name), as text."""
    faults = status.get("faults") or []
    return [str(f) for f in faults] if isinstance(faults, Iterable) else []


class Toy(Protocol):
    """The simulated Diable sauteur's hands and dice (``controller.box.toy.SimulatedToy``):
    what the service, the box's game, the camera and the tests' rigs do with it. A real
    box has none (the service's ``toy`` is ``None``)."""

    def dice_out(self) -> set[int]:
        """The keys whose die has popped out (lies on the table)."""

    def face(self, key: int) -> int | str:
        """The face of the die hidden under ``key``; ``ValueError`` when none was hidden."""

    def hide(self) -> None:
        """Put every die back in its slot (a new hiding)."""

    def resume(self, popped: Iterable[int], pending: int | None = None) -> None:
        """Arrange the dice as a resumed game left them (``popped`` out)."""

    def press_by_hand(self, key: int) -> bool:
        """A player presses ``key`` by hand; False when its slot is empty."""

    def move_die(self, key: int, present: bool) -> None:
        """Put a die in (or take it out of) ``key``'s slot."""

    def open_lid(self) -> None: ...

    def close_lid(self) -> None: ...

    def coil_pin(self, key: int) -> MockPin:
        """The mock pin of ``key``'s coil (tests and rigs read its state)."""

    def set_jam(self, key: int, pulses: int | None = None) -> None: ...

    def clear_jam(self, key: int) -> None: ...

    def set_chatter(self, on: bool) -> None: ...

    def set_missing_die(self, key: int | None) -> None: ...

    def status(self) -> Mapping[str, object]:
        """JSON-ready fault switches and lid."""


class Box(abc.ABC):
    """A toy with four coils over its keys and four slot sensors (and maybe a lid).

    Listeners are called on a backend thread: they must return quickly and never
    block (hand the work to the service). ``close`` switches every coil off and
    is safe to call twice.
    """

    kind = "abstract"

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event)`` for every event from now on."""
        with self._listeners_lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        with self._listeners_lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def emit(self, event: BoxEvent) -> None:
        """Deliver ``event`` to every listener (backends call this)."""
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

    @abc.abstractmethod
    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        """Energise coil ``key`` for ``pulse_ms`` (default ``limits.pulse_ms``).

        Returns once the coil is on; it switches off by itself. Raises
        :class:`LimitRefused` (no pin changes) if a limit would break, and
        :class:`BoxFault` while a fault is latched or the link is down.
        """

    @abc.abstractmethod
    def cooldown_s(self, key: int) -> float:
        """Seconds until coil ``key`` may fire again within the limits (0: now)."""

    @abc.abstractmethod
    def slots(self) -> dict[int, bool]:
        """Debounced presence of a die in each slot, ``{1: True, ...}``."""

    @abc.abstractmethod
    def lid_closed(self) -> bool | None:
        """Debounced lid switch; ``None`` when no lid switch is fitted."""

    @abc.abstractmethod
    def status(self) -> Mapping[str, object]:
        """JSON-ready health: backend, link, faults, coil states, limits."""

    def check_coils(self) -> bool:
        """True while whatever times this box's pulses works and no coil is past its
        deadline (systemd's watchdog pings only then). Never blocks. Backends whose
        pulses are timed elsewhere (the Pico's firmware) have nothing to check here."""
        return True

    @abc.abstractmethod
    def all_off(self) -> None:
        """Switch every coil off now. Never raises."""

    @abc.abstractmethod
    def close(self) -> None:
        """All coils off, then release the hardware. Idempotent."""
