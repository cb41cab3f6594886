"""``Prefer: return=minimal`` (RFC 7240) on an action or an undo: the answer is sent once
the entry is durable and carries only the version that holds it; the view is not built on
the request's thread (the page's live stream brings it). Issue 25, point 2."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from controller.service import Service
from controller.web import api

from .conftest import REFEREE, snapshot

MINIMAL = REFEREE | {"Prefer": "return=minimal"}


def _game(client: FlaskClient) -> int:
    resp = client.post(
        "/api/games", json={"kind": "sauteur", "options": {"rule": "B"}}, headers=REFEREE
    )
    assert resp.status_code == 201, resp.get_json()
    game_id: int = resp.get_json()["view"]["id"]
    return game_id


def test_a_minimal_answer_carries_the_version_and_builds_no_view(
    client: FlaskClient, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = _game(client)

    def no_payload(*args: object) -> None:
        raise AssertionError("the view was built on the request's thread")

    monkeypatch.setattr(api, "game_payload", no_payload)
    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=MINIMAL)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"game": game_id, "version": 1}
    assert resp.headers["Preference-Applied"] == "return=minimal"
    resp = client.post(f"/api/games/{game_id}/undo", headers=MINIMAL)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"game": game_id, "version": 2}
    assert service.journal is not None
    entries = service.journal.entries(game_id)
    assert [(e.undo, e.action["type"]) for e in entries] == [(False, "hidden"), (True, "undo")]


def test_without_the_preference_the_answer_is_the_whole_payload(client: FlaskClient) -> None:
    game_id = _game(client)
    for prefer in (None, "return=representation", "respond-async, wait=5", "return=minimalist"):
        headers = REFEREE if prefer is None else REFEREE | {"Prefer": prefer}
        path = f"/api/games/{game_id}/actions"
        resp = client.post(path, json={"type": "hidden"}, headers=headers)
        assert resp.status_code == 200, resp.get_json()
        body = resp.get_json()
        assert body["view"]["id"] == game_id and "legal" in body["extras"], prefer
        assert "Preference-Applied" not in resp.headers
        assert client.post(f"/api/games/{game_id}/undo", headers=headers).status_code == 200


def test_preferences_are_read_as_rfc_7240_lists(client: FlaskClient) -> None:
    game_id = _game(client)
    headers = REFEREE | {"Prefer": 'wait=10, RETURN=Minimal; x="y"'}
    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=headers)
    assert resp.get_json() == {"game": game_id, "version": 1}


def test_a_refused_action_is_refused_the_same_way(client: FlaskClient, service: Service) -> None:
    game_id = _game(client)
    before = snapshot(service)
    resp = client.post(
        f"/api/games/{game_id}/actions", json={"type": "face", "face": 3}, headers=MINIMAL
    )
    assert resp.status_code == 409
    assert resp.get_json()["error"] == "not-hidden"
    assert snapshot(service) == before
    resp = client.post(f"/api/games/{game_id}/undo", headers=MINIMAL)
    assert resp.status_code == 409 and resp.get_json()["error"] == "nothing-to-undo"
