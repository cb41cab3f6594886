"""Issue 26, items 5 and 13: numbers at the API boundary, and what the OpenAPI document says.

Every integer in a JSON body must fit SQLite's int64 and every number must be finite (400
otherwise, nothing changed); numeric query parameters must be finite (400); the two bulk
exports are described as what they are (CSV, zip), and every response has a schema.
"""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from controller.service import Service
from controller.web.openapi import document

from .conftest import REFEREE, snapshot

BEYOND_INT64 = [2**63, -(2**63) - 1, -18446744073709551616, 10**30]

BODIES = [
    (
        "/api/games",
        lambda n: {"kind": "tails", "options": {"players": 2}, "seats": [{"player": n}]},
    ),
    ("/api/players", lambda n: {"id": n, "name": "Zoé"}),
    ("/api/box/jam", lambda n: {"key": n, "do": "retry"}),
    ("/api/box/coils/1/fire", lambda n: {"pulse_ms": n}),
    ("/api/import", lambda n: {"format": "diablotin-game/1", "game": {"id": n}}),
]


def _post(client: FlaskClient, path: str, raw: str) -> tuple[int, dict[str, object]]:
    resp = client.post(path, data=raw, headers=REFEREE, content_type="application/json")
    return resp.status_code, json.loads(resp.get_data())  # strict JSON: no NaN in answers


@pytest.mark.parametrize("number", BEYOND_INT64)
@pytest.mark.parametrize(("path", "body"), BODIES, ids=[path for path, _ in BODIES])
def test_integers_beyond_int64_in_a_body_are_400(
    client: FlaskClient, service: Service, path: str, body: object, number: int
) -> None:
    before = snapshot(service)
    status, answer = _post(client, path, json.dumps(body(number)))  # type: ignore[operator]
    assert status == 400, answer
    assert answer["error"] == "bad-body"
    assert snapshot(service) == before


def test_int64_limits_themselves_are_read(client: FlaskClient, service: Service) -> None:
    """The largest id SQLite holds is read, and only not found (a refusal, not an
    unreadable body)."""
    status, answer = _post(client, "/api/players", json.dumps({"id": 2**63 - 1, "name": "Zoé"}))
    assert 400 <= status < 500, answer
    assert answer["error"] != "bad-body"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_in_a_body_are_400(
    client: FlaskClient, service: Service, constant: str
) -> None:
    before = snapshot(service)
    for path, raw in (
        ("/api/box/coils/1/fire", f'{{"pulse_ms": {constant}}}'),
        ("/api/box/clock", f'{{"time": {constant}}}'),
        ("/api/players", f'{{"id": {constant}, "name": "Zoé"}}'),
    ):
        status, answer = _post(client, path, raw)
        assert status == 400, (path, answer)
        assert answer["error"] == "bad-body"
    assert snapshot(service) == before


@pytest.mark.parametrize(
    "phone",
    # ASCII digits only: float() also reads " 5", "1_0" and Arabic-Indic "١٢", which the
    # document's number is not (schemathesis' ST201)
    ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "x", "", " 5", "5 ", "1_0", "\u0661\u0662"],
)
def test_clock_query_must_be_a_finite_number(client: FlaskClient, phone: str) -> None:
    resp = client.get(f"/api/box/clock?phone={phone}")
    assert resp.status_code == 400
    assert json.loads(resp.get_data())["error"] == "bad-query"


@pytest.mark.parametrize("phone", ["1795600000.5", "1795600000", "1.7956e9"])
def test_clock_query_with_a_time_answers(client: FlaskClient, phone: str) -> None:
    resp = client.get(f"/api/box/clock?phone={phone}")
    assert resp.status_code == 200
    assert isinstance(json.loads(resp.get_data())["offset_s"], float)


def test_bulk_exports_are_described_as_csv_and_zip() -> None:
    paths = document()["paths"]
    csv_ok = paths["/api/export.csv"]["get"]["responses"]["200"]["content"]
    zip_ok = paths["/api/export.zip"]["get"]["responses"]["200"]["content"]
    assert list(csv_ok) == ["text/csv"]
    assert list(zip_ok) == ["application/zip"]
    assert zip_ok["application/zip"]["schema"] == {"type": "string", "format": "binary"}


def test_every_response_in_the_document_has_a_schema() -> None:
    missing = []
    for path, operations in document()["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                content = response.get("content", {})
                if not content or any("schema" not in media for media in content.values()):
                    missing.append(f"{method.upper()} {path} {status}")
    assert not missing, missing


def test_binary_answers_are_described_with_their_type(client: FlaskClient) -> None:
    """What a JPEG or a game file is served as is what the document says."""
    paths = document()["paths"]
    camera = paths["/api/box/camera.jpg"]["get"]["responses"]["200"]["content"]
    assert list(camera) == ["image/jpeg"]
    game_file = paths["/api/games/{game_id}/export"]["get"]["responses"]["200"]["content"]
    assert list(game_file) == ["application/json"]


def test_a_method_not_allowed_says_which_are(client: FlaskClient) -> None:
    """405 names the methods the address takes (``Allow``, RFC 9110), in the API's JSON."""
    resp = client.open("/api/stats", method="TRACE")
    assert resp.status_code == 405
    assert set(resp.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "HEAD"}
    assert resp.get_json()["error"] == "method-not-allowed"


@pytest.mark.parametrize(
    "body",
    [{"do": "hide", "on": {}}, {"do": "hide", "key": "x"}, {"do": "chatter", "on": 1}],
)
def test_toy_commands_with_a_field_of_the_wrong_type_are_400(
    client: FlaskClient, service: Service, body: dict[str, object]
) -> None:
    """schemathesis found ``{"do": "hide", "on": {}}`` accepted: a field the document types
    must have that type even where the command does not use it."""
    before = snapshot(service)
    status, answer = _post(client, "/api/box/toy", json.dumps(body))
    assert status == 400, answer
    assert snapshot(service) == before
