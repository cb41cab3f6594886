"""The JSON API end to end on the Flask test client (simulated box, toy held still)."""

from __future__ import annotations

import json
import re
import time

from flask import Flask
from flask.testing import FlaskClient

from controller.service import Service
from controller.web.openapi import ROUTES, document

from .conftest import REFEREE, snapshot


def test_a_game_through_the_api(client: FlaskClient, service: Service) -> None:
    resp = client.post(
        "/api/games", json={"kind": "sauteur", "options": {"rule": "B"}}, headers=REFEREE
    )
    assert resp.status_code == 201, resp.get_json()
    game_id = resp.get_json()["view"]["id"]
    listed = client.get("/api/games").get_json()
    assert [g["id"] for g in listed["games"]] == [game_id]
    assert "sauteur" in listed["kinds"]

    # an action the rules refuse: 409 with the reason, nothing changes
    before = snapshot(service)
    resp = client.post(
        f"/api/games/{game_id}/actions", json={"type": "face", "face": 3}, headers=REFEREE
    )
    assert resp.status_code == 409
    assert resp.get_json()["error"] == "not-hidden"
    assert snapshot(service) == before

    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=REFEREE)
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["view"]["version"] == 1
    assert body["view"]["state"]["phase"] == "pop"
    assert {a["type"] for a in body["extras"]["legal"]} == {"pop"}

    resp = client.post(f"/api/games/{game_id}/undo", headers=REFEREE)
    assert resp.status_code == 200
    assert resp.get_json()["view"]["state"]["phase"] == "hiding"
    assert resp.get_json()["view"]["version"] == 2  # the undo is itself journaled

    resp = client.get(f"/api/games/{game_id}/odds")
    assert resp.status_code == 200
    odds = resp.get_json()
    assert [k["key"] for k in odds["keys"]] == [1, 2, 3, 4]
    assert odds["keys"][0]["devil_chance"] == 0.25


def test_malformed_requests_get_400(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    before = snapshot(service)
    url = f"/api/games/{game_id}/actions"
    cases = [
        client.post(url, data="{not json", content_type="application/json", headers=REFEREE),
        client.post(url, json=[1, 2], headers=REFEREE),
        client.post(url, json={"no": "type"}, headers=REFEREE),
        client.post(url, json={"type": "pop", "key": "one"}, headers=REFEREE),
        client.post(url, json={"type": "hidden", "junk": "x" * 5000}, headers=REFEREE),
        client.post("/api/games", json={"kind": "chess"}, headers=REFEREE),
        client.post("/api/games", json={"kind": "sauteur", "options": []}, headers=REFEREE),
        client.post(
            "/api/games", json={"kind": "sauteur", "options": {"rule": "Z"}}, headers=REFEREE
        ),
        client.put(
            f"/api/games/{game_id}/computer", json={"player": "p2", "on": "yes"}, headers=REFEREE
        ),
        client.put(
            f"/api/games/{game_id}/computer", json={"player": "p9", "on": True}, headers=REFEREE
        ),
        client.post("/api/import", json={"format": "nope"}, headers=REFEREE),
        client.post("/api/box/toy", json={"do": "explode"}, headers=REFEREE),
        client.post("/api/box/toy", json={"do": "press", "key": 9}, headers=REFEREE),
        client.post("/api/box/coils/1/fire", json={"pulse_ms": "long"}, headers=REFEREE),
    ]
    for resp in cases:
        assert resp.status_code == 400, (resp.request.path, resp.get_json())
        assert set(resp.get_json()) == {"error", "code", "params", "reason"}
    assert client.get("/api/games/999").status_code == 404
    assert client.get("/api/games/999/odds").status_code == 404
    assert snapshot(service) == before


def test_computer_seats(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    resp = client.put(
        f"/api/games/{game_id}/computer", json={"player": "p2", "on": True}, headers=REFEREE
    )
    levels = {"p1": "adaptive", "p2": "adaptive"}  # the default level at the table
    assert resp.get_json() == {"computer": ["p2"], "levels": levels}
    assert client.get(f"/api/games/{game_id}").get_json()["extras"]["computer"] == ["p2"]
    resp = client.put(
        f"/api/games/{game_id}/computer",
        json={"player": "p2", "on": False, "level": "optimal"},
        headers=REFEREE,
    )
    assert resp.get_json() == {"computer": [], "levels": {**levels, "p2": "optimal"}}
    assert client.get(f"/api/games/{game_id}").get_json()["extras"]["levels"]["p2"] == "optimal"
    resp = client.put(
        f"/api/games/{game_id}/computer",
        json={"player": "p2", "on": True, "level": "god"},
        headers=REFEREE,
    )
    assert resp.status_code == 400 and resp.get_json()["error"] == "bad-level"


def test_moves_number_the_steps_and_say_them(client: FlaskClient, service: Service) -> None:
    """``/moves``: one entry per step ``/steps`` shows (an action taken back and entered
    again is one step), each Teufel Teufel step with what it did in sentences, a kind that
    says nothing with null; a game in play is the referee's only, as its steps."""
    from controller.games.teufel.random_play import random_game

    game = random_game(5)
    game_id = service.new_game("teufel", game.options)
    table = service.table(game_id)
    for action in game.actions[:6]:
        table.submit(action)
    table.undo()
    table.submit(game.actions[5])
    assert client.get(f"/api/games/{game_id}/moves").status_code == 401
    listed = client.get(f"/api/games/{game_id}/moves", headers=REFEREE).get_json()
    assert listed["steps"] == 6 and [m["step"] for m in listed["moves"]] == [1, 2, 3, 4, 5, 6]
    for move in listed["moves"]:
        step = client.get(f"/api/games/{game_id}/steps/{move['step']}", headers=REFEREE)
        assert move["action"] == step.get_json()["action"]
        assert move["said"] == step.get_json()["state"]["events_said"]
    assert any(move["said"] for move in listed["moves"])
    tails = service.new_game("tails", {"players": 2})
    service.table(tails).submit(
        service.table(tails).rules.legal_actions(service.table(tails).state)[0]
    )
    said = client.get(f"/api/games/{tails}/moves", headers=REFEREE).get_json()["moves"]
    assert [m["said"] for m in said] == [None]


def test_steps_export_and_import(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {"rule": "A"})
    table = service.table(game_id)
    table.submit({"type": "hidden"})
    table.submit({"type": "pop", "key": 2, "by": "p2"})
    table.submit({"type": "face", "face": "devil"})
    # unfinished: spectators may not step through it or export it
    assert client.get(f"/api/games/{game_id}/steps/1").status_code == 401
    assert client.get(f"/api/games/{game_id}/export").status_code == 401
    step = client.get(f"/api/games/{game_id}/steps/3", headers=REFEREE).get_json()
    assert step["steps"] == 3
    assert step["action"] == {"type": "face", "face": "devil"}
    assert step["state"]["devil"] == 6
    assert (
        client.get(f"/api/games/{game_id}/steps/0", headers=REFEREE).get_json()["state"]["devil"]
        == 0
    )
    assert client.get(f"/api/games/{game_id}/steps/4", headers=REFEREE).status_code == 400

    resp = client.get(f"/api/games/{game_id}/export", headers=REFEREE)
    assert resp.status_code == 200
    assert "attachment" in resp.headers["Content-Disposition"]
    data = json.loads(resp.data)
    assert data["format"] == "diablotin-game/1"
    assert len(data["entries"]) == 3

    resp = client.post("/api/import", json=data, headers=REFEREE)
    assert resp.status_code == 201
    new_id = resp.get_json()["id"]
    assert new_id != game_id
    again = client.get(f"/api/games/{new_id}/steps/3", headers=REFEREE).get_json()
    assert again["state"] == step["state"]

    # an export whose actions do not replay is refused and stores nothing
    data["entries"][2]["action"] = {"type": "face", "face": 99}
    before = snapshot(service)
    resp = client.post("/api/import", json=data, headers=REFEREE)
    assert resp.status_code in (400, 409)
    assert snapshot(service) == before


def test_box_status_and_toy_controls(client: FlaskClient, service: Service) -> None:
    status = client.get("/api/box").get_json()
    assert status["simulated"] is True
    assert set(status["slots"]) == {"1", "2", "3", "4"}
    assert status["toy"]["chatter"] is False
    resp = client.post("/api/box/toy", json={"do": "chatter", "on": True}, headers=REFEREE)
    assert resp.status_code == 200
    assert resp.get_json()["toy"]["chatter"] is True
    resp = client.post("/api/box/toy", json={"do": "jam", "key": 3, "on": True}, headers=REFEREE)
    assert resp.get_json()["toy"]["jam"] == {"3": None}
    resp = client.post("/api/box/toy", json={"do": "jam", "key": 3, "on": False}, headers=REFEREE)
    assert resp.get_json()["toy"]["jam"] == {}


def test_coil_test_within_limits(client: FlaskClient, service: Service) -> None:
    resp = client.post("/api/box/coils/2/fire", json={}, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"fired": 2, "pulse_ms": 30.0}
    # at once again: the coil is still on, or the 250 ms spacing refuses it, with the reason
    resp = client.post("/api/box/coils/2/fire", json={}, headers=REFEREE)
    assert resp.status_code == 409
    assert resp.get_json()["error"] == "box-refused"
    assert re.search(r"one coil at a time|at least 250 ms", resp.get_json()["reason"])
    resp = client.post("/api/box/coils/3/fire", json={"pulse_ms": 500}, headers=REFEREE)
    assert resp.status_code == 409
    assert "100" in resp.get_json()["reason"]
    resp = client.post("/api/box/coils/7/fire", json={}, headers=REFEREE)
    assert resp.status_code == 409


def test_openapi_matches_the_url_map(app: Flask, client: FlaskClient) -> None:
    doc = client.get("/api/openapi.json").get_json()
    assert doc == json.loads(json.dumps(document()))
    assert doc["openapi"].startswith("3.")
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    served = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        served |= {(m, path) for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    assert documented == served
    assert len(ROUTES) == len(served)
    for path, ops in doc["paths"].items():
        for op in ops.values():
            names = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert names == set(re.findall(r"\{(\w+)\}", path)), path


def test_a_hidden_tapped_at_once_after_a_new_game_is_kept_with_the_box_busy(
    client: FlaskClient, service: Service
) -> None:
    """The box takes a new sauteur game on its worker thread, after whatever it is doing. A
    referee's "hidden" sent at once through the API goes through that same worker, after the
    take, so it is kept: the game is at "pop", not at a new hiding the late take started.
    (Tests that submit to the table directly must wait for the take themselves.)"""
    service.post(lambda: time.sleep(0.3))  # the worker busy, as on a loaded Pi
    resp = client.post(
        "/api/games",
        json={"kind": "sauteur", "options": {"rule": "B", "first_hider": "p1"}},
        headers=REFEREE,
    )
    game_id = resp.get_json()["view"]["id"]
    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    service.call(lambda: None)  # whatever the worker still had queued has run
    assert service.table(game_id).state.phase == "pop"
