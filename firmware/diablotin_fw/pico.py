"""The thin layer over ``machine``: pins, USB serial, watchdog, and the main loop.

Everything else is in ``core.py`` (tested on the host and under MicroPython's
WebAssembly port). ``main.py`` on the Pico calls :func:`main`.
"""

import json
import random
import sys
import time

import machine
import micropython

from . import core

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass

SETTINGS_PATH = "/diablotin.json"
"""Pin map and limits, written by the flashing step from hardware/pins.toml [pico]."""

WATCHDOG_MS = 500
"""Hardware watchdog timeout: a hung loop is reset within this (coils are off at boot)."""

READ_CHUNK = 256
"""Most bytes taken from USB per loop turn."""

_mp_time: Any = time  # MicroPython's time: ticks_ms, sleep_ms
_mp_sys: Any = sys  # MicroPython's sys: print_exception


class PicoHal:
    """Pins and USB serial of a Pico, as ``core.Firmware`` expects them.

    ``settings`` must have passed ``core.check_settings`` (or be None: no pins are
    touched). ``ready``/``inp``/``out`` default to USB serial (stdin/stdout),
    ``kbd_intr`` to ``micropython.kbd_intr``.
    """

    def __init__(
        self,
        settings: Any,
        ready: Any = None,
        inp: Any = None,
        out: Any = None,
        kbd_intr: Any = None,
    ) -> None:
        pin_class: Any = machine.Pin
        self._coils: list[Any] = []
        self._sensors: list[Any] = []
        self._lid: Any = None
        self._led: Any = None
        if settings:
            pull = pin_class.PULL_UP if settings["present"] == "low" else pin_class.PULL_DOWN
            self._coils = [pin_class(p, pin_class.OUT, value=0) for p in settings["coils"]]
            self._sensors = [pin_class(p, pin_class.IN, pull) for p in settings["sensors"]]
            if settings.get("lid") is not None:
                self._lid = pin_class(settings["lid"], pin_class.IN, pin_class.PULL_UP)
            if settings.get("led") is not None:
                self._led = pin_class(settings["led"], pin_class.OUT, value=0)
        self._inp = inp if inp is not None else sys.stdin.buffer
        self._out = out if out is not None else sys.stdout.buffer
        if ready is None:
            import select

            poller = select.poll()
            poller.register(sys.stdin, select.POLLIN)

            def ready() -> bool:
                return bool(poller.poll(0))

        self._ready = ready
        self._kbd_intr = kbd_intr if kbd_intr is not None else micropython.kbd_intr
        self._wdt: Any = None

    def set_coil(self, key: int, on: bool) -> None:
        self._coils[key - 1].value(1 if on else 0)

    def all_off(self) -> None:
        for coil in self._coils:
            coil.value(0)

    def read_sensor(self, key: int) -> int:
        level: int = self._sensors[key - 1].value()
        return level

    def read_lid(self) -> int | None:
        if self._lid is None:
            return None
        level: int = self._lid.value()
        return level

    def set_led(self, on: bool) -> None:
        if self._led is not None:
            self._led.value(1 if on else 0)

    def read(self) -> bytes:
        data = b""
        while len(data) < READ_CHUNK and self._ready():
            chunk = self._inp.read(1)
            if not chunk:
                break
            data += chunk
        return data

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def start_watchdog(self) -> None:
        """Start the watchdog (on the first handshake: flashing before that stays easy)."""
        if self._wdt is None:
            wdt_class: Any = machine.WDT
            self._wdt = wdt_class(timeout=WATCHDOG_MS)

    def feed(self) -> None:
        if self._wdt is not None:
            self._wdt.feed()

    def set_session(self, on: bool) -> None:
        """In a session Ctrl-C (0x03) is data, so noise cannot stop the firmware; after
        it (host silent), Ctrl-C works again for mpremote."""
        self._kbd_intr(-1 if on else 3)


def load_settings(path: str = SETTINGS_PATH) -> Any:
    """The settings dict from flash, or None if missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def reset_cause() -> str | None:
    mp_machine: Any = machine
    return "watchdog" if mp_machine.reset_cause() == mp_machine.WDT_RESET else None


def boot_id() -> int:
    """A random id for this boot, so the host notices a restart."""
    return random.getrandbits(30)  # the rp2 port seeds random from its ring oscillator


def make_firmware(settings: Any = None, now: int | None = None, **hal_options: Any) -> Any:
    """A Firmware on this board's pins (settings from flash unless given)."""
    if settings is None:
        settings = load_settings()
    if now is None:
        now = _mp_time.ticks_ms()
    usable = settings if not core.check_settings(settings) else None
    hal = PicoHal(usable, **hal_options)
    return core.Firmware(hal, settings, now, boot_id(), reset_cause())


def main() -> None:
    """Run the firmware forever. Coils go off on any exit; an unexpected error reboots."""
    firmware = make_firmware()
    try:
        while True:
            firmware.poll(_mp_time.ticks_ms())
            _mp_time.sleep_ms(1)
    except KeyboardInterrupt:  # mpremote / Ctrl-C: back to the REPL, coils off
        firmware.all_off()
        raise
    except Exception as exc:  # a bug: coils off, report on the console, start afresh
        firmware.all_off()
        _mp_sys.print_exception(exc)
        _mp_time.sleep_ms(100)
        machine.reset()
    finally:
        firmware.all_off()
