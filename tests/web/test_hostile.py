"""What the adversarial run broke, each reproduced: no 500s without a PIN, hostile titles,
the Host header, logging out, and PIN guesses from many addresses."""

from __future__ import annotations

import json
import logging
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.service import Service
from controller.web import create_app
from controller.web.security import PinThrottle

from .conftest import PIN, REFEREE, FakeClock, login, snapshot

DEEP = "[" * 50_000 + "]" * 50_000


def test_deep_json_is_refused_before_parsing(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    before = snapshot(service)
    for url in ["/api/session", "/api/games", f"/api/games/{game_id}/actions", "/api/import"]:
        for depth in (50_000, 15_000):
            for body in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
                resp = client.post(url, data=body, content_type="application/json", headers=REFEREE)
                if len(body) > 64 * 1024 and url != "/api/import":
                    assert resp.status_code == 413, (url, resp.status_code)  # not even read
                    continue
                assert resp.status_code == 400, (url, resp.status_code)
                assert resp.get_json()["error"] == "bad-body"
                assert "deep" in resp.get_json()["reason"]
    # without the PIN too (the log-in route parses its body)
    resp = client.post("/api/session", data=DEEP[40_000:-40_000], content_type="application/json")
    assert resp.status_code == 400
    assert snapshot(service) == before
    # nesting as deep as real data is fine, and brackets inside strings do not count
    ok = {"type": "hidden", "note": "[" * 500}
    resp = client.post(f"/api/games/{game_id}/actions", json=ok, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()


@pytest.mark.parametrize(
    "url",
    [
        "/api/games/9223372036854775808",
        "/api/games/99999999999999999999999/odds",
        "/api/games/1/steps/9223372036854775808",
        "/api/games/18446744073709551616/export",
        "/games/9223372036854775808",
        "/history/9223372036854775808",
    ],
)
def test_ids_out_of_range_are_404(client: FlaskClient, service: Service, url: str) -> None:
    service.new_game("sauteur", {})
    assert client.get(url).status_code == 404
    assert client.get(url, headers=REFEREE).status_code == 404


def test_huge_ids_in_mutations_are_404(client: FlaskClient, service: Service) -> None:
    for url in ["/api/games/9223372036854775808/undo", "/api/box/coils/9223372036854775808/fire"]:
        assert client.post(url, json={}, headers=REFEREE).status_code == 404


HOSTILE_TITLES = [
    "<!--<script>",
    "</script><script>alert(1)</script>",
    "<!--",
    "]]><b>x</b>",
    "&lt;b&gt; & \"quotes\" 'single'",
    "\u2028line\u2029sep",
    "{{ 7*7 }} ${7*7}",
]


def test_free_text_goes_through_clean_text(client: FlaskClient, service: Service) -> None:
    before = snapshot(service)
    cases = {
        "\ud800": "text-surrogate",
        "a\u202eb": "text-bidi",
        "x" * 81: "text-too-long",
        "tab\there": "text-control",
        7: "text-type",
    }
    for title, code in cases.items():
        body = json.dumps({"kind": "sauteur", "title": title})  # ASCII: surrogates escaped
        resp = client.post(
            "/api/games", data=body, content_type="application/json", headers=REFEREE
        )
        assert resp.status_code == 400, (title, resp.get_json())
        # a lone surrogate is caught by the body scan before the title check: both refuse it
        assert resp.get_json()["error"] in (code, "bad-body" if code == "text-surrogate" else code)
    # a raw lone surrogate escape in the body
    resp = client.post(
        "/api/games",
        data='{"kind": "sauteur", "title": "\\udc00x"}',
        content_type="application/json",
        headers=REFEREE,
    )
    assert resp.status_code == 400
    assert snapshot(service) == before
    resp = client.post(
        "/api/games", json={"kind": "sauteur", "title": "  Cafe\u0301  "}, headers=REFEREE
    )
    assert resp.status_code == 201
    assert resp.get_json()["view"]["title"] == "Café"


@pytest.mark.parametrize(
    ("raw", "encoding"),
    [
        (b'{"type": "hidden", "note": "a\xed\xa0\x80b"}', "UTF-8"),  # U+D800's own bytes
        (
            '{"type": "hidden", "note": "a'.encode("utf-16-le")
            + b"\x00\xd8"
            + 'b"}'.encode("utf-16-le"),
            "UTF-16",
        ),
    ],
)
def test_a_lone_surrogate_as_raw_bytes_is_refused_too(
    client: FlaskClient, service: Service, raw: bytes, encoding: str
) -> None:
    """Not the escape ``\\ud800`` but the code point's own bytes (``json.loads`` on bytes
    decodes with ``surrogatepass``): a body that is not valid text is malformed, 400, and
    nothing is stored (an action's extra field would have reached the journal)."""
    resp = client.post(
        "/api/games", json={"kind": "sauteur", "options": {"rule": "B"}}, headers=REFEREE
    )
    game_id = resp.get_json()["view"]["id"]
    before = snapshot(service)
    for minimal in ({}, {"Prefer": "return=minimal"}):
        resp = client.post(
            f"/api/games/{game_id}/actions",
            data=raw,
            content_type="application/json",
            headers=REFEREE | minimal,
        )
        assert resp.status_code == 400, (encoding, resp.get_json())
        assert resp.get_json()["error"] == "bad-body"
    assert snapshot(service) == before


def test_an_import_title_is_limited(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    data = json.loads(client.get(f"/api/games/{game_id}/export", headers=REFEREE).data)
    before = snapshot(service)
    for title, code in [
        ("x" * 900_000, "at most 80"),
        ("a\nb", "control"),
        ("\u202e", "direction"),
    ]:
        resp = client.post("/api/import", json={**data, "title": title}, headers=REFEREE)
        assert resp.status_code == 400, resp.get_json()
        assert resp.get_json()["error"] == "bad-export"
        assert code in resp.get_json()["reason"]
    assert snapshot(service) == before
    resp = client.post("/api/import", json={**data, "title": " <!--<script> "}, headers=REFEREE)
    assert resp.status_code == 201
    assert service.table(resp.get_json()["id"]).title == "<!--<script>"


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_json_in_pages_is_escaped(client: FlaskClient, service: Service, title: str) -> None:
    game_id = service.new_game("sauteur", {}, title)
    for url in [f"/games/{game_id}", f"/history/{game_id}", "/"]:
        html = client.get(url, headers=REFEREE).get_data(as_text=True)
        blocks = re.findall(r"<script[^>]*application/json[^>]*>(.*?)</script>", html, re.S)
        assert blocks, url
        for block in blocks:
            assert "<" not in block and ">" not in block and "&" not in block, (url, block[:200])
            data = json.loads(block)
            if "title" in data:
                assert data["title"] == title


def test_a_foreign_host_header_may_not_change_anything(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {})
    before = snapshot(service)
    for host in ["evil.example", "evil.example:8000", "192.0.2.55", "localhost.evil.example"]:
        resp = client.post(
            f"/api/games/{game_id}/actions",
            json={"type": "hidden"},
            headers={**REFEREE, "Host": host},
        )
        assert resp.status_code == 403, host
        assert resp.get_json()["error"] == "bad-host"
        assert host.split(":")[0] in resp.get_json()["reason"]
        resp = client.post("/api/session", json={"pin": PIN}, headers={"Host": host})
        assert resp.status_code == 403
    assert snapshot(service) == before
    for host in ["localhost", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST:80"]:
        resp = client.get("/api/session", headers={"Host": host})
        assert resp.status_code == 200
        resp = client.post("/api/session", json={"pin": PIN}, headers={"Host": host})
        assert resp.status_code == 200, (host, resp.get_json())
    # reading is open whatever the Host (nothing changes)
    assert client.get("/api/games", headers={"Host": "evil.example"}).status_code == 200


def test_allowed_hosts_from_the_config(service: Service) -> None:
    import socket

    service.config.server.allowed_hosts = ["diablotin.lan"]
    client = create_app(service).test_client()
    from controller.web.security import local_addresses

    addresses = sorted(local_addresses())
    assert "127.0.0.1" in addresses  # read from the interfaces, not a fixed list
    interfaces = [f"[{a}]:8000" if ":" in a else f"{a}:8000" for a in addresses]
    names = ["diablotin.lan:8000", socket.gethostname(), socket.gethostname() + ".local"]
    for host in names + interfaces:
        resp = client.post("/api/session", json={"pin": PIN}, headers={"Host": host})
        assert resp.status_code == 200, (host, resp.get_json())


def test_logout_ends_the_session_on_the_server(client: FlaskClient, service: Service) -> None:
    token = login(client)
    cookie = client.get_cookie("diablotin_session")
    assert cookie is not None
    old = cookie.value
    assert client.delete("/api/session", headers={"X-CSRF-Token": token}).status_code == 200
    # the old cookie, replayed by whoever kept it, is no longer the referee
    client.set_cookie("diablotin_session", old)
    assert client.get("/api/session").get_json()["referee"] is False
    game_id = service.new_game("sauteur", {})
    resp = client.post(
        f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers={"X-CSRF-Token": token}
    )
    assert resp.status_code == 401
    # a new login works, and survives a new app on the same data dir (a restart)
    token = login(client)
    again = create_app(service).test_client()
    again.set_cookie("diablotin_session", client.get_cookie("diablotin_session").value)
    assert again.get("/api/session").get_json()["referee"] is True


def test_pin_guesses_from_many_addresses_are_limited_together(
    app: Flask, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    referee = app.test_client()
    login(referee)  # logged in before the attack
    attacker = app.test_client()
    statuses = []
    with caplog.at_level(logging.WARNING, logger="controller.web.security"):
        for i in range(40):
            resp = attacker.post(
                "/api/session",
                json={"pin": f"{i:04d}"},
                environ_base={"REMOTE_ADDR": f"10.0.{i // 250}.{i % 250 + 1}"},
            )
            statuses.append(resp.status_code)
    assert statuses.count(401) == 10  # ten checked guesses a minute from all addresses
    assert statuses.count(429) == 30
    assert any("PIN" in r.getMessage() for r in caplog.records)
    # even the right PIN waits (it is not checked while the budget is spent)...
    resp = attacker.post(
        "/api/session", json={"pin": PIN}, environ_base={"REMOTE_ADDR": "10.9.9.9"}
    )
    assert resp.status_code == 429
    # ...but the referee already logged in is not locked out
    assert referee.get("/api/session").get_json()["referee"] is True
    # a minute later guesses are checked again
    clock.now += 61
    resp = attacker.post(
        "/api/session", json={"pin": PIN}, environ_base={"REMOTE_ADDR": "10.9.9.9"}
    )
    assert resp.status_code == 200


def test_the_global_budget_is_configurable(service: Service, clock: FakeClock) -> None:
    app = create_app(service, throttle=PinThrottle(clock=clock, global_per_minute=3))
    client = app.test_client()
    codes = [
        client.post(
            "/api/session", json={"pin": "0"}, environ_base={"REMOTE_ADDR": f"10.1.1.{i}"}
        ).status_code
        for i in range(1, 6)
    ]
    assert codes == [401, 401, 401, 429, 429]


def test_large_bodies_are_refused_before_they_are_read(
    client: FlaskClient, service: Service
) -> None:
    """Only an import may be up to 1 MiB; any other body over 64 KiB is 413 unread."""
    game_id = service.new_game("sauteur", {})
    before = snapshot(service)
    big_title = json.dumps({"kind": "tails", "title": "x" * 900_000})
    wide = '{"type": "x", "n": [' + "0," * 40_000 + "0]}"
    for url, body in [("/api/games", big_title), (f"/api/games/{game_id}/actions", wide)]:
        resp = client.post(url, data=body, content_type="application/json", headers=REFEREE)
        assert resp.status_code == 413, url
        assert resp.get_json()["error"] == "too-large"
    resp = client.post("/api/import", data=wide, content_type="application/json", headers=REFEREE)
    assert resp.status_code == 400  # read and checked: not an export
    assert snapshot(service) == before
