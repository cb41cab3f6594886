"""The phone dashboard: a Flask app over a running :class:`controller.service.Service`.

``create_app(service)`` builds it; :func:`controller.server.serve` runs it under
waitress. Blueprints: ``pages`` (HTML shells), ``api`` (JSON, under ``/api``),
``stream`` (server-sent events, ``/stream``). Debug mode is never on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING

from flask import Flask, Response, make_response, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from controller import refusals
from controller.games.base import Said

from .bodies import (
    BACKUP_PATH,
    BIG_BODY_PATHS,
    MAX_BACKUP_BYTES,
    MAX_BODY_BYTES,
    MAX_ID,
    MAX_SMALL_BODY_BYTES,
    json_text_refusal,
)
from .costly import Costly, RefereeGate
from .security import (
    ApiError,
    PinThrottle,
    SecurityHeaders,
    SessionStore,
    SignedCookies,
    load_or_make_secret,
)

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    from controller.hub import Hub
    from controller.service import Service


HTTP_SENTENCES = {
    400: Said("this request could not be read"),
    403: Said("this is not allowed"),
    404: Said("there is nothing at this address"),
    405: Said("this address does not take this kind of request"),
    413: Said("this is too large to send"),
    415: Said("this must be sent as JSON"),
    429: Said("too many requests: wait a moment and try again"),
    500: Said("something went wrong inside the box; the journal is safe"),
}
"""What an HTTP error tells a person (a page, or an API answer's ``reason``), in their
language; werkzeug's own descriptions are English only."""


class BoundedInt(IntegerConverter):
    """``<int:…>`` that matches 0 to :data:`MAX_ID` in ASCII digits only (SQLite's integers
    and the engines' numbers stay in range; a larger id is simply not found, and so is one
    in other digits: werkzeug's ``\\d`` and Python's ``int()`` read ``/api/games/١`` as
    game 1, which the OpenAPI document's integer is not)."""

    regex = "[0-9]+"

    def __init__(self, url_map: object, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("max", MAX_ID)
        # why the ignore below: url_map is werkzeug's Map, passed through
        super().__init__(url_map, *args, **kwargs)  # type: ignore[arg-type]


def check_json_request() -> None:
    """Before any view parses a JSON body: refuse (413 ``too-large``) a body over
    :data:`MAX_SMALL_BODY_BYTES` (:data:`MAX_BODY_BYTES` for an import) before reading it,
    and (400 ``bad-body``) nesting deeper than :data:`MAX_JSON_DEPTH` or lone surrogates
    (text that cannot be stored or sent)."""
    chunked = "chunked" in request.headers.get("Transfer-Encoding", "")
    if (request.mimetype != "application/json" or not request.content_length) and not chunked:
        return
    limit = MAX_BODY_BYTES if request.path in BIG_BODY_PATHS else MAX_SMALL_BODY_BYTES
    if request.path == BACKUP_PATH:
        limit = request.max_content_length = MAX_BACKUP_BYTES
    if (request.content_length or 0) > limit:
        raise ApiError(
            refusals.status("too-large"),
            "too-large",
            Said("the request body is over {kib} KiB", kib=limit // 1024),
        )
    body = request.get_data(cache=True)
    if len(body) > limit:
        raise ApiError(
            refusals.status("too-large"),
            "too-large",
            Said("the request body is over {kib} KiB", kib=limit // 1024),
        )
    refused = json_text_refusal(body)
    if refused is not None:
        raise refused


class RepliesFirst:
    """WSGI middleware: the live updates a request publishes are held until the server
    has its reply (the response iterable's ``close``), so the reply never competes with
    the phones' fan-out for the interpreter."""

    def __init__(self, app: WSGIApplication, hub: Hub) -> None:
        self.app, self.hub = app, hub

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        self.hub.hold()
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self.hub.release()
            raise
        if not self.hub.holding:  # most requests publish nothing: the body as it is
            self.hub.release()
            return body
        return _ThenRelease(body, self.hub.release)


class _ThenRelease:
    def __init__(self, body: Iterable[bytes], release: Callable[[], None]) -> None:
        self.body, self.release = body, release

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if callable(close):
                close()
        finally:
            self.release()


def _http_error(exc: HTTPException) -> Response | HTTPException:
    """HTTP's own errors (404, 405, 413, ...): JSON with a code under ``/api/`` and
    ``/stream``, else a page in the reader's language (werkzeug's own for other statuses)."""
    from . import pages

    status = exc.code or 500
    why = HTTP_SENTENCES.get(status)
    if request.path.startswith("/api/") or request.path.startswith("/stream"):
        code = (exc.name or "error").lower().replace(" ", "-")
        kept = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        return ApiError(status, code, why or exc.description or code, kept).response()
    if why is None:
        return exc
    resp = make_response(pages.error_page(why), status)
    resp.headers.update(exc.get_headers())
    resp.headers["Content-Type"] = "text/html; charset=utf-8"
    return resp


def create_app(
    service: Service,
    *,
    throttle: PinThrottle | None = None,
    public_url: str | None = None,
    max_streams: int | None = None,
) -> Flask:
    """The dashboard app for ``service`` (started or not; requests need it started).

    ``throttle``: the wrong-PIN throttle (tests inject one with a manual clock).
    ``public_url``: the address phones should use (the home page's QR code), e.g.
    ``http://192.168.1.20:8000/``; default: the address the browser used.
    ``max_streams``: live streams served at once (each holds a server thread);
    more are refused with 503 + ``Retry-After`` and the phone retries.
    """
    from . import pages

    app = Flask(__name__, template_folder=pages.TEMPLATES, static_folder=pages.STATIC)
    app.url_map.converters["int"] = BoundedInt
    app.session_interface = SignedCookies()
    app.debug = False
    app.config.update(
        SECRET_KEY=load_or_make_secret(service.config.data_dir),
        SESSION_COOKIE_NAME="diablotin_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        JSON_SORT_KEYS=False,
        PUBLIC_URL=public_url,
        MAX_STREAMS=max_streams or service.config.server.max_streams,
        MAX_STREAMS_PER_CLIENT=service.config.server.max_streams_per_client,
        SEND_FILE_MAX_AGE_DEFAULT=timedelta(hours=1),
    )
    # why the ignore below: the default JSON provider has these settings
    app.json.sort_keys = False  # type: ignore[attr-defined]
    # why the ignore below: the default JSON provider has these settings
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["diablotin"] = service
    app.extensions["diablotin.throttle"] = throttle or PinThrottle()
    gate = RefereeGate()
    app.extensions["diablotin.referee_gate"] = gate
    app.extensions["diablotin.costly"] = Costly(gate)
    app.extensions["diablotin.sessions"] = SessionStore(
        service.config.data_dir / "web-sessions.json"
    )

    from . import api, assets, box_api, openapi, stream
    from .compress import gzip_response
    from .fast_path import FastPath

    app.register_blueprint(pages.bp)
    app.register_blueprint(assets.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(box_api.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(stream.bp)
    app.before_request(check_json_request)
    app.after_request(gzip_response)

    app.register_error_handler(ApiError, ApiError.response)
    app.register_error_handler(HTTPException, _http_error)
    # why the ignore below: Flask's way to wrap its WSGI app
    app.wsgi_app = RepliesFirst(  # type: ignore[method-assign]
        SecurityHeaders(FastPath(app, app.wsgi_app)), service.hub
    )
    return app
