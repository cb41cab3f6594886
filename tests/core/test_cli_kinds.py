"""The commands that play or simulate a game ask the registry which kinds they can: a kind
that declares no terminal game is refused, and a registered kind's own ``cli`` is found."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from controller import cli
from controller.commands.base import KindCli, Terminal
from controller.config import Config
from controller.games import registry


def choices(parser: argparse.ArgumentParser, command: str, dest: str) -> list[str]:
    sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    (action,) = (a for a in sub._actions if a.dest == dest)
    return list(action.choices or [])


def test_play_offers_only_the_kinds_with_a_terminal_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The tail-tile game has no terminal game: `play tails` used to play the sauteur."""
    parser = cli.build_parser()
    assert choices(parser, "play", "game") == ["sauteur"]
    assert choices(parser, "sim", "game") == ["sauteur", "tails"]
    with pytest.raises(SystemExit) as done:
        cli.main(["play", "tails"])
    assert done.value.code == 2
    assert "invalid choice: 'tails'" in capsys.readouterr().err


def test_bench_areas_keep_the_per_kind_benches() -> None:
    areas = choices(cli.build_parser(), "bench", "area")
    assert {"sauteur", "teufel", "tails", "solver", "web", "all"} <= set(areas)
    assert areas[-1] == "all"


ran: list[tuple[str, str]] = []


def _play(args: argparse.Namespace, config: Config) -> int:
    ran.append(("play", args.game))
    return 0


def _sim(args: argparse.Namespace, config: Config) -> int:
    ran.append(("sim", f"{args.game} {args.p1 or 'heads'} {args.flips}"))
    return 0


def _flips(p: argparse.ArgumentParser) -> None:
    p.add_argument("--flips", type=int, default=3, help="coin: flips a game")


CLI = KindCli(
    play=Terminal("a coin tossed in the terminal", _play),
    sim=Terminal("coins tossed", _sim, _flips, seats=("heads|tails", "heads", "tails")),
)


@pytest.fixture
def coin() -> Iterator[None]:
    sauteur = registry.get("sauteur")
    registry.register(
        registry.GameKind(
            name="coin", title=registry.Message("Coin"), rules=sauteur.rules, cli=f"{__name__}:CLI"
        )
    )
    ran.clear()
    yield
    registry.unregister("coin")


def test_a_registered_kind_brings_its_terminal_game_and_simulator(
    coin: None, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = cli.build_parser()
    assert choices(parser, "play", "game") == ["sauteur", "coin"]
    assert "coin" in choices(parser, "sim", "game")
    assert cli.main(["play", "coin"]) == 0
    assert cli.main(["sim", "coin", "--flips", "5", "--games", "2"]) == 0
    assert ran == [("play", "coin"), ("sim", "coin heads 5")]
    with pytest.raises(SystemExit):
        cli.main(["sim", "--help"])
    help_text = capsys.readouterr().out
    assert "coin: coins tossed" in help_text
    assert "heads|tails (coin, default heads)" in help_text
