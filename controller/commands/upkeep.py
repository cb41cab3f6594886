"""Keeping the box: ``diablotin config``, ``backup``, ``restore`` and ``pin``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import Config, to_toml
from ..console import fail, say
from ..sentences import Said, said_of
from .base import Command


def cmd_config(args: argparse.Namespace, config: Config) -> int:
    """The effective configuration (file, defaults and command-line options together) as a
    config file: ``diablotin config > my.toml`` then ``--config my.toml`` gives the same."""
    print(f"# Diablotin's effective configuration; from: {config.source or 'the defaults'}")
    sys.stdout.write(to_toml(config))
    return 0


def backup_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=None,
        help="where to write the copy (default: <data dir>/backups/diablotin-<time>.sqlite3)",
    )


def cmd_backup(args: argparse.Namespace, config: Config) -> int:
    """Copy the journal with SQLite's online backup API (consistent while the service runs)."""
    from .. import backup
    from ..service import JOURNAL_NAME

    target = args.file or backup.default_backup_path(config.data_dir)
    try:
        backup.backup(config.data_dir / JOURNAL_NAME, target)
    except backup.BackupError as exc:
        fail(exc)
        return 1
    print(say(Said("backup written to {path}", path=target)))
    return 0


def restore_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="a copy made by `diablotin backup` (or a daily one)")


def cmd_restore(args: argparse.Namespace, config: Config) -> int:
    """Replace the journal with a checked copy; the journal before is kept as ``.bak``."""
    from .. import backup
    from ..datadir import DataDirBusy, DataDirLock
    from ..service import JOURNAL_NAME

    try:
        lock = DataDirLock(config.data_dir)
    except DataDirBusy as exc:
        fail(
            Said(
                "{reason}: stop it first (`sudo systemctl stop diablotin`), then restore",
                reason=said_of(exc),
            )
        )
        return 1
    try:
        kept = backup.restore(args.file, config.data_dir / JOURNAL_NAME)
    except backup.BackupError as exc:
        fail(Said("{reason}; nothing was changed", reason=said_of(exc)))
        return 2
    finally:
        lock.release()
    if kept:
        print(
            say(
                Said(
                    "restored {path}; the journal before is kept as {kept}",
                    path=args.file,
                    kept=kept,
                )
            )
        )
    else:
        print(say(Said("restored {path}", path=args.file)))
    return 0


def pin_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--reset", action="store_true", help="make a new PIN; every referee is logged out at once"
    )


def cmd_pin(args: argparse.Namespace, config: Config) -> int:
    """Print the referee PIN; ``--reset`` writes a new one to the data dir. A running service
    reads the file again when it changes, so every referee session ends at once."""
    from ..system import PinFile

    if config.server.referee_pin:
        if args.reset:
            fail(
                Said(
                    "the PIN is set in {source} ([server] referee_pin): change it there and "
                    "restart the service (`sudo systemctl restart diablotin`)",
                    source=config.source or Said("the config"),
                )
            )
            return 2
        source = say(Said("from {source}", source=config.source or Said("the config")))
        print(f"{config.server.referee_pin}  ({source})")
        return 0
    pins = PinFile(config.data_dir)
    try:
        pin = pins.reset() if args.reset else pins.current()
    except OSError as exc:
        template = (
            "cannot write {path}: {reason} (run it as the service's user: "
            "`sudo -u diablotin diablotin pin`)"
            if args.reset
            else "cannot read {path}: {reason} (run it as the service's user: "
            "`sudo -u diablotin diablotin pin`)"
        )
        fail(Said(template, path=pins.path, reason=exc.strerror or str(exc)))
        return 1
    print(pin)
    if args.reset:
        print(
            say(
                Said(
                    "new PIN: every referee session has ended (the running service uses it at once)"
                )
            )
        )
    return 0


CONFIG = Command(
    "config",
    "print the effective configuration as TOML (a config file that reads back)",
    cmd_config,
)
BACKUP = Command(
    "backup",
    "copy the journal (safe while the service runs; SQLite's backup API)",
    cmd_backup,
    backup_arguments,
)
RESTORE = Command(
    "restore",
    "put a backup in place of the journal (stop the service first)",
    cmd_restore,
    restore_arguments,
)
PIN = Command(
    "pin",
    "show the referee PIN (--reset: a new one, every session ends)",
    cmd_pin,
    pin_arguments,
)
