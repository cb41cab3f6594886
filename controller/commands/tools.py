"""The commands that hand over to a tool of their own: ``tails score``, ``faces``,
``bench`` and ``reliability``."""

from __future__ import annotations

import argparse

from ..config import Config
from ..console import fail
from .base import Command

BENCH_AREAS = (
    "attack_load",
    "sauteur",
    "solver",
    "tails",
    "teufel",
    "box",
    "serial",
    "web",
    "stages",
    "service",
    "journal",
    "stats",
    "camera",
    "exploit",
    "all",
)


def tails_arguments(p: argparse.ArgumentParser) -> None:
    tails = p.add_subparsers(dest="tails_command", required=True, metavar="COMMAND")
    ts = tails.add_parser("score", help="score a game record (see docs/rules-tails.md)")
    ts.add_argument("file", help="the record file (its format: docs/rules-tails.md)")


def cmd_tails(args: argparse.Namespace, config: Config) -> int:
    from ..tails_cli import score_main

    return score_main(args.file)


def faces_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs=argparse.REMAINDER, help="diablotin faces --help lists them")


def cmd_faces(args: argparse.Namespace, config: Config) -> int:
    from ..camera import CameraMissing, require

    try:
        require()
    except CameraMissing as exc:
        fail(exc)
        return 2
    from ..camera.cli import main as faces_main
    from ..camera.profile import DEFAULT_NAME

    return faces_main(args.rest, config.data_dir / DEFAULT_NAME)


def bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("area", choices=BENCH_AREAS, help="what to measure (all: the one table)")
    p.add_argument(
        "rest", nargs=argparse.REMAINDER, help="the area's options (diablotin bench AREA --help)"
    )


def cmd_bench(args: argparse.Namespace, config: Config) -> int:
    import importlib

    module = importlib.import_module(f"controller.bench.{args.area}")
    return int(module.main(args.rest) or 0)


def reliability_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs=argparse.REMAINDER, help="diablotin reliability --help lists them")


def cmd_reliability(args: argparse.Namespace, config: Config) -> int:
    from ..reliability import main as reliability_main

    return int(reliability_main(args.rest) or 0)


TAILS = Command("tails", "the tail-tile game's tools", cmd_tails, tails_arguments)
FACES = Command(
    "faces",
    "the camera's face reader: calibrate, read, evaluate (diablotin[camera])",
    cmd_faces,
    faces_arguments,
    passes_through=True,  # every option goes to controller.camera.cli's own parser
)
BENCH = Command("bench", "print benchmark numbers", cmd_bench, bench_arguments)
RELIABILITY = Command(
    "reliability",
    "kill -9, live load and box faults, end to end (--short: under a minute)",
    cmd_reliability,
    reliability_arguments,
    passes_through=True,  # every option goes to controller.reliability's own parser
)
