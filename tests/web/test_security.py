"""Roles: without the PIN nothing changes; wrong PINs are throttled; cross-site is refused."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.box.base import CoilFired
from controller.service import Service
from controller.web.security import SECURITY_HEADERS, SecurityHeaders

from .conftest import PIN, REFEREE, FakeClock, login, snapshot

SAFE = {"GET", "HEAD", "OPTIONS"}


def mutating_endpoints(app: Flask, game_id: int) -> list[tuple[str, str]]:
    """(method, url) for every non-read route in the URL map, ids filled in."""
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - SAFE):
            url = re.sub(r"<int:game_id>", str(game_id), rule.rule)
            url = re.sub(r"<int:key>", "1", url)
            url = re.sub(r"<int:step>", "0", url)
            url = re.sub(r"<int:player_id>", "1", url)
            assert "<" not in url, f"fill in the converter of {rule.rule}"
            found.append((method, url))
    return found


BODIES: dict[str, Any] = {
    "/api/games": {"kind": "sauteur"},
    "/api/import": {},
    "/api/box/toy": {"do": "hide"},
    "/api/box/jam": {"key": 1, "do": "retry"},
}


def body_for(url: str) -> Any:
    if url.endswith("/actions"):
        return {"type": "hidden"}
    if url.endswith("/computer"):
        return {"player": "p2", "on": True}
    return BODIES.get(url, {"pin": "0000"} if url == "/api/session" else {})


@pytest.fixture
def coil_pulses(service: Service) -> list[CoilFired]:
    fired: list[CoilFired] = []
    assert service.box is not None
    service.box.subscribe(lambda e: fired.append(e) if isinstance(e, CoilFired) else None)
    return fired


def test_every_mutating_endpoint_needs_the_pin(
    app: Flask, client: FlaskClient, service: Service, coil_pulses: list[CoilFired]
) -> None:
    game_id = service.new_game("sauteur", {"rule": "A"})
    endpoints = mutating_endpoints(app, game_id)
    assert len(endpoints) >= 10  # the enumeration itself works
    assert ("POST", f"/api/games/{game_id}/actions") in endpoints
    before = snapshot(service)
    for method, url in endpoints:
        resp = client.open(url, method=method, json=body_for(url))
        assert resp.status_code in (401, 403), (method, url, resp.status_code, resp.get_json())
        assert resp.get_json()["error"] in ("pin-required", "wrong-pin", "bad-csrf-token")
        assert snapshot(service) == before, (method, url)
    assert coil_pulses == []


def test_the_same_requests_work_with_the_pin(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {"rule": "A"})
    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["view"]["version"] == 1


def test_wrong_pins_are_throttled_per_client(clock: FakeClock, service: Service) -> None:
    from controller.web import create_app
    from controller.web.security import PinThrottle

    # the budget for all addresses together is tested in test_hostile.py
    app = create_app(service, throttle=PinThrottle(clock=clock, global_per_minute=1000))
    client = app.test_client()
    for _ in range(5):
        resp = client.post("/api/session", json={"pin": "0000"})
        assert resp.status_code == 401
        assert resp.get_json()["error"] == "wrong-pin"
    resp = client.post("/api/session", json={"pin": "0000"})
    assert resp.status_code == 429
    assert resp.headers["Retry-After"] == "2"
    # while locked out even the right PIN is not checked
    resp = client.post("/api/session", json={"pin": PIN})
    assert resp.status_code == 429
    game_id = service.new_game("sauteur", {})
    resp = client.post(f"/api/games/{game_id}/undo", headers=REFEREE)
    assert resp.status_code == 429
    # another client address is not locked out
    other = client.post("/api/session", json={"pin": PIN}, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 200
    # the lockout doubles with each further wrong PIN
    clock.now += 2.5
    resp = client.post("/api/session", json={"pin": "1111"})
    assert resp.status_code == 429
    assert resp.headers["Retry-After"] == "4"
    clock.now += 4.5
    assert client.post("/api/session", json={"pin": PIN}).status_code == 200
    # a right PIN clears the record: five fresh tries
    for _ in range(5):
        assert client.post("/api/session", json={"pin": "9"}).status_code == 401
    assert client.post("/api/session", json={"pin": "9"}).status_code == 429


def test_a_cross_site_form_post_is_refused(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    token = login(client)  # even with the referee's cookie in the browser
    before = snapshot(service)
    resp = client.post(
        f"/api/games/{game_id}/actions",
        data={"type": "hidden"},
        headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert resp.status_code == 403
    assert resp.get_json()["error"] == "cross-site"
    # a form post without the browser's headers still fails: not JSON
    resp = client.post(f"/api/games/{game_id}/actions", data={"type": "hidden"})
    assert resp.status_code == 403
    assert resp.get_json()["error"] == "json-only"
    # JSON from another origin, even with the token
    resp = client.post(
        f"/api/games/{game_id}/actions",
        json={"type": "hidden"},
        headers={"Origin": "http://evil.example", "X-CSRF-Token": token},
    )
    assert resp.status_code == 403
    # same site but without the CSRF token
    resp = client.post(f"/api/games/{game_id}/actions", json={"type": "hidden"})
    assert resp.status_code == 403
    assert resp.get_json()["error"] == "bad-csrf-token"
    assert snapshot(service) == before
    # the real thing: same origin, JSON, token
    resp = client.post(
        f"/api/games/{game_id}/actions",
        json={"type": "hidden"},
        headers={
            "Origin": "http://localhost",
            "Sec-Fetch-Site": "same-origin",
            "X-CSRF-Token": token,
        },
    )
    assert resp.status_code == 200, resp.get_json()


def test_session_cookie_is_httponly_and_strict(client: FlaskClient) -> None:
    resp = client.post("/api/session", json={"pin": PIN})
    cookie = resp.headers["Set-Cookie"]
    assert cookie.startswith("diablotin_session=")
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    lang = client.get("/lang/fr").headers["Set-Cookie"]
    assert "HttpOnly" in lang and "SameSite=Strict" in lang


def test_logout_ends_the_referee_session(client: FlaskClient) -> None:
    token = login(client)
    assert client.get("/api/session").get_json() == {"referee": True, "csrf": token}
    resp = client.delete("/api/session", headers={"X-CSRF-Token": token})
    assert resp.status_code == 200
    assert client.get("/api/session").get_json() == {"referee": False, "csrf": None}


def test_changing_the_pin_logs_the_referee_out(client: FlaskClient, service: Service) -> None:
    login(client)
    service.referee_pin = "777777"
    assert client.get("/api/session").get_json()["referee"] is False


def test_never_debug_and_strict_headers(app: Flask, client: FlaskClient) -> None:
    assert app.debug is False
    resp = client.get("/")
    csp = resp.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["X-Frame-Options"] == "DENY"


def test_every_answer_gets_the_strict_headers_unless_it_sets_its_own(
    client: FlaskClient, service: Service
) -> None:
    names = [name for name, _ in SECURITY_HEADERS]
    for resp in (
        client.get("/api/games/999999"),  # an error answer
        client.post("/api/games", json={"kind": "tails"}),  # refused: no PIN
        client.get("/api/box"),
    ):
        assert [resp.headers.get(name) for name in names] == [v for _, v in SECURITY_HEADERS]

    def own_frame_rule(environ, start_response):
        start_response("200 OK", [("x-frame-options", "SAMEORIGIN")])
        return [b""]

    seen: list[list[tuple[str, str]]] = []
    SecurityHeaders(own_frame_rule)({}, lambda status, headers, exc_info=None: seen.append(headers))
    (headers,) = seen
    assert [v for k, v in headers if k.lower() == "x-frame-options"] == ["SAMEORIGIN"]
    assert {k for k, _ in headers} >= set(names) - {"X-Frame-Options"}


def test_spectators_get_no_legal_actions(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    extras = client.get(f"/api/games/{game_id}").get_json()["extras"]
    assert extras["referee"] is False
    assert "legal" not in extras and "refused" not in extras
    extras = client.get(f"/api/games/{game_id}", headers=REFEREE).get_json()["extras"]
    assert extras["legal"] == [{"type": "hidden"}]


def test_a_wrong_pin_header_gets_no_referee_view(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    resp = client.get(f"/api/games/{game_id}", headers={"X-Referee-Pin": "0000"})
    assert resp.status_code == 401
    assert "legal" not in (resp.get_json().get("extras") or {})


def test_on_a_full_disk_the_referee_still_logs_in_and_out(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """Issue 26, item 6: writing web-sessions.json failed (ENOSPC) and login gave 500. The
    session is kept in memory, with a warning, and saved once the disk has room again."""
    import errno
    import json
    import os

    real_open = os.open

    def full(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith((".tmp", "web-sessions.json")):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, *args, **kwargs)

    store = app.extensions["diablotin.sessions"]
    monkeypatch.setattr(os, "open", full)
    with caplog.at_level("WARNING"):
        token = login(client)
    assert client.get("/api/session").get_json() == {"referee": True, "csrf": token}
    assert any("web-sessions.json" in r.getMessage() for r in caplog.records)
    monkeypatch.setattr(os, "open", real_open)
    second = app.test_client()
    login(second)  # room again: both sessions are saved
    assert len(json.loads(store.path.read_text())) == 2
    monkeypatch.setattr(os, "open", full)
    resp = client.delete("/api/session", headers={"X-CSRF-Token": token})
    assert resp.status_code == 200
    assert client.get("/api/session").get_json() == {"referee": False, "csrf": None}
