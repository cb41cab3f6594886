"""The OpenAPI 3 document of the JSON API, built from a small route table.

``ROUTES`` lists every ``/api`` route; a test compares it with Flask's URL map
so the document cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import Blueprint, Response, jsonify

from controller import __version__
from controller.box.base import KEYS
from controller.games import registry
from controller.text import NAME_MAX, TITLE_MAX

from .kinds import hooks

_ERROR = {"$ref": "#/components/schemas/Error"}
_OBJ: Mapping[str, object] = {"type": "object"}
_GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_PLAYER_ID = {"name": "player_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_KEY = {
    "name": "key",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": min(KEYS), "maximum": max(KEYS)},
}
_STEP = {"name": "step", "in": "path", "required": True, "schema": {"type": "integer"}}
_PREFER = {
    "name": "Prefer",
    "in": "header",
    "required": False,
    "description": "return=minimal (RFC 7240): answer only {game, version} once the change is "
    "durable, for a page whose live stream brings the view",
    "schema": {"type": "string"},
}
_SNAPSHOT = {
    "name": "name",
    "in": "path",
    "required": True,
    "description": "<round>-<hiding>-<key>, as in the round history",
    "schema": {"type": "string", "pattern": "^[0-9]{1,4}-[0-9]{1,6}-[1-4]$"},
}

# (method, path, summary, referee-only, request body schema or None, path parameters)
ROUTES: list[
    tuple[str, str, str, bool, Mapping[str, object] | None, list[Mapping[str, object]]]
] = [
    ("get", "/api/openapi.json", "This document", False, None, []),
    ("get", "/api/session", "Am I the referee? (and my CSRF token)", False, None, []),
    (
        "post",
        "/api/session",
        "Log in as the referee (throttled: 5 wrong PINs, then exponential lockout)",
        False,
        {"type": "object", "required": ["pin"], "properties": {"pin": {"type": "string"}}},
        [],
    ),
    ("delete", "/api/session", "Log out", True, None, []),
    (
        "get",
        "/api/games",
        "Every game (summaries) and the kinds that can be started",
        False,
        None,
        [],
    ),
    (
        "post",
        "/api/games",
        "Start a game",
        True,
        {
            "type": "object",
            "required": ["kind"],
            "properties": {
                "kind": {"type": "string"},  # the registered kinds: see document()
                "options": _OBJ,
                "title": {"type": "string", "maxLength": TITLE_MAX},
                "seats": {
                    "type": "array",
                    "nullable": True,
                    "description": 'one per seat: {"player": id}, {"guest": name}, '
                    '{"computer": level} or null; null or absent: no names',
                    "items": {"type": "object", "nullable": True},
                },
            },
        },
        [],
    ),
    (
        "get",
        "/api/games/{game_id}",
        "A game: view (+ legal actions for the referee)",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "post",
        "/api/games/{game_id}/actions",
        "Apply an action (the body is the action; in {box}, a pop fires the key's solenoid)",
        True,
        {"$ref": "#/components/schemas/Action"},
        [_GAME_ID, _PREFER],
    ),
    (
        "post",
        "/api/games/{game_id}/undo",
        "Take back the last action",
        True,
        None,
        [_GAME_ID, _PREFER],
    ),
    (
        "patch",
        "/api/games/{game_id}",
        "Rename a game",
        True,
        {
            "type": "object",
            "required": ["title"],
            "properties": {"title": {"type": "string", "minLength": 1, "maxLength": TITLE_MAX}},
        },
        [_GAME_ID],
    ),
    (
        "delete",
        "/api/games/{game_id}",
        "Delete a game (gone from every list and the stats; an earlier backup keeps it)",
        True,
        None,
        [_GAME_ID],
    ),
    (
        "post",
        "/api/games/{game_id}/abandon",
        "Abandon a game in play: kept and marked, left out of the stats",
        True,
        None,
        [_GAME_ID],
    ),
    (
        "post",
        "/api/games/{game_id}/rematch",
        "Start a new game with the same kind, options and seats",
        True,
        None,
        [_GAME_ID],
    ),
    (
        "post",
        "/api/games/{game_id}/box",
        "Put this unfinished game of {box} on the box (it checks the sensors first)",
        True,
        None,
        [_GAME_ID],
    ),
    ("get", "/api/players", "The referee's roster of players", False, None, []),
    (
        "post",
        "/api/players",
        "Add a roster player, or change one (with its id)",
        True,
        {
            "type": "object",
            "required": ["name"],
            "properties": {
                "id": {"type": "integer"},
                "name": {"type": "string", "minLength": 1, "maxLength": NAME_MAX},
                "mark": {"type": "string", "description": "#rrggbb or one emoji"},
            },
        },
        [],
    ),
    (
        "delete",
        "/api/players/{player_id}",
        "Remove a roster player (past games keep the names they were played under; 404 no-player)",
        True,
        None,
        [_PLAYER_ID],
    ),
    (
        "get",
        "/api/games/{game_id}/bgstats",
        "A finished game as a BG Stats play: its createPlay link and the play's JSON (409 "
        "not-finished for a game in play or abandoned)",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "get",
        "/api/backup",
        "The whole journal (every game, the roster) as an SQLite file, copied with SQLite's "
        "online backup API while the box runs",
        True,
        None,
        [],
    ),
    (
        "post",
        "/api/backup/check",
        "Upload a backup to restore (base64, up to 64 MiB): checked and kept aside, nothing "
        "else changes; 400 bad-backup with the reason",
        True,
        {
            "type": "object",
            "required": ["data"],
            "properties": {"name": {"type": "string"}, "data": {"type": "string"}},
        },
        [],
    ),
    (
        "post",
        "/api/backup/restore",
        "Restore the checked upload in place of the journal (the current one is kept beside "
        "it); the service reopens it and live pages reconnect. confirm false drops the upload",
        True,
        {
            "type": "object",
            "required": ["upload", "confirm"],
            "properties": {"upload": {"type": "string"}, "confirm": {"type": "boolean"}},
        },
        [],
    ),
    ("get", "/api/export.zip", "Every game, diablotin-game/1 files in a zip", True, None, []),
    ("get", "/api/export.csv", "Every game, one CSV row each", True, None, []),
    (
        "put",
        "/api/games/{game_id}/computer",
        "Let the computer play a seat ({computer})",
        True,
        {
            "type": "object",
            "required": ["player", "on"],
            "properties": {
                "player": {"type": "string", "enum": ["p1", "p2"]},
                "on": {"type": "boolean"},
                "level": {
                    "type": "string",
                    "enum": ["random", "heuristic", "computer", "optimal", "adaptive"],
                },
            },
        },
        [_GAME_ID],
    ),
    (
        "get",
        "/api/games/{game_id}/odds",
        "Odds or advice: {odds}",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "get",
        "/api/games/{game_id}/layout",
        "The game's static board geometry, fetched once (tail-tile game; ETag, 404 no-layout)",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "get",
        "/api/games/{game_id}/steps/{step}",
        "The game after its first `step` actions (unfinished games: referee only)",
        False,
        None,
        [_GAME_ID, _STEP],
    ),
    (
        "get",
        "/api/games/{game_id}/moves",
        "Every step's action and its events in words, in one replay (like steps)",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "get",
        "/api/games/{game_id}/export",
        "Download the game (diablotin-game/1 JSON)",
        False,
        None,
        [_GAME_ID],
    ),
    ("post", "/api/import", "Store an exported game (it must replay)", True, _OBJ, []),
    ("get", "/api/box", "Box status: link, faults, slots, lid, coils, notices", False, None, []),
    (
        "get",
        "/api/box/camera.jpg",
        "The camera's live view: a 320x240 JPEG, grabbed at most once a second",
        False,
        None,
        [],
    ),
    (
        "get",
        "/api/games/{game_id}/snapshots/{name}.jpg",
        "The camera's 640x480 JPEG of a popped die (names in the game's extras.snapshots)",
        False,
        None,
        [_GAME_ID, _SNAPSHOT],
    ),
    (
        "get",
        "/api/box/camera/teach",
        "Teaching the camera: the face to show, snapshots taken, progress",
        False,
        None,
        [],
    ),
    (
        "post",
        "/api/box/camera/teach",
        "Teach the camera: start, snap (5 a face; the last calibrates), retake a face, cancel",
        True,
        {
            "type": "object",
            "required": ["do"],
            "properties": {
                "do": {"enum": ["start", "snap", "skip", "retake", "cancel"]},
                "face": {"enum": ["1", "2", "3", "4", "5", "6", "devil"]},
            },
        },
        [],
    ),
    (
        "get",
        "/api/box/camera/reading",
        "What the camera reads now: face, confidence, the die's corners, the pips counted, "
        "where the last die from each key landed "
        "(pixels of /api/box/camera/reading/{frame}.jpg); one reading a second at most",
        False,
        None,
        [],
    ),
    (
        "get",
        "/api/box/camera/reading/{frame}.jpg",
        "The picture of a live reading (one of the last two): a JPEG up to 640 wide",
        False,
        None,
        [{"name": "frame", "in": "path", "required": True, "schema": {"type": "integer"}}],
    ),
    (
        "get",
        "/api/box/faults",
        "The box's latched faults (which the referee may clear) and the toy's (a jam)",
        False,
        None,
        [],
    ),
    (
        "post",
        "/api/box/faults/clear",
        "Clear the coil-deadline fault (coils off first); 409 says why not",
        True,
        {
            "type": "object",
            "required": ["fault"],
            "properties": {"fault": {"enum": ["coil-deadline"]}},
        },
        [],
    ),
    (
        "post",
        "/api/box/coils/{key}/fire",
        "Coil test: one pulse within the safety limits",
        True,
        {"type": "object", "properties": {"pulse_ms": {"type": "number"}}},
        [_KEY],
    ),
    (
        "post",
        "/api/box/toy",
        "Simulated toy: hide, hand press, faults on/off",
        True,
        {
            "type": "object",
            "required": ["do"],
            "properties": {
                "do": {
                    "type": "string",
                    "enum": ["hide", "press", "jam", "chatter", "missing_die"],
                },
                "key": {"type": "integer", "minimum": 1, "maximum": 4},
                "on": {"type": "boolean"},
            },
        },
        [],
    ),
    (
        "post",
        "/api/box/jam",
        "After a jam: retry the key, or record that it was popped by hand",
        True,
        {
            "type": "object",
            "required": ["key", "do"],
            "properties": {
                "key": {"type": "integer", "minimum": 1, "maximum": 4},
                "do": {"type": "string", "enum": ["retry", "popped"]},
            },
        },
        [],
    ),
    (
        "get",
        "/api/stats",
        "Statistics over the finished games: per player (games, wins, win rate by game and "
        "rule, streaks) and per game kind (durations, the first player's results)",
        False,
        None,
        [],
    ),
    (
        "get",
        "/api/stats/games/{game_id}",
        "One game's chart data ({charts}); a game in play: referee only",
        False,
        None,
        [_GAME_ID],
    ),
    (
        "get",
        "/api/box/clock",
        "Compare the box's clock with the phone's (?phone=Unix seconds): offset, NTP, offer",
        False,
        None,
        [{"name": "phone", "in": "query", "required": True, "schema": {"type": "number"}}],
    ),
    (
        "post",
        "/api/box/clock",
        "Take the phone's time (timedatectl set-time); 409 not-permitted says why not",
        True,
        {"type": "object", "required": ["time"], "properties": {"time": {"type": "number"}}},
        [],
    ),
    (
        "post",
        "/api/box/restart",
        "Restart the service (coils off first)",
        True,
        {"type": "object", "required": ["confirm"], "properties": {"confirm": {"enum": [True]}}},
        [],
    ),
    (
        "post",
        "/api/box/poweroff",
        "Shut the box down (coils off first)",
        True,
        {"type": "object", "required": ["confirm"], "properties": {"confirm": {"enum": [True]}}},
        [],
    ),
]


_BINARY = {"type": "string", "format": "binary"}
_JPEG = {"image/jpeg": {"schema": _BINARY}}
OPTIONAL_BODY = {("post", "/api/box/coils/{key}/fire")}
"""Operations whose body may be left out (the coil test: the configured pulse)."""

ANSWERS: dict[str, Mapping[str, object]] = {
    "/api/export.zip": {"application/zip": {"schema": _BINARY}},
    "/api/export.csv": {"text/csv": {"schema": {"type": "string"}}},
    "/api/backup": {"application/vnd.sqlite3": {"schema": _BINARY}},
    "/api/box/camera.jpg": _JPEG,
    "/api/box/camera/reading/{frame}.jpg": _JPEG,
    "/api/games/{game_id}/snapshots/{name}.jpg": _JPEG,
}
"""The answers that are not JSON objects, by path: their media type and schema."""

CREATED = {
    ("post", "/api/games"),
    ("post", "/api/games/{game_id}/rematch"),
    ("post", "/api/players"),
    ("post", "/api/import"),
}
"""Operations that answer 201 when they make something new."""


def _error(description: str) -> dict[str, object]:
    return {"description": description, "content": {"application/json": {"schema": _ERROR}}}


def _operation(
    method: str,
    path: str,
    summary: str,
    referee: bool,
    body: Mapping[str, object] | None,
    params: list[Mapping[str, object]],
) -> dict[str, object]:
    content = ANSWERS.get(path, {"application/json": {"schema": _OBJ}})
    responses: dict[str, object] = {
        "200": {"description": "OK", "content": content},
        "400": _error("Malformed request (numbers: whole ones within ±2^63, finite)"),
        "404": _error("No such game"),
        "409": _error(
            "Refused by the rules or the box (damaged: a game that no longer "
            "replays); nothing changed"
        ),
        "429": _error("Too many requests from this address (see Retry-After)"),
        "503": _error("Busy: try again (see Retry-After)"),
    }
    if body is not None:
        responses["413"] = _error("The request body is too large")
    if (method, path) in CREATED:
        responses["201"] = {"description": "Created", "content": content}
    op: dict[str, object] = {"summary": summary, "responses": responses}
    if params:
        op["parameters"] = params
    if referee or method != "get":
        op["security"] = [{"refereeSession": [], "csrfToken": []}, {"refereePin": []}]
        responses["401"] = _error("Referee PIN needed or wrong")
        responses["403"] = _error("Cross-site, non-JSON body or bad CSRF token")
        responses["429"] = _error("Too many wrong PINs or requests (see Retry-After)")
        responses["507"] = _error("disk-full: the box's disk is full; nothing was recorded")
    if body is not None:
        op["requestBody"] = {
            "required": (method, path) not in OPTIONAL_BODY,
            "content": {"application/json": {"schema": body}},
        }
    return op


class _Words(dict[str, str]):
    """The summaries' words; a ``{name}`` that is not one of them stays as written (a path
    parameter such as ``{frame}``)."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _kind_words() -> _Words:
    """What the summaries' ``{box}``, ``{computer}``, ``{odds}`` and ``{charts}`` say,
    from the kinds registered now (their titles and their web modules' ``ODDS``)."""
    kinds = registry.kinds()

    def titles(chosen: list[registry.GameKind]) -> str:
        return " or ".join(kind.title.english() for kind in chosen) or "no game"

    odds = [
        f"{kind.title.english()}: {hooks(kind.name).odds_summary or 'see docs/api.md'}"
        for kind in kinds
        if hooks(kind.name).odds is not None
    ]
    charts = [kind.title.english() for kind in kinds if kind.stats and kind.stats.chart]
    return _Words(
        box=titles([kind for kind in kinds if kind.box_player is not None]),
        computer=titles([kind for kind in kinds if kind.computer]),
        odds="; ".join(odds) or "no game has odds",
        charts="its kind's chart: " + ("; ".join(charts) or "none"),
    )


def _with_kinds(body: Mapping[str, object]) -> dict[str, object]:
    """The new game's body schema, its ``kind`` one of the kinds registered now."""
    properties = body["properties"]
    assert isinstance(properties, Mapping)  # declared in ROUTES
    kind = {"type": "string", "enum": list(registry.names())}
    return {**body, "properties": {**properties, "kind": kind}}


def document() -> dict[str, object]:
    """The OpenAPI 3.0 document as a dict."""
    paths: dict[str, dict[str, dict[str, object]]] = {}
    words = _kind_words()
    for method, path, summary, referee, body, params in ROUTES:
        if (method, path) == ("post", "/api/games") and body is not None:
            body = _with_kinds(body)
        paths.setdefault(path, {})[method] = _operation(
            method, path, summary.format_map(words), referee, body, params
        )
    paths["/api/session"]["post"].pop("security", None)  # logging in is how you get one
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Diablotin dashboard API",
            "version": __version__,
            "description": "Reads are open to anyone on the network; everything that changes a "
            "game or moves hardware needs the referee. Live updates: GET /stream (server-sent "
            "events). See docs/api.md.",
        },
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "reason"],
                    "properties": {"error": {"type": "string"}, "reason": {"type": "string"}},
                },
                "Action": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string"}},
                    "additionalProperties": True,
                },
            },
            "securitySchemes": {
                "refereeSession": {"type": "apiKey", "in": "cookie", "name": "diablotin_session"},
                "csrfToken": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
                "refereePin": {"type": "apiKey", "in": "header", "name": "X-Referee-Pin"},
            },
        },
    }


bp = Blueprint("openapi", __name__)


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    return jsonify(document())
