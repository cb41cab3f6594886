"""The Diable sauteur toy simulated on gpiozero's own ``MockFactory`` pins.

The toy owns special mock pins, created before the :class:`GpioBox` opens its
devices (the pattern of gpiozero's ``MockConnectedPin``): a coil pin tells the
toy about each rising edge, and the toy drives the sensor and lid pins like the
push-pull outputs of real sensors. The service learns about the dice only
through those pins and :meth:`SimulatedToy.face`.

Timing (pop delay, sensor chatter) runs on the injectable clock; randomness
(arrangement, faces, delays) comes from ``random.Random`` seeded by ``seed``,
one stream each, so a seed replays the same game whatever the thread timing.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from gpiozero.exc import PinInvalidPull
from gpiozero.pins import PinInfo
from gpiozero.pins.mock import MockFactory, MockPin

from ..clock import Clock
from ..sentences import Said
from .base import KEYS, Limits
from .gpio import GpioBox
from .pins import PinMap

DEVIL = "devil"
Face = int | str
"""What a popped die shows: a number, or :data:`DEVIL`."""

DEFAULT_NUMBER_FACES: tuple[Face, ...] = (1, 2, 3, 4, 5, 6)
POP_DELAY_S = (0.040, 0.080)
"""A pulsed trapdoor lets its die jump after a delay drawn from this range (seconds)."""
CHATTER_S = 0.010
"""A chattering sensor bounces for up to this long (seconds) before settling."""

_DEVIL_DIE = "devil die"
_NUMBER_DIE = "number die"


@dataclass(frozen=True)
class ToyFaults:
    """Faults of the simulated toy.

    ``jam``: key -> how many pulses its trapdoor stays stuck (``None``: until
    cleared); ``chatter``: sensor edges bounce for ~10 ms before settling;
    ``missing_die``: the slot that stays empty on every hide (``None``: none).
    """

    jam: Mapping[int, int | None] = field(default_factory=dict)
    chatter: bool = False
    missing_die: int | None = None


def _check_key(key: int) -> int:
    if not isinstance(key, int) or isinstance(key, bool) or key not in KEYS:
        raise ValueError(Said("there is no key {key!r}: keys are 1-4", key=key))
    return key


_Pin = TypeVar("_Pin", bound=MockPin)


class CoilPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints: an untyped base class
    """A coil's mock pin that tells the toy about every rising edge."""

    def __init__(self, factory: MockFactory, info: PinInfo, toy: SimulatedToy, key: int) -> None:
        super().__init__(factory, info)
        self.toy = toy
        self.key = key

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value:
            self.toy._coil_energised(self.key)
        return changed


class DrivenPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints: an untyped base class
    """An input pin driven by a push-pull output (sensor comparator, switch model).

    The pull resistor the backend selects does not move it: only :meth:`drive`
    does. Edges reach gpiozero as on a real pin, on the driving thread.
    """

    def __init__(self, factory: MockFactory, info: PinInfo, level: bool) -> None:
        super().__init__(factory, info)
        self.driven_level = level
        self.drive_lock = threading.RLock()
        self.generation = 0
        self._state = level
        self.clear_states()

    def _set_pull(self, value: str) -> None:
        if value not in ("floating", "up", "down"):
            raise PinInvalidPull("pull must be floating, up, or down")
        self._pull = value
        self.drive(self.driven_level)

    def drive(self, level: bool) -> None:
        """Set the line to ``level`` (True = high)."""
        self.driven_level = level
        if level:
            self.drive_high()
        else:
            self.drive_low()


class SimulatedToy:
    """The toy: four slots under four trapdoors, a devil die and three number dice.

    Create it on a ``MockFactory`` *before* the :class:`GpioBox` that uses the
    same factory (``ValueError`` otherwise). Thread-safe; the toy's lock is
    never held while a pin is driven.
    """

    def __init__(
        self,
        factory: MockFactory,
        pins: PinMap,
        clock: Clock,
        seed: int | None = None,
        faults: ToyFaults | None = None,
        number_faces: Sequence[Face] = DEFAULT_NUMBER_FACES,
    ) -> None:
        self.clock = clock
        self.number_faces: tuple[Face, ...] = ()
        self.set_number_faces(number_faces)
        seeds = random.Random(seed)
        self._arrange_rng = random.Random(seeds.getrandbits(64))
        self._face_rng = random.Random(seeds.getrandbits(64))
        self._timing_rng = random.Random(seeds.getrandbits(64))
        self._lock = threading.RLock()
        self._present_level = pins.sensor_present == "high"
        self._coil_pins = {
            key: self._make_pin(factory, pin, CoilPin, toy=self, key=key)
            for key, pin in zip(KEYS, pins.coils, strict=True)
        }
        empty_level = not self._present_level
        self._sensor_pins = {
            key: self._make_pin(factory, pin, DrivenPin, level=empty_level)
            for key, pin in zip(KEYS, pins.sensors, strict=True)
        }
        self._lid_pin: DrivenPin | None = (
            None if pins.lid is None else self._make_pin(factory, pins.lid, DrivenPin, level=True)
        )
        self._dice: dict[int, str | None] = dict.fromkeys(KEYS)
        self._hidden_under: dict[int, str | None] = {}
        self._faces: dict[int, Face] = {}
        self._hiding = 0
        faults = faults or ToyFaults()
        self._jams: dict[int, int | None] = {}
        for key, pulses in faults.jam.items():
            self.set_jam(key, pulses)
        self._chatter = faults.chatter
        self._missing_die: int | None = None
        self.set_missing_die(faults.missing_die)

    @staticmethod
    def _make_pin(
        factory: MockFactory, number: int, pin_class: type[_Pin], **kwargs: object
    ) -> _Pin:
        pin = factory.pin(number, pin_class=pin_class, **kwargs)
        if type(pin) is not pin_class:
            raise ValueError(
                f"pin {number} already exists as a {type(pin).__name__}: "
                "create the SimulatedToy before the GpioBox, on a fresh MockFactory"
            )
        return pin

    # -- the hider ----------------------------------------------------------

    def dice_out(self) -> set[int]:
        """Keys whose die is out of its slot (the toy's own truth, not what the sensors,
        the link or the service made of it). For tests and the reliability suite."""
        with self._lock:
            return {key for key, die in self._dice.items() if die is None}

    def coil_pin(self, key: int) -> MockPin:
        """The mock pin under coil ``key`` (tests read its ``states``)."""
        return self._coil_pins[key]

    def hide(self) -> None:
        """Gather the dice and hide them again in a random arrangement; close the lid.

        The lid opens, every slot empties, the dice go in (one slot stays empty
        with the ``missing_die`` fault), the lid closes.
        """
        dice = [_DEVIL_DIE, _NUMBER_DIE, _NUMBER_DIE, _NUMBER_DIE]
        with self._lock:
            self._arrange_rng.shuffle(dice)
            self._hiding += 1
            arrangement: dict[int, str | None] = dict(zip(KEYS, dice, strict=True))
            if self._missing_die is not None:
                arrangement[self._missing_die] = None
            self._hidden_under = dict(arrangement)
            self._dice = dict(arrangement)
            self._faces.clear()
        if self._lid_pin is not None:
            self._drive(self._lid_pin, True)
        for key in KEYS:
            self._drive_slot(key, present=False)
        for key in KEYS:
            if arrangement[key] is not None:
                self._drive_slot(key, present=True)
        if self._lid_pin is not None:
            self._drive(self._lid_pin, False)

    def resume(self, popped: Iterable[int], pending: int | None = None) -> None:
        """After a restart mid-hiding: dice hidden again, the ``popped`` slots already empty.

        A devil ends a hiding, so the devil die goes under a slot not popped yet,
        or under ``pending`` (a popped die whose face is not known yet).
        """
        gone = {k for k in popped if k in KEYS}
        with self._lock:
            free = [k for k in KEYS if k not in gone or k == pending] or list(KEYS)
            devil_key = self._arrange_rng.choice(free)
            arrangement = {k: _DEVIL_DIE if k == devil_key else _NUMBER_DIE for k in KEYS}
            self._hiding += 1
            self._hidden_under = dict(arrangement)
            self._dice = {k: None if k in gone else die for k, die in arrangement.items()}
            self._faces.clear()
        for key in KEYS:
            self._drive_slot(key, present=key not in gone)
        if self._lid_pin is not None:
            self._drive(self._lid_pin, False)

    def open_lid(self) -> None:
        """Open the lid (``ValueError`` if the pin map has no lid switch)."""
        self._drive(self._require_lid(), True)

    def close_lid(self) -> None:
        """Close the lid (``ValueError`` if the pin map has no lid switch)."""
        self._drive(self._require_lid(), False)

    def _require_lid(self) -> DrivenPin:
        if self._lid_pin is None:
            raise ValueError(Said("this toy has no lid switch (no lid pin in the pin map)"))
        return self._lid_pin

    def move_die(self, key: int, present: bool) -> None:
        """The hider's hand lifts the die out of slot ``key`` or seats it back (no pop).

        ``ValueError`` when there is no die of this hiding for that slot.
        """
        key = _check_key(key)
        with self._lock:
            die = self._hidden_under.get(key)
            if die is None:
                raise ValueError(Said("no die was hidden under key {key}", key=key))
            self._dice[key] = die if present else None
        self._drive_slot(key, present)

    # -- the popper -----------------------------------------------------------

    def press_by_hand(self, key: int) -> bool:
        """Press key ``key`` by hand: its die jumps at once (a firm hand frees a stuck trapdoor).

        Returns False (nothing happens) when the slot is empty.
        """
        key = _check_key(key)
        with self._lock:
            if self._dice[key] is None:
                return False
            self._dice[key] = None
        self._drive_slot(key, present=False)
        return True

    def face(self, key: int) -> Face:
        """The face shown by the die that jumped from slot ``key`` (drawn once, then kept).

        The devil die shows :data:`DEVIL`; a number die a face from
        ``number_faces``. ``ValueError`` if no die was hidden there in this
        hiding or it has not jumped yet (the toy never shows a hidden die).
        """
        key = _check_key(key)
        with self._lock:
            die = self._hidden_under.get(key)
            if die is None:
                raise ValueError(Said("no die was hidden under key {key}", key=key))
            if self._dice[key] is not None:
                raise ValueError(Said("the die under key {key} has not jumped out", key=key))
            if key not in self._faces:
                self._faces[key] = (
                    DEVIL if die == _DEVIL_DIE else self._face_rng.choice(self.number_faces)
                )
            return self._faces[key]

    def _coil_energised(self, key: int) -> None:
        """A coil's rising edge (on the coil thread): schedule the die's jump unless stuck."""
        with self._lock:
            if self._dice[key] is None:
                return
            if key in self._jams:
                left = self._jams[key]
                if left is not None:
                    if left <= 1:
                        del self._jams[key]
                    else:
                        self._jams[key] = left - 1
                return
            delay = self._timing_rng.uniform(*POP_DELAY_S)
            hiding = self._hiding
        self.clock.call_later(delay, lambda: self._jump(key, hiding))

    def _jump(self, key: int, hiding: int) -> None:
        with self._lock:
            if hiding != self._hiding or self._dice[key] is None:
                return  # hidden again meanwhile, or already out
            self._dice[key] = None
        self._drive_slot(key, present=False)

    # -- faults -------------------------------------------------------------

    def set_jam(self, key: int, pulses: int | None = None) -> None:
        """Make key ``key``'s trapdoor stick for ``pulses`` pulses (``None``: until cleared)."""
        key = _check_key(key)
        if pulses is not None and (not isinstance(pulses, int) or pulses < 1):
            raise ValueError(f"pulses must be None or an int >= 1, got {pulses!r}")
        with self._lock:
            self._jams[key] = pulses

    def clear_jam(self, key: int) -> None:
        """Free key ``key``'s trapdoor."""
        key = _check_key(key)
        with self._lock:
            self._jams.pop(key, None)

    def set_number_faces(self, number_faces: Sequence[Face]) -> None:
        """The faces of the three number dice (positive ints, or :data:`DEVIL`)."""
        faces = tuple(number_faces)
        if not faces or not all(
            f == DEVIL or (isinstance(f, int) and not isinstance(f, bool) and f > 0) for f in faces
        ):
            raise ValueError(f'number_faces must be positive ints or "devil", got {faces!r}')
        self.number_faces = faces

    def set_chatter(self, on: bool) -> None:
        """Make every sensor edge bounce for ~10 ms before settling (or stop it)."""
        self._chatter = bool(on)

    def set_missing_die(self, key: int | None) -> None:
        """Leave slot ``key`` empty on every hide from now on (``None``: all four dice)."""
        if key is not None:
            key = _check_key(key)
        with self._lock:
            self._missing_die = key

    @property
    def faults(self) -> ToyFaults:
        """The faults switched on now."""
        with self._lock:
            return ToyFaults(dict(self._jams), self._chatter, self._missing_die)

    def status(self) -> dict[str, object]:
        """JSON-ready fault switches and lid (never the arrangement)."""
        faults = self.faults
        return {
            "jam": {str(k): v for k, v in faults.jam.items()},
            "chatter": faults.chatter,
            "missing_die": faults.missing_die,
            "lid": None if self._lid_pin is None else not self._lid_pin.driven_level,
        }

    # -- pins -------------------------------------------------------------------

    def _drive_slot(self, key: int, present: bool) -> None:
        level = self._present_level if present else not self._present_level
        self._drive(self._sensor_pins[key], level)

    def _drive(self, pin: DrivenPin, level: bool) -> None:
        """Drive ``pin`` to ``level``; with chatter, bounce an even number of times first."""
        with pin.drive_lock:
            pin.generation += 1
            generation = pin.generation
            pin.drive(level)
        if not self._chatter:
            return
        with self._lock:
            toggles = 2 * self._timing_rng.randint(1, 3)
            times = sorted(self._timing_rng.uniform(0.001, CHATTER_S) for _ in range(toggles))
        for i, at in enumerate(times):
            bounce_level = level if i % 2 else not level
            self.clock.call_later(at, partial(self._bounce, pin, generation, bounce_level))

    @staticmethod
    def _bounce(pin: DrivenPin, generation: int, level: bool) -> None:
        with pin.drive_lock:
            if pin.generation == generation:  # a later drive supersedes these bounces
                pin.drive(level)


def make_simulated_box(
    pins: PinMap,
    limits: Limits | None,
    clock: Clock,
    seed: int | None = None,
    faults: ToyFaults | None = None,
    number_faces: Sequence[Face] = DEFAULT_NUMBER_FACES,
) -> tuple[GpioBox, SimulatedToy]:
    """A :class:`GpioBox` on a fresh ``MockFactory`` with a :class:`SimulatedToy` wired to it.

    Its coils are mock pins: a pulse that outlives its deadline (a loaded host) is forced
    off and logged, without a latched fault (``deadline_fault=False``).
    """
    factory = MockFactory()
    toy = SimulatedToy(factory, pins, clock, seed, faults, number_faces)
    box = GpioBox(pins, limits, clock, factory=factory, deadline_fault=False)
    return box, toy
