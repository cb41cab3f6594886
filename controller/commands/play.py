"""``diablotin play`` and ``diablotin sim``: games in the terminal, and computer games
through the rules engine. Each game kind brings its own (its ``GameKind.cli``, a
:class:`~.base.KindCli`): the choices are the kinds that declare a terminal game or a
simulator, and each adds its own options."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import Config
from ..console import fail
from ..sentences import Said
from .base import Command, Terminal, kind_clis


def _terminals(which: str) -> dict[str, Terminal]:
    """The kinds' ``play`` (``which="play"``) or ``sim`` parts, by kind name."""
    found = {}
    for name, part in kind_clis().items():
        terminal = part.play if which == "play" else part.sim
        if terminal is not None:
            found[name] = terminal
    return found


def _game_argument(p: argparse.ArgumentParser, terminals: dict[str, Terminal]) -> None:
    p.add_argument(
        "game",
        choices=list(terminals),
        help="; ".join(f"{name}: {terminal.summary}" for name, terminal in terminals.items()),
    )


def play_arguments(p: argparse.ArgumentParser) -> None:
    terminals = _terminals("play")
    _game_argument(p, terminals)
    p.add_argument("--computer", action="store_true", help="the computer pops for both players")
    p.add_argument(
        "--lang",
        choices=["en", "fr", "de"],
        default=None,
        help="the language it speaks (default: the environment's, LANG and friends, else en)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="the simulated toy's seed (default: random)"
    )
    p.add_argument(
        "--names",
        nargs=2,
        metavar=("P1", "P2"),
        default=None,
        help="the two players' names (a roster player's name seats that player; "
        "default: p1 and p2)",
    )
    p.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="keep the match in this journal file (e.g. the data dir's diablotin.sqlite3); "
        "default: a throwaway journal, so the dashboard never sees a half-played match",
    )
    for terminal in terminals.values():
        terminal.arguments(p)


def cmd_play(args: argparse.Namespace, config: Config) -> int:
    return _terminals("play")[args.game].run(args, config)


def sim_arguments(p: argparse.ArgumentParser) -> None:
    terminals = _terminals("sim")
    _game_argument(p, terminals)
    seated = {name: t.seats for name, t in terminals.items() if t.seats is not None}
    p.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the first game (default 1)")
    p.add_argument(
        "--p1",
        default=None,
        help="seat p1: "
        + "; ".join(f"{names} ({kind}, default {p1})" for kind, (names, p1, _) in seated.items()),
    )
    p.add_argument(
        "--p2",
        default=None,
        help="seat p2 ("
        + ", ".join(f"{kind} default {p2}" for kind, (_, _, p2) in seated.items())
        + ")",
    )
    p.add_argument("--json", action="store_true", help="print only the JSON contract")
    p.add_argument(
        "--workers", type=int, default=None, help="processes (default: one per core; 1: serial)"
    )
    for terminal in terminals.values():
        terminal.arguments(p)


def cmd_sim(args: argparse.Namespace, config: Config) -> int:
    if args.games < 1:
        fail(Said("{option} must be at least 1", option="--games"))
        return 2
    return _terminals("sim")[args.game].run(args, config)


PLAY = Command("play", "play a game in the terminal", cmd_play, play_arguments)
SIM = Command("sim", "computer games through the rules engine", cmd_sim, sim_arguments)
