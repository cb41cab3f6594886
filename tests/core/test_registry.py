"""Each game kind is declared once: a tiny game registered from this test appears in the API,
its OpenAPI document and the home page's form, plays, exports and imports, without any
product file knowing about it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from controller.config import Config
from controller.games import registry
from controller.games.base import Refused
from controller.games.registry import GameKind, Message
from controller.service import Service
from controller.web import create_app

PIN = {"X-Referee-Pin": "2468"}


@dataclass(frozen=True)
class CoinState:
    target: int
    heads: int = 0
    tails: int = 0


class CoinRules:
    """First side to ``target`` wins; the referee enters each toss."""

    name = "coin"

    def setup(self, options: Mapping[str, Any]) -> CoinState:
        target = options.get("target", 3)
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= 9:
            raise Refused("option 'target': a whole number from 1 to 9", "bad-option")
        return CoinState(target)

    def apply(self, state: CoinState, action: Mapping[str, Any]) -> CoinState:
        if self.is_over(state):
            raise Refused("the game is over", "game-over")
        side = action.get("side")
        if action.get("type") != "toss" or side not in ("heads", "tails"):
            raise Refused('a toss is {"type": "toss", "side": "heads" | "tails"}', "bad-action")
        return CoinState(
            state.target, state.heads + (side == "heads"), state.tails + (side == "tails")
        )

    def legal_actions(self, state: CoinState) -> list[dict[str, Any]]:
        if self.is_over(state):
            return []
        return [{"type": "toss", "side": side} for side in ("heads", "tails")]

    def is_over(self, state: CoinState) -> bool:
        return max(state.heads, state.tails) >= state.target

    def view(self, state: CoinState, viewer: str) -> dict[str, Any]:
        return {"heads": state.heads, "tails": state.tails, "over": self.is_over(state)}

    def to_act(self, state: CoinState) -> None:
        return None  # every entry is a toss: a fact of chance


@pytest.fixture
def coin() -> Iterator[GameKind]:
    kind = registry.register(GameKind(name="coin", title=Message("Coin toss"), rules=CoinRules))
    yield kind
    registry.unregister("coin")


@pytest.fixture
def service(tmp_path, coin) -> Iterator[Service]:
    config = Config(data_dir=tmp_path / "data")
    config.server.referee_pin = "2468"
    svc = Service(config, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()
    yield svc
    svc.stop()


def test_a_game_registered_from_a_test_appears_everywhere_and_plays(service, coin):
    client = create_app(service).test_client()
    # the OpenAPI document's kind enum
    doc = client.get("/api/openapi.json").get_json()
    schema = doc["paths"]["/api/games"]["post"]["requestBody"]["content"]["application/json"]
    assert "coin" in schema["schema"]["properties"]["kind"]["enum"]
    # the home page's form, with its title
    home = client.get("/", headers=PIN).get_data(as_text=True)
    assert '<option value="coin">Coin toss</option>' in home
    # started, played and finished through the API
    bad = client.post("/api/games", json={"kind": "coin", "options": {"target": 12}}, headers=PIN)
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad-option"
    made = client.post("/api/games", json={"kind": "coin", "options": {"target": 2}}, headers=PIN)
    assert made.status_code == 201, made.get_json()
    gid = made.get_json()["view"]["id"]
    assert made.get_json()["view"]["title"] == "Coin toss"
    listed = client.get("/api/games").get_json()
    assert "coin" in listed["kinds"]
    assert any(g["id"] == gid and g["kind"] == "coin" for g in listed["games"])
    for side in ("heads", "tails", "heads"):
        resp = client.post(
            f"/api/games/{gid}/actions", json={"type": "toss", "side": side}, headers=PIN
        )
        assert resp.status_code == 200, resp.get_json()
    assert client.get(f"/api/games/{gid}").get_json()["view"]["finished"] is True
    # its page is the generic one; export and import go through the registry too
    assert client.get(f"/games/{gid}").status_code == 200
    exported = client.get(f"/api/games/{gid}/export").get_json()
    again = client.post("/api/import", json=exported, headers=PIN)
    assert again.status_code == 201, again.get_json()


def test_an_unknown_kind_is_refused_with_the_registered_names(service, coin):
    with pytest.raises(Refused) as refused:
        registry.get("chess")
    assert refused.value.code == "bad-game"
    assert "sauteur, teufel, tails, coin" in refused.value.reason


def test_each_built_in_game_is_declared_once_by_its_package():
    import controller.games.sauteur as sauteur
    import controller.games.tails as tails
    import controller.games.teufel as teufel

    assert registry.names()[:3] == ("sauteur", "teufel", "tails")
    for package in (sauteur, teufel, tails):
        assert registry.get(package.KIND.name) is package.KIND
        assert package.KIND.rules().name == package.KIND.name
        package.KIND.check_options(package.KIND.options(None))


def test_the_config_is_checked_by_each_games_own_option_parser(tmp_path):
    from controller.config import ConfigError, load_config

    path = tmp_path / "diablotin.toml"
    path.write_text('[teufel]\ncolours = ["a", "b", "c", "d", "e", "f"]\nvines = ["z9"]\n')
    with pytest.raises(ConfigError, match="teufel"):
        load_config(path)


def test_a_finished_game_of_a_kind_without_stats_of_its_own_is_counted_and_exported(service, coin):
    """Issue 23: a finished coin game made /api/stats, /api/stats/games/<id> and
    /api/export.csv answer 500 (an IndexError, "CoinState has no players")."""
    client = create_app(service).test_client()
    made = client.post("/api/games", json={"kind": "coin", "options": {"target": 1}}, headers=PIN)
    gid = made.get_json()["view"]["id"]
    done = client.post(
        f"/api/games/{gid}/actions", json={"type": "toss", "side": "tails"}, headers=PIN
    )
    assert done.get_json()["view"]["finished"] is True
    stats = client.get("/api/stats", headers=PIN)
    assert stats.status_code == 200, stats.get_data(as_text=True)[:300]
    assert stats.get_json()["kinds"]["coin"]["games"] == 1
    chart = client.get(f"/api/stats/games/{gid}", headers=PIN)
    assert chart.status_code == 200, chart.get_data(as_text=True)[:300]
    assert chart.get_json()["kind"] == "coin"
    csv_text = client.get("/api/export.csv", headers=PIN)
    assert csv_text.status_code == 200
    assert f"{gid},coin,Coin toss" in csv_text.get_data(as_text=True)
