"""The API answers one mistake with one code and one status, from controller/refusals.py
(issue 23, point 6): an unknown action in any game, an unknown player wherever named."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from controller import refusals
from controller.service import Service

from .conftest import REFEREE, snapshot

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
