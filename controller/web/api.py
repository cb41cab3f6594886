"""The JSON API under ``/api`` (described by ``/api/openapi.json``; see
:mod:`controller.web.openapi`).

Reads are open. Every other method passes :func:`controller.web.security.require_referee`
first (cross-site check, JSON-only body, referee session + CSRF token or PIN
header). Errors are ``{"error": code, "reason": text}`` with 400 (malformed),
401/403/429 (access), 404 (no such game), 409 (refused by the rules or the box;
``damaged``: a game that no longer replays),
503 (service busy), 507 (``disk-full``: the box's disk is full; nothing was recorded).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from flask import Blueprint, Response, current_app, jsonify, request

from controller.boxplay import box_play
from controller.games.base import Refused, Said, Viewer, said_of, words
from controller.text import TextRefused, clean_text

from . import api_backup, bulk_export, operations, security
from .api_support import (
    api_error,
    finite_query,
    guarded,
    json_body,
    parsed_body,
    referee,
    refusal,
    service,
    table_for,
)
from .costly import Costly
from .i18n import request_language
from .kinds import hooks
from .payloads import available_kinds, game_payload
from .security import ApiError

if TYPE_CHECKING:
    from controller.camera.teach import Teacher
    from controller.stats import StatsCache
    from controller.system import System
    from controller.table import Table

bp = Blueprint("api", __name__, url_prefix="/api")
bp.register_blueprint(api_backup.bp)

MAX_ACTION_BYTES = 4096
"""An action larger than this (as JSON) is refused before the rules see it."""


@bp.before_request
def _gate() -> None:
    if request.method not in security.SAFE_METHODS and request.endpoint != "api.log_in":
        security.require_referee()


# --- session ---------------------------------------------------------------------------


@bp.get("/session")
def session_info() -> Response:
    return jsonify({"referee": security.is_referee(), "csrf": security.csrf_token()})


@bp.post("/session")
def log_in() -> Response:
    """Log in as the referee with ``{"pin": "..."}``: sets the HttpOnly session cookie."""
    security.check_same_site()
    security.check_json_body()
    data = parsed_body()
    token = security.log_in(data.get("pin") if isinstance(data, dict) else None)
    return jsonify({"referee": True, "csrf": token})


@bp.delete("/session")
def log_out() -> Response:
    security.log_out()
    return jsonify({"referee": False, "csrf": None})


# --- games -----------------------------------------------------------------------------


@bp.get("/games")
def list_games() -> Response:
    return jsonify({"games": service().games(), "kinds": available_kinds()})


@bp.post("/games")
def new_game() -> tuple[Response, int]:
    """Start a game: ``{"kind": "sauteur", "options": {...}, "title": "...", "seats":
    [{"player": 3}, {"guest": "Zoé"}]}`` (seats: :func:`controller.players.resolve_seats`)."""
    body = json_body()
    kind, options, title = body.get("kind"), body.get("options", {}), body.get("title", "")
    if kind not in available_kinds():
        raise api_error(
            "bad-game",
            Said("kind must be one of {kinds}", kinds=", ".join(available_kinds())),
        )
    if not isinstance(options, dict):
        raise api_error("bad-option", Said("options must be a JSON object"))
    try:
        title = clean_text(title, field="title", allow_empty=True)
    except TextRefused as exc:
        raise api_error(exc.code, exc.said) from None
    seats = body.get("seats")
    game_id = guarded(lambda: service().new_game(kind, options, title, seats))
    return jsonify(game_payload(service(), service().table(game_id), True)), 201


@bp.route("/games/<int:game_id>", methods=["GET", "PATCH", "DELETE"])
def game(game_id: int) -> Response:
    """GET: the game's view. PATCH ``{"title": "..."}``: rename it. DELETE: delete it for
    good (an earlier backup still holds it). One rule for the three methods, so an id out
    of range is 404 whatever the method (not 405)."""
    if request.method == "PATCH":
        body = json_body()
        guarded(lambda: service().rename(game_id, body.get("title")))
        return jsonify(game_payload(service(), table_for(game_id), True))
    if request.method == "DELETE":
        guarded(lambda: service().delete(game_id))
        return jsonify({"deleted": game_id})
    return jsonify(game_payload(service(), table_for(game_id), referee()))


@bp.post("/games/<int:game_id>/rematch")
def rematch(game_id: int) -> tuple[Response, int]:
    """A new game with the same kind, options and seats."""
    new_id = guarded(lambda: service().rematch(game_id))
    return jsonify(game_payload(service(), service().table(new_id), True)), 201


@bp.post("/games/<int:game_id>/abandon")
def abandon(game_id: int) -> Response:
    """Abandon a game in play: kept, marked, out of the stats."""
    guarded(lambda: service().abandon(game_id))
    return jsonify(game_payload(service(), table_for(game_id), True))


@bp.post("/games/<int:game_id>/box")
def put_on_box(game_id: int) -> Response:
    """Put this unfinished Diable sauteur game on the box."""
    guarded(lambda: service().put_on_box(game_id))
    return jsonify(game_payload(service(), table_for(game_id), True))


# --- the roster ------------------------------------------------------------------------


@bp.get("/players")
def list_players() -> Response:
    return jsonify({"players": service().players()})


@bp.post("/players")
def save_player() -> tuple[Response, int]:
    """Add a roster player ``{"name", "mark"}``, or change one with its ``"id"``."""
    body = json_body()
    player = guarded(lambda: service().save_player(body))
    return jsonify(player), 200 if "id" in body else 201


@bp.delete("/players/<int:player_id>")
def delete_player(player_id: int) -> Response:
    """Remove a roster player; past games keep the name they were played under."""
    try:
        service().delete_player(player_id)
    except Refused as exc:
        raise refusal(exc) from None
    return jsonify({"deleted": player_id})


# --- every game at once ----------------------------------------------------------------


@bp.get("/export.zip")
def export_all_zip() -> Response:
    """Every game as ``diablotin-game/1`` files in one zip (the referee's download)."""
    if not referee():
        raise api_error("pin-required", Said("only the referee may download every game"))
    return bulk_export.zip_response()


@bp.get("/export.csv")
def export_all_csv() -> Response:
    """One row per game: id, kind, title, players, winner, started, finished, actions."""
    if not referee():
        raise api_error("pin-required", Said("only the referee may download every game"))
    return bulk_export.csv_response()


@bp.post("/games/<int:game_id>/actions")
def submit(game_id: int) -> Response:
    """Apply one action (the body is the action, e.g. ``{"type": "face", "face": 4}``).
    :mod:`controller.web.fast_path` answers the same request when it asks for the short
    answer and passes every check on the way here; it shares these functions."""
    action = json_body()
    refused = action_refusal(action)
    if refused is not None:
        raise refused
    table = table_for(game_id)
    result = guarded(lambda: service().submit(game_id, action))
    return _changed(table, pressing_of(result))


@bp.post("/games/<int:game_id>/undo")
def undo(game_id: int) -> Response:
    table = table_for(game_id)
    guarded(lambda: service().undo(game_id))
    return _changed(table, {})


def action_refusal(action: dict[str, object]) -> ApiError | None:
    """Why (400) an action is refused before the rules see it (too big, a pop's key not a
    whole number), or ``None``."""
    if len(json.dumps(action)) > MAX_ACTION_BYTES:
        return api_error("bad-action", Said("an action is at most {n} bytes", n=MAX_ACTION_BYTES))
    key = action.get("key")
    if action.get("type") == "pop" and (not isinstance(key, int) or isinstance(key, bool)):
        return api_error("bad-key", Said("keys are numbered 1 to 4, got {key!r}", key=key))
    return None


def pressing_of(result: object) -> dict[str, object]:
    """What the answer adds for an action the box took (a pop: the key it pressed)."""
    if isinstance(result, dict) and "pressing" in result:
        return {"pressing": result["pressing"]}
    return {}


def minimal_answer(table: Table, extra: dict[str, object]) -> dict[str, object]:
    """The short answer to a change: ``{"game", "version"}`` (a version that holds the
    change, or a later one) and ``extra``."""
    return {"game": table.game_id, "version": table.committed()[0]} | extra


def _changed(table: Table, extra: dict[str, object]) -> Response:
    """The referee's answer once their change is durable: the game's payload, or, when the
    request says ``Prefer: return=minimal`` (RFC 7240: a page whose live stream brings the
    view), :func:`minimal_answer`, and no view is built on this thread."""
    if prefers_minimal(request.headers.get("Prefer", "")):
        resp = jsonify(minimal_answer(table, extra))
        resp.headers["Preference-Applied"] = "return=minimal"
        return resp
    return jsonify(game_payload(service(), table, True) | extra)


def prefers_minimal(prefer: str) -> bool:
    """Whether a ``Prefer`` header (a list of ``name[=value][; params]``; names are
    case-insensitive) asks for ``return=minimal``."""
    for preference in prefer.split(","):
        name, _, value = preference.split(";")[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == "minimal":
            return True
    return False


@bp.put("/games/<int:game_id>/computer")
def set_computer(game_id: int) -> Response:
    """Let the computer pop for a player: ``{"player": "p2", "on": true}``, optionally
    ``"level": "random" | "heuristic" | "optimal"``."""
    body = json_body()
    player, on, level = body.get("player"), body.get("on"), body.get("level")
    if not isinstance(on, bool):
        raise api_error("bad-body", Said('"on" must be true or false'))
    if "level" in body and not isinstance(level, str):
        raise api_error("bad-level", Said('"level" must be a level\'s name'))
    seat = player if isinstance(player, str) else ""  # refused as "bad-player"
    named = level if isinstance(level, str) else None
    return jsonify(guarded(lambda: box_play(service()).set_computer(game_id, seat, on, named)))


@bp.get("/games/<int:game_id>/odds")
def odds(game_id: int) -> Response:
    """Odds or advice (per game: the sauteur's keys, Teufel's squares, the tails advisor).
    ``?coach=1`` adds the sauteur's solved coach; ``&hider=1`` its advice for the hider,
    for the referee only (the popper must not see it)."""
    is_referee = referee()
    if request.args.get("hider") and not is_referee:
        raise api_error("pin-required", Said("the hider's advice is for the referee only"))
    table = table_for(game_id)
    args = request.args.to_dict()

    def compute() -> tuple[object, bool]:
        report = operations.odds(service(), game_id, args)
        coach = report.get("coach")
        return report, not isinstance(coach, dict) or coach.get("status") != "solving"

    read = ("odds", game_id, tuple(sorted(request.args.items(multi=True))))
    return jsonify(guarded(lambda: costly_answer(read, table.version, compute, is_referee)))


def costly() -> Costly:
    found: Costly = current_app.extensions["diablotin.costly"]
    return found


def costly_answer(
    read: Hashable, version: Hashable, compute: Callable[[], tuple[object, bool]], is_referee: bool
) -> object:
    """An expensive read through the app's :class:`~controller.web.costly.Costly`:
    ``compute`` runs on its worker, in the app's context (not the request's)."""
    # why the ignore below: LocalProxy's own method, missing from its stubs
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def in_app() -> tuple[object, bool]:
        with app.app_context():
            return compute()

    return costly().answer(
        read, version, in_app, client=security.client_address(), referee=is_referee
    )


@bp.get("/games/<int:game_id>/layout")
def layout(game_id: int) -> Response:
    """A game's static drawing geometry (``controller.web.kinds.<kind>.layout``; the tail-tile
    board),
    fetched once by its page. ETag'd: a phone that has it gets 304. 404 ``no-layout`` for
    a game kind without one."""
    table = table_for(game_id)
    helper = hooks(table.rules.name).layout
    if helper is None:
        raise api_error(
            "no-layout", Said("{kind} has no board layout to fetch", kind=table.rules.name)
        )
    with table.lock:
        state = table.state
    resp = jsonify(helper(state))
    resp.headers["Cache-Control"] = "no-cache"
    resp.add_etag()
    resp.make_conditional(request)  # 304 without a body when the phone has this ETag
    return resp


@bp.get("/games/<int:game_id>/steps/<int:step>")
def step(game_id: int, step: int) -> Response:
    """The game as it stood after ``step`` of its actions (0: the setup)."""
    viewer = _viewer_for(game_id)
    return jsonify(guarded(lambda: operations.step_view(service(), game_id, step, viewer)))


@bp.get("/games/<int:game_id>/moves")
def moves(game_id: int) -> Response:
    """Every step's action and what it said, for the history page's list of moves."""
    _viewer_for(game_id)  # a game in play: the referee's only, as its steps
    return jsonify(guarded(lambda: operations.moves(service(), game_id)))


def _viewer_for(game_id: int) -> Viewer:
    """Unfinished games are stepped through by the referee only (nothing leaks early).
    404 for an unknown game, whoever asks."""
    table = table_for(game_id)
    if referee():
        return "referee"
    if not table.finished:
        raise api_error("pin-required", Said("only the referee may step through a game in play"))
    return "public"


@bp.get("/games/<int:game_id>/export")
def export(game_id: int) -> Response:
    """The game as a ``diablotin-game/1`` JSON file (a download). A damaged game (one that
    no longer replays) gives its raw entries, to the referee."""
    journal = service().journal
    assert journal is not None

    def compute() -> tuple[str, bool]:
        data = guarded(lambda: journal.export(game_id))  # 409 for a row that cannot be read
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n", True

    if game_id not in service().damaged:
        viewer = _viewer_for(game_id)
        version = table_for(game_id).version
        body = str(costly_answer(("export", game_id), version, compute, viewer == "referee"))
    elif not referee():
        raise api_error("pin-required", Said("only the referee may export a damaged game"))
    else:
        body = compute()[0]
    resp = Response(body, mimetype="application/json")
    resp.headers["Content-Disposition"] = f'attachment; filename="diablotin-game-{game_id}.json"'
    return resp


@bp.get("/games/<int:game_id>/bgstats")
def bgstats(game_id: int) -> Response:
    """A finished game as a BG Stats play: ``{"url": createPlay link, "play": its JSON}``
    (:mod:`controller.web.bgstats`); 409 ``not-finished`` for a game in play or abandoned."""
    from .bgstats import link, play

    journal = service().journal
    assert journal is not None
    data = guarded(lambda: play(journal, game_id, request_language()))
    return jsonify({"url": link(data), "play": data})


@bp.post("/import")
def import_game() -> tuple[Response, int]:
    """Store an exported game (checked by replaying it) as a new game."""
    data = json_body()
    game_id = guarded(lambda: service().import_game(data))
    return jsonify({"id": game_id}), 201


# --- the box ---------------------------------------------------------------------------


@bp.get("/box")
def box_status() -> Response:
    return jsonify(guarded(lambda: service().box_status()))


@bp.get("/box/camera.jpg")
def camera_view() -> Response:
    """The camera's live view: a 320×240 JPEG, grabbed at most once a second whatever the
    number of phones asking. 404 ``no-camera`` when no camera is on or it is down."""
    camera = service().camera
    jpeg = camera.live_jpeg(1.0) if camera is not None else b""
    if not jpeg:
        raise api_error("no-camera", Said("no camera is on (serve --camera ...)"))
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/games/<int:game_id>/snapshots/<name>.jpg")
def face_snapshot(game_id: int, name: str) -> Response:
    """The camera's 640×480 snapshot of a popped die, ``name`` = ``<round>-<hiding>-<key>``
    as in the round history (listed in a game's ``extras.snapshots``); 404 if none."""
    _viewer_for(game_id)
    from controller.camera.service import snapshot_path

    try:
        path = snapshot_path(service().config.data_dir, game_id, name)
    except ValueError as exc:
        raise api_error("no-snapshot", said_of(exc)) from None
    if not path.is_file():
        raise api_error("no-snapshot", Said("no camera snapshot {name}", name=name))
    resp = Response(path.read_bytes(), mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=86400"
    return resp


@bp.get("/box/camera/teach")
def camera_teach_status() -> Response:
    """Teaching the camera from the Box page: the face to show, shots taken, progress."""
    return jsonify(_teacher().status())


TEACH_STEPS = ("start", "snap", "cancel", "skip", "retake")


@bp.post("/box/camera/teach")
def camera_teach() -> Response:
    """``{"do": "start" | "snap" | "skip" | "retake" | "cancel", "face": "3"}`` (``face``
    with ``retake``; ``skip`` passes over a number face). 400 ``bad-step`` or ``bad-face``
    (a ``face`` not one of the faces' names, whatever the step); 404 ``no-camera``; 409
    with a code when the step cannot be taken now."""
    from controller.camera.profile import FACE_NAMES
    from controller.camera.teach import TeachRefused

    body = json_body()
    do, face = body.get("do"), body.get("face", "")
    if do not in TEACH_STEPS:
        raise api_error("bad-step", Said("do must be one of {steps}", steps=", ".join(TEACH_STEPS)))
    if "face" in body and face not in FACE_NAMES:
        raise api_error(
            "bad-face", Said("face must be one of {names}", names=", ".join(FACE_NAMES))
        )
    teacher = _teacher()
    steps: dict[str, Callable[[], dict[str, object]]] = {
        "start": teacher.start,
        "snap": teacher.snap,
        "cancel": teacher.cancel,
        "skip": teacher.skip,
        "retake": lambda: teacher.retake(str(face)),
    }
    try:
        return jsonify(steps[str(do)]())
    except TeachRefused as exc:
        raise api_error(exc.code, said_of(exc)) from None


def _teacher() -> Teacher:
    camera = service().camera
    if camera is None or not camera.up:
        raise api_error("no-camera", Said("no camera is on (serve --camera ...)"))
    from controller.camera.service import teacher

    found: Teacher = teacher(service().config, camera)
    return found


@bp.post("/box/coils/<int:key>/fire")
def fire_coil(key: int) -> Response:
    """Coil test: one pulse of ``pulse_ms`` (default, or no body: the configured length),
    within limits; 400 ``bad-pulse`` for a ``pulse_ms`` that is not a number (``null`` too)."""
    body = json_body(required=False)
    pulse = body.get("pulse_ms")
    if "pulse_ms" in body and (isinstance(pulse, bool) or not isinstance(pulse, int | float)):
        raise api_error("bad-pulse", Said("pulse_ms must be a number of milliseconds"))
    ms = pulse if isinstance(pulse, int | float) else None
    return jsonify(guarded(lambda: operations.coil_test(service(), key, ms)))


@bp.post("/box/toy")
def toy_control() -> Response:
    """Simulated toy: ``{"do": "hide"}``, ``{"do": "press", "key": k}`` (a hand press),
    ``{"do": "jam", "key": k, "on": true}`` (a die that sticks)."""
    body = json_body()
    return jsonify(guarded(lambda: operations.toy_control(service(), body)))


@bp.post("/box/jam")
def resolve_jam() -> Response:
    """After "key k jammed": ``{"key": k, "do": "retry" | "popped"}``."""
    body = json_body()
    return jsonify(guarded(lambda: box_play(service()).resolve_jam(body)))


# --- statistics ------------------------------------------------------------------------


def _stats() -> StatsCache:
    from controller.stats import StatsCache

    found: StatsCache = current_app.extensions.setdefault("diablotin.stats", StatsCache())
    return found


@bp.get("/stats")
def stats() -> Response:
    """Per player and per game kind, over the finished games (:mod:`controller.stats`)."""
    journal = service().journal
    assert journal is not None
    version = hash(  # what the stats are made of; a hash keeps the cache's keys small
        (
            tuple((g.id, g.finished, g.abandoned, repr(g.seats)) for g in journal.games()),
            repr(service().players()),
        )
    )

    def compute() -> tuple[object, bool]:
        return _stats().summary(journal), True

    return jsonify(costly_answer(("stats",), version, compute, referee()))


@bp.get("/stats/games/<int:game_id>")
def game_stats(game_id: int) -> Response:
    """One game's chart data; a game in play only for the referee (like its steps)."""
    from controller.stats import game_series

    viewer = _viewer_for(game_id)
    version = table_for(game_id).version
    journal = service().journal
    assert journal is not None

    def compute() -> tuple[object, bool]:
        return game_series(journal.game(game_id), journal.entries(game_id)), True

    read = ("game-stats", game_id)
    return jsonify(guarded(lambda: costly_answer(read, version, compute, viewer == "referee")))


# --- the box as a computer: clock, restart, shut down ----------------------------------


def _system() -> System:
    from controller.system import System

    found: System = current_app.extensions.setdefault("diablotin.system", System())
    return found


@bp.get("/box/clock")
def box_clock() -> Response:
    """Compare the box's clock with the phone's: ``?phone=<Unix seconds>``."""
    phone = finite_query("phone", Said("phone must be the phone's time in Unix seconds"))
    return jsonify(_system().clock_report(phone))


@bp.post("/box/clock")
def set_box_clock() -> Response:
    """Take the phone's time: ``{"time": <Unix seconds>}`` (``timedatectl set-time``)."""
    from controller.system import SystemRefused

    when = json_body().get("time")
    if isinstance(when, bool) or not isinstance(when, int | float) or not 1e9 < when < 1e10:
        raise api_error("bad-body", Said('"time" must be the phone\'s time in Unix seconds'))
    before = time.time()
    try:
        command = _system().set_time(float(when))
    except SystemRefused as exc:
        raise api_error("not-permitted", said_of(exc)) from None
    service().notice(
        words("clock set from the referee's phone: {offset} s ({command})"),
        offset=f"{when - before:+.0f}",
        command=" ".join(command),
    )
    return jsonify({"set": True, "command": command, "offset_s": round(when - before, 1)})


def _power(do: str) -> Response:
    """Coils off, then ``systemctl`` (``--no-block``: the answer gets out first)."""
    from controller.system import SystemRefused

    if json_body().get("confirm") is not True:
        raise api_error("bad-body", Said('send {{"confirm": true}}'))
    box = service().box
    if box is not None:
        box.all_off()
    try:
        command = _system().restart() if do == "restart" else _system().poweroff()
    except SystemRefused as exc:
        raise api_error("not-permitted", said_of(exc)) from None
    if do == "restart":
        service().notice(
            words("restart asked by the referee ({command})"), command=" ".join(command)
        )
    else:
        service().notice(
            words("shutdown asked by the referee ({command})"), command=" ".join(command)
        )
    return jsonify({"done": do, "command": command})


@bp.post("/box/restart")
def restart() -> Response:
    """Restart the service, after ``{"confirm": true}``; the coils go off first."""
    return _power("restart")


@bp.post("/box/poweroff")
def poweroff() -> Response:
    """Shut the box down, after ``{"confirm": true}``; the coils go off first."""
    return _power("poweroff")
