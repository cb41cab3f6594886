"""The referee's fast path (:mod:`controller.web.fast_path`) answers exactly as the Flask
route does: two services started alike, one app with the fast path and one without, the
same requests to both, the same status, headers, body and journal; and the fast path
serves the requests it should (the Flask app is not called for them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.service import Service
from controller.web import create_app
from controller.web.fast_path import FastPath
from controller.web.security import PinThrottle

from .conftest import PIN, FakeClock, make_service

MINIMAL = {"Prefer": "return=minimal"}
PINNED = MINIMAL | {"X-Referee-Pin": PIN}


class Pair:
    """Two apps over two services started alike: ``fast`` as served, ``plain`` with the
    fast path taken out. ``flask_calls`` counts the requests the fast path passed on."""

    def __init__(self, tmp_path: Path) -> None:
        self.services: list[Service] = []
        self.clients: list[FlaskClient] = []
        self.apps: list[Flask] = []
        for name in ("fast", "plain"):
            service = make_service(
                tmp_path / name, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0
            )
            app = create_app(service, throttle=PinThrottle(clock=FakeClock()))
            self.services.append(service)
            self.apps.append(app)
            self.clients.append(app.test_client())
        fast: FastPath = self.apps[0].wsgi_app.app.app  # type: ignore[attr-defined]
        assert isinstance(fast, FastPath)
        plain: FastPath = self.apps[1].wsgi_app.app.app  # type: ignore[attr-defined]
        self.apps[1].wsgi_app.app.app = plain.inner  # type: ignore[attr-defined]
        self.flask_calls = 0
        inner = fast.inner

        def counted(environ: Any, start_response: Any) -> Any:
            self.flask_calls += 1
            return inner(environ, start_response)

        fast.inner = counted

    def both(self, method: str, path: str, **kwargs: Any) -> tuple[Any, Any]:
        """The same request to both apps; their answers, once checked equal."""
        fast, plain = (getattr(c, method)(path, **kwargs) for c in self.clients)
        assert fast.status_code == plain.status_code, (fast.get_json(), plain.get_json())
        assert fast.get_data() == plain.get_data()
        assert _headers(self.apps[0], fast) == _headers(self.apps[1], plain)
        return fast, plain

    def journals(self) -> list[list[tuple[int, bool, dict[str, object]]]]:
        out = []
        for service in self.services:
            assert service.journal is not None
            game_ids = [g["id"] for g in service.games()]
            out.append(
                [(g, e.undo, e.action) for g in game_ids for e in service.journal.entries(g)]
            )
        return out


def _headers(app: Flask, resp: Any) -> list[tuple[str, object]]:
    """The answer's headers, a session cookie's value read (each app signs with its own
    key, and the signature holds the time)."""
    out: list[tuple[str, object]] = []
    for name, value in resp.headers.items():
        if name == "Set-Cookie":
            cookie, _, attributes = value.partition(";")
            key, _, signed = cookie.partition("=")
            serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
            out.append((name, (key, serializer.loads(signed), _no_expiry(attributes))))
        else:
            out.append((name, value))
    return out


def _no_expiry(attributes: str) -> str:
    return ";".join(a for a in attributes.split(";") if not a.strip().startswith("Expires"))


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    made = Pair(tmp_path)
    try:
        yield made
    finally:
        for service in made.services:
            service.stop()


def _game(pair: Pair) -> int:
    """A sauteur game (rule B) on both services (their payloads hold the time: not compared)."""
    ids = set()
    for client in pair.clients:
        resp = client.post(
            "/api/games", json={"kind": "sauteur", "options": {"rule": "B"}}, headers=PINNED
        )
        assert resp.status_code == 201
        ids.add(resp.get_json()["view"]["id"])
    (game_id,) = ids
    return int(game_id)


def test_actions_and_undos_by_pin_are_served_by_the_fast_path_as_flask_would(pair: Pair) -> None:
    game_id = _game(pair)
    before = pair.flask_calls
    for path, body in [
        ("actions", {"type": "hidden"}),
        ("undo", None),
        ("actions", {"type": "hidden"}),
    ]:
        fast, _ = pair.both("post", f"/api/games/{game_id}/{path}", json=body, headers=PINNED)
        assert fast.status_code == 200 and fast.headers["Preference-Applied"] == "return=minimal"
    assert pair.flask_calls == before, "the fast path passed a request it should serve"
    journals = pair.journals()
    assert journals[0] == journals[1] and len(journals[0]) == 3


def test_a_referee_session_with_its_csrf_token_is_served_and_its_cookie_refreshed(
    pair: Pair,
) -> None:
    game_id = _game(pair)
    tokens = []
    for client in pair.clients:
        resp = client.post("/api/session", json={"pin": PIN})
        assert resp.status_code == 200
        tokens.append(resp.get_json()["csrf"])
    for action, status in [({"type": "hidden"}, 200), ({"type": "face", "face": 9}, 409)]:
        before = pair.flask_calls
        answers = [
            client.post(
                f"/api/games/{game_id}/actions",
                json=action,
                headers=MINIMAL | {"X-CSRF-Token": token, "Origin": "http://localhost"},
            )
            for client, token in zip(pair.clients, tokens, strict=True)
        ]
        assert pair.flask_calls == before
        _same_but_signed(pair, answers, tokens[0], status)


def _same_but_signed(pair: Pair, answers: list[Any], token: str, status: int) -> None:
    fast, plain = answers
    assert fast.status_code == plain.status_code == status
    assert fast.get_data() == plain.get_data()
    fast_list, plain_list = _headers(pair.apps[0], fast), _headers(pair.apps[1], plain)
    assert [name for name, _ in fast_list] == [name for name, _ in plain_list]
    fast_headers, plain_headers = dict(fast_list), dict(plain_list)
    fast_cookie, plain_cookie = fast_headers.pop("Set-Cookie"), plain_headers.pop("Set-Cookie")
    assert fast_headers == plain_headers and fast_headers["Vary"] == "Accept-Encoding, Cookie"
    # the same session, each signed by its own app (the CSRF token is each login's own)
    assert isinstance(fast_cookie, tuple) and isinstance(plain_cookie, tuple)
    assert fast_cookie[0] == plain_cookie[0] and fast_cookie[2] == plain_cookie[2]
    assert fast_cookie[1].keys() == plain_cookie[1].keys()
    assert fast_cookie[1]["csrf"] == token


FAST, FLASK = True, False


@pytest.mark.parametrize(
    ("path", "body", "headers", "served"),
    [
        ("actions", {"type": "face", "face": 9}, PINNED, FAST),  # the rules refuse
        ("actions", {"type": "face", "face": 9}, PINNED | {"Accept-Language": "fr"}, FAST),
        ("actions", {"type": "pop", "key": True}, PINNED, FLASK),
        ("actions", {"type": "hidden", "pad": "x" * 5000}, PINNED, FLASK),
        ("actions", [1, 2], PINNED, FLASK),
        ("actions", {"type": "hidden"}, MINIMAL | {"X-Referee-Pin": "0000"}, FLASK),
        ("actions", {"type": "hidden"}, MINIMAL, FLASK),
        ("actions", {"type": "hidden"}, PINNED | {"Origin": "http://evil.example"}, FLASK),
        ("actions", {"type": "hidden"}, PINNED | {"Sec-Fetch-Site": "cross-site"}, FLASK),
        ("actions", {"type": "hidden"}, PINNED | {"Host": "rebound.example"}, FLASK),
        ("actions", {"type": "hidden"}, MINIMAL | {"X-CSRF-Token": "stale"}, FLASK),
        ("undo", {"type": "hidden"}, PINNED, FLASK),  # an undo with a body
        ("undo", None, PINNED, FAST),  # nothing to undo: the rules refuse
    ],
)
def test_every_other_request_gets_flasks_own_answer(
    pair: Pair, path: str, body: object, headers: dict[str, str], served: bool
) -> None:
    game_id = _game(pair)
    before = pair.flask_calls
    fast, _ = pair.both("post", f"/api/games/{game_id}/{path}", json=body, headers=headers)
    assert fast.status_code >= 400
    assert (pair.flask_calls == before) is served
    journals = pair.journals()
    assert journals[0] == journals[1] == []


def test_without_the_preference_flask_sends_the_whole_view(pair: Pair) -> None:
    game_id = _game(pair)
    before = pair.flask_calls
    answers = [
        client.post(
            f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers={"X-Referee-Pin": PIN}
        )
        for client in pair.clients
    ]
    assert pair.flask_calls == before + 1
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].get_json()["view"]["id"] == game_id
    assert answers[0].headers.get("Preference-Applied") is None
    journals = pair.journals()
    assert journals[0] == journals[1] and len(journals[0]) == 1


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b'{"type": "hidden", "n": 99999999999999999999}', "application/json"),
        (b'{"type": "hidden", "n": NaN}', "application/json"),
        (b'{"type": "hidden", "s": "\\ud800"}', "application/json"),
        (b'{"a":' * 40 + b"1" + b"}" * 40, "application/json"),
        (b'{"type": "hidden"', "application/json"),
        (b'{"type": "hidden"}', "text/plain"),
        (b'{"type": "hidden"}', "application/json; charset=utf-8"),
    ],
)
def test_raw_bodies_get_the_same_answer(pair: Pair, raw: bytes, content_type: str) -> None:
    game_id = _game(pair)
    pair.both(
        "post",
        f"/api/games/{game_id}/actions",
        data=raw,
        headers=PINNED | {"Content-Type": content_type},
    )
    journals = pair.journals()
    assert journals[0] == journals[1]


def test_wrong_pins_are_throttled_once_each_and_the_lock_holds_for_the_right_one(
    pair: Pair,
) -> None:
    game_id = _game(pair)
    wrong = MINIMAL | {"X-Referee-Pin": "0000"}
    statuses = [
        pair.both("post", f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=wrong)[
            0
        ].status_code
        for _ in range(7)
    ]
    assert statuses[:5] == [401] * 5 and statuses[5:] == [429, 429]
    locked, _ = pair.both(
        "post", f"/api/games/{game_id}/actions", json={"type": "hidden"}, headers=PINNED
    )
    assert locked.status_code == 429  # the right PIN waits out the lock too
    assert pair.journals() == [[], []]


def test_no_such_game_and_an_id_past_the_range(pair: Pair) -> None:
    for path in ("/api/games/999/actions", "/api/games/99999999999/undo", "/api/games/07/undo"):
        fast, _ = pair.both("post", path, json={"type": "hidden"}, headers=PINNED)
        assert fast.status_code in (400, 404)


# --- found by an adversarial review: where the fast path and Flask parted ways ---------


def _logins(pair: Pair) -> list[tuple[str, str]]:
    """Each app's referee login: its ``name=value`` session cookie and CSRF token."""
    out = []
    for app in pair.apps:
        resp = app.test_client(use_cookies=False).post("/api/session", json={"pin": PIN})
        assert resp.status_code == 200
        out.append((resp.headers["Set-Cookie"].split(";")[0], resp.get_json()["csrf"]))
    return out


def _each(pair: Pair, path: str, per_app: list[dict[str, Any]]) -> list[Any]:
    return [
        app.test_client(use_cookies=False).post(path, **kwargs)
        for app, kwargs in zip(pair.apps, per_app, strict=True)
    ]


def test_a_quoted_cookie_hiding_the_session_from_werkzeug_is_not_taken(pair: Pair) -> None:
    """werkzeug reads ``a="; diablotin_session=…; b="`` as one cookie ``a`` (a quoted
    string): no session, 401. ``referee_session``'s split on ``;`` finds the session."""
    game_id = _game(pair)
    answers = _each(
        pair,
        f"/api/games/{game_id}/actions",
        [
            {
                "json": {"type": "hidden"},
                "headers": MINIMAL | {"Cookie": f'a="; {cookie}; b="', "X-CSRF-Token": token},
            }
            for cookie, token in _logins(pair)
        ],
    )
    assert [a.status_code for a in answers] == [401, 401]  # fast: 200
    journals = pair.journals()
    assert journals[0] == journals[1] == []  # fast: the action is journaled


def test_a_pin_with_a_session_cookie_gets_the_cookie_refreshed_as_from_flask(pair: Pair) -> None:
    game_id = _game(pair)
    fast, plain = _each(
        pair,
        f"/api/games/{game_id}/actions",
        [
            {"json": {"type": "hidden"}, "headers": PINNED | {"Cookie": cookie}}
            for cookie, _ in _logins(pair)
        ],
    )
    assert fast.status_code == plain.status_code == 200
    assert fast.headers.get("Vary") == plain.headers.get("Vary")  # fast: no "Cookie"
    assert bool(fast.headers.get("Set-Cookie")) == bool(plain.headers.get("Set-Cookie"))


def test_a_right_pin_with_a_body_refused_before_the_gate_leaves_the_throttle(
    pair: Pair,
) -> None:
    """Flask refuses a lone surrogate (or too deep a body) before the gate: the PIN is not
    checked and the client's wrong tries stay; the fast path forgets them."""
    game_id = _game(pair)
    path = f"/api/games/{game_id}/actions"
    wrong = MINIMAL | {"X-Referee-Pin": "0000"}
    for _ in range(5):
        pair.both("post", path, json={"type": "hidden"}, headers=wrong)
    pair.both(
        "post",
        path,
        data=b'{"type": "hidden", "s": "\\ud800"}',
        headers=PINNED | {"Content-Type": "application/json"},
    )
    locked, _ = pair.both("post", path, json={"type": "hidden"}, headers=wrong)  # fast: 401
    assert locked.status_code == 429


@pytest.mark.parametrize(
    "headers",
    [
        MINIMAL | {"X-Referee-Pin": PIN, "Origin": "http://[::1"},  # urlsplit: ValueError
        None,  # a live session and a CSRF token "é": hmac.compare_digest: TypeError
    ],
)
def test_headers_that_make_the_checks_raise_get_flasks_answer(
    pair: Pair, headers: dict[str, str] | None
) -> None:
    game_id = _game(pair)
    per_app = [
        {
            "json": {"type": "hidden"},
            "headers": headers or MINIMAL | {"Cookie": cookie, "X-CSRF-Token": "\u00e9"},
        }
        for cookie, _ in _logins(pair)
    ]
    fast, plain = _each(pair, f"/api/games/{game_id}/actions", per_app)  # fast: raises
    assert fast.status_code == plain.status_code


def test_a_content_length_in_non_ascii_digits(pair: Pair) -> None:
    """``"²".isdigit()`` but ``int("²")`` fails; werkzeug reads it as 0 (waitress refuses
    such a header, other servers may not)."""
    game_id = _game(pair)
    pair.both(  # fast: ValueError
        "post",
        f"/api/games/{game_id}/undo",
        headers=PINNED,
        environ_overrides={"CONTENT_LENGTH": "\u00b2"},
    )


def test_a_body_shorter_than_its_content_length(pair: Pair) -> None:
    """Flask (werkzeug's LimitedStream, no ``wsgi.input_terminated``) answers 400; the fast
    path takes the short body (waitress always hands over the whole body)."""
    game_id = _game(pair)
    pair.both(  # fast: 200 and journaled
        "post",
        f"/api/games/{game_id}/actions",
        data=b'{"type": "hidden"}',
        headers=PINNED | {"Content-Type": "application/json"},
        environ_overrides={"CONTENT_LENGTH": "40"},
    )
    journals = pair.journals()
    assert journals[0] == journals[1]
