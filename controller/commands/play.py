"""``diablotin play`` and ``diablotin sim``: games in the terminal, and computer games
through the rules engine."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..config import Config
from ..console import environment_language, fail
from ..sentences import Said
from .base import Command


def play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "game",
        choices=["sauteur", "tails"],
        help="sauteur: the Diable sauteur; tails: the tail-tile game (2 players)",
    )
    p.add_argument(
        "--rule",
        choices=["A", "B"],
        default=None,
        help="A: the chase, B: the race (default: the config's)",
    )
    p.add_argument("--computer", action="store_true", help="the computer pops for both players")
    p.add_argument(
        "--lang",
        choices=["en", "fr", "de"],
        default=None,
        help="the language it speaks (default: the environment's, LANG and friends, else en)",
    )
    p.add_argument(
        "--level",
        choices=["random", "heuristic", "computer", "optimal", "adaptive"],
        default=None,
        help="the computer's level (default adaptive)",
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


def cmd_play(args: argparse.Namespace, config: Config) -> int:
    import tempfile

    from ..games.sauteur.config import SauteurSection
    from ..journal import Journal, JournalError
    from ..terminal_sauteur import play_sauteur

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
    p.add_argument(
        "game",
        choices=["sauteur", "tails"],
        help="sauteur: the Diable sauteur; tails: the tail-tile game (2 players)",
    )
    p.add_argument("--rule", choices=["A", "B"], default="A", help="A: the chase, B: the race")
    p.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the first game (default 1)")
    p.add_argument(
        "--p1",
        default=None,
        help="seat p1: random|heuristic|optimal|adaptive|counter|oracle (sauteur, default "
        "heuristic); "
        "greedy|lookahead|rollouts (tails, default rollouts)",
    )
    p.add_argument("--p2", default=None, help="seat p2 (sauteur default random, tails lookahead)")
    p.add_argument(
        "--rollouts", type=int, default=None, help="tails: rollout rounds a move (reproducible)"
    )
    p.add_argument(
        "--budget", type=float, default=0.2, help="tails: seconds a move without --rollouts"
    )
    hiders = ["uniform", "random", "equilibrium"]
    hiders += [f"{habit}-{k}" for habit in ("devil-on", "biased") for k in range(1, 5)]
    p.add_argument("--hider", choices=hiders, default="uniform", help="how both seats hide")
    p.add_argument("--hider1", choices=hiders, default=None, help="how seat p1 hides")
    p.add_argument("--hider2", choices=hiders, default=None, help="how seat p2 hides")
    p.add_argument("--json", action="store_true", help="print only the JSON contract")
    p.add_argument(
        "--workers", type=int, default=None, help="processes (default: one per core; 1: serial)"
    )


def cmd_sim(args: argparse.Namespace, config: Config) -> int:
    from ..sim import STRATEGIES, format_report, report_json, seat_hiders, simulate_parallel
    from ..sim_tails import ADVISORS, duel

    if args.games < 1:
        fail(Said("{option} must be at least 1", option="--games"))
        return 2
    if args.game == "tails":
        p1, p2 = args.p1 or "rollouts", args.p2 or "lookahead"
        if args.rollouts is not None and args.rollouts < 1:
            fail(Said("{option} must be at least 1", option="--rollouts"))
            return 2
        for name in (p1, p2):
            if name not in ADVISORS:
                fail(
                    Said("unknown advisor {name!r}: {known}", name=name, known=", ".join(ADVISORS))
                )
                return 2
        result = duel(args.games, args.seed, p1, p2, args.rollouts, args.budget).as_json()
        if args.json:
            print(json.dumps(result))
        else:
            for seat, name in (("p1", p1), ("p2", p2)):
                wins, margin = result["wins"][seat], result["mean_scores"][seat]
                per_move = result["seconds_per_move"][seat]
                print(
                    f"{seat} {name:10} wins {wins:6}  margin {margin:+.2f}  {per_move:.4f} s a move"
                )
            print(f"draws {result['draws']} of {result['games']} games (p1 moves first)")
        return 0
    poppers = {"p1": args.p1 or "heuristic", "p2": args.p2 or "random"}
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


PLAY = Command("play", "play a game in the terminal", cmd_play, play_arguments)
SIM = Command("sim", "computer games through the rules engine", cmd_sim, sim_arguments)
