"""Direct GPIO backend over gpiozero (one of the two ways to drive the box, see
``docs/architecture.md``).

Coils are ``DigitalOutputDevice`` (active high, created off); sensors and the lid
are ``DigitalInputDevice`` whose edges feed our own :class:`Debouncer`. Every
pulse is booked with :class:`CoilGuard` first (a refusal moves no pin), then a
dedicated coil thread switches the coil on, holds it for its length of real time
and switches it off in a ``finally``: the off never waits for the clock thread, a
listener or the caller. The guard is told when the pin really went high and low:
the box clock's time at the write that set it high, and that plus the real time
(``time.monotonic``) until the write that set it low returned. Spacing and duty count
what happened, never the requested length.

A pulse ends at whichever comes first (``docs/install-pi.md``, *How long a coil can
really be on*):

- its timer. On lgpio the pulse is timed by lgpio's own C thread (:class:`TimedPulses`),
  so it ends on time even if Python hangs; the coil thread's off is a second, redundant
  one. On the thread-timed factories (``rpigpio``, ``mock``) the coil thread times it,
  armed for at most :data:`TIMER_CAP_MS` so that the pin's high time stays within
  100 ms even when the thread wakes up to :data:`TIMER_SLACK_MS` late;
- its deadline, :data:`DEADLINE_MS` after the write that set it high, watched by an
  independent thread with its own lock: a coil still high then is forced low with every
  other coil, and a fault is latched (pulses refused until :meth:`GpioBox.clear_faults`).
  A pulse the coil thread ends late, past the deadline, latches the same fault.

:meth:`GpioBox.check_coils` is what systemd's watchdog asks before each ping.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Protocol, TypeVar

from gpiozero import DigitalInputDevice, DigitalOutputDevice
from gpiozero.pins import Factory

from ..clock import Clock, RealClock
from ..sentences import Said
from .base import (
    KEYS,
    Box,
    BoxEvent,
    BoxFault,
    CoilFired,
    FaultChanged,
    LidChanged,
    Limits,
    SlotChanged,
)
from .debounce import Debouncer
from .pin_factory import coil_output, load_pin_factory
from .pins import PinMap
from .safety import Booking, CoilGuard

_Device = TypeVar("_Device")

log = logging.getLogger(__name__)

PULSE_SWITCH_INTERVAL_S = 0.0005
"""Python's thread switch interval while a thread-timed pulse is on (the default is 5 ms): a
busy thread holding the GIL gives it up within 0.5 ms when the coil thread wakes to end the
pulse. Set for the pulse only (at most 100 ms), then put back."""

PULSE_OFF_US = 1000
"""The low time that closes a timed pulse: lgpio sends one on/off cycle, then stops."""

COIL_ON_TIMEOUT_S = 1.0
"""How long ``fire`` waits for the coil thread to switch the coil on before giving up."""

DEADLINE_MS = Limits.MAX_PULSE_MS
"""A coil still high this long (ms) after the write that set it high is forced low, with a fault."""

TIMER_SLACK_MS = 10.0
"""How late (ms) a coil thread's timer may wake under load and the pulse still end by its
deadline: measured by ``diablotin reliability --only coils`` (``docs/reliability.md``)."""

TIMER_CAP_MS = DEADLINE_MS - TIMER_SLACK_MS
"""The longest a thread-timed pulse is armed for (ms): a request in (90, 100] ms is
allowed, and held for 90 ms. lgpio times the full request."""

DEADLINE_FAULT = "coil-deadline"


class TimedPulses:
    """Coil pulses timed by lgpio itself (``tx_pulse``, one cycle), not by a Python thread.

    lgpio runs the pulse on its own C thread, which needs neither the GIL nor any of our
    threads: the coil goes off on time even if the Python side hangs mid-pulse (a held
    GIL, a deadlock, a stuck thread). It is not a hardware timer: a frozen process
    (SIGSTOP) or kernel stops it too; the systemd watchdog and coils-off cover that.
    """

    def __init__(self, lgpio: ModuleType, handle: int) -> None:
        self._lgpio = lgpio
        self._handle = handle

    def start(self, gpio: int, length_ms: float) -> None:
        """Pulse BCM ``gpio`` high for ``length_ms`` (lgpio.error if it cannot)."""
        self._lgpio.tx_pulse(self._handle, gpio, round(length_ms * 1000), PULSE_OFF_US, 0, 1)

    def stop(self, gpio: int) -> None:
        """Cancel any pulse on ``gpio`` (the caller then drives it low)."""
        self._lgpio.tx_pulse(self._handle, gpio, 0, 0)


def timed_pulses(factory: Factory) -> TimedPulses | None:
    """lgpio's timed pulses when ``factory`` is gpiozero's ``LGPIOFactory`` (it holds an
    lgpio chip handle, ``_handle``, and the ``lgpio`` module is loaded), else None: the coil
    thread then times each pulse (``rpigpio``, ``mock``)."""
    handle = getattr(factory, "_handle", None)
    lgpio = sys.modules.get("lgpio")
    if lgpio is None or type(handle) is not int or not callable(getattr(lgpio, "tx_pulse", None)):
        return None
    return TimedPulses(lgpio, handle)


@dataclass
class _Pulse:
    key: int
    armed_ms: float
    """What the timer is armed for (ms): the request, capped on thread-timed backends."""
    booking: Booking
    generation: int
    on: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    at: float = 0.0
    """The box clock's time of the write that set the pin high."""
    started: float = 0.0
    """``time.monotonic()`` just before that write."""
    deadline: float = math.inf
    """``time.monotonic()`` by which the pin must be low: ``started`` + :data:`DEADLINE_MS`."""
    forced: bool = False
    """The deadline thread took it (at its deadline)."""
    found_high: bool = False
    """...and found a coil still high: it forced it low and reported it."""


class GpioBox(Box):
    """The box on gpiozero pins.

    ``factory`` is a name from :data:`FACTORY_NAMES` or a gpiozero ``Factory``
    instance (tests pass their own ``MockFactory``; the box then does not close
    it). ``clock`` (default: a new :class:`RealClock`) times debouncing and the
    safety bookkeeping; the pulse itself is real time. ``deadline_fault=False`` (the
    simulated toy, whose coils are mock pins) still forces a pulse off at its deadline
    but only logs it: host load alone then never stops a demo. Events are emitted on
    the clock thread (sensors) and on the caller's thread (``CoilFired``).

    Raises :class:`FactoryUnavailable` when the factory cannot load and
    :class:`BoxFault` when a pin cannot be opened (the pins opened so far are
    switched off and released first).
    """

    kind = "gpio"

    def __init__(
        self,
        pins: PinMap,
        limits: Limits | None = None,
        clock: Clock | None = None,
        factory: str | Factory = "lgpio",
        deadline_fault: bool = True,
    ) -> None:
        super().__init__(limits)
        self._deadline_fault = deadline_fault
        self.pins = pins
        self._owns_clock = clock is None
        self.clock: Clock = clock if clock is not None else RealClock()
        self._owns_factory = isinstance(factory, str)
        self.factory_name = factory if isinstance(factory, str) else type(factory).__name__
        self._factory = load_pin_factory(factory) if isinstance(factory, str) else factory
        self._guard = CoilGuard(self.limits, self.clock)
        self._timed = timed_pulses(self._factory)
        self.pulse_timing = "lgpio" if self._timed is not None else "thread"
        self.timer_cap_ms = self.limits.MAX_PULSE_MS if self._timed is not None else TIMER_CAP_MS
        self._closed = False
        self._close_lock = threading.Lock()
        self._faults: dict[str, str] = {}
        # Coil thread state: ``_generation`` is bumped by all_off/close; a pulse
        # booked under an older generation never switches on, and one in
        # progress ends at once.
        self._coil_cond = threading.Condition()
        self._generation = 0
        self._queued = 0  # pulses handed to the coil thread and not yet finished
        self._pulses: queue.SimpleQueue[_Pulse | None] = queue.SimpleQueue()
        # The deadline thread's own lock: nothing the coil thread holds can stop it.
        self._deadline_cond = threading.Condition()
        self._current: _Pulse | None = None  # the pulse between its on write and its end
        self._coils: dict[int, DigitalOutputDevice] = {}
        self._sensors: dict[int, DigitalInputDevice] = {}
        self._debouncers: dict[int, Debouncer] = {}
        self._lid: DigitalInputDevice | None = None
        self._lid_debouncer: Debouncer | None = None
        self._led: DigitalOutputDevice | None = None
        try:
            self._open_devices()
        except BaseException:
            self._release_devices()
            self._close_owned()
            raise
        self._worker = threading.Thread(target=self._coil_worker, name="coils", daemon=True)
        self._deadline_thread = threading.Thread(
            target=self._deadline_worker, name="coil-deadline", daemon=True
        )
        self._worker.start()
        self._deadline_thread.start()
        if self._led is not None:
            self._led.on()

    # -- construction ------------------------------------------------------

    def _open(self, role: str, make: Callable[[], _Device]) -> _Device:
        try:
            return make()
        except Exception as exc:
            raise BoxFault(
                Said(
                    "cannot open the {role} pin: {kind}: {exc}",
                    role=role,
                    kind=type(exc).__name__,
                    exc=exc,
                )
            ) from exc

    def _open_devices(self) -> None:
        factory = self._factory
        for key, pin in zip(KEYS, self.pins.coils, strict=True):
            self._coils[key] = self._open(
                f"coil {key} (GPIO{pin})",
                coil_output(pin, factory),
            )
        pull_up = self.pins.sensor_present == "low"
        debounce_ms = self.limits.debounce_ms
        for key, pin in zip(KEYS, self.pins.sensors, strict=True):
            device: DigitalInputDevice = self._open(
                f"sensor {key} (GPIO{pin})",
                partial(DigitalInputDevice, pin, pull_up=pull_up, pin_factory=factory),
            )
            self._sensors[key] = device
            debouncer = Debouncer(
                self.clock,
                partial(self._report_slot, key),
                initial=bool(device.is_active),
                debounce_ms=debounce_ms,
                read_level=partial(_is_active, device),
            )
            self._debouncers[key] = debouncer
            _feed(device, debouncer)
        if self.pins.lid is not None:
            lid_pin = self.pins.lid
            lid = self._open(
                f"lid (GPIO{lid_pin})",
                partial(DigitalInputDevice, lid_pin, pull_up=True, pin_factory=factory),
            )
            self._lid = lid
            self._lid_debouncer = Debouncer(
                self.clock,
                self._report_lid,
                initial=bool(lid.is_active),
                debounce_ms=debounce_ms,
                read_level=partial(_is_active, lid),
            )
            _feed(lid, self._lid_debouncer)
        if self.pins.led is not None:
            led_pin = self.pins.led
            self._led = self._open(
                f"led (GPIO{led_pin})",
                lambda: DigitalOutputDevice(led_pin, initial_value=False, pin_factory=factory),
            )

    # -- coils ---------------------------------------------------------------

    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        """Book a pulse with the guard, then have the coil thread switch coil ``key`` on.

        Returns once the coil is on. On thread-timed backends a request longer than
        :data:`TIMER_CAP_MS` is held for that long (``CoilFired`` says so). Raises
        :class:`LimitRefused` (no pin moved), or :class:`BoxFault` when the box is
        closed, a fault is latched, or the pin failed (the coil is off again then). A
        listener raising on the ``CoilFired`` event switches every coil off and the
        error propagates.
        """
        if self._closed:
            raise BoxFault(Said("the gpio box is closed"))
        if self._faults:
            raise BoxFault(Said("the box has a fault: {value}", value=self._fault_text()))
        booking = self._guard.admit_measured(key, pulse_ms, reserve_ms=DEADLINE_MS)
        if self._faults:  # latched while this request was being admitted
            self._guard.cancel(booking)
            raise BoxFault(Said("the box has a fault: {value}", value=self._fault_text()))
        armed = min(booking.length_ms, self.timer_cap_ms)
        pulse = _Pulse(key, armed, booking, self._generation)
        with self._coil_cond:
            self._queued += 1
        self._pulses.put(pulse)
        if not pulse.on.wait(COIL_ON_TIMEOUT_S):
            self.all_off()
            raise BoxFault(
                Said(
                    "coil {key} did not switch on within {timeout:g} s",
                    key=key,
                    timeout=COIL_ON_TIMEOUT_S,
                )
            )
        if pulse.error is not None:
            raise BoxFault(
                Said("coil {key} failed: {error}", key=key, error=pulse.error)
            ) from pulse.error
        try:
            self.emit(CoilFired(key, armed, pulse.at))
        except BaseException:
            self.all_off()
            raise

    def _coil_worker(self) -> None:
        _realtime("the coil thread")
        while True:
            pulse = self._pulses.get()
            if pulse is None:
                return
            self._run_pulse(pulse)

    def _run_pulse(self, pulse: _Pulse) -> None:
        """Arm the deadline, on, hold ``armed_ms`` of real time (cut short by all_off/close),
        off in ``finally``; then tell the guard what the pin did."""
        switched = False
        interval = sys.getswitchinterval()
        try:
            if self._timed is None:  # thread-timed: other threads give up the GIL sooner
                sys.setswitchinterval(PULSE_SWITCH_INTERVAL_S)
            with self._coil_cond:
                if self._closed or pulse.generation != self._generation:
                    raise BoxFault(Said("every coil was switched off before this pulse began"))
                self._arm(pulse)
                switched = True
                pulse.at = self.clock.now()
                self._guard.switched_on(pulse.booking, pulse.at)
                if self._timed is not None:
                    self._timed.start(self.pins.coils[pulse.key - 1], pulse.armed_ms)
                else:
                    self._coils[pulse.key].on()
                # From the end of the on write (a slow write does not shorten the pulse), but
                # never past the cap counted from just before it (the deadline's origin).
                end = min(
                    time.monotonic() + pulse.armed_ms / 1000,
                    pulse.started + self.timer_cap_ms / 1000,
                )
            pulse.on.set()
            with self._coil_cond:
                while pulse.generation == self._generation:
                    remaining = end - time.monotonic()
                    if remaining <= 0:
                        break
                    self._coil_cond.wait(remaining)
        except BaseException as exc:
            pulse.error = exc
        finally:
            if switched:
                self._switch_off(pulse.key)
                self._ended(pulse)
            else:
                self._guard.cancel(pulse.booking)
            sys.setswitchinterval(interval)
            pulse.on.set()
            with self._coil_cond:
                self._queued -= 1
                self._coil_cond.notify_all()

    def _arm(self, pulse: _Pulse) -> None:
        """Start ``pulse``'s deadline (just before its on write) with the deadline thread."""
        with self._deadline_cond:
            pulse.started = time.monotonic()
            pulse.deadline = pulse.started + DEADLINE_MS / 1000
            self._current = pulse
            self._deadline_cond.notify_all()

    def _ended(self, pulse: _Pulse) -> None:
        """After the off write: book the measured high time; a pulse that outlived its
        deadline (thread-timed: the off write came late) latches the deadline fault first,
        so no pulse can be admitted between the two."""
        high_s = time.monotonic() - pulse.started
        if self._timed is not None:  # lgpio's own thread switched it off at the end
            high_s = min(high_s, pulse.armed_ms / 1000)
        if high_s * 1000 > DEADLINE_MS and not pulse.found_high:
            self._deadline_missed(
                f"coil {pulse.key} was on {high_s * 1000:.0f} ms, over the {DEADLINE_MS:g} ms "
                "limit: its timer woke up late"
            )
        self._guard.switched_off(pulse.booking, pulse.at + high_s)
        with self._deadline_cond:
            if self._current is pulse:
                self._current = None
                self._deadline_cond.notify_all()

    def _deadline_worker(self) -> None:
        """The independent thread: a pulse still current at its deadline is forced off."""
        _realtime("the coil deadline thread")
        while True:
            with self._deadline_cond:
                pulse = self._current
                if self._closed:
                    return
                if pulse is None or pulse.forced:
                    self._deadline_cond.wait()
                    continue
                left = pulse.deadline - time.monotonic()
                if left > 0:
                    self._deadline_cond.wait(left)
                    continue
                pulse.forced = True
            self._force_off(pulse)

    def _force_off(self, pulse: _Pulse) -> None:
        """``pulse`` passed its deadline: every coil low; a fault if one was still high."""
        high = [key for key, coil in self._coils.items() if _is_high(coil)]
        for key in self._coils:
            self._switch_off(key)
        if not high:
            return  # ended meanwhile: the coil thread's own measure tells if it was late
        self._deadline_missed(
            f"coil {pulse.key} was still on {DEADLINE_MS:g} ms after its pulse began: "
            "every coil was forced off"
        )
        pulse.found_high = True  # only now: the fault is latched before the guard lets go
        self._guard.switched_off(pulse.booking, pulse.at + time.monotonic() - pulse.started)

    def _deadline_missed(self, detail: str) -> None:
        """Log ``detail``; latch it as the deadline fault unless ``deadline_fault`` is off."""
        log.error("%s", detail)
        if self._deadline_fault:
            self._latch_fault(DEADLINE_FAULT, detail)

    def check_coils(self) -> bool:
        """True while the coil thread and the deadline thread run and no pulse is past its
        deadline (what systemd's watchdog asks before each ping). Never blocks."""
        if self._closed:
            return True
        pulse = self._current
        return (
            self._worker.is_alive()
            and self._deadline_thread.is_alive()
            and (pulse is None or time.monotonic() <= pulse.deadline)
        )

    def clear_faults(self) -> None:
        """Every coil off, then forget the latched faults: pulses are allowed again."""
        self.all_off()
        for name in list(self._faults):
            detail = self._faults.pop(name)
            self._safe_emit(FaultChanged(name, False, detail, self.clock.now()))
        if self._led is not None and not self._led.closed and not self._closed:
            with contextlib.suppress(Exception):
                self._led.on()

    def _switch_off(self, key: int) -> None:
        coil = self._coils[key]
        if coil.closed:
            return
        try:
            if self._timed is not None:
                try:
                    self._timed.stop(self.pins.coils[key - 1])
                except Exception:  # the pulse still ends by itself; drive the pin low anyway
                    log.exception("coil %d: could not cancel its timed pulse", key)
            coil.off()
        except Exception as exc:
            log.exception("coil %d could not be switched off", key)
            self._latch_fault(f"coil{key}", f"coil {key} could not be switched off: {exc}")

    def all_off(self) -> None:
        """Switch every coil off now and cut any pulse short. Never raises."""
        try:
            if self._coil_cond.acquire(timeout=0.1):
                try:
                    self._generation += 1
                    self._coil_cond.notify_all()
                finally:
                    self._coil_cond.release()
            else:
                self._generation += 1  # the coil thread is stuck in a pin call
        except Exception:
            log.exception("all_off: could not cancel the pulse in progress")
        for key in self._coils:
            self._switch_off(key)

    def wait_idle(self, timeout_s: float = 1.0) -> bool:
        """Block until no pulse is queued or in progress (real time); False on timeout."""
        with self._coil_cond:
            return self._coil_cond.wait_for(lambda: self._queued == 0, timeout_s)

    def cooldown_s(self, key: int) -> float:
        """Seconds until coil ``key`` may fire a default pulse again (0 if now)."""
        return self._guard.cooldown_s(key)

    # -- sensors ---------------------------------------------------------------

    def slots(self) -> dict[int, bool]:
        return {key: debouncer.level for key, debouncer in self._debouncers.items()}

    def lid_closed(self) -> bool | None:
        return None if self._lid_debouncer is None else self._lid_debouncer.level

    def _report_slot(self, key: int, present: bool, at: float) -> None:
        self._safe_emit(SlotChanged(key, present, at))

    def _report_lid(self, closed: bool, at: float) -> None:
        self._safe_emit(LidChanged(closed, at))

    def _safe_emit(self, event: BoxEvent) -> None:
        """Emit from a backend thread: a listener that raises is logged and every coil goes off."""
        try:
            self.emit(event)
        except Exception:
            log.exception("a box listener failed on %r; switching every coil off", event)
            self.all_off()

    # -- faults and status -------------------------------------------------------

    def _latch_fault(self, name: str, detail: str) -> None:
        if name in self._faults:
            return
        self._faults[name] = detail
        if self._led is not None and not self._led.closed:
            with contextlib.suppress(Exception):
                self._led.off()
        self._safe_emit(FaultChanged(name, True, detail, self.clock.now()))

    def _fault_text(self) -> str:
        return "; ".join(self._faults.values())

    def status(self) -> dict[str, object]:
        def coil_on(device: DigitalOutputDevice) -> bool | None:
            return None if device.closed else bool(device.value)

        return {
            "backend": self.kind,
            "factory": self.factory_name,
            "pulse_timing": self.pulse_timing,
            "timer_cap_ms": self.timer_cap_ms,
            "link": "local",
            "closed": self._closed,
            "faults": [{"name": n, "detail": d} for n, d in self._faults.items()],
            "coils": {key: coil_on(device) for key, device in self._coils.items()},
            "slots": self.slots(),
            "lid": self.lid_closed(),
            "limits": self.limits.as_dict(),
            "pins": dataclasses.asdict(self.pins),
        }

    # -- shutdown ----------------------------------------------------------------

    def close(self) -> None:
        """All coils off, stop the coil thread, then release every pin (coils first). Idempotent."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self.all_off()
        self._pulses.put(None)
        with self._deadline_cond:
            self._deadline_cond.notify_all()
        for thread in (self._worker, self._deadline_thread):
            if thread is not threading.current_thread():
                thread.join(timeout=1.0)
        self._release_devices()
        self._close_owned()

    def _release_devices(self) -> None:
        for debouncer in [*self._debouncers.values(), self._lid_debouncer]:
            if debouncer is not None:
                debouncer.close()
        outputs = [*self._coils.values(), self._led]
        inputs = [*self._sensors.values(), self._lid]
        for device in outputs:
            if device is None or device.closed:
                continue
            try:
                device.off()
            except Exception:
                log.exception("could not switch %r off before closing it", device)
            _close_quietly(device)
        for device in inputs:
            if device is not None:
                _close_quietly(device)

    def _close_owned(self) -> None:
        if self._owns_factory:
            with contextlib.suppress(Exception):
                self._factory.close()
        if self._owns_clock:
            self.clock.close()

    def __enter__(self) -> GpioBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _feed(device: DigitalInputDevice, debouncer: Debouncer) -> None:
    """Send the device's raw edges to ``debouncer`` (gpiozero's bounce_time stays off)."""
    device.when_activated = lambda: debouncer.edge(True)
    device.when_deactivated = lambda: debouncer.edge(False)


def _is_high(device: DigitalOutputDevice) -> bool:
    """Whether an output reads high; True when it cannot be read (so it is forced low)."""
    try:
        return not device.closed and bool(device.value)
    except Exception:
        return True


def _is_active(device: DigitalInputDevice) -> bool:
    return bool(device.is_active)


class _Closes(Protocol):
    def close(self) -> None: ...


def _close_quietly(device: _Closes) -> None:
    try:
        device.close()
    except Exception:
        log.exception("could not close %r", device)


def _realtime(what: str) -> None:
    """Ask the kernel to wake this thread before any ordinary one (``SCHED_FIFO``), so a
    coil's off write waits for the interpreter's lock only, not for the CPU as well. Needs
    root or ``CAP_SYS_NICE`` (the systemd unit grants it); without it the thread runs as
    before, and the log says so once per thread."""
    try:
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_FIFO, os.sched_param(1))
    except (AttributeError, OSError) as exc:
        log.info("%s keeps ordinary scheduling (%s)", what, exc)
