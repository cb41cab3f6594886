"""The referee's action and undo, answered without Flask's per-request machinery.

A page with its live stream on sends each action as ``POST /api/games/<id>/actions`` (or
``/undo``) asking for the short answer (``Prefer: return=minimal``). Flask's work for that
request (werkzeug's request and response objects, routing, the hooks) was 0.1-0.3 ms of the
server's CPU on a laptop core and about 0.6 ms on a Pi-class one, beside the rules and the
commit (``diablotin bench stages``; docs/reliability.md, session 25).

:class:`FastPath` sits in front of the Flask app and serves such a request itself **only
when it passes every check the Flask route makes** (the same functions: host and
same-site, JSON only, the referee by PIN header or by session cookie and CSRF token, the
body's size, depth and numbers, the action's size and key). Every other request, and any
doubt before the service is called, goes to the Flask app untouched (the body put back),
which gives the one canonical answer, refusals included. A refusal from the service is
answered by the Flask app's own error handling, in the reader's language. The answer is
the Flask route's, header for header (``tests/web/test_fast_path.py`` compares them).
"""

from __future__ import annotations

import hmac
import io
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from flask import Flask, Response
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from werkzeug.exceptions import SecurityError
from werkzeug.wsgi import get_host

from . import security
from .api import MAX_ACTION_BYTES, action_refusal, minimal_answer, prefers_minimal, pressing_of
from .api_support import guarded, loads_json
from .bodies import MAX_ID, json_text_refusal
from .compress import MIN_BYTES
from .security import ApiError, PinThrottle

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

    from controller.service import Service

log = logging.getLogger(__name__)

_PATH = re.compile(r"/api/games/(0|[1-9][0-9]{0,9})/(actions|undo)")
"""The two routes, ids in ASCII digits without leading zeros (anything else: Flask)."""


class FastPath:
    """WSGI middleware in front of ``app.wsgi_app`` (see the module doc)."""

    def __init__(self, app: Flask, inner: WSGIApplication) -> None:
        self.app, self.inner = app, inner
        self.service: Service = app.extensions["diablotin"]
        self.throttle: PinThrottle = app.extensions["diablotin.throttle"]

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        found = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        if (
            found is None
            or environ.get("REQUEST_METHOD") != "POST"
            or environ.get("SCRIPT_NAME")
            or int(found[1]) > MAX_ID
            or not prefers_minimal(environ.get("HTTP_PREFER", ""))
            or "HTTP_TRANSFER_ENCODING" in environ
        ):
            return self.inner(environ, start_response)
        game_id, undo = int(found[1]), found[2] == "undo"
        try:
            checked = self._checked(environ, undo)
        except Exception:  # a header a check cannot read: Flask answers it
            log.debug("fast path: passed to Flask", exc_info=True)
            checked = None
        if checked is None:
            return self.inner(environ, start_response)
        action, session = checked
        try:
            table = self.service.table(game_id)
        except Exception:  # no such game, damaged: nothing done, Flask says why
            return self.inner(environ, start_response)
        try:
            if undo:
                self.service.undo(game_id)
                extra: dict[str, object] = {}
            else:
                extra = pressing_of(self.service.submit(game_id, action))
        except Exception as exc:
            return self._refused(exc, environ, start_response)
        return self._answer(minimal_answer(table, extra), session, environ, start_response)

    def _checked(
        self, environ: WSGIEnvironment, undo: bool
    ) -> tuple[dict[str, object], SecureCookieSession | None] | None:
        """The action (``{}`` for an undo) and the referee's session (``None``: the PIN
        header) when the route would take the request to the rules; ``None`` to let Flask
        answer. The referee is proved last, as the route's gate comes after the body's
        checks, so a try is booked with the throttle only when Flask would book it."""
        body = self._body(environ, undo)
        if body is None:
            return None
        environ["wsgi.input"] = io.BytesIO(body)  # Flask may still read it
        action = {} if undo else self._action(body)
        if action is None:
            return None
        proved, session = self._referee(environ)
        return (action, session) if proved else None

    def _body(self, environ: WSGIEnvironment, undo: bool) -> bytes | None:
        """The body, when it is what the route takes: JSON of at most
        :data:`MAX_ACTION_BYTES` for an action, nothing for an undo; else ``None``."""
        length = environ.get("CONTENT_LENGTH") or "0"
        if not (length.isascii() and length.isdigit()) or int(length) > MAX_ACTION_BYTES:
            return None
        if undo:
            return b"" if int(length) == 0 else None
        mimetype = environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
        if mimetype != "application/json" or int(length) == 0:
            return None
        body: bytes = environ["wsgi.input"].read(int(length))
        return body if len(body) == int(length) else None

    def _referee(self, environ: WSGIEnvironment) -> tuple[bool, SecureCookieSession | None]:
        """Whether the request may change things as the referee's, and their session
        (``None``: proved by the PIN header). ``False``: Flask must judge it."""
        try:
            host = get_host(environ)
        except SecurityError:
            return False, None
        refused = security.same_site_refusal(
            host,
            environ.get("HTTP_SEC_FETCH_SITE"),
            environ.get("HTTP_ORIGIN"),
            self.service.config.server.allowed_hosts,
        )
        if refused is not None:
            return False, None
        pin = environ.get("HTTP_X_REFEREE_PIN")
        cookies = environ.get("HTTP_COOKIE", "")
        if pin is not None and self.app.config["SESSION_COOKIE_NAME"] in cookies:
            return False, None  # Flask refreshes that cookie too
        if pin is not None:
            client = environ.get("REMOTE_ADDR") or "unknown"
            if self.throttle.wait_s(client) > 0 or not security.pin_is(
                pin, self.service.referee_pin
            ):
                return False, None  # Flask books the wrong try and answers it
            self.throttle.succeeded(client)
            return True, None
        session = security.referee_session(self.app, cookies)
        token = environ.get("HTTP_X_CSRF_TOKEN", "")
        expected = session.get("csrf") if session is not None else None
        if not isinstance(expected, str) or not hmac.compare_digest(token, expected):
            return False, None
        return True, session

    def _action(self, body: bytes) -> dict[str, object] | None:
        """The action in ``body`` when the route would take it to the rules, else ``None``."""
        if json_text_refusal(body) is not None:
            return None
        try:
            action = loads_json(body)
        except (ValueError, RecursionError):
            return None
        if not isinstance(action, dict) or action_refusal(action) is not None:
            return None
        return action

    def _answer(
        self,
        answer: dict[str, object],
        session: SecureCookieSession | None,
        environ: WSGIEnvironment,
        start_response: StartResponse,
    ) -> Iterable[bytes]:
        """The route's short answer, with the headers Flask's hooks give it: ``Vary``
        (compress's), and a referee session's cookie refreshed (Flask's session). Its
        headers are written as a list: werkzeug's response object cost a third of this
        path's CPU."""
        body = (self.app.json.dumps(answer, separators=(",", ":")) + "\n").encode()
        if len(body) >= MIN_BYTES:  # compress's hook would look at it
            resp = cast(Response, self.app.json.response(answer))  # typed as werkzeug's base
            resp.headers["Preference-Applied"] = "return=minimal"
            with self.app.request_context(environ):
                resp = self.app.process_response(resp)
            return resp(environ, start_response)
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Preference-Applied", "return=minimal"),
        ]
        if session is None:
            headers.append(("Vary", "Accept-Encoding"))
        else:
            interface = self.app.session_interface
            assert isinstance(interface, SecureCookieSessionInterface)
            carrier = self.app.response_class()
            interface.save_session(self.app, session, carrier)
            headers.append(("Vary", ", ".join(["Accept-Encoding", *carrier.vary])))
            headers += [("Set-Cookie", value) for value in carrier.headers.getlist("Set-Cookie")]
        start_response("200 OK", headers)
        return [body]

    def _refused(
        self, exc: Exception, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        """The answer Flask gives when the service raised ``exc``: in a request context
        (the reader's language; a session cookie refreshed), through the app's handlers."""

        def again() -> None:
            raise exc

        with self.app.request_context(environ):
            try:
                guarded(again)
            except ApiError as error:
                resp = self.app.finalize_request(self.app.handle_user_exception(error))
            except Exception as error:
                resp = self.app.handle_exception(error)
        return resp(environ, start_response)
