"""“Log in BG Stats” (issue 24): a finished game's link is BG Stats' documented
``createPlay.html?data=<url-encoded JSON>``; the test decodes it and checks every field
against the journal and against the documented field names and types."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

from controller.service import Service

from .conftest import REFEREE

# BG Stats' own example of a play (tests/data/bgstats/, see SOURCE.md there): the fields the
# app's format has, and their JSON types
EXAMPLE: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "data" / "bgstats" / "app-example.json").read_text("utf-8")
)
# Fields the readable part of the app's page does not show, which other apps that use the
# link send (docs/dashboard.md names them): name -> JSON type
NOT_IN_EXAMPLE = {"sourceName": "string", "sourcePlayId": "string"}
# The example's fields a play from the journal fills (board, comments, location, bggId and
# role it leaves out: docs/dashboard.md says why)
FILLED = {"durationMin", "game", "playDate", "players"}
GAME_FILLED = {"name", "highestWins", "noPoints", "sourceGameId"}
PLAYER_FILLED = {"name", "rank", "sourcePlayerId", "startPlayer", "winner"}  # + score if any


def json_type(value: object) -> str:
    """The JSON type of a decoded value (JSON has one number type)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", dict: "object", list: "array"}[type(value)]


def example_types(example: dict[str, Any]) -> dict[str, str]:
    return {name: json_type(value) for name, value in example.items()}


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
    """Every field of ``play`` is in the app's example (or NOT_IN_EXAMPLE) with the same
    JSON type, at the top, in ``game`` and in ``players[]``; the example's fields a play
    from the journal fills are there."""
    top = example_types(EXAMPLE) | NOT_IN_EXAMPLE
    game = example_types(EXAMPLE["game"])
    player: dict[str, str] = {}
    for shown in EXAMPLE["players"]:
        player |= example_types(shown)
    assert {n: json_type(v) for n, v in play.items()} == {n: top.get(n) for n in play}
    assert FILLED | set(NOT_IN_EXAMPLE) <= set(play)
    assert PLAY_DATE.fullmatch(play["playDate"])
    ours = play["game"]
    assert {n: json_type(v) for n, v in ours.items()} == {n: game.get(n) for n in ours}
    assert set(play["game"]) >= GAME_FILLED
    for person in play["players"]:
        assert {n: json_type(v) for n, v in person.items()} == {n: player.get(n) for n in person}
        assert PLAYER_FILLED | (set() if play["game"]["noPoints"] else {"score"}) <= set(person)
    ranks = sorted(p["rank"] for p in play["players"])
    assert ranks[0] == 1 and all(r == 1 + ranks.index(r) for r in ranks)  # 1, 1, 3: ties share
    for person in play["players"]:
        if any(p["winner"] for p in play["players"]):  # nobody wins a draw, or Teufel's end
            assert (person["rank"] == 1) is person["winner"], person
        elif "score" not in person:
            assert person["rank"] == 1  # nobody won, no points: all in the same place
        for other in play["players"]:
            if "score" in person and not person["winner"] and not other["winner"]:
                if person["score"] > other["score"]:
                    assert person["rank"] < other["rank"]
                if person["score"] == other["score"]:
                    assert person["rank"] == other["rank"]


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
    assert winners  # the tail-tile game always has a winner: rank 1, the rest by total
    better = [
        [j for j in range(3) if j in winners or (i not in winners and totals[j] > totals[i])]
        for i in range(3)
    ]
    assert [p["rank"] for p in play["players"]] == [
        1 if i in winners else 1 + len(better[i]) for i in range(3)
    ]
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


def test_the_check_follows_the_apps_example() -> None:
    """The app's example has the fields we fill (with ours), and a wrong type or an unknown
    field fails the check."""
    assert set(EXAMPLE) >= FILLED and set(EXAMPLE["game"]) >= GAME_FILLED
    assert PLAYER_FILLED | {"score"} <= set(EXAMPLE["players"][0])
    play = {**EXAMPLE, "sourceName": "Diablotin", "sourcePlayId": "x"}
    play["players"] = [
        {**EXAMPLE["players"][0]},
        {**EXAMPLE["players"][0], "winner": False, "rank": 2, "score": 40},
    ]
    check_documented(play)
    for broken in (
        {**play, "durationMin": "36"},
        {**play, "players": [{**play["players"][0], "rank": "1"}, play["players"][1]]},
        {**play, "game": {**play["game"], "bggId": "132531"}},
        {**play, "sourcePlayIdentifier": "x"},
        {**play, "players": [play["players"][0], {**play["players"][1], "rank": 3}]},
    ):
        with pytest.raises(AssertionError):
            check_documented(broken)


@pytest.mark.parametrize(
    ("winners", "scores", "ranks"),
    [
        ({"a"}, {"a": 10, "b": 7, "c": 7, "d": 3}, [1, 2, 2, 4]),
        ({"a", "b"}, {"a": 5, "b": 5, "c": 9}, [1, 1, 3]),  # winners first, whatever the score
        ({"b"}, None, [2, 1, 2]),  # no points: the winner, then the rest together
        ({"a", "c"}, None, [1, 3, 1]),
        (set(), None, [1, 1, 1]),  # Teufel's judgment day: every player lost
        (set(), {"a": 4, "b": 4}, [1, 1]),  # a drawn Diable sauteur
    ],
)
def test_ranks_one_for_the_winners_then_by_score_ties_sharing(
    winners: set[str], scores: dict[str, int] | None, ranks: list[int]
) -> None:
    from controller.web.bgstats import ranks as ranked

    seats = list(scores) if scores else ["a", "b", "c"]
    assert ranked(seats, winners, scores) == dict(zip(seats, ranks, strict=True))
