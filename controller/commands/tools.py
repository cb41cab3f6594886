"""The commands that hand over to a tool of their own: ``faces``, ``bench`` and
``reliability`` (a game kind's own tools come with its ``cli``: :func:`kind_commands`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..config import Config
from ..console import fail
from ..games.registry import names
from .base import Command, kind_clis

_BENCH = Path(__file__).resolve().parent.parent / "bench"
"""controller/bench/: ``bench AREA`` runs ``controller.bench.AREA``."""
BENCH_AREAS = (
    "attack_load",
    *(name for name in names() if (_BENCH / f"{name}.py").is_file()),  # a kind's own bench
    "solver",
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


def kind_commands() -> tuple[Command, ...]:
    """The commands the registered game kinds bring (each kind's ``KindCli.commands``)."""
    return tuple(command for part in kind_clis().values() for command in part.commands)


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
