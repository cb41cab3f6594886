"""The API answers one mistake with one code and one status, from controller/refusals.py
(issue 23, point 6): an unknown action in any game, an unknown player wherever named."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from controller import refusals
from controller.journal import Journal
from controller.service import JOURNAL_NAME, Service
from controller.web import create_app

from .conftest import REFEREE, make_service, snapshot

STARTS = {
    "sauteur": {"kind": "sauteur"},
    "teufel": {"kind": "teufel", "options": {"players": ["blue", "green"]}},
    "tails": {"kind": "tails"},
}


@pytest.mark.parametrize("kind", sorted(STARTS))
@pytest.mark.parametrize(
    ("action", "code"), [({"type": "jump"}, "unknown-action"), ({"to": "c4"}, "bad-action")]
)
def test_an_unknown_action_is_the_same_answer_in_every_game(
    client: FlaskClient, service: Service, kind: str, action: dict, code: str
) -> None:
    started = client.post("/api/games", json=STARTS[kind], headers=REFEREE)
    assert started.status_code == 201, started.get_json()
    game_id = started.get_json()["view"]["id"]
    before = snapshot(service)
    resp = client.post(f"/api/games/{game_id}/actions", json=action, headers=REFEREE)
    error = resp.get_json()
    assert (resp.status_code, error["code"]) == (400, code), error
    if code == "unknown-action":
        assert error["params"]["kind"] == action["type"] and error["params"]["known"]
    assert snapshot(service) == before


def test_an_unknown_player_is_404_in_a_seat_in_the_url_and_in_a_change(
    client: FlaskClient, service: Service
) -> None:
    before = snapshot(service)
    answers = [
        client.post(
            "/api/games", json={"kind": "sauteur", "seats": [{"player": 99}, None]}, headers=REFEREE
        ),
        client.delete("/api/players/99", headers=REFEREE),
        client.post("/api/players", json={"id": 99, "name": "Max"}, headers=REFEREE),
    ]
    assert [(r.status_code, r.get_json()["code"]) for r in answers] == [(404, "no-player")] * 3
    assert refusals.status("no-player") == 404
    assert snapshot(service) == before


def test_every_refusal_the_api_answers_has_the_tables_status(client: FlaskClient) -> None:
    """A sample across kinds of mistake: the status is the table's for the code."""
    answers = [
        client.get("/api/games/999"),
        client.post("/api/games", json={"kind": "chess"}, headers=REFEREE),
        client.post("/api/games", json={"kind": "sauteur"}),
        client.post("/api/games", json={"kind": "sauteur", "title": "a\u202eb"}, headers=REFEREE),
        client.post("/api/games/999/undo", headers=REFEREE),
    ]
    for resp in answers:
        code = resp.get_json()["code"]
        assert resp.status_code == refusals.status(code), (code, resp.status_code)


def test_a_damaged_game_is_409_damaged_on_every_route_and_on_its_stream(tmp_path: Path) -> None:
    """Found on the way (issue 23): the stream said 404 for a damaged game, the API 409."""
    journal = Journal(tmp_path / JOURNAL_NAME)
    journal.create_game("tails", {"players": 2, "board": str(tmp_path / "gone.json")}, "lost")
    journal.close()
    service = make_service(tmp_path, think_s=3600.0)
    try:
        client = create_app(service).test_client()
        (game_id,) = service.damaged
        answers = [
            client.get(f"/api/games/{game_id}"),
            client.post(f"/api/games/{game_id}/undo", headers=REFEREE),
            client.get(f"/stream?topics=game:{game_id}"),
        ]
        assert [(r.status_code, r.get_json()["code"]) for r in answers] == [(409, "damaged")] * 3
    finally:
        service.stop()
