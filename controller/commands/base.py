"""What a command of ``diablotin`` is: its name, its help, the arguments it declares and what
it runs (:class:`Command`); the options several commands share (``--box``)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ..config import BACKENDS, Config
from ..console import say
from ..sentences import Said

Run = Callable[[argparse.Namespace, Config], int]
"""A command's work: its parsed arguments and the loaded config in, its exit status out."""


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of a command that takes none."""


@dataclass(frozen=True)
class Command:
    """One ``diablotin`` command. ``arguments`` adds its own arguments to its parser.
    ``passes_through``: every option after the command goes, unread, to the tool's own
    parser (which answers ``--help`` too)."""

    name: str
    help: str
    run: Run
    arguments: Callable[[argparse.ArgumentParser], None] = no_arguments
    passes_through: bool = False

    def add_to(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add this command's parser, with its arguments, to ``commands``."""
        if self.passes_through:
            parser = commands.add_parser(
                self.name, help=self.help, prefix_chars="+", add_help=False
            )
        else:
            parser = commands.add_parser(self.name, help=self.help)
        self.arguments(parser)


def _box_arg(value: str) -> tuple[str, str | None]:
    backend, _, port = value.partition(":")
    if backend not in BACKENDS:
        raise argparse.ArgumentTypeError(
            say(Said("--box must be one of {names}", names=", ".join(BACKENDS)))
        )
    if port and backend != "serial":
        raise argparse.ArgumentTypeError(
            say(Said("only --box serial takes a port: serial:/dev/ttyACM0"))
        )
    return backend, port or None


def box_option(p: argparse.ArgumentParser) -> None:
    """``--box BACKEND[:PORT]``, for the commands that drive the box."""
    p.add_argument(
        "--box",
        type=_box_arg,
        help="simulated | gpio | serial[:PORT] | virtual (default: the config's, simulated)",
    )


@dataclass(frozen=True)
class Terminal:
    """How ``diablotin play KIND`` or ``diablotin sim KIND`` runs one game kind.

    ``summary``: what it plays, in the game argument's help (``KIND: summary``).
    ``arguments``: the options of this kind's own (they must not clash with another
    kind's). ``seats``, for ``sim``: the names its seats' players take, for the help of
    ``--p1``/``--p2``, and the two seats' defaults.
    """

    summary: str
    run: Run
    arguments: Callable[[argparse.ArgumentParser], None] = no_arguments
    seats: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class KindCli:
    """A game kind's part of ``diablotin``; its :class:`~controller.games.registry.GameKind`
    names it (``cli = "module:NAME"``). ``play``/``sim``: its terminal game and its
    simulator, if any; ``commands``: commands of its own (a record scorer, say)."""

    play: Terminal | None = None
    sim: Terminal | None = None
    commands: tuple[Command, ...] = ()


def kind_clis() -> dict[str, KindCli]:
    """Every registered kind that has a part of ``diablotin``, by kind name, in the
    registry's order (imports each kind's ``cli`` module)."""
    from ..games.registry import kinds

    found = {}
    for kind in kinds():
        if kind.cli is not None:
            module, _, name = kind.cli.partition(":")
            part = getattr(importlib.import_module(module), name)
            if not isinstance(part, KindCli):
                raise TypeError(f"{kind.cli} is not a KindCli")
            found[kind.name] = part
    return found
