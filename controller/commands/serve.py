"""``diablotin serve``: the box and its dashboard."""

from __future__ import annotations

import argparse

from .. import startup
from ..config import Config, ConfigError
from ..console import fail
from ..sentences import Said
from .base import Command, box_option


def arguments(p: argparse.ArgumentParser) -> None:
    box_option(p)
    p.add_argument(
        "--host", help="address to listen on (default 0.0.0.0: every phone on the Wi-Fi)"
    )
    p.add_argument("--port", type=int, help="port (default 8000)")
    p.add_argument(
        "--new-journal",
        action="store_true",
        help="start a new, empty journal when the old one is missing, empty or damaged "
        "(a damaged one is kept beside it; a journal with games is never replaced)",
    )
    p.add_argument(
        "--camera",
        help="none | simulated | picamera2 | usb[:N]: the camera reading popped dice "
        "(default: the config's, none; needs diablotin[camera])",
    )


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    startup.hold()  # released once the server listens (controller.server.serve)
    try:
        return _serve(args, config)
    finally:
        startup.release()  # or here, when it stops before (a failed check, a busy port)


def _serve(args: argparse.Namespace, config: Config) -> int:
    from ..box.base import BoxError
    from ..server import serve
    from ..service import Service

    if args.host:
        config.server.host = args.host
    if args.port is not None:
        config.server.port = args.port
    if args.camera:
        config.camera.kind = args.camera
    if config.camera.kind != "none":
        from ..camera import CameraMissing, require

        try:
            if config.camera.kind.partition(":")[0] not in ("simulated", "picamera2", "usb"):
                raise ConfigError(Said("--camera must be none, simulated, picamera2 or usb[:N]"))
            require()
        except CameraMissing as exc:
            fail(exc)
            return 2
    from ..checks import preflight

    if not preflight(config):  # logs failures and warnings, with the fix
        return 1
    from ..datadir import DataDirBusy
    from ..journal import JournalError
    from ..server import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread starts: bounded memory (controller/server.py)
    service = Service(config, new_journal=args.new_journal)
    try:
        service.start()
    except (BoxError, DataDirBusy, JournalError) as exc:
        service.stop()
        fail(exc)
        return 1
    from ..watchdog import Watchdog, systemd_ready

    # systemd's WatchdogSec (deploy/): pings while the worker loop and the coils are well
    watchdog = Watchdog.from_environment(service.post, service.box)
    if watchdog is not None:
        watchdog.start()
    try:
        serve(
            service,
            config.server.host,
            config.server.port,
            config.server.threads,
            ready=systemd_ready,
        )
    finally:
        if watchdog is not None:
            watchdog.stop()
    return 0


SERVE = Command("serve", "run the box and its dashboard", cmd_serve, arguments)
