"""The phone dashboard: a Flask app over a running :class:`controller.service.Service`.

``create_app(service)`` builds it; :func:`controller.server.serve` runs it under
cheroot. Blueprints: ``pages`` (HTML shells), ``api`` (JSON, under ``/api``),
``stream`` (server-sent events, ``/stream``). Debug mode is never on.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from .security import ApiError, PinThrottle, add_security_headers, load_or_make_secret

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body accepted (an exported game to import): 1 MiB."""


def create_app(
    service: Any,
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
    app = Flask(__name__)
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
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["diablotin"] = service
    app.extensions["diablotin.throttle"] = throttle or PinThrottle()

    from . import api, openapi, pages, stream

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(stream.bp)
    app.after_request(add_security_headers)

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return exc.response()

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response | HTTPException:
        if request.path.startswith("/api/") or request.path.startswith("/stream"):
            code = (exc.name or "error").lower().replace(" ", "-")
            return ApiError(exc.code or 500, code, exc.description or code).response()
        return exc

    return app
