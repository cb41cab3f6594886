"""The box interface every backend implements, its events and its errors.

Keys and slots are numbered 1-4 (key ``k`` presses the trapdoor over slot ``k``).
Times are seconds from the backend's clock (monotonic); pulse lengths are
milliseconds.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..limits import Limits as Limits
from ..limits import LimitsError as LimitsError

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
