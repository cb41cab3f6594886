"""From sensor events to the game's facts: hiding done, pops, jams (``docs/rules-sauteur.md``).

:class:`ToyWatch` sits above any :class:`~controller.box.base.Box` (gpio, serial,
virtual) and uses only its interface and events:

- **Hiding done**: all four slots hold a die (and the lid is closed, if a lid
  switch is fitted), steady for ``steady_s`` (0.5 s); any change restarts the
  wait. Then :class:`HidingDone`, and the dice are *hidden*.
- **Press**: fire the coil; if the slot has not emptied ``check_s`` (0.3 s)
  after the pulse, pulse once more; if it still holds its die, :class:`Jammed`
  ("key k jammed") and wait for the referee: :meth:`ToyWatch.retry` or
  :meth:`ToyWatch.popped_by_hand`.
- **Pop**: while hidden, a slot that empties is a pop, once per slot per
  hiding: ``by_hand=False`` after a press or a coil of that key fired within
  ``coil_effect_s``, ``by_hand=True`` otherwise (a key pressed by hand).
- **New hiding**: :meth:`ToyWatch.start_hiding` (the game asks for one), the
  lid opening, or a die put back into an emptied slot; then
  :class:`HidingStarted`, and emptied slots are no longer pops.

Events go to ``listener`` in order, never while the watch's lock is held and
never two at once (a listener may call back into the watch). Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypedDict

from ..clock import Clock, Timer
from ..sentences import Said
from .base import (
    KEYS,
    Box,
    BoxError,
    BoxEvent,
    BoxFault,
    CoilFired,
    FaultChanged,
    LidChanged,
    LinkChanged,
    SlotChanged,
)

log = logging.getLogger(__name__)

STEADY_S = 0.5
CHECK_S = 0.3
COIL_EFFECT_S = 0.5
"""A slot emptying this long (s) after its coil's pulse ended still counts as that pulse's pop."""

HIDING = "hiding"
HIDDEN = "hidden"


class WatchState(TypedDict):
    """:meth:`ToyWatch.state`, JSON-ready."""

    phase: str
    slots: dict[int, bool]
    lid: bool | None
    popped: list[int]
    pressing: int | None
    jammed: int | None
    faults: dict[str, str]
    link_down: str | None


class PressRefused(BoxError, ValueError):
    """A press that makes no sense now (hiding not done, empty slot, press in progress)."""


@dataclass(frozen=True)
class HidingDone:
    """All four dice hidden (and the lid closed) and steady since ``at - steady_s``."""

    at: float


@dataclass(frozen=True)
class HidingStarted:
    """A new hiding began: ``reason`` is "asked", "lid opened" or "die put back"."""

    reason: str
    at: float


@dataclass(frozen=True)
class Popped:
    """The die under key ``key`` jumped out (``by_hand``: no coil of ours did it)."""

    key: int
    by_hand: bool
    at: float


@dataclass(frozen=True)
class Jammed:
    """Key ``key`` was pulsed twice and its slot still holds its die; waiting for the referee."""

    key: int
    at: float
    detail: str = ""

    @property
    def message(self) -> str:
        return f"key {self.key} jammed" + (f" ({self.detail})" if self.detail else "")


WatchEvent = HidingDone | HidingStarted | Popped | Jammed
WatchListener = Callable[[WatchEvent], None]


class _Press:
    def __init__(self, key: int) -> None:
        self.key = key
        self.pulses = 0
        self.timer: Timer | None = None


class ToyWatch:
    """Turn a box's sensor events into :data:`WatchEvent` facts for ``listener``.

    Starts in the hiding phase. Times (s) come from ``clock``, which should be
    the box's own clock (event times are compared with it).
    """

    def __init__(
        self,
        box: Box,
        clock: Clock,
        listener: WatchListener,
        steady_s: float = STEADY_S,
        check_s: float = CHECK_S,
        coil_effect_s: float = COIL_EFFECT_S,
    ) -> None:
        self.box = box
        self.clock = clock
        self._listener = listener
        self._steady_s = steady_s
        self._check_s = check_s
        self._coil_effect_s = coil_effect_s
        self._lock = threading.RLock()
        self._outbox: deque[WatchEvent] = deque()
        self._delivering = threading.Lock()
        self._phase = HIDING
        self._steady_timer: Timer | None = None
        self._steady_generation = 0
        self._popped: set[int] = set()
        self._pending: _Press | None = None
        self._jammed: int | None = None
        self._faults: dict[str, str] = {}
        self._link_down: str | None = None
        self._coil_ends: dict[int, float] = {}
        self._closed = False
        with self._lock:
            box.subscribe(self._on_box_event)
            self._slots = dict(box.slots())
            self._lid = box.lid_closed()
            self._restart_steady()

    # -- referee and game ----------------------------------------------------

    def press(self, key: int) -> None:
        """Fire coil ``key`` and watch its slot (retry once, then :class:`Jammed`).

        Raises :class:`BoxFault` while a jam is unresolved or the box reports a
        fault or a lost link, :class:`PressRefused` before hiding is done, for a
        slot already emptied, or while another press is being checked, and lets
        the box's :class:`LimitRefused` through. Nothing changes when it raises.
        """
        if key not in KEYS or isinstance(key, bool):
            raise PressRefused(Said("there is no key {key!r}: keys are 1-4", key=key))
        with self._lock:
            self._check_can_press(key)
            press = _Press(key)
            self._pending = press
        self._first_pulse(press, jammed_before=False)
        self._flush()

    def retry(self, key: int) -> None:
        """The referee asks to press jammed key ``key`` again (same rules as :meth:`press`).

        When it raises the key stays jammed.
        """
        with self._lock:
            self._require_jammed(key)
            self._jammed = None
            try:
                self._check_can_press(key)
            except BaseException:
                self._jammed = key
                raise
            press = _Press(key)
            self._pending = press
        self._first_pulse(press, jammed_before=True)
        self._flush()

    def popped_by_hand(self, key: int) -> None:
        """The referee says jammed key ``key``'s die came out by hand: :class:`Popped` (by hand)."""
        with self._lock:
            self._require_jammed(key)
            self._jammed = None
            self._popped.add(key)
            self._outbox.append(Popped(key, True, self.clock.now()))
        self._flush()

    def start_hiding(self) -> None:
        """The game asks for a new hiding: slots emptying are no longer pops until it is done."""
        with self._lock:
            self._begin_hiding("asked")
        self._flush()

    def resume_hidden(self, popped: Iterable[int]) -> None:
        """After a restart mid-hiding: the dice are hidden and ``popped`` keys already came out.

        Slots that empty from now on are pops again; a die put back starts a new hiding.
        """
        with self._lock:
            self._cancel_steady()
            self._phase = HIDDEN
            self._popped = {k for k in popped if k in KEYS}

    def hidden_now(self) -> None:
        """The referee says the dice are hidden: taken at once when every slot reads full
        (and the lid is closed), as if the steady wait were over; no :class:`HidingDone`
        (the referee's action tells the game). Raises :class:`PressRefused` naming the
        empty slots (or the open lid) otherwise; then nothing changes."""
        with self._lock:
            empty = [key for key in KEYS if not self._slots[key]]
            if empty:
                raise PressRefused(
                    Said(
                        "the box's sensors see no die under key(s) {keys}: "
                        "put the dice in and close the lid",
                        keys=", ".join(map(str, empty)),
                    )
                )
            if self._lid is False:
                raise PressRefused(Said("the box's lid is open: close it over the dice"))
            if self._phase == HIDDEN:
                return
            self._cancel_steady()
            self._phase = HIDDEN  # no HidingDone: the referee's own action is the game's
            self._popped.clear()

    def hiding_done(self) -> bool:
        """True when the dice are hidden and none has jumped since (a new hiding is not needed).

        A game that enters its hiding phase may take the hiding as done only
        then; otherwise call :meth:`start_hiding` and wait for :class:`HidingDone`.
        """
        with self._lock:
            return self._phase == HIDDEN and not self._popped

    def faults(self) -> list[str]:
        """Problems the referee must resolve before the next press (an unresolved jam)."""
        with self._lock:
            return [] if self._jammed is None else [f"key {self._jammed} jammed"]

    def state(self) -> WatchState:
        """JSON-ready snapshot: phase, slots, lid, popped keys, press in progress, jam, faults."""
        with self._lock:
            return {
                "phase": self._phase,
                "slots": dict(self._slots),
                "lid": self._lid,
                "popped": sorted(self._popped),
                "pressing": None if self._pending is None else self._pending.key,
                "jammed": self._jammed,
                "faults": dict(self._faults),
                "link_down": self._link_down,
            }

    def close(self) -> None:
        """Stop watching: unsubscribe and cancel timers. Idempotent."""
        with self._lock:
            self._closed = True
            self.box.unsubscribe(self._on_box_event)
            self._cancel_steady()
            if self._pending is not None and self._pending.timer is not None:
                self._pending.timer.cancel()
            self._pending = None

    # -- checks ------------------------------------------------------------------

    def _check_can_press(self, key: int) -> None:
        if self._closed:
            raise BoxFault(Said("the watch is closed"))
        if self._jammed is not None:
            raise BoxFault(
                Said(
                    "key {jammed} jammed: retry it or mark it popped by hand first",
                    jammed=self._jammed,
                )
            )
        if self._link_down is not None:
            raise BoxFault(Said("the box link is down: {link_down}", link_down=self._link_down))
        if self._faults:
            raise BoxFault(
                Said("the box has a fault: {faults}", faults="; ".join(self._faults.values()))
            )
        if self._phase != HIDDEN:
            raise PressRefused(Said("the dice are not hidden yet"))
        if self._pending is not None:
            raise PressRefused(Said("key {key} is still being pressed", key=self._pending.key))
        if key in self._popped or not self._slots[key]:
            raise PressRefused(Said("slot {key} is empty: its die already jumped", key=key))

    def _require_jammed(self, key: int) -> None:
        if self._jammed != key:
            raise PressRefused(Said("key {key} is not jammed", key=key))

    # -- pressing -------------------------------------------------------------------

    def _first_pulse(self, press: _Press, jammed_before: bool) -> None:
        """Fire (outside the lock); on failure undo the press and re-raise."""
        try:
            self.box.fire(press.key)
        except BaseException:
            with self._lock:
                if self._pending is press:
                    self._pending = None
                    if jammed_before:
                        self._jammed = press.key
            raise
        self._pulsed(press)

    def _pulsed(self, press: _Press) -> None:
        """Check the slot ``check_s`` after the pulse ends (unless it already emptied)."""
        with self._lock:
            press.pulses += 1
            if self._pending is press:
                delay = self.box.limits.pulse_ms / 1000 + self._check_s
                press.timer = self.clock.call_later(delay, lambda: self._check(press))

    def _check(self, press: _Press) -> None:
        with self._lock:
            if self._pending is not press:
                return  # popped meanwhile, or a new hiding began
            if press.pulses >= 2:
                self._jam(press, "")
        if press.pulses < 2:
            try:
                self.box.fire(press.key)
            except Exception as exc:
                with self._lock:
                    if self._pending is press:
                        self._jam(press, f"second pulse refused: {exc}")
            else:
                self._pulsed(press)
        self._flush()

    def _jam(self, press: _Press, detail: str) -> None:
        self._pending = None
        self._jammed = press.key
        self._outbox.append(Jammed(press.key, self.clock.now(), detail))

    # -- box events ---------------------------------------------------------------

    def _on_box_event(self, event: BoxEvent) -> None:
        with self._lock:
            if self._closed:
                return
            if isinstance(event, SlotChanged):
                self._on_slot(event)
            elif isinstance(event, LidChanged):
                self._on_lid(event)
            elif isinstance(event, CoilFired):
                self._coil_ends[event.key] = event.at + event.pulse_ms / 1000
            elif isinstance(event, FaultChanged):
                if event.active:
                    self._faults[event.name] = event.detail or event.name
                else:
                    self._faults.pop(event.name, None)
            elif isinstance(event, LinkChanged):
                self._link_down = None if event.up else (event.detail or "link lost")
        self._flush()

    def _on_slot(self, event: SlotChanged) -> None:
        key, present = event.key, event.present
        if key not in self._slots or self._slots[key] == present:
            return
        self._slots[key] = present
        if self._phase == HIDDEN:
            if present:
                self._begin_hiding("die put back", event.at)
            elif key not in self._popped:
                self._pop(key, event.at)
        self._restart_steady()

    def _on_lid(self, event: LidChanged) -> None:
        if self._lid == event.closed:
            return
        self._lid = event.closed
        if self._phase == HIDDEN and not event.closed:
            self._begin_hiding("lid opened", event.at)
        self._restart_steady()

    def _pop(self, key: int, at: float) -> None:
        self._popped.add(key)
        if self._jammed == key:
            self._jammed = None
        pressed = self._pending is not None and self._pending.key == key
        if pressed:
            assert self._pending is not None
            if self._pending.timer is not None:
                self._pending.timer.cancel()
            self._pending = None
        coil_end = self._coil_ends.get(key)
        by_coil = pressed or (coil_end is not None and at - coil_end <= self._coil_effect_s)
        self._outbox.append(Popped(key, not by_coil, at))

    # -- hiding -----------------------------------------------------------------------

    def _begin_hiding(self, reason: str, at: float | None = None) -> None:
        if self._pending is not None and self._pending.timer is not None:
            self._pending.timer.cancel()
        self._pending = None
        self._jammed = None
        self._popped.clear()
        was_hidden = self._phase == HIDDEN
        self._phase = HIDING
        if was_hidden or reason == "asked":
            self._outbox.append(HidingStarted(reason, self.clock.now() if at is None else at))
        self._restart_steady()

    def _all_hidden(self) -> bool:
        return all(self._slots.values()) and self._lid is not False

    def _cancel_steady(self) -> None:
        if self._steady_timer is not None:
            self._steady_timer.cancel()
            self._steady_timer = None

    def _restart_steady(self) -> None:
        self._cancel_steady()
        self._steady_generation += 1
        if self._phase == HIDING and self._all_hidden():
            generation = self._steady_generation
            self._steady_timer = self.clock.call_later(
                self._steady_s, lambda: self._steady(generation)
            )

    def _steady(self, generation: int) -> None:
        with self._lock:
            if self._closed or generation != self._steady_generation or self._phase != HIDING:
                return
            self._steady_timer = None
            if not self._all_hidden():
                return
            self._phase = HIDDEN
            self._popped.clear()
            self._outbox.append(HidingDone(self.clock.now()))
        self._flush()

    # -- delivery ---------------------------------------------------------------------

    def _flush(self) -> None:
        """Deliver queued events in order; one thread at a time, never under ``_lock``."""
        while True:
            if not self._delivering.acquire(blocking=False):
                return  # another thread is delivering; it re-checks the queue when done
            try:
                while True:
                    with self._lock:
                        if not self._outbox:
                            break
                        event = self._outbox.popleft()
                    try:
                        self._listener(event)
                    except Exception:
                        log.exception("watch listener failed on %r", event)
            finally:
                self._delivering.release()
            with self._lock:
                if not self._outbox:
                    return
