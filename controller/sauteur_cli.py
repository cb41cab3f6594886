"""The Diable sauteur's part of the ``diablotin`` command (its ``GameKind.cli``): ``play
sauteur``, the terminal game on the box, and ``sim sauteur``, computer games through the
rules engine. Kind-specific on purpose: this is one kind's terminal front end."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .commands.base import KindCli, Terminal
from .config import Config
from .console import environment_language, fail
from .sentences import Said

HIDERS = ["uniform", "random", "equilibrium"] + [
    f"{habit}-{k}" for habit in ("devil-on", "biased") for k in range(1, 5)
]
"""How a seat hides the devil in ``sim``: every name :func:`controller.sim.seat_hiders`
takes."""


def play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rule",
        choices=["A", "B"],
        default=None,
        help="A: the chase, B: the race (default: the config's)",
    )
    p.add_argument(
        "--level",
        choices=["random", "heuristic", "computer", "optimal", "adaptive"],
        default=None,
        help="the computer's level (default adaptive)",
    )


def play(args: argparse.Namespace, config: Config) -> int:
    """A match in the terminal, on the configured box (a throwaway journal unless
    ``--journal``); 1 when the journal cannot be opened."""
    import tempfile

    from .games.sauteur.config import SauteurSection
    from .journal import Journal, JournalError
    from .terminal_sauteur import play_sauteur

    if args.rule:
        config.section("sauteur", SauteurSection).rule = args.rule
    if args.seed is not None:
        config.box.seed = args.seed
    with tempfile.TemporaryDirectory(prefix="diablotin-play-") as scratch:
        try:
            journal = Journal(args.journal or Path(scratch) / "play.sqlite3")
        except JournalError as exc:
            fail(exc)
            return 1
        return play_sauteur(
            config,
            computer=args.computer,
            level=args.level,
            journal=journal,
            names=args.names,
            lang=args.lang or environment_language(),
        )


def sim_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rule", choices=["A", "B"], default="A", help="A: the chase, B: the race")
    p.add_argument("--hider", choices=HIDERS, default="uniform", help="how both seats hide")
    p.add_argument("--hider1", choices=HIDERS, default=None, help="how seat p1 hides")
    p.add_argument("--hider2", choices=HIDERS, default=None, help="how seat p2 hides")


SEATS = ("random|heuristic|optimal|adaptive|counter|oracle", "heuristic", "random")


def simulate(args: argparse.Namespace, config: Config) -> int:
    """``args.games`` games between two levels; 2 for an unknown level."""
    from .sim import STRATEGIES, format_report, report_json, seat_hiders, simulate_parallel

    poppers = {"p1": args.p1 or SEATS[1], "p2": args.p2 or SEATS[2]}
    for name in poppers.values():
        if name not in STRATEGIES:
            known = ", ".join(STRATEGIES)
            fail(Said("unknown level {name!r} for the sauteur: {known}", name=name, known=known))
            return 2
    hiders = seat_hiders(args.hider, args.hider1, args.hider2)
    report = simulate_parallel(
        args.rule, args.games, args.seed, poppers, hiders, workers=args.workers
    )
    print(json.dumps(report_json(report)) if args.json else format_report(report))
    return 0


CLI = KindCli(
    play=Terminal("the Diable sauteur", play, play_arguments),
    sim=Terminal("the Diable sauteur", simulate, sim_arguments, seats=SEATS),
)
