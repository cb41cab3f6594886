"""The hostile requests of the attack part: each must be answered 4xx (some exactly 403).

Grouped by attack (:data:`HOSTILE_GROUPS`); :func:`hostile_requests` builds them for a
running server, :func:`send_hostile` sends one. See docs/reliability.md, "Attacks".
A kind adds its own in ``controller.reliability.hostile_<kind>`` (:func:`kind_hostiles`):
``NAN_OPTIONS`` and ``SURROGATE_OPTIONS`` (new games' options as JSON text), and
``GROUPS``, ``prepare(api) -> context`` and ``add_cases(add, context)`` for attacks of
its own.
"""

from __future__ import annotations

import importlib
import json
import threading
from dataclasses import dataclass
from types import ModuleType

from ..games import registry
from .common import PIN
from .loopback import Referee, request, send_raw

DEPTH = 50_000
"""Nesting depth of the deep JSON bodies."""
HUGE_BYTES = 2 * 1024 * 1024
"""A body over the server's 1 MiB limit."""
DEEP = "deep JSON on every JSON endpoint"
BIG_IDS = "game ids >= 2^63"
SURROGATES = "lone surrogates"
NAN = "NaN and Infinity in JSON"
HUGE = "huge bodies"
HOST = "wrong Host on a mutation: 403"
ORIGIN = "cross-site Origin: 403"


def kind_hostiles() -> tuple[tuple[str, ModuleType], ...]:
    """(kind, module) of each registered kind's ``controller.reliability.hostile_<kind>``,
    in the registry's order (a kind without one is left out)."""
    found = []
    for name in registry.names():
        module = f"{__package__}.hostile_{name}"
        try:
            found.append((name, importlib.import_module(module)))
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise  # the kind's module is there but needs something missing
            continue
    return tuple(found)


HOSTILE_GROUPS = (
    DEEP,
    BIG_IDS,
    SURROGATES,
    *(group for _, module in kind_hostiles() for group in getattr(module, "GROUPS", ())),
    NAN,
    HUGE,
    HOST,
    ORIGIN,
)
"""The hostile-request attacks, in order: each a group of requests."""


def _new_game(players: int, **fields: str) -> str:
    """``POST /api/games``'s body, as JSON text, for the walked kind's game (``fields``:
    more members, their values written as they are)."""
    kind = registry.walked()
    assert kind.walk is not None
    more = "".join(f', "{name}": {value}' for name, value in fields.items())
    return f'{{"kind": "{kind.name}", "options": {json.dumps(kind.walk(players))}{more}}}'


@dataclass(frozen=True)
class Hostile:
    """One hostile request. ``expect``: the statuses that hold (``None``: any 4xx).
    ``raw``: bytes sent as they are (bodies that lie about their length). ``rotate``:
    from a new address each time (it counts as a wrong PIN). ``mix``: part of the
    memory mix (not when an accepted one would store something)."""

    attack: str
    label: str
    method: str = "POST"
    path: str = ""
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    expect: frozenset[int] | None = None
    raw: bytes | None = None
    rotate: bool = False
    mix: bool = True


def _json_endpoints(port: int, game: int) -> list[tuple[str, str]]:
    """(method, path) of every endpoint ``/api/openapi.json`` says takes a JSON body, and
    ``POST /api/session``; path parameters filled with ``game``, key 1, step 0."""
    doc = request(port, "GET", "/api/openapi.json").json()
    found = {("POST", "/api/session")}
    for path, methods in doc["paths"].items():
        for method, operation in methods.items():
            if "requestBody" in operation:
                filled = path.format(game_id=game, key=1, step=0)
                found.add((method.upper(), filled))
    return sorted(found, key=lambda mp: (mp[1], mp[0]))


class _Cases:
    """The hostile requests being built, in order (:func:`hostile_requests`)."""

    def __init__(self) -> None:
        self.cases: list[Hostile] = []

    def add(
        self,
        attack: str,
        method: str,
        path: str,
        body: str | bytes | None,
        *,
        label: str | None = None,
        raw: bytes | None = None,
        headers: tuple[tuple[str, str], ...] = (),
        expect: frozenset[int] | None = None,
        mix: bool = True,
    ) -> None:
        """One case; a JSON ``body`` given as text is sent as those characters (UTF-8)."""
        data = body.encode() if isinstance(body, str) else body
        if label is None:
            label = f"{method} {path} {body if isinstance(body, str) else ''}"
        rotate = path == "/api/session"  # each counts as a wrong PIN: a new address each
        self.cases.append(
            Hostile(attack, label, method, path, data, headers, expect, raw, rotate, mix)
        )


def hostile_requests(
    port: int, game: int, contexts: dict[str, dict[str, object]], referee: Referee
) -> list[Hostile]:
    """The hostile requests: ``game`` is a game of the walked kind (:func:`_new_game`),
    ``contexts`` what each kind's ``prepare`` made (:func:`kind_hostiles`). Hand-made
    (raw) requests carry ``referee``'s cookie and token; the others get them when sent.
    JSON bodies are written as text: ``\\ud800`` is sent as those six characters, as an
    attacker would."""
    cases = _Cases()
    _deep(cases, _json_endpoints(port, game))
    _big_ids(cases, game)
    _surrogates(cases, game)
    for name, module in kind_hostiles():
        if name in contexts:

            def add(attack: str, method: str, path: str, body: str, label: str) -> None:
                cases.add(attack, method, path, body, label=label)

            module.add_cases(add, contexts[name])
    _nan(cases, game)
    _huge(cases, port, game, referee)
    _host_and_origin(cases, port)
    return cases.cases


def _deep(cases: _Cases, endpoints: list[tuple[str, str]]) -> None:
    for method, path in endpoints:
        lists = b"[" * DEPTH + b"]" * DEPTH
        cases.add(DEEP, method, path, lists, label=f"{method} {path} [[[…]]]")
        deep = b'{"a":' * DEPTH + b"1" + b"}" * DEPTH
        cases.add(DEEP, method, path, deep, label=f'{method} {path} {{"a":{{"a":…}}}}')


def _big_ids(cases: _Cases, game: int) -> None:
    for big in (2**63, 2**64, 10**30):
        for path in (f"/api/games/{big}", f"/api/games/{big}/export", f"/games/{big}"):
            cases.add(BIG_IDS, "GET", path, None)
        cases.add(BIG_IDS, "GET", f"/api/games/{game}/steps/{big}", None)
        for path in (f"/api/games/{big}/actions", f"/api/games/{big}/undo"):
            cases.add(BIG_IDS, "POST", path, '{"type": "x"}')
        cases.add(BIG_IDS, "PUT", f"/api/games/{big}/computer", '{"player": "p1", "on": true}')
        for sign in ("", "-"):  # ids in bodies (issue 26): a seat's player, a roster id
            seat = f'[{{"player": {sign}{big}}}, null]'
            kind = registry.walked().name
            cases.add(BIG_IDS, "POST", "/api/games", f'{{"kind": "{kind}", "seats": {seat}}}')
            cases.add(BIG_IDS, "POST", "/api/players", f'{{"id": {sign}{big}, "name": "Zoé"}}')


def _surrogates(cases: _Cases, game: int) -> None:
    bodies = [_new_game(2, title='"\\ud800"'), _new_game(3, title='"a\\udfffb"')]
    for name, module in kind_hostiles():
        bodies += [
            f'{{"kind": "{name}", "options": {o}}}'
            for o in getattr(module, "SURROGATE_OPTIONS", ())
        ]
    for body in bodies:
        cases.add(SURROGATES, "POST", "/api/games", body)
    cases.add(SURROGATES, "POST", f"/api/games/{game}/actions", '{"type": "\\ud800"}')
    computer = '{"player": "\\udc00", "on": true}'
    cases.add(SURROGATES, "PUT", f"/api/games/{game}/computer", computer)
    cases.add(SURROGATES, "POST", "/api/session", '{"pin": "\\ud800"}')


def _nan(cases: _Cases, game: int) -> None:
    for name, module in kind_hostiles():
        for options in getattr(module, "NAN_OPTIONS", ()):
            cases.add(NAN, "POST", "/api/games", f'{{"kind": "{name}", "options": {options}}}')
    place = '{"type": "place", "x": NaN, "y": -Infinity}'
    cases.add(NAN, "POST", f"/api/games/{game}/actions", place)
    for pulse in ("NaN", "Infinity", "-Infinity"):
        cases.add(NAN, "POST", "/api/box/coils/1/fire", f'{{"pulse_ms": {pulse}}}')
    cases.add(NAN, "PUT", f"/api/games/{game}/computer", '{"player": "p1", "on": NaN}')
    cases.add(NAN, "POST", "/api/session", '{"pin": NaN}')
    for phone in ("nan", "inf", "-inf", "1e999"):  # numeric query parameters (issue 26)
        cases.add(NAN, "GET", f"/api/box/clock?phone={phone}", None)


def _huge(cases: _Cases, port: int, game: int, referee: Referee) -> None:
    """Bodies over the 1 MiB limit, some of them lying about their length."""
    auth = "".join(f"\r\n{name}: {value}" for name, value in referee.headers.items())
    for path in ("/api/import", "/api/games", "/api/session"):
        head = _head("POST", path, port, f"Content-Length: {HUGE_BYTES}{auth}")
        label = f"POST {path}, Content-Length {HUGE_BYTES} (64 KiB sent)"
        cases.add(HUGE, "POST", path, None, raw=head + b" " * 65536, label=label)
    head = _head("POST", "/api/import", port, f"Content-Length: {HUGE_BYTES}")
    label = f"POST /api/import, no referee, Content-Length {HUGE_BYTES} (64 KiB sent)"
    cases.add(HUGE, "POST", "/api/import", None, raw=head + b" " * 65536, label=label, mix=False)
    head = _head("POST", "/api/games", port, f"Content-Length: {10**23}{auth}")
    cases.add(HUGE, "POST", "/api/games", None, raw=head + b"{}", label="Content-Length 10^23")
    chunks = (b"10000\r\n" + b" " * 0x10000 + b"\r\n") * 18 + b"0\r\n\r\n"
    chunked = _head("POST", "/api/import", port, f"Transfer-Encoding: chunked{auth}") + chunks
    label = "POST /api/import, 1.1 MiB chunked"
    cases.add(HUGE, "POST", "/api/import", None, raw=chunked, label=label, mix=False)
    title = _new_game(2, title='"' + "x" * 900_000 + '"')
    cases.add(HUGE, "POST", "/api/games", title, label="a title of 900,000 characters")
    wide = '{"type": "place", "x": [' + "0," * 300_000 + "0]}"
    label = "an action of 300,001 numbers"
    cases.add(HUGE, "POST", f"/api/games/{game}/actions", wide, label=label)


def _host_and_origin(cases: _Cases, port: int) -> None:
    """A mutation with a wrong ``Host`` or from another site: exactly 403."""
    game = _new_game(2)
    login = json.dumps({"pin": PIN})
    forbidden = frozenset({403})
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}"):
        label = f"new game, Host: {host}"
        headers = (("Host", host),)
        cases.add(
            HOST,
            "POST",
            "/api/games",
            game,
            label=label,
            headers=headers,
            expect=forbidden,
            mix=False,
        )
    headers = (("Host", "evil.example"),)
    label = "log in, Host: evil.example"
    cases.add(
        HOST,
        "POST",
        "/api/session",
        login,
        label=label,
        headers=headers,
        expect=forbidden,
        mix=False,
    )
    for name, value in (
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Origin", f"http://127.0.0.1:{port}.evil.example"),
        ("Sec-Fetch-Site", "cross-site"),
    ):
        headers = ((name, value),)
        label = f"new game, {name}: {value}"
        cases.add(
            ORIGIN, "POST", "/api/games", game, label=label, headers=headers, expect=forbidden
        )
    headers = (("Origin", "http://evil.example"),)
    label = "log in, Origin: http://evil.example"
    cases.add(ORIGIN, "POST", "/api/session", login, label=label, headers=headers, expect=forbidden)


def _head(method: str, path: str, port: int, header: str) -> bytes:
    """A JSON request's head with one more ``header`` line, for a hand-made body."""
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\n{header}\r\n\r\n"
    ).encode()


class Rotation:
    """New loopback addresses, one per call: 127.2.0.1, 127.2.0.2, … (thread-safe)."""

    def __init__(self, second: int) -> None:
        self.second = second
        self._count = 0
        self._lock = threading.Lock()

    def next(self) -> str:
        with self._lock:
            n = self._count
            self._count += 1
        return f"127.{self.second}.{n // 250 % 250}.{n % 250 + 1}"


def send_hostile(port: int, case: Hostile, referee: Referee, rotation: Rotation) -> int:
    """Send ``case`` (with the referee's cookie and CSRF token); returns the status."""
    source = rotation.next() if case.rotate else "127.0.0.1"
    if case.raw is not None:
        return send_raw(port, case.raw, source)
    headers = dict(referee.headers)
    headers.update(case.headers)
    return request(port, case.method, case.path, case.body, headers=headers, source=source).status


def holds(case: Hostile, status: int) -> bool:
    return status in case.expect if case.expect is not None else 400 <= status < 500
