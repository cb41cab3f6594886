"""API fuzzing with hypothesis on the Flask test client: no 5xx, refusals change nothing.

The service's toy never acts by itself here, so any change is the request's own.
Requests go with and without the PIN, with random paths, methods and JSON bodies,
and (authenticated) with random actions in the sauteur vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.service import Service
from web import create_app
from web.security import PinThrottle

from .conftest import REFEREE, make_service, snapshot

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
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
        "key": st.integers(-2, 6) | st.text(max_size=3) | st.none() | st.booleans(),
        "face": st.integers(-1, 8) | st.just("devil") | st.text(max_size=5) | st.floats(),
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
            assert isinstance(body, dict) and set(body) == {"error", "reason"}, body
        assert snapshot(service) == before, (resp.request.method, resp.request.path)


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=st.sampled_from(PATHS),
    game=st.sampled_from([1, 2, 0, 99, 10**9]),
    number=st.integers(-1, 9),
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
        resp = client.open(
            url,
            method=method,
            json=body if method != "GET" else None,
            headers=headers,
            buffered=not url.startswith("/stream"),
        )
    try:
        if not with_pin and method not in ("GET",) and url.startswith("/api/"):
            assert resp.status_code in (401, 403, 404, 405), (method, url, resp.status_code)
        check(resp, service, before)
    finally:
        resp.close()


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(action=actions, game=st.sampled_from([1, 2]))
def test_random_actions_by_the_referee(
    fuzz_env: tuple[FlaskClient, Service], action: dict[str, Any], game: int
) -> None:
    client, service = fuzz_env
    before = snapshot(service)
    resp = client.post(f"/api/games/{game}/actions", json=action, headers=REFEREE)
    check(resp, service, before)
    if resp.status_code == 200:
        table = service.table(game)
        if action["type"] != "pop":  # a pop only fires the key; the slot reports it later
            assert table.actions[-1] == action
