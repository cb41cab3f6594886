"""The tail-tile game's part of the ``diablotin`` command (its ``GameKind.cli``):
``diablotin tails score FILE`` scores a written game record, ``diablotin sim tails`` plays
advisors head to head. Kind-specific on purpose: this is one kind's terminal front end.

The record format is described in docs/rules-tails.md; the scoring itself is the pure
:func:`controller.games.tails.score_record`. This module only does the I/O.
"""

from __future__ import annotations

import argparse
import json
import sys

from .commands.base import Command, KindCli, Terminal
from .config import Config
from .console import fail, say
from .games.tails import RecordError, score_record
from .sentences import Said


def score_main(path: str) -> int:
    """Print the record's scores as JSON on stdout and return 0; on an unreadable
    file or an illegal record print ``FILE:LINE: reason`` on stderr and return 2."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        print(
            say(Said("{path}: cannot read the record: {error}", path=path, error=error)),
            file=sys.stderr,
        )
        return 2
    try:
        result = score_record(text)
    except RecordError as error:
        print(f"{path}:{error.line}: {say(error.reason)}", file=sys.stderr)
        return 2
    # exactly the documented shape: {"devils": {...all 18}, "totals": [...]}
    print(json.dumps({"devils": result["devils"], "totals": result["totals"]}, indent=2))
    return 0


def tails_arguments(p: argparse.ArgumentParser) -> None:
    tails = p.add_subparsers(dest="tails_command", required=True, metavar="COMMAND")
    ts = tails.add_parser("score", help="score a game record (see docs/rules-tails.md)")
    ts.add_argument("file", help="the record file (its format: docs/rules-tails.md)")


def cmd_tails(args: argparse.Namespace, config: Config) -> int:
    return score_main(args.file)


def sim_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rollouts", type=int, default=None, help="tails: rollout rounds a move (reproducible)"
    )
    p.add_argument(
        "--budget", type=float, default=0.2, help="tails: seconds a move without --rollouts"
    )


SEATS = ("greedy|lookahead|rollouts", "rollouts", "lookahead")


def simulate(args: argparse.Namespace, config: Config) -> int:
    """``args.games`` games between two advisors; 2 for an unknown one or ``--rollouts``
    below 1."""
    from .sim_tails import ADVISORS, duel

    p1, p2 = args.p1 or SEATS[1], args.p2 or SEATS[2]
    if args.rollouts is not None and args.rollouts < 1:
        fail(Said("{option} must be at least 1", option="--rollouts"))
        return 2
    for name in (p1, p2):
        if name not in ADVISORS:
            fail(Said("unknown advisor {name!r}: {known}", name=name, known=", ".join(ADVISORS)))
            return 2
    result = duel(args.games, args.seed, p1, p2, args.rollouts, args.budget).as_json()
    if args.json:
        print(json.dumps(result))
        return 0
    for seat, name in (("p1", p1), ("p2", p2)):
        wins, margin = result["wins"][seat], result["mean_scores"][seat]
        per_move = result["seconds_per_move"][seat]
        print(f"{seat} {name:10} wins {wins:6}  margin {margin:+.2f}  {per_move:.4f} s a move")
    print(f"draws {result['draws']} of {result['games']} games (p1 moves first)")
    return 0


CLI = KindCli(
    sim=Terminal("the tail-tile game (2 players)", simulate, sim_arguments, seats=SEATS),
    commands=(Command("tails", "the tail-tile game's tools", cmd_tails, tails_arguments),),
)
