"""The virtual co-processor: the Pico firmware's own code on the host, behind a pty.

:class:`VirtualCoprocessor` runs ``firmware/diablotin_fw/core.py`` (the code the Pico
runs) on a thread, on the pins of a :class:`~controller.box.toy.SimulatedToy`, and
speaks through a pseudo-terminal that the ordinary :class:`SerialBox` opens like a real
Pico. Its fault menu breaks the link the ways a real one breaks:

- :meth:`~VirtualCoprocessor.silence`: nothing passes either way (the port stays open);
- :meth:`~VirtualCoprocessor.garbage`: random bytes mixed into both directions;
- :meth:`~VirtualCoprocessor.drop` / :meth:`~VirtualCoprocessor.restore`: the USB link
  goes away and comes back (as a new device);
- :meth:`~VirtualCoprocessor.reset`: the Pico restarts mid-game;
- :meth:`~VirtualCoprocessor.slow`: every reply arrives late;
- :meth:`~VirtualCoprocessor.corrupt`: frames get a flipped bit (bad CRC);
- :meth:`~VirtualCoprocessor.bad_fields`: frames with a valid CRC but fields of the wrong
  type or range (a fault name that is not text, a negative age...), as a buggy firmware
  would send them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import select
import threading
import time
import tty
from collections import deque
from typing import Protocol

from gpiozero.pins.mock import MockFactory

from ..clock import Clock
from .base import KEYS, Limits
from .pins import PinMap
from .protocol import core, expected_settings, wire
from .serial import SerialBox, SerialStatus
from .toy import SimulatedToy, ToyFaults

log = logging.getLogger(__name__)

LOOP_S = 0.002
"""The virtual firmware's loop turn (the Pico's is about 1 ms)."""
BAD_FIELD_FRAMES: tuple[dict[str, object], ...] = (
    {"t": "hb", "boot": 0, "up": 5, "f": [1]},  # a fault name that is not text
    {"t": "hb", "boot": 0, "up": 5, "f": [["x"]]},  # not even hashable
    {"t": "hb", "boot": 0, "up": -1, "f": []},
    {"t": "r", "s": 0, "ok": True, "faults": {"x": 1}},
    {"t": "r", "s": 0, "ok": False, "err": 7, "why": None},
    {"t": "ev", "s": 0, "e": "slot", "k": 9, "p": True, "age": 0},
    {"t": "ev", "s": 0, "e": "slot", "k": 1, "p": True, "age": -5},
    {"t": "ev", "s": 0, "e": "state", "state": {"slots": 1}, "age": 0},
)
"""CRC-valid frames with bad fields; ``boot`` 0 and ``s`` 0 are replaced by live values."""


class FirmwareCore(Protocol):
    """What the host uses of the firmware's ``core.Firmware`` (loaded from firmware/)."""

    boot_id: int
    faults: dict[str, str]

    def poll(self, now: int) -> None:
        """One turn of the firmware's loop at ``now`` (its ticks, ms)."""


GARBAGE_RATE = 0.05
"""Default chance per loop turn and direction of a burst of random bytes."""


class VirtualHal:
    """The firmware's hal (see ``core.py``) on a SimulatedToy's mock pins and the pty."""

    def __init__(self, coprocessor: VirtualCoprocessor, factory: MockFactory, pins: PinMap):
        self._co = coprocessor
        self._coils = {key: factory.pin(gp) for key, gp in zip(KEYS, pins.coils, strict=True)}
        for pin in self._coils.values():
            pin.function = "output"
            pin.state = False
        self._sensors = {key: factory.pin(gp) for key, gp in zip(KEYS, pins.sensors, strict=True)}
        self._lid = factory.pin(pins.lid) if pins.lid is not None else None
        self.led = False
        self.watchdog = False
        self.session = False
        self.pulses: list[tuple[int, float, float | None]] = []  # key, on, off (monotonic s)

    def set_coil(self, key: int, on: bool) -> None:
        pin = self._coils[key]
        if on and not pin.state:
            self.pulses.append((key, time.monotonic(), None))
        elif not on and pin.state:
            self._ended(key)
        pin.state = bool(on)

    def _ended(self, key: int) -> None:
        for i in range(len(self.pulses) - 1, -1, -1):
            if self.pulses[i][0] == key and self.pulses[i][2] is None:
                self.pulses[i] = (key, self.pulses[i][1], time.monotonic())
                return

    def all_off(self) -> None:
        for key in KEYS:
            self.set_coil(key, False)

    def energised(self) -> list[int]:
        return [key for key, pin in self._coils.items() if pin.state]

    def read_sensor(self, key: int) -> int:
        return 1 if self._sensors[key].state else 0

    def read_lid(self) -> int | None:
        return None if self._lid is None else (1 if self._lid.state else 0)

    def set_led(self, on: bool) -> None:
        self.led = bool(on)

    def read(self) -> bytes:
        return self._co._take_received()

    def write(self, data: bytes) -> None:
        self._co._send(data)

    def start_watchdog(self) -> None:
        self.watchdog = True

    def feed(self) -> None:
        """Nothing to feed: a hung virtual firmware is modelled by :meth:`reset`."""

    def set_session(self, on: bool) -> None:
        self.session = bool(on)


class VirtualCoprocessor:
    """A virtual Pico: the firmware's code, a simulated toy, a pty, and a fault menu.

    ``port`` is the pty path the host opens (None while the link is dropped; a new path
    after :meth:`restore` or a reset, as a real Pico re-enumerates). Thread-safe.
    """

    def __init__(
        self,
        pins: PinMap,
        limits: Limits,
        clock: Clock,
        seed: int | None = None,
        faults: ToyFaults | None = None,
        *,
        settings: dict[str, object] | None = None,
        version: str | None = None,
    ) -> None:
        self.factory = MockFactory()
        self.toy = SimulatedToy(self.factory, pins, clock, seed, faults)
        self.settings = settings if settings is not None else expected_settings(pins, limits)
        self._version = version
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self.hal = VirtualHal(self, self.factory, pins)
        self.boots = 0
        self.firmware: FirmwareCore | None = None
        """The firmware's ``core.Firmware``, made at the first boot."""
        self._received = b""
        self._delayed: deque[tuple[float, bytes]] = deque()
        self._silent = False
        self._dropped = False
        self._garbage = 0.0
        self._corrupt = 0.0
        self._delay_s = 0.0
        self._bad_fields = False
        self.bad_fields_sent = 0
        self._master: int | None = None
        self._slave: int | None = None
        self.port: str | None = None
        self._boot(reset_cause=None)
        self._open_pty()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="virtual-pico", daemon=True)
        self._thread.start()

    # -- the fault menu ---------------------------------------------------------

    def silence(self, on: bool = True) -> None:
        """Let nothing through in either direction (the port stays open)."""
        with self._lock:
            self._silent = on
            self._delayed.clear()

    def garbage(self, rate: float = GARBAGE_RATE) -> None:
        """Mix bursts of random bytes into both directions (``rate`` per loop turn; 0: off)."""
        with self._lock:
            self._garbage = rate

    def corrupt(self, rate: float = 0.3) -> None:
        """Flip one bit in this share of frames (or received chunks), both directions."""
        with self._lock:
            self._corrupt = rate

    def bad_fields(self, on: bool = True) -> None:
        """Send one CRC-valid frame with bad fields (:data:`BAD_FIELD_FRAMES`, in turn) with
        everything the Pico sends."""
        with self._lock:
            self._bad_fields = on

    def slow(self, delay_s: float = 0.3) -> None:
        """Delay everything the Pico sends by ``delay_s`` (0: off)."""
        with self._lock:
            self._delay_s = delay_s

    def drop(self) -> None:
        """Unplug: the port disappears; the firmware keeps running without a host."""
        with self._lock:
            self._dropped = True
            self._close_pty()

    def restore(self) -> None:
        """Plug back in (as a new device path)."""
        with self._lock:
            if self._dropped:
                self._dropped = False
                self._open_pty()

    def reset(self, drop_usb: bool = True) -> None:
        """Restart the firmware: coils off, state lost, a new boot id.

        ``drop_usb``: the USB device re-enumerates too (a new path), as on a real Pico;
        otherwise only the firmware restarts behind the open port.
        """
        with self._lock:
            self._boot(reset_cause=None)
            if drop_usb and not self._dropped:
                self._close_pty()
                self._open_pty()

    def clear(self) -> None:
        """Every link fault off; a dropped link comes back."""
        with self._lock:
            self.silence(False)
            self.garbage(0)
            self.corrupt(0)
            self.slow(0)
            self.bad_fields(False)
            self.restore()

    def _booted(self) -> FirmwareCore:
        assert self.firmware is not None, "the virtual Pico has not booted yet"
        return self.firmware

    def status(self) -> dict[str, object]:
        with self._lock:
            return {
                "port": self.port,
                "boots": self.boots,
                "silent": self._silent,
                "dropped": self._dropped,
                "garbage": self._garbage,
                "corrupt": self._corrupt,
                "slow_s": self._delay_s,
                "bad_fields": self._bad_fields,
                "coils_on": self.hal.energised(),
                "firmware_faults": dict(self._booted().faults),
                "toy": self.toy.status(),
            }

    def coils_on(self) -> list[int]:
        """Keys whose coil is energised right now."""
        with self._lock:
            return self.hal.energised()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        with self._lock:
            self.hal.all_off()
            self._close_pty()

    # -- the machine --------------------------------------------------------------

    def _boot(self, reset_cause: str | None) -> None:
        self.boots += 1
        self._received = b""
        self._delayed.clear()
        options: dict[str, object] = {"reset_cause": reset_cause}
        if self._version is not None:
            options["version"] = self._version
        boot_id = self._rng.getrandbits(30)
        self.firmware = core.Firmware(self.hal, self.settings, self._ticks(), boot_id, **options)
        self.hal.session = False

    @staticmethod
    def _ticks() -> int:
        period: int = core.TICKS_PERIOD
        return int(time.monotonic() * 1000) % period

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)
        log.debug("virtual Pico on %s", self.port)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.port = None
        self._delayed.clear()

    def _run(self) -> None:
        """Wait for the host's bytes outside the lock; read them only under it, and only
        from the pty that is still open (drop/reset close fds under the lock, and a closed
        fd number can be reused at once by any new socket or pty)."""
        while not self._stop.is_set():
            master = self._master
            ready = False
            if master is None:
                time.sleep(LOOP_S)
            else:
                try:
                    ready = bool(select.select([master], [], [], LOOP_S)[0])
                except OSError:
                    ready = False  # closed under us by drop/reset: the next turn sees it
            with self._lock:
                if ready and master == self._master and self._master is not None:
                    try:
                        data = os.read(self._master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data:
                        self._receive(data)
                self._booted().poll(self._ticks())
                self._release_delayed()

    def _noise(self) -> bytes:
        if self._garbage and self._rng.random() < self._garbage:
            return bytes(self._rng.getrandbits(8) for _ in range(self._rng.randint(1, 40)))
        return b""

    def _flip(self, data: bytes) -> bytes:
        if self._corrupt and data and self._rng.random() < self._corrupt:
            buf = bytearray(data)
            i = self._rng.randrange(max(1, len(buf) - 1))  # keep a frame's final newline
            buf[i] ^= 1 << self._rng.randrange(8)
            return bytes(buf)
        return data

    def _receive(self, data: bytes) -> None:
        if self._silent:
            return
        self._received += self._noise() + self._flip(data)

    def _take_received(self) -> bytes:
        data, self._received = self._received, b""
        return data

    def _bad_field_frame(self) -> bytes:
        if not self._bad_fields:
            return b""
        msg = dict(BAD_FIELD_FRAMES[self.bad_fields_sent % len(BAD_FIELD_FRAMES)])
        self.bad_fields_sent += 1
        if msg.get("boot") == 0:
            msg["boot"] = self._booted().boot_id
        if msg.get("s") == 0:
            msg["s"] = self._rng.randrange(wire.SEQ_MOD)
        encoded: bytes = wire.encode(msg)
        return encoded

    def _send(self, data: bytes) -> None:
        if self._silent or self._dropped:
            return
        data = self._bad_field_frame() + self._noise() + self._flip(data)
        if self._delay_s:
            self._delayed.append((time.monotonic() + self._delay_s, data))
        else:
            self._write(data)

    def _release_delayed(self) -> None:
        now = time.monotonic()
        while self._delayed and self._delayed[0][0] <= now:
            self._write(self._delayed.popleft()[1])

    def _write(self, data: bytes) -> None:
        if self._master is None:
            return
        with contextlib.suppress(OSError):  # nobody reading, buffer full: a Pico drops it too
            os.write(self._master, data)


class VirtualStatus(SerialStatus):
    """:meth:`VirtualBox.status`: a serial box's, and its co-processor's."""

    virtual: dict[str, object]


class VirtualBox(SerialBox):
    """The serial backend on a :class:`VirtualCoprocessor`; closing it stops the coprocessor."""

    kind = "virtual"

    def __init__(
        self, coprocessor: VirtualCoprocessor, pins: PinMap, limits: Limits | None, clock: Clock
    ) -> None:
        self.coprocessor = coprocessor
        super().__init__(lambda: coprocessor.port, pins, limits, clock)

    def status(self) -> VirtualStatus:
        return VirtualStatus(**super().status(), virtual=self.coprocessor.status())

    def close(self) -> None:
        super().close()
        self.coprocessor.close()


def make_virtual_box(
    pins: PinMap,
    limits: Limits | None,
    clock: Clock,
    seed: int | None = None,
    faults: ToyFaults | None = None,
) -> tuple[VirtualBox, VirtualCoprocessor]:
    """A serial box on a virtual co-processor; returns ``(box, coprocessor)``.

    ``coprocessor.toy`` is the simulated toy (``hide()``, ``press_by_hand()``, ``face()``,
    with ``faults`` switched on from the start); the coprocessor's own methods are the
    link's fault menu. Waits up to 3 s for the first handshake.
    """
    coprocessor = VirtualCoprocessor(pins, limits or Limits(), clock, seed, faults)
    box = VirtualBox(coprocessor, pins, limits, clock)
    if not box.wait_until_up(3.0):
        log.warning("the virtual Pico is not answering: %s", box.status()["link"]["detail"])
    return box, coprocessor
