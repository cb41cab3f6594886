"""Checks before the box starts (``diablotin doctor``, and ``serve`` before it opens the box).

Each check gives a :class:`CheckResult`: what was looked at, whether it is fine, and when it
is not, a fix a person can follow. A failed *hard* check means the service must not start
(the data dir cannot be written, the port is taken, the pin factory does not load, a pin is
held by another program); a failed *soft* check is a warning (suspicious sensors, a Pico that
does not answer yet: the serial backend keeps reconnecting by itself and refuses the coils
until the handshake matches).

What is checked depends on the backend:

- every backend: the data dir is writable, the port is free, the pin map loads; ``doctor``
  also runs SQLite's full ``integrity_check`` on the journal (:func:`journal_check`);
- ``gpio``: the GPIO device files are there and usable, lgpio can make its pipe (see
  :func:`prepare_lgpio_workdir`), the pin factory loads (and is not RPi.GPIO on a Pi 5),
  gpiozero is new enough,
  every pin can be claimed, and the sensors read sanely for ``SAMPLE_S`` seconds (no
  flapping; not all four "present" while the lid is open);
- ``serial``: the Pico's port is found and usable, and its handshake (protocol, firmware
  version, pin map, limits) matches this service.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import getpass
import importlib.metadata
import itertools
import logging
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from .config import Config, ConfigError, find_config_path, load_config
from .sentences import Said

if TYPE_CHECKING:
    from .box.pins import PinMap

SAMPLE_S = 0.3
"""How long the gpio check watches the sensors (seconds)."""
SAMPLE_INTERVAL_S = 0.005
"""Time between two sensor readings while watching them (seconds)."""
FLAP_CHANGES = 5
"""A sensor changing this many times or more while watched is flapping."""
SERIAL_WAIT_S = 3.0
"""How long the serial check waits for the Pico's handshake (seconds)."""
GPIOZERO_PI5_MIN = (2, 0, 1, 3)
"""gpiozero 2.0.1.post3: pip-installed releases before it are broken on a Pi 5."""

DEV = Path("/dev")
MODEL_PATH = Path("/proc/device-tree/model")
PI5_MODEL = re.compile(r"Raspberry Pi (5|500)\b|Compute Module 5")

FACTORY_FIXES = {
    "lgpio": (
        "on a Raspberry Pi: `sudo apt install python3-lgpio` (scripts/install-pi does it; its "
        "venv sees Debian's lgpio), or `pip install 'diablotin[pi]'`; on a laptop: set "
        'box.backend = "simulated", or box.pin_factory = "mock"'
    ),
    "rpigpio": (
        "`pip install 'diablotin[rpigpio]'` (Pi 4 and older only); or better, set "
        'box.pin_factory = "lgpio", which works on every Pi; on a laptop use "mock"'
    ),
    "mock": "reinstall diablotin: gpiozero's MockFactory ships with gpiozero",
}


class PinFactory(Protocol):
    """A gpiozero pin factory, as far as the checks use one (its devices take it as is)."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class CheckResult:
    """One check: ``name``, ``ok``, what was found (``message``) and, if not ok, the ``fix``.

    ``hard``: when this check fails the service must not start; a failed soft check is a
    warning.
    """

    name: str
    ok: bool
    message: str
    fix: str = ""
    hard: bool = True

    @property
    def level(self) -> str:
        """``"ok"``, ``"FAIL"`` (hard) or ``"warn"`` (soft)."""
        if self.ok:
            return "ok"
        return "FAIL" if self.hard else "warn"


def start_checks(
    config: Config,
    *,
    factory: PinFactory | None = None,
    sample_s: float = SAMPLE_S,
    sleep: Callable[[float], None] = time.sleep,
) -> list[CheckResult]:
    """Run every check that applies to ``config``'s backend; never raises.

    ``factory``: a gpiozero pin factory to use instead of loading ``box.pin_factory``
    (tests pass a ``MockFactory``; it is not closed). ``sample_s``/``sleep``: how long to
    watch the sensors and how to wait between readings.
    """
    results = _safely("data dir", lambda: [_data_dir(config.data_dir)])
    results += _safely("port", lambda: _port(config.server.host, config.server.port))
    backend = config.box.backend
    section = "pico" if backend in ("serial", "virtual") else "pi"
    pins, pin_result = _pin_map(config.box.pins, section)
    results.append(pin_result)
    if backend == "gpio":
        results += _safely("gpio", lambda: _gpio_checks(config, pins, factory, sample_s, sleep))
    elif backend == "serial":
        results += _safely("Pico", lambda: _serial_checks(config, pins))
    return results


def clock_synchronised() -> bool | None:
    """systemd's answer (:meth:`controller.system.System.clock_synchronised`)."""
    from .system import System

    return System().clock_synchronised()


def clock_check(synchronised: Callable[[], bool | None] | None = None) -> CheckResult:
    """Soft: warn when systemd says the clock is not synchronised (a Pi has no real-time
    clock: dates, stats and daily backups go wrong); ``doctor`` runs it, not ``serve``'s
    start checks. ``synchronised``: default :func:`clock_synchronised`; ``None`` from it
    means no systemd to ask (a laptop), which is not a problem."""
    state = (synchronised or clock_synchronised)()
    if state is None:
        return CheckResult("clock", True, "synchronisation unknown (no systemd timesync here)")
    if state:
        return CheckResult("clock", True, "synchronised (NTP)")
    return CheckResult(
        "clock",
        False,
        "not synchronised: with no network time the box's clock may be hours off",
        "log in as the referee from a phone: the dashboard offers to take the phone's time "
        "(or `sudo timedatectl set-time 'YYYY-MM-DD HH:MM:SS'`)",
        hard=False,
    )


def _safely(name: str, run: Callable[[], list[CheckResult]]) -> list[CheckResult]:
    """``run()``, or one failed check ``name`` saying what broke (a check never raises)."""
    try:
        return run()
    except Exception as exc:
        return [
            CheckResult(
                name,
                False,
                f"the check itself failed: {type(exc).__name__}: {exc}",
                "report it, with this message",
            )
        ]


# -- every backend ---------------------------------------------------------------------


def _data_dir(path: Path) -> CheckResult:
    """The data dir (or the nearest folder it would be created in) is writable."""
    user = _user()
    fix = (
        f"make it writable for {user}: `sudo chown -R {user}: {path}` (scripts/install-pi "
        "makes /var/lib/diablotin the service user's), or set [data] dir in the config"
    )
    probe = path
    while not os.path.exists(probe) and probe != probe.parent:  # False also when not allowed
        probe = probe.parent
    if not probe.is_dir():
        return CheckResult("data dir", False, f"{path}: {probe} is not a folder", fix)
    if not os.access(probe, os.W_OK | os.X_OK):
        return CheckResult("data dir", False, f"{probe} is not writable by {user}", fix)
    where = f"{path} is writable" if probe == path else f"{path} will be created in {probe}"
    return CheckResult("data dir", True, f"{where} (user {user})")


def _port(host: str, port: int) -> list[CheckResult]:
    """The dashboard's address can be bound (nothing for port 0: any free port)."""
    if port == 0:
        return []
    name = "port"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as waitress does
            probe.bind(address)
    except socket.gaierror as exc:
        return [
            CheckResult(
                name,
                False,
                f"server.host {host!r} is not an address of this machine ({exc})",
                'set server.host = "0.0.0.0" (every phone on the Wi-Fi) or "127.0.0.1"',
            )
        ]
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fix = (
                "another program listens there: is diablotin already running "
                "(`systemctl status diablotin`)? `sudo ss -ltnp` shows who holds it; "
                "or set server.port to another port"
            )
            return [CheckResult(name, False, f"port {port} on {host} is in use", fix)]
        if exc.errno == errno.EACCES:
            fix = "use a port from 1024 up (8000 is the default); ports below need root"
            return [CheckResult(name, False, f"port {port} needs root here ({exc})", fix)]
        fix = 'set server.host = "0.0.0.0" (every phone on the Wi-Fi) or "127.0.0.1"'
        return [CheckResult(name, False, f"cannot listen on {host}:{port} ({exc})", fix)]
    return [CheckResult(name, True, f"{host}:{port} is free")]


def _pin_map(path: Path, section: str) -> tuple[PinMap | None, CheckResult]:
    from .box.pins import PinMapError, load_pin_map

    try:
        pins = load_pin_map(path, section)
    except PinMapError as exc:
        fix = f"correct [{section}] in {path} (hardware/README.md explains every key)"
        return None, CheckResult("pin map", False, str(exc), fix)
    return pins, CheckResult("pin map", True, f"{path} [{section}]")


# -- gpio ----------------------------------------------------------------------------------


def pi_model() -> str | None:
    """The Raspberry Pi model from the device tree, or ``None`` off a Pi."""
    try:
        return MODEL_PATH.read_bytes().decode("ascii", "replace").strip("\x00\n ")
    except OSError:
        return None


def _gpio_checks(
    config: Config,
    pins: PinMap | None,
    factory: PinFactory | None,
    sample_s: float,
    sleep: Callable[[float], None],
) -> list[CheckResult]:
    name = config.box.pin_factory
    results: list[CheckResult] = []
    if factory is None:
        if name != "mock":
            results.append(_gpio_devices(name))
        if name == "lgpio":
            results.append(prepare_lgpio_workdir(config.data_dir))
        model = pi_model()
        if name == "mock" and model:
            results.append(
                CheckResult(
                    "real pins",
                    False,
                    f'pin factory "mock" on a {model}: the pins are simulated, '
                    "the toy will not move",
                    'set box.pin_factory = "lgpio" to drive the real pins',
                    hard=False,
                )
            )
        factory, loaded = _load_factory(name)
        results.append(loaded)
        owned = True
    else:
        results.append(CheckResult("pin factory", True, f"given {type(factory).__name__}"))
        owned = False
    results.extend(_gpiozero_version())
    if factory is None or pins is None:
        return results
    try:
        results.extend(_claim_and_watch(pins, factory, sample_s, sleep))
    finally:
        if owned:
            with contextlib.suppress(Exception):
                factory.close()
    return results


def _gpio_devices(name: str) -> CheckResult:
    """The device files the factory opens exist and are readable and writable here."""
    pattern = "gpiochip*" if name == "lgpio" else "gpiomem*"
    found = sorted(DEV.glob(pattern))
    if not found:
        return CheckResult(
            "gpio access",
            False,
            f"no {DEV / pattern}: this is not a Raspberry Pi, or its GPIO driver is missing",
            'on a laptop set box.backend = "simulated" (or box.pin_factory = "mock"); on a '
            "Pi use Raspberry Pi OS Bookworm",
        )
    usable = [path for path in found if os.access(path, os.R_OK | os.W_OK)]
    if not usable:
        user = _user()
        return CheckResult(
            "gpio access",
            False,
            f"{user} may not use {', '.join(map(str, found))}",
            f"add {user} to the gpio group: `sudo usermod -aG gpio {user}`, then log in again "
            "(scripts/install-pi does this for the diablotin user)",
        )
    return CheckResult("gpio access", True, f"{', '.join(map(str, usable))} usable")


def prepare_lgpio_workdir(data_dir: Path) -> CheckResult:
    """See that ``import lgpio`` can make its pipe; point it at ``data_dir`` if need be.

    lgpio creates a pipe in, and changes to, ``$LG_WD`` or else the working directory. When
    ``LG_WD`` is unset and the working directory is not writable (a command run with
    ``sudo -u diablotin`` from someone's home), this sets ``LG_WD`` to ``data_dir`` (created if
    missing) when that is writable. Fails when neither is. Call it before loading lgpio.
    """
    name = "lgpio work dir"
    if os.environ.get("LG_WD"):
        where = os.environ["LG_WD"]
    else:
        where = os.getcwd()
        if not os.access(where, os.W_OK | os.X_OK):
            with contextlib.suppress(OSError):
                data_dir.mkdir(parents=True, exist_ok=True)
            if data_dir.is_dir() and os.access(data_dir, os.W_OK | os.X_OK):
                os.environ["LG_WD"] = str(data_dir)
                return CheckResult(
                    name, True, f"{data_dir} (the data dir: {where} is not writable)"
                )
    if os.access(where, os.W_OK | os.X_OK):
        return CheckResult(name, True, f"{where} is writable")
    return CheckResult(
        name,
        False,
        f"import lgpio creates a pipe in the working directory, and {where} is not writable "
        f"by {_user()}",
        "run from a folder you can write to, or set LG_WD to one; the systemd unit sets "
        "WorkingDirectory=/var/lib/diablotin",
    )


def _load_factory(name: str) -> tuple[PinFactory | None, CheckResult]:
    from .box.base import FactoryUnavailable
    from .box.pin_factory import load_pin_factory

    model = pi_model()
    if name == "rpigpio" and model and PI5_MODEL.search(model):
        return None, CheckResult(
            "pin factory",
            False,
            f"RPi.GPIO does not work on a {model}",
            'set box.pin_factory = "lgpio" in the config (it works on every Pi)',
        )
    try:
        factory = load_pin_factory(name)
    except FactoryUnavailable as exc:
        cause = exc.__cause__
        detail = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
        if cause is None or isinstance(cause, ImportError):
            fix = FACTORY_FIXES.get(name, "choose lgpio, rpigpio or mock")
        else:  # the library is there but cannot drive this machine's pins
            fix = (
                'off a Raspberry Pi set box.backend = "simulated" (or pin_factory "mock"); on a '
                "Pi see the gpio access and lgpio work dir checks above (gpio group, a "
                "writable working directory)"
            )
        return None, CheckResult(
            "pin factory", False, f"pin factory {name!r} cannot load ({detail})", fix
        )
    return factory, CheckResult("pin factory", True, f"{name} loaded")


def _version_tuple(text: str) -> tuple[int, ...]:
    """``"2.0.1.post3"`` -> ``(2, 0, 1, 3)``; a release without ``.postN`` sorts before post0."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?(?:\.post(\d+))?", text)
    if match is None:
        return ()
    major, minor, micro, post = match.groups()
    return (int(major), int(minor), int(micro or 0), int(post) if post is not None else -1)


def _gpiozero_version() -> list[CheckResult]:
    """On a Pi 5, gpiozero releases before 2.0.1.post3 (from pip) cannot drive the pins."""
    model = pi_model()
    if not model or not PI5_MODEL.search(model):
        return []
    version = importlib.metadata.version("gpiozero")
    if _version_tuple(version) >= GPIOZERO_PI5_MIN:
        return [CheckResult("gpiozero", True, f"gpiozero {version}")]
    return [
        CheckResult(
            "gpiozero",
            False,
            f"gpiozero {version} on a {model}: releases before 2.0.1.post3 are broken there",
            "`pip install -U 'gpiozero>=2.0.1.post3'` in diablotin's venv (re-running "
            "scripts/install-pi does it)",
            hard=False,
        )
    ]


def _claim_and_watch(
    pins: PinMap, factory: PinFactory, sample_s: float, sleep: Callable[[float], None]
) -> list[CheckResult]:
    """Claim every pin (coils as outputs, off), watch the inputs, release everything."""
    from gpiozero import DigitalInputDevice, DigitalOutputDevice

    devices: list[Any] = []
    busy: list[str] = []
    inputs: dict[str, Any] = {}

    def claim(role: str, make: Callable[[], Any]) -> Any:
        try:
            device = make()
        except Exception as exc:
            busy.append(f"{role} ({type(exc).__name__}: {exc})")
            return None
        devices.append(device)
        return device

    try:
        for key, pin in enumerate(pins.coils, 1):
            claim(
                f"coil {key} (GPIO{pin})",
                partial(
                    DigitalOutputDevice,
                    pin,
                    active_high=True,
                    initial_value=False,
                    pin_factory=factory,
                ),
            )
        pull_up = pins.sensor_present == "low"
        for key, pin in enumerate(pins.sensors, 1):
            inputs[f"slot {key}"] = claim(
                f"sensor {key} (GPIO{pin})",
                partial(DigitalInputDevice, pin, pull_up=pull_up, pin_factory=factory),
            )
        if pins.lid is not None:
            lid = pins.lid
            inputs["lid"] = claim(
                f"lid (GPIO{lid})",
                partial(DigitalInputDevice, lid, pull_up=True, pin_factory=factory),
            )
        if pins.led is not None:
            led = pins.led
            claim(
                f"led (GPIO{led})",
                partial(DigitalOutputDevice, led, initial_value=False, pin_factory=factory),
            )
        if busy:
            return [
                CheckResult(
                    "pins free",
                    False,
                    "cannot claim " + "; ".join(busy),
                    "another program holds the pin: is diablotin already running "
                    "(`systemctl status diablotin`)? `gpioinfo` shows who holds each line; "
                    "an overlay in /boot/firmware/config.txt (I2C, SPI, 1-Wire) may own it; "
                    "or move the wire and change hardware pins.toml",
                )
            ]
        readers = {name: _reader(device) for name, device in inputs.items()}
        samples = _sample(readers, sample_s, sleep)
        return [
            CheckResult("pins free", True, f"{len(devices)} pins claimed and released"),
            sensor_sanity(samples, has_lid=pins.lid is not None),
        ]
    finally:
        for device in devices:
            with contextlib.suppress(Exception):
                device.close()


def _reader(device: Any) -> Callable[[], bool]:
    return lambda: bool(device.is_active)


def _sample(
    readers: dict[str, Callable[[], bool]], duration_s: float, sleep: Callable[[float], None]
) -> list[dict[str, bool]]:
    """Read every input ``duration_s / SAMPLE_INTERVAL_S`` times (at least once)."""
    count = max(1, round(duration_s / SAMPLE_INTERVAL_S))
    samples = []
    for index in range(count):
        if index:
            sleep(SAMPLE_INTERVAL_S)
        samples.append({name: read() for name, read in readers.items()})
    return samples


def sensor_sanity(samples: list[dict[str, bool]], *, has_lid: bool) -> CheckResult:
    """Judge readings of ``slot 1``..``slot 4`` (True: present) and ``lid`` (True: closed).

    Suspicious (a soft failure): an input that changes ``FLAP_CHANGES`` times or more, or
    all four slots "present" while the lid switch reads open (dice are hidden with the lid
    open only for a moment; an inverted ``sensor_present`` reads empty slots as full).
    """
    names = list(samples[0])
    changes = {
        name: sum(a[name] != b[name] for a, b in itertools.pairwise(samples)) for name in names
    }
    flapping = [f"{name} ({n} changes)" for name, n in changes.items() if n >= FLAP_CHANGES]
    if flapping:
        return CheckResult(
            "sensors",
            False,
            f"flapping while watched for {len(samples)} readings: {', '.join(flapping)}",
            "check the wire and the ground of each; a TCRT5000 needs its potentiometer "
            "turned away from the edge; a switch needs sensor_present matching its wiring",
            hard=False,
        )
    last = samples[-1]
    slots = [name for name in names if name.startswith("slot")]
    state = ", ".join(f"{name} {'present' if last[name] else 'empty'}" for name in slots)
    if has_lid:
        state += f", lid {'closed' if last['lid'] else 'open'}"
    if has_lid and not last["lid"] and slots and all(last[name] for name in slots):
        return CheckResult(
            "sensors",
            False,
            f"all four slots read 'present' while the lid is open ({state})",
            "if the slots are empty, sensor_present in pins.toml is inverted (try the other "
            'of "low"/"high"); else check the sensors\' 3.3 V supply and potentiometers',
            hard=False,
        )
    return CheckResult("sensors", True, state)


# -- serial ----------------------------------------------------------------------------------


def _serial_checks(config: Config, pins: PinMap | None) -> list[CheckResult]:
    from .box.serial import PortNotFound, resolve_port

    setting = config.box.serial_port
    try:
        path = resolve_port(setting)
    except PortNotFound as exc:
        return [
            CheckResult(
                "Pico port",
                False,
                str(exc),
                "plug the Pico in (a data cable, not a charge-only one), flash MicroPython "
                "and `diablotin firmware flash` (docs/firmware.md), or set box.serial_port",
                hard=False,
            )
        ]
    device = Path(path)
    if "://" not in path and not device.exists():
        return [
            CheckResult(
                "Pico port",
                False,
                f"{path} does not exist",
                'plug the Pico in, or set box.serial_port = "auto" to find it under '
                "/dev/serial/by-id",
                hard=False,
            )
        ]
    if "://" not in path and not os.access(device, os.R_OK | os.W_OK):
        user = _user()
        return [
            CheckResult(
                "Pico port",
                False,
                f"{user} may not open {path}",
                f"add {user} to the dialout group: `sudo usermod -aG dialout {user}`, then "
                "log in again (scripts/install-pi does this for the diablotin user)",
                hard=False,
            )
        ]
    results = [CheckResult("Pico port", True, path)]
    if pins is not None:
        results.extend(_handshake(path, pins, config))
    return results


def _handshake(path: str, pins: PinMap, config: Config) -> list[CheckResult]:
    from .box.serial import SerialBox
    from .clock import RealClock

    clock = RealClock()
    box = SerialBox(path, pins, config.box.limits, clock)
    try:
        deadline = time.monotonic() + SERIAL_WAIT_S
        up = box.wait_until_up(0.05)
        while not up and time.monotonic() < deadline:
            if box.status()["link"]["phase"] == "mismatch":
                break  # the handshake came back and does not fit: no need to wait longer
            up = box.wait_until_up(0.05)
        status = box.status()
        slots, lid = box.slots(), box.lid_closed()
    finally:
        box.close()
        clock.close()
    link = status["link"]
    if up:
        results = [CheckResult("Pico firmware", True, f"{path}: {link['detail']}")]
        reading = {f"slot {key}": present for key, present in slots.items()}
        if lid is not None:
            reading["lid"] = lid
        results.append(sensor_sanity([reading], has_lid=lid is not None))
        return results
    if link["phase"] == "mismatch":
        fix = (
            "stop the service (`sudo systemctl stop diablotin`), run `diablotin firmware "
            "flash`, start it again; if the message says so, update the service instead"
        )
        return [CheckResult("Pico firmware", False, link["detail"], fix, hard=False)]
    return [
        CheckResult(
            "Pico firmware",
            False,
            f"the Pico on {path} did not complete the handshake in {SERIAL_WAIT_S:g} s: "
            f"{link['detail']}",
            "is MicroPython and the firmware on it (`diablotin firmware flash`)? does another "
            "program hold the port (a serial console, mpremote, the service itself)?",
            hard=False,
        )
    ]


# -- reporting ---------------------------------------------------------------------------


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def format_results(results: Iterable[CheckResult]) -> str:
    """One line per check (``ok``/``warn``/``FAIL``), a ``fix:`` line under each problem."""
    results = list(results)
    width = max((len(r.name) for r in results), default=0)
    lines = []
    for result in results:
        lines.append(f"  {result.level:4s}  {result.name:{width}s}  {result.message}")
        if not result.ok and result.fix:
            lines.append(f"  {'':4s}  {'':{width}s}  fix: {result.fix}")
    return "\n".join(lines)


def summary(results: Iterable[CheckResult]) -> str:
    """``"7 checks: 6 ok, 1 warning, 0 failed"``."""
    results = list(results)
    failed = sum(1 for r in results if not r.ok and r.hard)
    warned = sum(1 for r in results if not r.ok and not r.hard)
    ok = len(results) - failed - warned
    plural = "" if warned == 1 else "s"
    return f"{len(results)} checks: {ok} ok, {warned} warning{plural}, {failed} failed"


def preflight(config: Config, out: TextIO | None = None, **options: Any) -> bool:
    """For ``serve``: run the checks, report the problems and a summary.

    Without ``out`` they go to the log: a failure as an error, a warning as a warning, the
    summary as information (so ``journalctl -p warning`` finds them); with ``out`` they are
    printed there. Returns False when a hard check failed (the service must not start);
    after warnings the service may start. ``options`` go to :func:`start_checks`.
    """
    results = start_checks(config, **options)
    if out is None:
        return _log_preflight(results)
    stream = out
    problems = [r for r in results if not r.ok]
    if problems:
        print(format_results(problems), file=stream)
    blocking = [r for r in problems if r.hard]
    if blocking:
        from .console import say

        why = Said(
            "refusing to start: {summary} (`diablotin doctor` shows every check)",
            summary=summary(results),
        )
        print("diablotin: " + say(why), file=stream)
        return False
    print(f"diablotin: start checks: {summary(results)}", file=stream)
    return True


def _log_preflight(results: list[CheckResult]) -> bool:
    log = logging.getLogger("controller.checks")
    for result in results:
        if not result.ok:
            fix = f" (fix: {result.fix})" if result.fix else ""
            level = logging.ERROR if result.hard else logging.WARNING
            log.log(level, "start check %s: %s%s", result.name, result.message, fix)
    if any(not r.ok and r.hard for r in results):
        log.error("refusing to start: %s (`diablotin doctor` shows every check)", summary(results))
        return False
    log.info("start checks: %s", summary(results))
    return True


def doctor(config: Config, out: TextIO | None = None, **options: Any) -> int:
    """``diablotin doctor``: print every check (the start checks and the clock's); 0 when all
    are ok, 1 on any failure or warning. ``options`` go to :func:`start_checks`, except
    ``synchronised`` (:func:`clock_check`)."""
    stream = out if out is not None else sys.stdout
    print(
        f"Diablotin doctor: config {config.source or 'defaults (no config file)'}, "
        f"backend {config.box.backend}"
        + (f", pin factory {config.box.pin_factory}" if config.box.backend == "gpio" else ""),
        file=stream,
    )
    synchronised = options.pop("synchronised", None)
    results = start_checks(config, **options)
    results += _safely("journal", lambda: [journal_check(config.data_dir)])
    results += _safely("clock", lambda: [clock_check(synchronised)])
    print(format_results(results), file=stream)
    print(summary(results), file=stream)
    return 0 if all(r.ok for r in results) else 1


def journal_check(data_dir: Path) -> CheckResult:
    """The journal file passes SQLite's full ``integrity_check`` and every row decodes
    (read-only; safe while the service runs), and is not missing or empty while its marker
    says it existed."""
    from .journal import inspect_file, marker_path, wal_lost
    from .service import JOURNAL_NAME

    path = data_dir / JOURNAL_NAME
    marker = marker_path(path)
    lost = wal_lost(path)  # before inspect_file: its connection would make a new -wal
    if lost is not None:
        return CheckResult("journal", False, str(lost).split(". ")[0], str(lost))
    found = inspect_file(path, full=True)
    salvage_fix = (
        "restore a copy of the file; or save what can be read with `diablotin export --raw -o "
        "FOLDER`, start a new journal with `diablotin serve --new-journal` and import each "
        "saved game with `diablotin replay FILE --import` (docs/install-pi.md, Troubleshooting)"
    )
    if found.state == "damaged":
        return CheckResult("journal", False, f"{path} is damaged: {found.detail}", salvage_fix)
    if found.state == "unreadable":
        fix = f"make it readable for {_user()}: `sudo chown -R diablotin: {data_dir}`"
        return CheckResult("journal", False, f"{path} cannot be read: {found.detail}", fix)
    if found.state in ("missing", "empty") and marker.exists():
        what = "is missing" if found.state == "missing" else "is empty"
        fix = (
            "restore a copy of the file; or, to start a new empty journal on purpose, "
            f"`diablotin serve --new-journal` (or delete {marker})"
        )
        return CheckResult(
            "journal", False, f"{path} {what}, but {marker.name} says one existed", fix
        )
    if found.state in ("missing", "empty"):
        return CheckResult("journal", True, f"no journal yet: {path} is made at the first start")
    if found.unreadable:
        fix = (
            "the service starts and sets these games aside as damaged; save what can be read "
            "with `diablotin export --raw -o FOLDER`, then delete the damaged games on the "
            "dashboard (or restore a copy of the file)"
        )
        rows = "; ".join(found.unreadable)
        return CheckResult(
            "journal",
            False,
            f"{path}: integrity ok, but {len(found.unreadable)} row(s) cannot be read: {rows}",
            fix,
        )
    size = path.stat().st_size / 1e6
    return CheckResult(
        "journal", True, f"{path}: integrity ok, {found.games} game(s), {size:.1f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.checks [--config PATH]``: the same as ``diablotin doctor``."""
    parser = argparse.ArgumentParser(prog="python -m controller.checks", description=__doc__)
    parser.add_argument("--config", help="config file (default: $DIABLOTIN_CONFIG, /etc/...)")
    args = parser.parse_args(argv)
    from .console import fail
    from .sentences import Said, said_of

    try:
        config = load_config(find_config_path(args.config))
    except ConfigError as exc:
        fail(Said("config error: {reason}", reason=said_of(exc)))
        return 2
    except OSError as exc:
        fail(Said("cannot read the config: {reason} (try sudo)", reason=str(exc)))
        return 2
    return doctor(config)


if __name__ == "__main__":
    sys.exit(main())
