"""A game kind declares its own config section (``GameKind.config``): the loader checks it
with the same policy as the box's own sections, and ``Config.section`` reads it, with no
line of controller/config.py naming the kind."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config, to_toml
from controller.games import registry
from controller.games.base import Said
from controller.games.registry import GameKind, Message
from controller.games.section import Key, Section, between

from .test_registry import CoinRules


@dataclass
class CoinSection:
    target: int
    sides: list[str]


def _two_sides(value: object) -> Said | None:
    return None if isinstance(value, list) and len(value) == 2 else Said("two sides")


COIN = GameKind(
    name="coin",
    title=Message("Coin toss"),
    rules=CoinRules,
    options=lambda section: {"target": section.target} if section else {},
    config=Section(
        "coin",
        CoinSection,
        (
            Key("target", (int,), 3, between(1, 99)),
            Key("sides", (list,), ["heads", "tails"], _two_sides),
        ),
    ),
)


@pytest.fixture
def coin() -> Iterator[GameKind]:
    registry.register(COIN)
    yield COIN
    registry.unregister("coin")


def _load(tmp_path: Path, text: str) -> CoinSection:
    path = tmp_path / "diablotin.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path).section("coin", CoinSection)


def test_a_kinds_section_is_read_with_its_defaults(coin: GameKind, tmp_path: Path) -> None:
    assert _load(tmp_path, "[coin]\ntarget = 5\n") == CoinSection(5, ["heads", "tails"])
    assert load_config(None).section("coin", CoinSection).target == 3
    written = to_toml(load_config(None))
    assert "[coin]\ntarget = 3\n" in written


@pytest.mark.parametrize(
    "text, error",
    [
        ("[coin]\ntargte = 5\n", "coin.targte: unknown key (known: target, sides)"),
        ("[coin]\ntarget = '5'\n", "coin.target: expected int, got '5'"),
        ("[coin]\ntarget = true\n", "coin.target: expected int, got True"),
        ("[coin]\ntarget = 100\n", "coin.target: must be between 1 and 99"),
        ("[coin]\nsides = ['h']\n", "coin.sides: two sides"),
        ("coin = 1\n", "coin: must be a table, e.g. [coin]"),
        # the engine's own option parser still has the last word
        ("[coin]\ntarget = 12\n", "coin: option 'target': a whole number from 1 to 9"),
    ],
)
def test_a_kinds_section_is_checked_by_the_one_policy(
    coin: GameKind, tmp_path: Path, text: str, error: str
) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    assert str(info.value) == f"{tmp_path / 'diablotin.toml'}: {error}"


def test_without_the_kind_its_section_is_unknown(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"coin: unknown section \(known: box, limits"):
        _load(tmp_path, "[coin]\ntarget = 5\n")


def test_the_loader_names_no_game_kind() -> None:
    source = Path(__file__).resolve().parents[2] / "controller" / "config.py"
    literals = {
        node.value
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert not literals & set(registry.names())
