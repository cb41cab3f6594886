"""What the served OpenAPI document calls invalid, the API refuses (4xx), changing nothing.

schemathesis' ``negative_data_rejection`` (ST201, "Schema-violating request accepted") once
found a 2xx answer to a request the document says is invalid, in about 27,560 cases. Each
request here is checked twice: a JSON Schema validator (``jsonschema_rs``, schemathesis' own)
refuses it against :func:`controller.web.openapi.document`, and the API refuses it too.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from flask.testing import FlaskClient

from controller.service import Service
from controller.web.openapi import document

from .conftest import REFEREE, snapshot


def _json_schema(schema: object, components: Mapping[str, Any]) -> object:
    """An OpenAPI 3.0 schema as plain JSON Schema: ``$ref`` resolved, ``nullable`` a type."""
    if isinstance(schema, list):
        return [_json_schema(item, components) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _json_schema(components[schema["$ref"].rsplit("/", 1)[1]], components)
    out = {key: _json_schema(value, components) for key, value in schema.items()}
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def document_refuses(
    method: str, template: str, *, body: object = None, path: Mapping[str, str] | None = None
) -> bool:
    """Does the document call this request invalid: its JSON body, or a path parameter's
    text (as sent: it must read as JSON of the parameter's schema)?"""
    doc = document()
    operation = doc["paths"][template][method]  # type: ignore[index]
    components = doc["components"]["schemas"]  # type: ignore[index]
    for name, text in (path or {}).items():
        (schema,) = [p["schema"] for p in operation["parameters"] if p["name"] == name]
        try:
            value = json.loads(text)
        except ValueError:
            return True
        if not jsonschema_rs.is_valid(_json_schema(schema, components), value):
            return True
    if body is not None:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        return not jsonschema_rs.is_valid(_json_schema(schema, components), body)
    return False


def test_the_check_itself_tells_valid_from_invalid() -> None:
    assert not document_refuses("post", "/api/players", body={"name": "Zoé", "id": 3})
    assert document_refuses("post", "/api/players", body={"name": "Zoé", "id": None})
    assert not document_refuses("get", "/api/games/{game_id}", path={"game_id": "12"})
    assert document_refuses("get", "/api/games/{game_id}", path={"game_id": "x"})
    new_game = {"kind": "tails", "seats": None}  # seats: nullable
    assert not document_refuses("post", "/api/games", body=new_game)


# --- path parameters: whole numbers are ASCII digits --------------------------------------

ARABIC_ONE, FULLWIDTH_ONE, DEVANAGARI_ONE = "\u0661", "\uff11", "\u0967"


@pytest.mark.parametrize("one", [ARABIC_ONE, FULLWIDTH_ONE, DEVANAGARI_ONE, "\U0001d7cf"])
def test_an_id_in_other_digits_is_not_found(
    client: FlaskClient, service: Service, one: str
) -> None:
    """``/api/games/١`` was game 1 (werkzeug's ``int`` matches any Unicode digit, and
    Python's ``int()`` reads it); the document's integer is written in ASCII digits."""
    game = service.new_game("tails", {"players": 2})
    assert game == 1
    assert document_refuses("get", "/api/games/{game_id}", path={"game_id": one})
    before = snapshot(service)
    for method, url in [
        ("GET", f"/api/games/{one}"),
        ("PATCH", f"/api/games/{one}"),
        ("DELETE", f"/api/games/{one}"),
        ("GET", f"/api/games/1/steps/{one}"),
        ("GET", f"/api/stats/games/{one}"),
    ]:
        body = {"title": "Renamed"} if method == "PATCH" else None
        resp = client.open(url, method=method, json=body, headers=REFEREE)
        assert resp.status_code == 404, (method, url, resp.get_json())
        assert resp.get_json()["error"] == "not-found"
    assert client.get(f"/games/{one}").status_code == 404  # the game's page too
    assert snapshot(service) == before


def test_a_coil_key_in_other_digits_fires_nothing(client: FlaskClient, service: Service) -> None:
    assert document_refuses("post", "/api/box/coils/{key}/fire", path={"key": ARABIC_ONE})
    resp = client.post(f"/api/box/coils/{ARABIC_ONE}/fire", json={}, headers=REFEREE)
    assert resp.status_code == 404, resp.get_json()
    # nothing fired: a pulse at once is not refused for the 250 ms spacing
    assert client.post("/api/box/coils/1/fire", json={}, headers=REFEREE).status_code == 200


def test_a_player_id_in_other_digits_removes_nobody(client: FlaskClient) -> None:
    made = client.post("/api/players", json={"name": "Zoé"}, headers=REFEREE).get_json()
    assert made["id"] == 1
    assert document_refuses("delete", "/api/players/{player_id}", path={"player_id": ARABIC_ONE})
    resp = client.delete(f"/api/players/{ARABIC_ONE}", headers=REFEREE)
    assert resp.status_code == 404
    assert [p["name"] for p in client.get("/api/players").get_json()["players"]] == ["Zoé"]


# --- text: the document's maxLength is the text as sent -----------------------------------

LONG_TEXTS = [
    ("post", "/api/players", "/api/players", {"name": " " + "a" * 24}),
    ("post", "/api/players", "/api/players", {"name": "b" * 23 + "e\u0301"}),  # é decomposed
    ("post", "/api/games", "/api/games", {"kind": "tails", "title": " " + "t" * 80}),
    ("post", "/api/games", "/api/games", {"kind": "tails", "title": "t" * 79 + "e\u0301"}),
    ("patch", "/api/games/{game_id}", "/api/games/1", {"title": "t" * 80 + "\u00a0"}),
]


@pytest.mark.parametrize(
    ("method", "template", "url", "body"), LONG_TEXTS, ids=[str(case[3]) for case in LONG_TEXTS]
)
def test_text_longer_than_the_document_allows_is_refused_even_if_trimming_shortens_it(
    client: FlaskClient, service: Service, method: str, template: str, url: str, body: object
) -> None:
    """Trimming and NFC made these 24 (80) characters long, and they were stored; the
    document's ``maxLength`` counts what is sent."""
    service.new_game("tails", {"players": 2})
    assert document_refuses(method, template, body=body)
    before = snapshot(service), client.get("/api/players").get_json()
    resp = client.open(url, method=method.upper(), json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "text-too-long"
    assert (snapshot(service), client.get("/api/players").get_json()) == before


def test_text_at_the_limit_is_still_trimmed_and_kept(client: FlaskClient) -> None:
    body = {"name": " " + "a" * 22 + " "}
    assert not document_refuses("post", "/api/players", body=body)
    resp = client.post("/api/players", json=body, headers=REFEREE)
    assert resp.status_code == 201 and resp.get_json()["name"] == "a" * 22


def test_a_rename_is_described_with_the_title_limits(client: FlaskClient) -> None:
    """PATCH said only "a string" while the server refuses an empty or 81-character title."""
    assert document_refuses("patch", "/api/games/{game_id}", body={"title": ""})
    assert document_refuses("patch", "/api/games/{game_id}", body={"title": "t" * 81})
    assert not document_refuses("patch", "/api/games/{game_id}", body={"title": "t" * 80})


# --- null where the document says a type --------------------------------------------------


def test_a_player_id_of_null_is_refused_not_a_new_player(client: FlaskClient) -> None:
    """``{"id": null}`` added a player (and answered 200, "changed", not 201)."""
    for bad in (None, "1", 1.5, True):
        body = {"name": "Zoé", "id": bad}
        assert document_refuses("post", "/api/players", body=body)
        resp = client.post("/api/players", json=body, headers=REFEREE)
        assert resp.status_code == 400, (bad, resp.get_json())
        assert resp.get_json()["error"] == "bad-player"
    assert client.get("/api/players").get_json()["players"] == []


def test_a_computer_level_of_null_is_refused(client: FlaskClient, service: Service) -> None:
    game = service.new_game("sauteur", {})
    body = {"player": "p2", "on": True, "level": None}
    assert document_refuses("put", "/api/games/{game_id}/computer", body=body)
    before = snapshot(service)
    resp = client.put(f"/api/games/{game}/computer", json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "bad-level"
    assert snapshot(service) == before


def test_a_pulse_of_null_fires_nothing(client: FlaskClient) -> None:
    body = {"pulse_ms": None}
    assert document_refuses("post", "/api/box/coils/{key}/fire", body=body)
    resp = client.post("/api/box/coils/1/fire", json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "bad-pulse"
    assert client.post("/api/box/coils/1/fire", json={}, headers=REFEREE).status_code == 200


def test_a_coil_test_without_a_body_is_documented(client: FlaskClient) -> None:
    """The server fires the configured pulse without a body (``curl -X POST``); the
    document said a body was required."""
    body = document()["paths"]["/api/box/coils/{key}/fire"]["post"]["requestBody"]  # type: ignore[index]
    assert body["required"] is False
    resp = client.post("/api/box/coils/1/fire", headers=REFEREE)
    assert resp.status_code == 200 and resp.get_json()["pulse_ms"] == 30.0


# --- fields a command does not use still have the documented type -------------------------


@pytest.mark.parametrize("face", [3, "7", None])
def test_a_teaching_face_outside_the_list_is_refused_whatever_the_step(
    client: FlaskClient, face: object
) -> None:
    """``{"do": "start", "face": 3}``: ``face`` is one of the document's names or absent."""
    body = {"do": "start", "face": face}
    assert document_refuses("post", "/api/box/camera/teach", body=body)
    resp = client.post("/api/box/camera/teach", json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "bad-face"


def _checked_upload(client: FlaskClient) -> str:
    data = client.get("/api/backup", headers=REFEREE).get_data()
    body = {"name": "kept.sqlite3", "data": base64.b64encode(data).decode()}
    resp = client.post("/api/backup/check", json=body, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    token: str = resp.get_json()["upload"]
    return token


@pytest.mark.parametrize("confirm", ["yes", 1, None])
def test_a_restore_confirm_that_is_not_a_boolean_keeps_the_upload(
    client: FlaskClient, confirm: object
) -> None:
    """``"confirm": "yes"`` dropped the waiting upload as a ``false`` would (200)."""
    token = _checked_upload(client)
    body = {"upload": token, "confirm": confirm}
    assert document_refuses("post", "/api/backup/restore", body=body)
    resp = client.post("/api/backup/restore", json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "bad-body"
    drop = {"upload": token, "confirm": False}
    kept = client.post("/api/backup/restore", json=drop, headers=REFEREE)
    assert kept.status_code == 200 and kept.get_json() == {"restored": False}


@pytest.mark.parametrize("field", ["name", "data"])
def test_a_backup_upload_with_a_field_of_the_wrong_type_is_refused(
    client: FlaskClient, field: str
) -> None:
    data = client.get("/api/backup", headers=REFEREE).get_data()
    body: dict[str, object] = {"name": "kept.sqlite3", "data": base64.b64encode(data).decode()}
    body[field] = [body[field]]
    assert document_refuses("post", "/api/backup/check", body=body)
    resp = client.post("/api/backup/check", json=body, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"] == "bad-body"


def test_a_snapshot_name_is_ascii_digits_as_the_document_says(tmp_path: Path) -> None:
    from controller.camera.service import snapshot_path

    template = "/api/games/{game_id}/snapshots/{name}.jpg"
    pattern = re.compile(document()["paths"][template]["get"]["parameters"][1]["schema"]["pattern"])  # type: ignore[index]
    assert snapshot_path(tmp_path, 1, "12-3-4").name == "12-3-4.jpg"
    for name in ("\u0661-1-1", "1-\u0661-1", "12345-1-1", "1-1-5"):
        assert not pattern.search(name)
        with pytest.raises(ValueError):
            snapshot_path(tmp_path, 1, name)


def test_a_coil_key_is_documented_as_the_box_numbers_them(client: FlaskClient) -> None:
    """schemathesis warned that the coil test "mostly rejected generated data": the key was
    any integer, and 7 is refused (409) like every number but 1 to 4."""
    template = "/api/box/coils/{key}/fire"
    assert not document_refuses("post", template, path={"key": "4"})
    for key in ("0", "5"):
        assert document_refuses("post", template, path={"key": key})
        resp = client.post(f"/api/box/coils/{key}/fire", json={}, headers=REFEREE)
        assert resp.status_code == 409 and resp.get_json()["error"] == "box-refused"
