"""The ``diablotin`` command.

Every subcommand reads the config (``--config PATH``, ``$DIABLOTIN_CONFIG``,
``/etc/diablotin/diablotin.toml``, or defaults). Exit codes: 0 fine, 1 a fault
or failure, 2 bad input (usage, an illegal record), 78 a bad config, 141 when the reader
of the output went away (``| head``: quietly, like other Unix tools).

Logs go to stderr with one timestamp each, or, when stderr is systemd's journal, with a
``<N>`` priority prefix and no timestamp (journald stamps the time; ``journalctl -p warning``
finds the warnings).
"""

from __future__ import annotations

from . import startup

if __name__ == "__main__":  # python -m controller.cli (the installed command: launch.py)
    startup.hold()  # until the command starts: see controller/startup.py

import argparse  # after the hold: these imports are the start-up
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .commands import COMMANDS as ORDER
from .commands.tools import BENCH_AREAS as BENCH_AREAS
from .config import (
    CONFIG_ORDER,
    DATA_DIR_ENV,
    EXIT_CONFIG,
    Config,
    ConfigError,
    find_config_path,
    load_config,
)
from .console import ARGPARSE_MESSAGES as ARGPARSE_MESSAGES
from .console import argparse_speaks_the_catalogs
from .console import environment_language as environment_language
from .console import fail as fail
from .console import say as say
from .console import tell as tell
from .datadir import DataDirBusy
from .journal import JournalError
from .logs import configure_logging
from .sentences import Said, said_of

COMMANDS = {command.name: command for command in ORDER}
"""Every command by name (:mod:`controller.commands` declares each one's arguments)."""


def build_parser() -> argparse.ArgumentParser:
    """The options every command takes, then each command's own (its ``arguments``)."""
    from .games import registry

    games = " · ".join(kind.title.english() for kind in registry.kinds())
    parser = argparse.ArgumentParser(
        prog="diablotin",
        description=f"A Raspberry Pi games box that plays or keeps the books of: {games}.",
    )
    parser.add_argument("--version", action="version", version=f"diablotin {__version__}")
    parser.add_argument("--config", metavar="PATH", help=f"the config file (TOML): {CONFIG_ORDER}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"where the journal lives (before ${DATA_DIR_ENV} and the config's [data] dir)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in ORDER:
        command.add_to(sub)
    return parser


def load(args: argparse.Namespace) -> Config:
    config = load_config(find_config_path(args.config))
    if args.data_dir:
        config.data_dir = Path(args.data_dir).resolve()
    box = getattr(args, "box", None)
    if box:
        config.box.backend, port = box
        if port:
            config.box.serial_port = port
    return config


EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""Exit status when the reader of stdout went away (``diablotin games | head -1``): what a
shell reports for a tool killed by SIGPIPE."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status. A closed stdout pipe ends it quietly."""
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here rather than at exit
    except BrokenPipeError:
        # What Python's docs advise: point stdout at /dev/null so the flush at exit is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    argparse_speaks_the_catalogs()
    args = build_parser().parse_args(argv)
    startup.release()  # a command with its own start-up (serve) holds again
    configure_logging(args.verbose)
    try:
        config = load(args)
        if config.box.backend == "gpio" and config.box.pin_factory == "lgpio":
            from .checks import prepare_lgpio_workdir

            prepare_lgpio_workdir(config.data_dir)  # import lgpio makes a pipe in the cwd
        return int(COMMANDS[args.command].run(args, config) or 0)
    except ConfigError as exc:
        fail(Said("config error: {reason}", reason=said_of(exc)))
        return EXIT_CONFIG
    except (DataDirBusy, JournalError) as exc:  # e.g. `play` while the service runs
        fail(exc)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
