"""“Log in BG Stats” (issue 24): a finished game's link is BG Stats' documented
``createPlay.html?data=<url-encoded JSON>``; the test decodes it and checks every field
against the journal and against the documented field names and types."""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

from controller.service import Service

from .conftest import REFEREE

# BG Stats' createPlay fields ("Linking and pushing to BG Stats from other apps or
# websites"; the sources are in docs/dashboard.md): name -> JSON type(s)
PLAY_FIELDS: dict[str, tuple[type, ...]] = {
    "sourceName": (str,),
    "sourcePlayId": (str,),
    "playDate": (str,),
    "durationMin": (int,),
    "location": (str,),
    "comments": (str,),
    "game": (dict,),
    "players": (list,),
}
REQUIRED = {"sourceName", "sourcePlayId", "playDate", "game", "players"}
GAME_FIELDS = {
    "name": (str,),
    "sourceGameId": (str,),
    "bggId": (int,),
    "highestWins": (bool,),
    "noPoints": (bool,),
    "cooperative": (bool,),
}
PLAYER_FIELDS = {
    "name": (str,),
    "sourcePlayerId": (str,),
    "score": (int, float),
    "winner": (bool,),
    "startPlayer": (bool,),
    "rank": (int,),
    "role": (str,),
    "team": (str,),
}
PLAY_DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")  # UTC


def decode(url: str) -> dict[str, Any]:
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "app.bgstatsapp.com",
        "/createPlay.html",
    )
    query = parse_qs(parts.query, strict_parsing=True)
    assert list(query) == ["data"] and len(query["data"]) == 1
    assert " " not in url and "{" not in url  # url-encoded
    return json.loads(query["data"][0])


def check_documented(play: dict[str, Any]) -> None:
    assert REQUIRED <= set(play) <= set(PLAY_FIELDS), set(play) - set(PLAY_FIELDS)
    for name, value in play.items():
        assert isinstance(value, PLAY_FIELDS[name]) and not isinstance(value, bool), name
    assert PLAY_DATE.fullmatch(play["playDate"])
    assert set(play["game"]) <= set(GAME_FIELDS) and "name" in play["game"]
    for name, value in play["game"].items():
        assert isinstance(value, GAME_FIELDS[name]), name
    for person in play["players"]:
        assert {"name", "winner"} <= set(person) <= set(PLAYER_FIELDS), person
        for name, value in person.items():
            assert isinstance(value, PLAYER_FIELDS[name]), (name, value)
            if name == "score":
                assert not isinstance(value, bool)


def finish(service: Service, game_id: int, seed: int = 3) -> None:
    table, rng = service.table(game_id), random.Random(seed)
    while not table.finished:
        table.submit(rng.choice(table.legal_actions()))


def journal_times(service: Service, game_id: int) -> tuple[str, int]:
    assert service.journal is not None
    times = [e.at for e in service.journal.entries(game_id)]
    start = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(min(times)))
    return start, round((max(times) - min(times)) / 60)


def test_a_finished_tail_tile_game_is_a_documented_play(
    client: FlaskClient, service: Service
) -> None:
    zoe = client.post("/api/players", json={"name": "Zoé"}, headers=REFEREE).get_json()
    made = client.post(
        "/api/games",
        json={
            "kind": "tails",
            "options": {"players": 3},
            "seats": [{"player": zoe["id"]}, {"guest": "Ömer"}, None],
        },
        headers=REFEREE,
    ).get_json()
    gid = made["view"]["id"]
    finish(service, gid)
    resp = client.get(f"/api/games/{gid}/bgstats", headers={"Accept-Language": "de"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    play = decode(body["url"])
    assert play == body["play"]
    check_documented(play)
    state = service.table(gid).view("public")["state"]
    start, minutes = journal_times(service, gid)
    assert play["playDate"] == start and play["durationMin"] == minutes
    assert play["sourceName"] == "Diablotin"
    from controller.games import registry

    assert play["game"]["name"] == registry.get("tails").title.english()
    assert play["game"]["noPoints"] is False and play["game"]["highestWins"] is True
    assert [p["name"] for p in play["players"]] == ["Zoé", "Ömer", "Spieler 3"]
    totals = state["totals"]
    assert [p["score"] for p in play["players"]] == totals  # 3 players: one side each
    winners = set(state["winning_seats"])
    assert [p["winner"] for p in play["players"]] == [i in winners for i in range(3)]
    assert [p["startPlayer"] for p in play["players"]] == [True, False, False]
    assert play["players"][0]["sourcePlayerId"] != play["players"][1]["sourcePlayerId"]
    # the game's page and its history page carry the link, for everyone
    for page in (f"/games/{gid}", f"/history/{gid}"):
        html = client.get(page).get_data(as_text=True)
        assert 'id="bgstats-link"' in html, page
        href = re.search(r'href="([^"]+)"[^>]*id="bgstats-link"', html)
        assert href is not None
        found = href.group(1).replace("&amp;", "&")
        assert decode(found)["players"][2]["name"] == "Player 3"  # the page's language


def test_teufel_has_no_points_and_its_first_player_starts(
    client: FlaskClient, service: Service
) -> None:
    from controller.bench.teufel import random_game

    game = random_game(4)
    gid = service.new_game("teufel", game.options)
    table = service.table(gid)
    for action in game.actions:
        table.submit(action)
    assert table.finished
    play = client.get(f"/api/games/{gid}/bgstats").get_json()["play"]
    check_documented(play)
    colours = [p.colour for p in table.state.players]
    first = colours[table.state.first]
    assert play["game"]["noPoints"] is True
    assert all("score" not in p for p in play["players"])
    assert [p["startPlayer"] for p in play["players"]] == [c == first for c in colours]
    losers = set(table.state.losers)
    assert [p["winner"] for p in play["players"]] == [i not in losers for i in range(len(colours))]
    assert [p["name"] for p in play["players"]] == colours  # English: the colours' names


@pytest.mark.parametrize("how", ["in play", "abandoned"])
def test_only_a_finished_game_has_the_link(client: FlaskClient, service: Service, how: str) -> None:
    gid = service.new_game("tails", {"players": 2})
    if how == "abandoned":
        service.abandon(gid)
    resp = client.get(f"/api/games/{gid}/bgstats", headers={"Accept-Language": "fr"})
    assert resp.status_code == 409 and resp.get_json()["error"] == "not-finished"
    assert "BG Stats" in resp.get_json()["reason"]
    assert resp.get_json()["reason"] != "only a finished game can be logged in BG Stats"
    for page in (f"/games/{gid}", f"/history/{gid}"):
        html = client.get(page).get_data(as_text=True)
        assert "app.bgstatsapp.com" not in html, page
        assert 'id="bgstats-link"' not in html or re.search(r'id="bgstats-link"[^>]*hidden', html)
    assert client.get("/api/games/999/bgstats").status_code == 404


def test_a_sauteur_game_scores_its_points_and_the_first_popper_starts(
    client: FlaskClient, service: Service
) -> None:
    gid = service.new_game(
        "sauteur",
        {"rule": "A", "first_hider": "p2"},
        seats=[{"guest": "Zoé"}, {"computer": "optimal"}],
    )
    finish(service, gid, seed=11)
    play = client.get(f"/api/games/{gid}/bgstats", headers={"Accept-Language": "fr"}).get_json()
    check_documented(play["play"])
    play = play["play"]
    state = service.table(gid).view("public")["state"]
    assert [p["score"] for p in play["players"]] == [state["scores"]["p1"], state["scores"]["p2"]]
    assert [p["winner"] for p in play["players"]] == [state["winner"] == s for s in ("p1", "p2")]
    assert [p["startPlayer"] for p in play["players"]] == [True, False]  # p2 hides first
    assert play["players"][0]["name"] == "Zoé"
    from controller.web.i18n import translate

    computer = translate("fr", "seat.computer", level=translate("fr", "level.optimal"))
    assert play["players"][1]["name"] == computer and computer.startswith("Ordinateur")
    assert play["game"] == {
        "name": "Le Diable sauteur",
        "sourceGameId": "diablotin-sauteur",
        "highestWins": True,
        "noPoints": False,
    }
    start, minutes = journal_times(service, gid)
    assert (play["playDate"], play["durationMin"]) == (start, minutes)
