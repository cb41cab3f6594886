"""The roster, seats, rename, rematch, abandon and delete through the API (issue 12)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller import backup
from controller.service import JOURNAL_NAME, Service
from controller.stats import StatsCache

from .conftest import REFEREE, snapshot


def add(client: FlaskClient, name: str, mark: str = "#d94f30") -> dict:
    resp = client.post("/api/players", json={"name": name, "mark": mark}, headers=REFEREE)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def test_the_roster_takes_names_and_marks_and_lists_them(client: FlaskClient) -> None:
    zoe = add(client, "Zoé 🦊", "🦊")
    max_ = add(client, "Max", "#1F6FEB")
    assert max_["mark"] == "#1f6feb"  # colours are kept lower-case
    listed = client.get("/api/players").get_json()["players"]
    assert [p["name"] for p in listed] == ["Max", "Zoé 🦊"]  # by name
    renamed = client.post(
        "/api/players", json={"id": zoe["id"], "name": "Zoé", "mark": "🐉"}, headers=REFEREE
    )
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Zoé"
    assert {p["name"] for p in client.get("/api/players").get_json()["players"]} == {"Max", "Zoé"}


def test_the_roster_sorts_accented_names_as_a_reader_does(client: FlaskClient) -> None:
    """Walkthrough: "Zoé / Élodie / Émilie / Ömer" came last, by code point; a German or
    French reader looks for Élodie among the E's and Ömer among the O's. The stats page's
    table of players, equal in games, is in the same order."""
    names = ["Zoé", "Ömer", "émilie", "Élodie", "Anne", "Oscar", "Jürgen", "elsa"]
    for name in names:
        add(client, name, "🦊")
    listed = [p["name"] for p in client.get("/api/players").get_json()["players"]]
    assert listed == ["Anne", "Élodie", "elsa", "émilie", "Jürgen", "Ömer", "Oscar", "Zoé"]
    from controller.stats import GameFacts, summarise

    pairs = zip(names[::2], names[1::2], strict=True)
    games = [
        GameFacts(n, "sauteur", "A", float(n), 60.0, 10, {"p1": a, "p2": b}, "p1", ("p1",))
        for n, (a, b) in enumerate(pairs, 1)
    ]
    assert [row["name"] for row in summarise(games)["players"]] == listed


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": ""}, "text-empty"),
        ({"name": "   "}, "text-empty"),
        ({"name": "x" * 25}, "text-too-long"),
        ({"name": "Eve\u202e"}, "text-bidi"),
        ({"name": "Ann\u200b"}, "text-invisible"),
        ({"name": "Bo\u0007b"}, "text-control"),
        ({"name": 42}, "text-type"),
        ({"name": "Ok", "mark": "red"}, "bad-mark"),
        ({"name": "Ok", "mark": "#12345"}, "bad-mark"),
        ({"name": "Ok", "age": 9}, "bad-player"),
        ({"name": "Ok", "id": 999}, "no-player"),
    ],
)
def test_bad_names_and_marks_are_refused_with_a_reason_and_change_nothing(
    client: FlaskClient, service: Service, body: dict, code: str
) -> None:
    before = client.get("/api/players").get_json()
    resp = client.post("/api/players", json=body, headers=REFEREE)
    assert resp.status_code in (400, 404, 409), resp.get_json()
    error = resp.get_json()
    assert error["error"] == code and error["reason"]
    assert client.get("/api/players").get_json() == before


def test_a_name_is_taken_once_case_aside_and_twenty_four_emoji_are_a_name(
    client: FlaskClient,
) -> None:
    add(client, "Max")
    resp = client.post("/api/players", json={"name": "max"}, headers=REFEREE)
    assert resp.status_code == 409 and resp.get_json()["error"] == "name-taken"
    assert add(client, "🦊" * 24)["name"] == "🦊" * 24


def test_changing_anything_needs_the_referee(client: FlaskClient, service: Service) -> None:
    before = snapshot(service)
    assert client.post("/api/players", json={"name": "Max"}).status_code == 401
    game = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE).get_json()
    gid = game["view"]["id"]
    middle = snapshot(service)
    assert middle != before
    for method, path, body in [
        ("post", f"/api/games/{gid}/abandon", None),
        ("delete", f"/api/games/{gid}", None),
        ("patch", f"/api/games/{gid}", {"title": "x"}),
        ("post", f"/api/games/{gid}/rematch", None),
        ("post", f"/api/games/{gid}/box", None),
    ]:
        resp = getattr(client, method)(path, json=body)
        assert resp.status_code == 401, (path, resp.get_json())
    assert snapshot(service) == middle
    assert client.get("/api/export.zip").status_code == 401
    assert client.get("/api/export.csv").status_code == 401


def test_seats_carry_names_into_views_lists_history_and_exports(
    client: FlaskClient, service: Service
) -> None:
    zoe = add(client, "Zoé", "🦊")
    resp = client.post(
        "/api/games",
        json={
            "kind": "sauteur",
            "options": {"rule": "A"},
            "seats": [{"player": zoe["id"]}, {"guest": "Grand-père"}],
        },
        headers=REFEREE,
    )
    assert resp.status_code == 201, resp.get_json()
    view = resp.get_json()["view"]
    assert [(s["key"], s["name"], s["mark"]) for s in view["seats"]] == [
        ("p1", "Zoé", "🦊"),
        ("p2", "Grand-père", None),
    ]
    listed = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    assert [s["name"] for s in listed[view["id"]]["seats"]] == ["Zoé", "Grand-père"]
    exported = client.get(f"/api/games/{view['id']}/export", headers=REFEREE).get_json()
    assert [s["name"] for s in exported["seats"]] == ["Zoé", "Grand-père"]
    assert all(s["player"] is None or isinstance(s["player"], int) for s in exported["seats"])
    rows = list(csv.DictReader(io.StringIO(client.get("/api/export.csv", headers=REFEREE).text)))
    assert rows[0]["players"] == "Zoé; Grand-père"
    # an exported game keeps its names on another box (the roster ids are dropped)
    again = client.post("/api/import", json=exported, headers=REFEREE)
    assert again.status_code == 201
    imported = client.get(f"/api/games/{again.get_json()['id']}").get_json()["view"]
    assert [(s["name"], s["player"]) for s in imported["seats"]] == [
        ("Zoé", None),
        ("Grand-père", None),
    ]


@pytest.mark.parametrize(
    ("seats", "code"),
    [
        ([{"guest": "A"}], "bad-seats"),  # sauteur has two seats
        ([{"player": 99}, None], "no-player"),
        ([{"guest": "A\u202e"}, None], "text-bidi"),
        ([{"computer": "genius"}, None], "bad-seats"),
        ([{"robot": 1}, None], "bad-seats"),
        ("p1,p2", "bad-seats"),
    ],
)
def test_bad_seats_start_no_game(
    client: FlaskClient, service: Service, seats: object, code: str
) -> None:
    before = snapshot(service)
    resp = client.post("/api/games", json={"kind": "sauteur", "seats": seats}, headers=REFEREE)
    assert resp.status_code in (400, 404, 409) and resp.get_json()["error"] == code
    assert snapshot(service) == before


def test_a_player_sits_once_and_only_the_sauteur_has_a_computer(client: FlaskClient) -> None:
    zoe = add(client, "Zoé")
    twice = client.post(
        "/api/games",
        json={"kind": "sauteur", "seats": [{"player": zoe["id"]}, {"player": zoe["id"]}]},
        headers=REFEREE,
    )
    assert twice.get_json()["error"] == "bad-seats"
    robot = client.post(
        "/api/games",
        json={"kind": "tails", "seats": [{"computer": "optimal"}, None]},
        headers=REFEREE,
    )
    assert robot.get_json()["error"] == "bad-seats"


def test_a_guest_named_like_another_seat_is_refused_with_the_way_out(
    client: FlaskClient, service: Service
) -> None:
    """Walkthrough: a guest "Élodie" sat in the same game as the roster's Élodie, without a
    word (their stats, kept by name, would be one person's). Refused, in the page's
    language, naming the way out; nothing is created."""
    elodie = add(client, "Élodie")
    for seats in (
        [{"player": elodie["id"]}, {"guest": "élodie"}],
        [{"guest": "Max"}, {"guest": "MAX"}],
    ):
        client.set_cookie("lang", "fr")
        resp = client.post("/api/games", json={"kind": "sauteur", "seats": seats}, headers=REFEREE)
        assert resp.status_code == 400 and resp.get_json()["error"] == "bad-seats"
        assert "donnez un autre nom à l’invité" in resp.get_json()["reason"]
    assert service.games() == []
    ok = [{"player": elodie["id"]}, {"guest": "Élodie B."}]
    made = client.post("/api/games", json={"kind": "sauteur", "seats": ok}, headers=REFEREE)
    assert made.status_code == 201, made.get_json()


def test_a_computer_seat_plays_at_its_level(client: FlaskClient, service: Service) -> None:
    resp = client.post(
        "/api/games",
        json={"kind": "sauteur", "seats": [{"guest": "Léa"}, {"computer": "random"}]},
        headers=REFEREE,
    )
    payload = resp.get_json()
    assert payload["extras"]["computer"] == ["p2"]
    assert payload["extras"]["levels"]["p2"] == "random"


def test_rename_and_rematch(client: FlaskClient, service: Service) -> None:
    zoe = add(client, "Zoé")
    first = client.post(
        "/api/games",
        json={
            "kind": "tails",
            "options": {"players": 2},
            "seats": [{"player": zoe["id"]}, {"guest": "Tom"}],
        },
        headers=REFEREE,
    ).get_json()["view"]
    gid = first["id"]
    renamed = client.patch(f"/api/games/{gid}", json={"title": "Sunday 🎲"}, headers=REFEREE)
    assert renamed.status_code == 200 and renamed.get_json()["view"]["title"] == "Sunday 🎲"
    bad = client.patch(f"/api/games/{gid}", json={"title": ""}, headers=REFEREE)
    assert bad.status_code == 400 and bad.get_json()["error"] == "text-empty"
    assert client.get(f"/api/games/{gid}").get_json()["view"]["title"] == "Sunday 🎲"
    again = client.post(f"/api/games/{gid}/rematch", headers=REFEREE)
    assert again.status_code == 201
    second = again.get_json()["view"]
    assert second["id"] != gid and second["kind"] == "tails"
    assert [(s["name"], s["player"]) for s in second["seats"]] == [
        ("Zoé", zoe["id"]),
        ("Tom", None),
    ]


def finish_tails(service: Service, game_id: int) -> None:
    import random

    table = service.table(game_id)
    rng = random.Random(game_id)
    while not table.finished:
        service.submit(game_id, rng.choice(table.legal_actions()))


def test_abandon_keeps_the_game_marks_it_and_leaves_it_out_of_the_stats(
    client: FlaskClient, service: Service
) -> None:
    done = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE).get_json()
    finish_tails(service, done["view"]["id"])
    gid = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE).get_json()["view"][
        "id"
    ]
    finish_tails(service, gid)
    assert service.journal is not None
    assert StatsCache().summary(service.journal)["games"] == 2
    # a finished game is kept as it ended; a game in play can be abandoned
    assert (
        client.post(f"/api/games/{gid}/abandon", headers=REFEREE).get_json()["error"] == "finished"
    )
    live = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE).get_json()["view"][
        "id"
    ]
    service.submit(live, service.table(live).legal_actions()[0])
    resp = client.post(f"/api/games/{live}/abandon", headers=REFEREE)
    assert resp.status_code == 200
    assert resp.get_json()["view"]["abandoned"] is True
    listed = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    assert listed[live]["abandoned"] and listed[live]["finished"]
    refused = client.post(
        f"/api/games/{live}/actions", json=service.table(live).legal_actions()[0], headers=REFEREE
    )
    assert refused.status_code == 409 and refused.get_json()["error"] == "abandoned"
    assert StatsCache().summary(service.journal)["games"] == 2  # not counted
    # still there after a restart, still abandoned, not resumed
    assert service.journal.game(live).abandoned is not None


def test_delete_removes_the_game_everywhere_and_a_backup_brings_it_back(
    client: FlaskClient, service: Service, tmp_path
) -> None:
    gid = client.post(
        "/api/games", json={"kind": "tails", "title": "Gone"}, headers=REFEREE
    ).get_json()["view"]["id"]
    finish_tails(service, gid)
    kept = client.post(
        "/api/games", json={"kind": "tails", "title": "Kept"}, headers=REFEREE
    ).get_json()["view"]["id"]
    assert service.journal is not None
    copy = tmp_path / "before.sqlite3"
    backup.backup(Path(service.journal.path), copy)
    assert StatsCache().summary(service.journal)["games"] == 1
    resp = client.delete(f"/api/games/{gid}", headers=REFEREE)
    assert resp.status_code == 200 and resp.get_json() == {"deleted": gid}
    assert [g["id"] for g in client.get("/api/games").get_json()["games"]] == [kept]
    assert client.get(f"/api/games/{gid}").status_code == 404
    assert client.delete(f"/api/games/{gid}", headers=REFEREE).status_code == 404
    assert StatsCache().summary(service.journal)["games"] == 0
    with zipfile.ZipFile(io.BytesIO(client.get("/api/export.zip", headers=REFEREE).data)) as z:
        assert [json.loads(z.read(n))["title"] for n in z.namelist()] == ["Kept"]
    # the backup taken before still holds it: restore it (service stopped)
    service.stop()
    backup.restore(copy, service.config.data_dir / JOURNAL_NAME)
    from controller.journal import Journal

    restored = Journal(service.config.data_dir / JOURNAL_NAME)
    try:
        assert [g.title for g in restored.games()] == ["Gone", "Kept"]
    finally:
        restored.close()
