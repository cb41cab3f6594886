"""The box's commands: ``selftest``, ``doctor``, ``coils-off`` and ``firmware flash``."""

from __future__ import annotations

import argparse
import sys

from ..config import Config
from ..console import fail
from ..sentences import Said, said_of
from .base import Command, box_option


def cmd_selftest(args: argparse.Namespace, config: Config) -> int:
    from ..box.base import BoxError
    from ..box.factory import make_box
    from ..box.selftest import run_selftest
    from ..clock import RealClock

    clock = RealClock()
    try:
        box, toy = make_box(config.box, clock)
    except BoxError as exc:
        fail(exc)
        return 1
    try:
        return 0 if run_selftest(box, toy, sys.stdout) else 1
    finally:
        box.close()
        clock.close()


def cmd_doctor(args: argparse.Namespace, config: Config) -> int:
    from ..checks import doctor

    return doctor(config)


def cmd_coils_off(args: argparse.Namespace, config: Config) -> int:
    from ..coils_off import coils_off

    return coils_off(config)


def cmd_firmware(args: argparse.Namespace, config: Config) -> int:
    import subprocess

    from ..box.pins import load_pin_map
    from ..box.serial import flash_firmware

    try:
        flash_firmware(
            args.port or config.box.serial_port,
            load_pin_map(config.box.pins, "pico"),
            config.box.limits,
            dry_run=args.dry_run,
        )
    except (ValueError, OSError, RuntimeError, subprocess.SubprocessError) as exc:
        fail(Said("firmware flash failed: {reason}", reason=said_of(exc)))
        return 1
    return 0


def firmware_arguments(p: argparse.ArgumentParser) -> None:
    fw = p.add_subparsers(dest="firmware_command", required=True, metavar="COMMAND")
    fl = fw.add_parser("flash", help="install or update the firmware on the Pico (mpremote)")
    fl.add_argument("--port", default=None, help="serial port (default: the config's)")
    fl.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")


SELFTEST = Command(
    "selftest", "pulse each coil once and show each sensor", cmd_selftest, box_option
)
DOCTOR = Command(
    "doctor",
    "check pins, sensors, port, data dir and the Pico; exit 1 on a problem",
    cmd_doctor,
    box_option,
)
COILS_OFF = Command(
    "coils-off", "force every coil off (systemd runs it after the service)", cmd_coils_off
)
FIRMWARE = Command("firmware", "the Pico co-processor's firmware", cmd_firmware, firmware_arguments)
