"""API fuzzing with hypothesis on the Flask test client: no 5xx, refusals change nothing.

The service's toy never acts by itself here, so any change is the request's own.
Requests go with and without the PIN, with random paths, methods and JSON bodies,
and (authenticated) with random actions in the sauteur vocabulary.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.service import Service
from controller.web import create_app
from controller.web.security import PinThrottle
from tests.service.conftest import wait_for

from .conftest import REFEREE, make_service, snapshot

EXAMPLES = int(os.environ.get("DIABLOTIN_FUZZ_EXAMPLES", "250"))
"""Examples per fuzz test (the suite keeps it small; set 10000 for a long run)."""

SURROGATES = st.sampled_from(["\ud800", "a\udfff", "\udbff\udbff", "x\ud83d"])
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 10**12)
    | st.integers()
    | st.sampled_from([2**63, -(2**63) - 1, 10**30, 2**64])
    | st.floats()  # NaN and the infinities too
    | st.text(max_size=12)
    | SURROGATES
)


def nested(depth: int) -> Any:
    value: Any = ["A"]
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | SURROGATES, inner, max_size=4)
    ),
    max_leaves=12,
) | st.integers(0, 200).map(nested)
PATHS = [
    "/api/games",
    "/api/games/{g}",
    "/api/games/{g}/actions",
    "/api/games/{g}/undo",
    "/api/games/{g}/computer",
    "/api/games/{g}/odds",
    "/api/games/{g}/steps/{n}",
    "/api/games/{g}/export",
    "/api/import",
    "/api/box",
    "/api/box/coils/{n}/fire",
    "/api/box/toy",
    "/api/box/jam",
    "/api/session",
    "/stream?topics={t}",
    "/api/nothing",
    "/games/{g}",
    "/history/{g}",
]
ACTION_TYPES = ["hidden", "pop", "face", "advance", "rehide", "stop", "undo", "", "x"]
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(ACTION_TYPES)},
    optional={
        "key": st.integers(-2, 6) | st.text(max_size=3) | st.none() | st.booleans() | scalars,
        "face": st.integers(-1, 8) | st.just("devil") | st.text(max_size=5) | json_values,
        "figure": st.sampled_from(["blue", "orange", "green", "red", ""]),
        "by": st.sampled_from(["p1", "p2", "p3", None]),
    },
)


@pytest.fixture(scope="module")
def fuzz_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, Service]]:
    data: Path = tmp_path_factory.mktemp("fuzz")
    service = make_service(data, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    service.new_game("sauteur", {"rule": "A"})
    service.new_game("sauteur", {"rule": "B"})
    app = create_app(service, throttle=PinThrottle(free_tries=10**9, global_per_minute=10**9))
    try:
        yield app.test_client(), service
    finally:
        service.stop()


def check(resp: Any, service: Service, before: dict[str, Any]) -> None:
    assert resp.status_code < 500, (resp.request.method, resp.request.path, resp.get_data()[:300])
    if resp.status_code >= 400:
        body = resp.get_json(silent=True)
        if resp.request.path.startswith("/api/"):
            assert isinstance(body, dict), body
            # a refusal by the rules (409) also carries its English template (docs/api.md)
            assert set(body) - {"template"} == {"error", "code", "params", "reason"}, body
        assert snapshot(service) == before, (resp.request.method, resp.request.path)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=st.sampled_from(PATHS),
    game=st.sampled_from([1, 2, 0, 99, 10**9, 2**31, 2**63, 10**30]),
    number=st.integers(-1, 9) | st.sampled_from([2**63, 10**25]),
    topic=st.sampled_from(["games", "game:1", "box,games", "nope", "game:x", ""]),
    body=json_values,
    with_pin=st.booleans(),
    raw=st.sampled_from([None, b"{", b"\xff\xfe", b"[]", b"null"]),
)
def test_random_requests(
    fuzz_env: tuple[FlaskClient, Service],
    method: str,
    path: str,
    game: int,
    number: int,
    topic: str,
    body: Any,
    with_pin: bool,
    raw: bytes | None,
) -> None:
    client, service = fuzz_env
    url = path.format(g=game, n=number, t=topic)
    headers = dict(REFEREE) if with_pin else {}
    before = snapshot(service)
    if raw is not None and method != "GET":
        resp = client.open(
            url,
            method=method,
            data=raw,
            content_type="application/json",
            headers=headers,
            buffered=True,
        )
    else:
        data = json.dumps(body).encode() if method != "GET" else None  # ASCII, NaN as NaN
        resp = client.open(
            url,
            method=method,
            data=data,
            content_type="application/json" if data is not None else None,
            headers=headers,
            buffered=not url.startswith("/stream"),
        )
    try:
        if not with_pin and method not in ("GET",) and url.startswith("/api/"):
            # 400 bad-body: a deep or broken JSON body is refused before anything else
            refused = resp.status_code in (401, 403, 404, 405) or (
                resp.status_code == 400 and resp.get_json()["error"] == "bad-body"
            )
            assert refused, (method, url, resp.status_code)
        check(resp, service, before)
    finally:
        resp.close()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(action=actions, game=st.sampled_from([1, 2]))
def test_random_actions_by_the_referee(
    fuzz_env: tuple[FlaskClient, Service], action: dict[str, Any], game: int
) -> None:
    client, service = fuzz_env
    before = snapshot(service)
    resp = client.post(
        f"/api/games/{game}/actions",
        data=json.dumps(action),
        content_type="application/json",
        headers=REFEREE,
    )
    check(resp, service, before)
    if resp.status_code == 200:
        table = service.table(game)
        if action["type"] != "pop":  # a pop only fires the key; the slot reports it later
            assert table.actions[-1] == action
        else:  # ... so wait for that report: the next example's "before" must be at rest
            wait_for(lambda: table.actions[-1]["type"] == "pop", 5, "the slot's report of the pop")
