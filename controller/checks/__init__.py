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
import importlib.metadata
import logging
import os
import re
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypedDict, Unpack

from ..config import Config, ConfigError, find_config_path, load_config
from ..sentences import Said
from .journal_file import journal_check
from .pico import SERIAL_WAIT_S, _serial_checks
from .pins import (
    FLAP_CHANGES,
    SAMPLE_INTERVAL_S,
    SAMPLE_S,
    PinFactory,
    _claim_and_watch,
    sensor_sanity,
)
from .results import CheckResult, current_user, format_results, safely, summary

__all__ = [
    "FLAP_CHANGES",
    "GPIOZERO_PI5_MIN",
    "SAMPLE_INTERVAL_S",
    "SAMPLE_S",
    "SERIAL_WAIT_S",
    "CheckResult",
    "PinFactory",
    "clock_check",
    "doctor",
    "format_results",
    "journal_check",
    "main",
    "pi_model",
    "preflight",
    "prepare_lgpio_workdir",
    "sensor_sanity",
    "start_checks",
    "summary",
]

if TYPE_CHECKING:
    from ..box.pins import PinMap

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


class StartOptions(TypedDict, total=False):
    """What :func:`preflight` and :func:`doctor` pass on to :func:`start_checks`."""

    factory: PinFactory | None
    sample_s: float
    sleep: Callable[[float], None]


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
    results = safely("data dir", lambda: [_data_dir(config.data_dir)])
    results += safely("port", lambda: _port(config.server.host, config.server.port))
    backend = config.box.backend
    section = "pico" if backend in ("serial", "virtual") else "pi"
    pins, pin_result = _pin_map(config.box.pins, section)
    results.append(pin_result)
    if backend == "gpio":
        results += safely("gpio", lambda: _gpio_checks(config, pins, factory, sample_s, sleep))
    elif backend == "serial":
        results += safely("Pico", lambda: _serial_checks(config, pins))
    return results


def clock_synchronised() -> bool | None:
    """systemd's answer (:meth:`controller.system.System.clock_synchronised`)."""
    from ..system import System

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


# -- every backend ---------------------------------------------------------------------


def _data_dir(path: Path) -> CheckResult:
    """The data dir (or the nearest folder it would be created in) is writable."""
    user = current_user()
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
    from ..box.pins import PinMapError, load_pin_map

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
        user = current_user()
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
        f"by {current_user()}",
        "run from a folder you can write to, or set LG_WD to one; the systemd unit sets "
        "WorkingDirectory=/var/lib/diablotin",
    )


def _load_factory(name: str) -> tuple[PinFactory | None, CheckResult]:
    from ..box.base import FactoryUnavailable
    from ..box.pin_factory import load_pin_factory

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


def preflight(config: Config, out: TextIO | None = None, **options: Unpack[StartOptions]) -> bool:
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
        from ..console import say

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


def doctor(
    config: Config,
    out: TextIO | None = None,
    *,
    synchronised: Callable[[], bool | None] | None = None,
    **options: Unpack[StartOptions],
) -> int:
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
    results = start_checks(config, **options)
    results += safely("journal", lambda: [journal_check(config.data_dir)])
    results += safely("clock", lambda: [clock_check(synchronised)])
    print(format_results(results), file=stream)
    print(summary(results), file=stream)
    return 0 if all(r.ok for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.checks [--config PATH]``: the same as ``diablotin doctor``."""
    parser = argparse.ArgumentParser(prog="python -m controller.checks", description=__doc__)
    parser.add_argument("--config", help="config file (default: $DIABLOTIN_CONFIG, /etc/...)")
    args = parser.parse_args(argv)
    from ..console import fail
    from ..sentences import Said, said_of

    try:
        config = load_config(find_config_path(args.config))
    except ConfigError as exc:
        fail(Said("config error: {reason}", reason=said_of(exc)))
        return 2
    except OSError as exc:
        fail(Said("cannot read the config: {reason} (try sudo)", reason=str(exc)))
        return 2
    return doctor(config)
