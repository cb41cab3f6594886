"""The serial backend: a Pico co-processor over USB serial (pyserial), and flashing it.

:class:`SerialBox` runs :class:`~controller.box.protocol.HostLink` on a port: it finds
the Pico (``"auto"``: ``/dev/serial/by-id``), reconnects by itself with backoff, and on
every (re)connect handshakes, forces every coil off and resynchronises the sensors
before coils may be driven again. Coil limits are enforced here too
(:class:`~controller.box.safety.CoilGuard`), and again by the firmware.

:func:`flash_firmware` copies the firmware and its settings (pin map from
``hardware/pins.toml`` [pico], safety limits) to the Pico with ``mpremote``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypedDict

import serial
import serial.tools.list_ports

from ..clock import Clock, RealClock
from ..sentences import Said
from .base import KEYS, Box, BoxEvent, BoxFault, LimitRefused, Limits
from .pins import PinMap
from .protocol import (
    FIRMWARE_PACKAGE,
    REQUEST_TIMEOUT_S,
    HostLink,
    Pending,
    core,
    expected_settings,
    firmware_dir,
)
from .safety import CoilGuard

log = logging.getLogger(__name__)

BY_ID = Path("/dev/serial/by-id")
PICO_USB_VID = 0x2E8A  # Raspberry Pi
POLL_S = 0.02
"""Longest a read waits, so timers (heartbeat, retries) run at least this often."""
BACKOFF_START_S = 0.1
BACKOFF_MAX_S = 1.0
"""Reconnect attempts back off from 0.1 s up to 1 s between tries."""
FIRST_LINK_WAIT_S = 3.0
"""make_serial_box waits this long for the first handshake (then returns anyway)."""
SETTINGS_FILE = "diablotin.json"


class PortNotFound(BoxFault):
    """No Pico (or more than one) where the port setting says to look."""


def find_pico_ports() -> list[str]:
    """Serial ports that look like a Pico running MicroPython, best names first.

    ``/dev/serial/by-id`` names survive re-plugging; elsewhere (macOS) pyserial's list by
    USB vendor id (0x2E8A) is used.
    """
    found = []
    if BY_ID.is_dir():
        for entry in sorted(BY_ID.iterdir()):
            name = entry.name.lower()
            if "micropython" in name or "2e8a" in name or "raspberry_pi" in name:
                found.append(str(entry))
    if not found:
        found = [p.device for p in serial.tools.list_ports.comports() if p.vid == PICO_USB_VID]
    return found


def resolve_port(port: str) -> str:
    """The device path for a port setting (``"auto"`` or a path); PortNotFound if none."""
    if port != "auto":
        return port
    ports = find_pico_ports()
    if not ports:
        raise PortNotFound(
            Said(
                "no Pico found in {folder} (is it plugged in, with MicroPython flashed?)",
                folder=BY_ID,
            )
        )
    if len(ports) > 1:
        raise PortNotFound(
            Said("several Picos found ({names}): set the port explicitly", names=", ".join(ports))
        )
    return ports[0]


def open_port(path: str) -> serial.Serial:
    """Open ``path`` (a device or a pyserial URL) for the link, exclusively."""
    ser = serial.serial_for_url(
        path, baudrate=115200, timeout=POLL_S, write_timeout=0.5, exclusive=True
    )
    ser.reset_input_buffer()
    return ser


class Port(Protocol):
    """What the link uses of an open serial port (a ``serial.Serial``, or a test's fake)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


class LinkStatus(TypedDict):
    """``status()["link"]``: the handshake's phase and why, and the link's counters."""

    up: bool
    phase: str
    detail: str
    reconnects: int
    frames_in: int
    bad_frames: int
    naks_sent: int
    retries: int
    handshakes: int


class SerialStatus(TypedDict):
    """:meth:`SerialBox.status`: JSON-ready health of the Pico box."""

    backend: str
    port: str | None
    link: LinkStatus
    firmware: dict[str, object] | None
    faults: dict[str, str]
    coils: dict[int, bool]
    slots: dict[int, bool]
    lid: bool | None
    limits: dict[str, float]


class SerialBox(Box):
    """A :class:`Box` whose coils and sensors are on a Pico behind a serial link.

    ``port`` is a device path, ``"auto"``, or a callable returning the path to try next
    (or None). The link runs on its own thread and listeners are called on another
    (``pico-events``), in order. ``fire`` raises :class:`BoxFault` while the link is
    down or the handshake does not match, :class:`LimitRefused` when a limit (here or
    on the Pico) refuses the pulse.
    """

    kind = "serial"

    def __init__(
        self,
        port: str | Callable[[], str | None],
        pins: PinMap,
        limits: Limits | None = None,
        clock: Clock | None = None,
        *,
        opener: Callable[[str], Port] = open_port,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(limits)
        self.clock = clock or RealClock()
        self.pins = pins
        self.guard = CoilGuard(self.limits, self.clock)
        self._port = port
        self._opener = opener
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._link = HostLink(expected_settings(pins, self.limits), self._stamp)
        self._ser: Port | None = None
        self._path: str | None = None
        self._io_error: str | None = None
        self._reconnects = 0
        self._pulse_until: dict[int, float] = {}
        self._stop = threading.Event()
        self._closed = False
        self._events: queue.Queue[BoxEvent | None] = queue.Queue()
        self._dispatcher = threading.Thread(target=self._dispatch, name="pico-events", daemon=True)
        self._dispatcher.start()
        self._driver = threading.Thread(target=self._run, name="pico-link", daemon=True)
        self._driver.start()

    # -- Box ----------------------------------------------------------------------

    def cooldown_s(self, key: int) -> float:
        return self.guard.cooldown_s(key)

    def fire(self, key: int, pulse_ms: float | None = None) -> None:
        with self._lock:
            if not self._link_up_locked():
                raise BoxFault(self._link.refusal())
        length = self.guard.admit(key, pulse_ms)
        reply = self._request("fire", k=key, ms=length)
        if reply["ok"] is not True:
            why = Said(
                "the Pico refused to pulse key {key}: {why}",
                key=key,
                why=reply.get("why", reply.get("err")),
            )
            if reply.get("err") == "limit":
                raise LimitRefused(why)
            raise BoxFault(why)
        with self._lock:
            self._pulse_until[key] = self._monotonic() + length / 1000

    def slots(self) -> dict[int, bool]:
        with self._lock:
            return dict(self._link.slots)

    def lid_closed(self) -> bool | None:
        if self.pins.lid is None:
            return None
        with self._lock:
            return self._link.lid

    def status(self) -> SerialStatus:
        with self._lock:
            link = self._link
            now = self._monotonic()
            stats = link.stats
            return {
                "backend": self.kind,
                "port": self._path or (self._port if isinstance(self._port, str) else None),
                "link": {
                    "up": self._link_up_locked(),
                    "phase": link.phase if self._driver.is_alive() else "down",
                    "detail": link.detail if self._driver.is_alive() else "the link thread ended",
                    "reconnects": self._reconnects,
                    "frames_in": stats.frames_in,
                    "bad_frames": stats.bad_frames,
                    "naks_sent": stats.naks_sent,
                    "retries": stats.retries,
                    "handshakes": stats.handshakes,
                },
                "firmware": dict(link.firmware) if link.firmware else None,
                "faults": self._faults_locked(),
                "coils": {k: self._pulse_until.get(k, 0.0) > now for k in KEYS},
                "slots": dict(link.slots),
                "lid": link.lid if self.pins.lid is not None else None,
                "limits": self.limits.as_dict(),
            }

    def _link_up_locked(self) -> bool:
        """Up only while the link thread runs: a dead thread never looks like a live link."""
        return self._link.up and self._driver.is_alive()

    def _faults_locked(self) -> dict[str, str]:
        faults = {f"pico:{name}": why for name, why in self._link.pico_faults.items()}
        if not self._link_up_locked():
            faults["link"] = self._link.refusal()
        return faults

    def all_off(self) -> None:
        try:
            with self._lock:
                if not self._link.up:
                    return  # the firmware switches off by itself without a host
            self._request("off", timeout=0.3)
        except Exception as exc:  # never raises: the firmware's own limits still hold
            log.warning("could not confirm all coils off: %s", exc)

    def close(self) -> None:
        if self._closed:
            return
        self.all_off()
        self._closed = True
        self._stop.set()
        self._driver.join(timeout=2)
        self._events.put(None)
        self._dispatcher.join(timeout=2)

    def wait_until_up(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the link to be up; True if it is."""
        with self._changed:
            return self._changed.wait_for(lambda: self._link.up, timeout)

    # -- requests -------------------------------------------------------------------

    def _request(
        self, kind: str, timeout: float = REQUEST_TIMEOUT_S + 0.5, **fields: object
    ) -> dict[str, object]:
        with self._changed:
            pending: Pending = self._link.submit(kind, self._monotonic(), **fields)
            self._flush_locked()
            self._changed.wait_for(lambda: pending.done, timeout)
        if pending.reply is not None:
            return pending.reply
        raise BoxFault(pending.error or Said("the Pico did not answer {kind!r} in time", kind=kind))

    def _flush_locked(self) -> None:
        out = self._link.take_output()
        if out and self._ser is not None:
            try:
                self._ser.write(out)
            except (serial.SerialException, OSError) as exc:
                self._io_error = f"write failed: {exc}"
        for event in self._link.take_events():
            self._events.put(event)
        self._changed.notify_all()

    def _stamp(self, age_s: float) -> float:
        return self.clock.now() - age_s

    # -- the link thread ------------------------------------------------------------

    def _resolve(self) -> str:
        port = self._port
        path = port() if callable(port) else resolve_port(port)
        if path is None:
            raise PortNotFound(Said("the Pico's port is not there"))
        return path

    def _run(self) -> None:
        """The link thread: connect, serve, reconnect with backoff, until closed.

        An unexpected exception (a bug) does not end the thread: the link is reported
        down, the port closed, and the loop reconnects after the backoff.
        """
        backoff = BACKOFF_START_S
        while not self._stop.is_set():
            try:
                backoff = self._connect_and_serve(backoff)
            except Exception as exc:
                log.exception("the Pico link failed; reconnecting")
                self._drop_port(f"link code failed: {type(exc).__name__}: {exc}")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX_S)

    def _drop_port(self, reason: str) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
            if ser is not None:
                with contextlib.suppress(Exception):
                    ser.close()
            self._link.disconnected(self._monotonic(), reason, self._stop.is_set())
            self._flush_locked()

    def _connect_and_serve(self, backoff: float) -> float:
        """One connection: open, serve until it fails, close; returns the next backoff."""
        try:
            path = self._resolve()
            ser = self._opener(path)
        except (serial.SerialException, OSError, BoxFault) as exc:
            self._note_down(f"cannot open the Pico's port: {exc}")
            self._stop.wait(backoff)
            return min(backoff * 2, BACKOFF_MAX_S)
        self._reconnects += 1
        try:
            reason, was_up = self._serve(ser, path)
        finally:
            with contextlib.suppress(Exception):
                ser.close()
        self._drop_port(reason)
        if self._stop.is_set():
            return backoff
        log.warning("Pico link on %s closed: %s; reconnecting", path, reason)
        backoff = BACKOFF_START_S if was_up else min(backoff * 2, BACKOFF_MAX_S)
        self._stop.wait(backoff)
        return backoff

    def _note_down(self, reason: str) -> None:
        with self._lock:
            if self._link.detail != reason:
                log.info("Pico link down: %s", reason)
            self._link.disconnected(self._monotonic(), reason)
            self._flush_locked()

    def _serve(self, ser: Port, path: str) -> tuple[str, bool]:
        """Run the link on an open port until it fails; returns (why, was it ever up)."""
        was_up = False
        with self._lock:
            self._ser = ser
            self._path = path
            self._io_error = None
            self._link.connected(self._monotonic())
            self._flush_locked()
        while not self._stop.is_set():
            try:
                data = ser.read(max(1, ser.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                return f"read failed: {exc}", was_up
            with self._lock:
                now = self._monotonic()
                if data:
                    self._link.receive(data, now)
                reason = self._link.tick(now) or self._io_error
                was_up = was_up or self._link.up
                self._flush_locked()
            if reason:
                return reason, was_up
        return "closed by the service", was_up

    def _dispatch(self) -> None:
        while True:
            event = self._events.get()
            if event is None:
                return
            try:
                self.emit(event)
            except Exception:
                log.exception("a box listener failed on %r", event)


def make_serial_box(port: str, pins: PinMap, limits: Limits | None, clock: Clock) -> SerialBox:
    """A :class:`SerialBox` on ``port`` (``"auto"`` or a device path).

    Waits up to 3 s for the first handshake so ``slots()`` starts right, but returns
    either way: the link keeps trying in the background (see ``status()["link"]``).
    """
    box = SerialBox(port, pins, limits, clock)
    if not box.wait_until_up(FIRST_LINK_WAIT_S):
        log.warning("the Pico is not answering yet: %s", box.status()["link"]["detail"])
    return box


# -- flashing ---------------------------------------------------------------------------


def mpremote_command() -> list[str]:
    """How to run mpremote here; FileNotFoundError with the fix if it is not installed."""
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    found = shutil.which("mpremote")
    if found:
        return [found]
    raise FileNotFoundError(Said("mpremote is not installed: pip install mpremote"))


def stage_firmware(target: Path, settings: dict[str, object]) -> Path:
    """Copy what goes on the Pico into ``target``: main.py, diablotin_fw/, diablotin.json."""
    source = firmware_dir()
    package = target / FIRMWARE_PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    for path in sorted((source / FIRMWARE_PACKAGE).glob("*.py")):
        shutil.copyfile(path, package / path.name)
    shutil.copyfile(source / "main.py", target / "main.py")
    (target / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n", encoding="ascii")
    return target


def flash_commands(mpremote: Sequence[str], port: str, staged: Path) -> list[list[str]]:
    """The two mpremote runs: restart the Pico (stops a running watchdog), then copy."""
    connect = [*mpremote, "connect", port]
    return [
        [*connect, "exec", "import machine; machine.reset()"],
        [
            *connect,
            *["fs", "cp", "-r", str(staged / FIRMWARE_PACKAGE), ":", "+"],
            *["fs", "cp", str(staged / "main.py"), ":main.py", "+"],
            *["fs", "cp", str(staged / SETTINGS_FILE), f":{SETTINGS_FILE}", "+"],
            "reset",
        ],
    ]


def flash_firmware(
    port: str,
    pins: PinMap,
    limits: Limits,
    *,
    dry_run: bool = False,
    run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
    settle_s: float = 3.0,
    out: Callable[[str], None] = print,
) -> list[list[str]]:
    """Install (or update) the firmware on the Pico at ``port`` (``"auto"`` finds it).

    Writes the settings from ``pins`` (the [pico] section) and ``limits``, so the
    handshake matches this service. The service must not hold the port. Returns the
    commands (only prints them with ``dry_run``). Raises ValueError for settings the
    firmware would refuse, PortNotFound, FileNotFoundError without mpremote, and
    RuntimeError if copying fails.
    """
    settings = expected_settings(pins, limits)
    problems = core.check_settings(settings)
    if problems:
        raise ValueError(
            Said(
                "the firmware would refuse these settings: {problems}",
                problems="; ".join(problems),  # the firmware's words (English)
            )
        )
    with tempfile.TemporaryDirectory(prefix="diablotin-fw-") as tmp:
        staged = stage_firmware(Path(tmp), settings)
        commands = flash_commands(
            mpremote_command() if not dry_run else ["mpremote"],
            resolve_port(port) if not dry_run else port,
            staged,
        )
        for command in commands:
            out("$ " + " ".join(command))
        if dry_run:
            return commands
        run(commands[0], check=False, timeout=30)  # the Pico restarts: an error is expected
        path = _wait_for_port(port, commands[1][commands[1].index("connect") + 1], settle_s)
        commands[1][commands[1].index("connect") + 1] = path
        result = run(commands[1], check=False, timeout=120)
        if getattr(result, "returncode", 0) != 0:
            raise RuntimeError(
                Said(
                    "mpremote could not copy the firmware: is the service still holding the "
                    "port (stop it first), or is the Pico in BOOTSEL mode without MicroPython?"
                )
            )
        out(f"flashed firmware {sys.modules[FIRMWARE_PACKAGE].VERSION} to {path}")
        return commands


def _wait_for_port(port: str, path: str, settle_s: float) -> str:
    """Wait for the Pico to come back after its restart; returns its path."""
    deadline = time.monotonic() + 10
    time.sleep(settle_s)
    while True:
        try:
            found = resolve_port(port)
            if Path(found).exists() or "://" in found:
                return found
        except PortNotFound:
            pass
        if time.monotonic() > deadline:
            return path
        time.sleep(0.2)


def firmware_main(argv: list[str] | None = None) -> int:
    """``diablotin firmware flash``: copy the firmware and settings to the Pico."""
    from .pins import load_pin_map

    parser = argparse.ArgumentParser(prog="diablotin firmware")
    sub = parser.add_subparsers(dest="command", required=True)
    flash = sub.add_parser("flash", help="install or update the Pico firmware with mpremote")
    flash.add_argument("--port", default="auto", help="serial port, or auto (default)")
    flash.add_argument("--pins", default=None, help="pin map (default hardware/pins.toml)")
    flash.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args(argv)
    pins = load_pin_map(args.pins, "pico")
    try:
        flash_firmware(args.port, pins, Limits(), dry_run=args.dry_run)
    except (ValueError, OSError, RuntimeError, subprocess.SubprocessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
