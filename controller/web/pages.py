"""The HTML shells. Each page is one template + one JS module; the data comes live.

A game page is ``templates/games/<page>.html`` + ``static/js/games/<page>.js``, the
``page`` its :class:`~controller.games.registry.GameKind` declares (``generic`` for kinds
that have no page of their own), or the two files of the kind's ``own_page`` (a plug-in's
or a test's game, served from its package at ``/kinds/<kind>/``); fed by the stream's
``game:<id>`` events (``Table.view``). This module never names a kind.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    send_from_directory,
)
from jinja2 import Template
from markupsafe import Markup

from controller import __version__, data
from controller.games import registry
from controller.games.base import Refused, Said
from controller.games.registry import GameKind

from . import security
from .assets import digest, shell, static_url
from .i18n import (
    COOKIE,
    LANGS,
    kind_title,
    language_name,
    page_messages,
    request_language,
    said_text,
    translate,
)
from .payloads import available_kinds

if TYPE_CHECKING:
    from controller.table import Table

bp = Blueprint("pages", __name__)

STATIC = data.web_static()
TEMPLATES = data.web_templates()
THEMES = ("auto", "light", "dark")
YEAR_S = 365 * 24 * 3600
LOOPBACK = ("127.", "localhost", "[::1]")


def embed_json(data: object) -> Markup:
    """JSON safe inside an HTML ``<script>`` block: ``<``, ``>``, ``&``, ``'`` and the
    line separators as ``\\uXXXX`` escapes, so no text (``</script>``, ``<!--``) can end
    or change the block. The one way templates embed data."""
    text = json.dumps(data, ensure_ascii=False)
    for char in "<>&'\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(text)


def _render(
    template: str | Template,
    page: str,
    module: str | None = None,
    module_url: str | None = None,
    **data: object,
) -> str:
    """``template`` with the page's chrome; its script is ``static/js/<module>.js``, or
    ``module_url``."""
    lang = request_language()
    theme = request.cookies.get("theme", "auto")
    referee = security.is_referee()
    boot = {
        "page": page,
        "lang": lang,
        "referee": referee,
        "messages": page_messages(lang),
        **data,
    }
    return render_template(
        template,
        lang=lang,
        theme=theme if theme in THEMES else "auto",
        referee=referee,
        csrf=security.csrf_token(),
        page=page,
        module=module or page,
        module_url=module_url,
        boot=embed_json(boot),
        t=lambda key, **values: translate(lang, key, **values),
        other_langs=[(code, language_name(code)) for code in LANGS if code != lang],
        here=request.full_path.rstrip("?"),
        static_url=static_url,
        rules_kinds=[k.name for k in registry.kinds() if k.rules_page],
        version=__version__,
        **data,
    )


def _public_url() -> str:
    """The address phones should open: the configured one when the browser used loopback."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured and request.host.startswith(LOOPBACK):
        return str(configured)
    return request.host_url


@bp.get("/")
def home() -> str:
    url = _public_url()
    qr = segno.make(url, error="m").svg_inline(
        dark="#111", light="#fff", border=4, omitsize=True, title=url
    )
    kinds = available_kinds()
    return _render(
        "home.html",
        "home",
        kinds=kinds,
        join_url=url,
        qr=Markup(qr),
        start_forms=[f for f in (_asset(k, "-start.html", "templates") for k in kinds) if f],
        kind_pages={kind: _kind_page(kind) for kind in kinds},
    )


def _asset(kind: str, suffix: str, where: str) -> str | None:
    """``games/<page><suffix>`` of ``kind``'s page, under ``web/<where>/`` (``js/`` for
    static), when that file exists; ``None`` for a kind that has no such part."""
    page = registry.get(kind).page
    name = f"games/{page}{suffix}"
    root = TEMPLATES if where == "templates" else STATIC / "js"
    return name if (root / name).is_file() else None


def _kind_page(kind: str) -> dict[str, object]:
    """What the home page and the step-through know of a kind: its page's kind module
    (``static/js/games/<page>-kind.js``: seat labels, its start form's options, actions
    in words, its board; see home.js), its seats and setup options by default, and
    whether the computer can take a seat."""
    declared = registry.get(kind)
    defaults = current_app.extensions["diablotin"]._default_options(kind)
    script = _asset(kind, "-kind.js", "static")
    return {
        "module": None if script is None else static_url(f"js/{script}"),
        "defaults": defaults,
        "seats": _seats(declared, defaults),
        "computer": declared.computer,
    }


def _seats(kind: GameKind, options: Mapping[str, object]) -> list[str]:
    try:
        return kind.seat_keys(options)
    except (KeyError, TypeError, ValueError, Refused):
        return []  # seats chosen on the form (the kind's module says which)


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    service = current_app.extensions["diablotin"]
    try:
        table = service.table(game_id)
    except Refused as exc:
        return _damaged_or_404(exc, game_id)
    kind = table.rules.name
    own = registry.get(kind).own_page
    if own is None:
        page = registry.get(kind).page  # "generic" for a game without a page of its own
        template: str | Template = f"games/{page}.html"
        module, module_url = f"games/{page}", None
    else:
        source = (own.directory / f"{own.name}.html").read_text(encoding="utf-8")
        template = current_app.jinja_env.from_string(source)
        module, module_url = None, f"/kinds/{kind}/{own.name}.js"
    return _render(
        template,
        "game",
        module,
        module_url,
        game_id=game_id,
        kind=kind,
        title=_title(table.game_id),
        game_menu=_game_menu(table),
        bgstats_url=_bgstats_url(table),
    )


@bp.get("/kinds/<kind>/<name>.js")
def kind_script(kind: str, name: str) -> Response:
    """The script of a kind's own page (:attr:`GameKind.own_page`); 404 for anything else."""
    try:
        own = registry.get(kind).own_page
    except Refused:
        abort(404)
    if own is None or name != own.name:
        abort(404)
    resp = send_from_directory(own.directory, f"{name}.js", mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


def _bgstats_url(table: Table) -> str | None:
    """The "Log in BG Stats" link of a finished game (:mod:`controller.web.bgstats`);
    None for a game in play or abandoned."""
    from .bgstats import link, play

    if not table.finished or table.abandoned:
        return None
    service = current_app.extensions["diablotin"]
    try:
        return link(play(service.journal, table.game_id, request_language()))
    except Refused:
        return None


def _game_menu(table: Table) -> dict[str, bool]:
    """What the referee's menu offers for this game: rename, rematch and delete always;
    abandon while it is in play; "put on the box" for a game in play that the box plays
    (its kind declares a ``box_player``)."""
    in_play = not table.finished
    return {
        "in_play": in_play,
        "box": in_play and registry.get(table.rules.name).box_player is not None,
    }


@bp.get("/rules/<kind>")
def rules(kind: str) -> str:
    """A game's rules for players, in the page's language, with pictures of real boards
    (:mod:`controller.web.rules_pages`; the developers' rules stay in docs/)."""
    from .rules_pages import examples, rules_html

    if kind not in [k.name for k in registry.kinds() if k.rules_page]:
        abort(404)
    html = rules_html(kind, request_language())
    if html is None:
        abort(404)
    return _render(
        "rules.html",
        "rules",
        "rules",
        kind=kind,
        rules=html,
        examples=examples(kind),
        kind_page=_kind_page(kind),
    )


@bp.get("/box")
def box() -> str:
    return _render("box.html", "box")


@bp.get("/stats")
def stats() -> str:
    return _render(
        "stats.html", "stats", kind_pages={kind: _kind_page(kind) for kind in available_kinds()}
    )


@bp.get("/history")
def history() -> str:
    return _render("history.html", "history")


@bp.get("/history/<int:game_id>")
def history_game(game_id: int) -> str:
    service = current_app.extensions["diablotin"]
    try:
        table = service.table(game_id)
    except Refused as exc:
        return _damaged_or_404(exc, game_id)
    # a game in play is stepped through by the referee only (the API says 401): a spectator
    # is told so and sent to the live page, with no controls that would lead nowhere
    locked = not table.finished and not security.is_referee()
    return _render(
        "history_game.html",
        "history_game",
        "common" if locked else None,
        locked=locked,
        game_id=game_id,
        kind=table.rules.name,
        kind_page=_kind_page(table.rules.name),
        title=_title(table.game_id),
        game_menu=_game_menu(table),
        bgstats_url=_bgstats_url(table),
    )


def error_page(why: Said) -> str:
    """The page for an HTTP error (404, 405 ...): why, in the page's language, and the way
    home."""
    return _render("error.html", "error", "rules", why=said_text(request_language(), why))


def _title(game_id: int) -> str:
    """The game's title as typed, or its kind's name in the page's language when the box
    made the title (:func:`controller.service._default_title`)."""
    from controller.service import _default_title

    record = current_app.extensions["diablotin"].journal.game(game_id)
    if _default_title(record):
        return kind_title(request_language(), record.kind)
    return str(record.title)


def _damaged_or_404(exc: Refused, game_id: int) -> str:
    """A game that no longer replays: "damaged: <reason>" and its raw export; else 404."""
    if exc.code != "damaged":
        abort(404)
    service = current_app.extensions["diablotin"]
    return _render(
        "history_damaged.html",
        "history_damaged",
        game_id=game_id,
        title=_title(game_id),
        reason=said_text(request_language(), service.damaged[game_id]),
    )


def _back(default: str = "/") -> str:
    """A same-site path to go back to (never another host)."""
    target = request.args.get("next", default)
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    return target


@bp.get("/lang/<code>")
def set_language(code: str) -> Response:
    """Switch the language (remembered in a cookie for a year) and go back."""
    if code not in LANGS:
        abort(404)
    resp = make_response(redirect(_back()))
    resp.set_cookie(COOKIE, code, max_age=YEAR_S, httponly=True, samesite="Strict")
    return resp


@bp.get("/theme/<mode>")
def set_theme(mode: str) -> Response:
    """Light, dark or auto (the phone's setting), remembered for a year."""
    if mode not in THEMES:
        abort(404)
    resp = make_response(redirect(_back()))
    resp.set_cookie("theme", mode, max_age=YEAR_S, httponly=True, samesite="Strict")
    return resp


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    lang = request_language()
    data = {
        "name": "Diablotin",
        "short_name": "Diablotin",
        "description": translate(lang, "home.join_hint"),
        "lang": lang,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#1b1420",
        "theme_color": "#b3261e",
        "icons": [
            {
                "src": static_url("icons/icon-192.png"),
                "sizes": "192x192",
                "type": "image/png",
            },
            {
                "src": static_url("icons/icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
            },
            {
                "src": static_url("icons/icon.svg"),
                "sizes": "any",
                "type": "image/svg+xml",
            },
            {
                "src": static_url("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }
    resp = current_app.response_class(json.dumps(data), mimetype="application/manifest+json")
    return resp


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so its scope is the whole dashboard; its
    precache list (every page's scripts under their hashed URLs) is written in here."""
    cache_name = json.dumps("diablotin-" + digest())
    head = f"const SHELL = {json.dumps(list(shell()))};\nconst CACHE = {cache_name};\n"
    body = head + (STATIC / "js" / "sw.js").read_text(encoding="utf-8")
    resp = current_app.response_class(body, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/favicon.ico")
def favicon() -> Response:
    # why the ignore below: redirect() is typed as werkzeug's Response; Flask serves it alike
    return redirect(static_url("icons/icon.svg"))  # type: ignore[return-value]
