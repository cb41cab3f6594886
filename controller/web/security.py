"""Who may change things: the referee PIN, its throttle, cross-site checks, security headers.

Reading is open to anyone on the network. A request that changes a game or moves
hardware must

1. not come from another site: ``Sec-Fetch-Site`` (when the browser sends it) is
   ``same-origin`` or ``none``, and ``Origin`` (when sent) names this host;
2. carry a body of type ``application/json`` (a cross-site HTML form cannot);
3. prove the referee: either the session cookie set by ``POST /api/session`` *plus*
   the ``X-CSRF-Token`` header holding that session's token, or an
   ``X-Referee-Pin`` header (scripts, curl). Wrong PINs are throttled per client IP.

Failures answer 403 (cross-site, bad CSRF token, wrong content type), 401 (no or
wrong PIN) or 429 with ``Retry-After`` (too many wrong PINs).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import itertools
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from flask import Flask, Request, Response, current_app, jsonify, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer
from werkzeug.http import parse_cookie

from controller.games.base import Said

if TYPE_CHECKING:
    from types import TracebackType
    from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

    from controller.service import Service

    ExcInfo = tuple[type[BaseException], BaseException, TracebackType] | tuple[None, None, None]

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PIN_HEADER = "X-Referee-Pin"
CSRF_HEADER = "X-CSRF-Token"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'; manifest-src 'self'; worker-src 'self'"
)


class ApiError(Exception):
    """An HTTP error with a JSON body ``{"error": code, "code": code, "params": {...},
    "reason": text}`` (``params``: the refusal's parameters, see ``Refused``), and for a
    refusal of the rules its English ``template`` (a page makes it in its own words: a
    Teufel Teufel colour as its player's name)."""

    def __init__(
        self,
        status: int,
        code: str,
        reason: str,
        headers: dict[str, str] | None = None,
        params: dict[str, object] | None = None,
        template: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.template = template
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers or {}
        self.params = params or {}

    def response(self) -> Response:
        """The JSON answer; a :class:`Said` reason is worded in the request's language (its
        parameters join ``params``)."""
        reason, params = str(self.reason), dict(self.params)
        if isinstance(self.reason, Said):
            from .i18n import request_language, said_text

            params |= self.reason.params
            reason = said_text(request_language(), self.reason)
        body = {"error": self.code, "code": self.code, "params": params, "reason": reason}
        if self.template is not None:
            body["template"] = self.template
        resp = jsonify(body)
        resp.status_code = self.status
        resp.headers.update(self.headers)
        return resp


@dataclass
class _Tries:
    failures: int = 0
    locked_until: float = 0.0


class PinThrottle:
    """Wrong-PIN bookkeeping per client address, and for all addresses together.

    Per address: ``free_tries`` wrong PINs are allowed; each further one locks the
    address out for ``base_s * 2**(n - 1)`` seconds (n = failures past the free ones),
    capped at ``max_s``. A right PIN clears the record. At most ``max_clients``
    addresses are remembered (the oldest are forgotten).

    All together: at most ``global_per_minute`` wrong PINs in any 60 s, whatever
    addresses they come from (an attacker rotating addresses gets no more guesses);
    while that budget is spent no PIN is checked, the right one included, and a
    warning is logged. Sessions already logged in are not affected.
    ``clock`` returns seconds (monotonic).
    """

    def __init__(
        self,
        free_tries: int = 5,
        base_s: float = 2.0,
        max_s: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 4096,
        global_per_minute: int = 10,
    ) -> None:
        self.free_tries = free_tries
        self.base_s = base_s
        self.max_s = max_s
        self.clock = clock
        self.max_clients = max_clients
        self.global_per_minute = global_per_minute
        self._tries: OrderedDict[str, _Tries] = OrderedDict()
        self._recent: deque[tuple[float, str]] = deque()  # (when, client) of wrong PINs
        self._warned_at = float("-inf")
        self._lock = threading.Lock()

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must still wait before trying a PIN (0: may try now)."""
        with self._lock:
            now = self.clock()
            tries = self._tries.get(client)
            mine = max(0.0, tries.locked_until - now) if tries else 0.0
            return max(mine, self._global_wait(now))

    def _global_wait(self, now: float) -> float:
        while self._recent and self._recent[0][0] <= now - 60.0:
            self._recent.popleft()
        if len(self._recent) < self.global_per_minute:
            return 0.0
        wait = self._recent[0][0] + 60.0 - now
        if now - self._warned_at >= 60.0:
            self._warned_at = now
            addresses = len({client for _, client in self._recent})
            log.warning(
                "%d wrong referee PINs in the last minute from %d address(es): "
                "PIN checks paused for %.0f s (logged-in referees are not affected)",
                len(self._recent),
                addresses,
                wait,
            )
        return wait

    def failed(self, client: str) -> float:
        """Book a wrong PIN; returns the lockout it starts in seconds (0 if none)."""
        with self._lock:
            self._recent.append((self.clock(), client))
            tries = self._tries.pop(client, None) or _Tries()
            self._tries[client] = tries
            while len(self._tries) > self.max_clients:
                self._tries.popitem(last=False)
            tries.failures += 1
            over = tries.failures - self.free_tries
            if over <= 0:
                return 0.0
            lockout = min(self.max_s, self.base_s * 2.0 ** (over - 1))
            tries.locked_until = self.clock() + lockout
            return lockout

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._tries.pop(client, None)


class SessionStore:
    """Referee sessions alive on the server, so logging out really ends one.

    The signed cookie names a session id; the id counts only while it is here. Kept in
    ``web-sessions.json`` in the data dir (mode 0600) so a restart does not log the
    referee out (in memory only while the file cannot be written: a full disk still lets
    the referee log in); at most ``max_sessions`` (the oldest are dropped), each for
    ``lifetime_s`` seconds. ``clock``: wall-clock seconds (they outlive a restart).
    """

    def __init__(
        self,
        path: Path,
        lifetime_s: float = 12 * 3600,
        max_sessions: int = 64,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.lifetime_s = lifetime_s
        self.max_sessions = max_sessions
        self.clock = clock
        self._lock = threading.Lock()
        self._expires: dict[str, float] = {}
        self._unsaved = False
        """The last save failed: the file lags behind memory."""
        try:
            loaded = json.loads(path.read_text())
            if isinstance(loaded, dict):
                self._expires = {
                    str(k): float(v) for k, v in loaded.items() if isinstance(v, int | float)
                }
        except (OSError, ValueError):
            pass

    def start(self) -> str:
        """A new session id, alive for ``lifetime_s``."""
        sid = secrets.token_urlsafe(18)
        with self._lock:
            self._prune()
            self._expires[sid] = self.clock() + self.lifetime_s
            while len(self._expires) > self.max_sessions:
                del self._expires[min(self._expires, key=self._expires.__getitem__)]
            self._save()
        return sid

    def alive(self, sid: object) -> bool:
        with self._lock:
            return isinstance(sid, str) and self._expires.get(sid, 0.0) > self.clock()

    def end(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str) and self._expires.pop(sid, None) is not None:
                self._save()

    def _prune(self) -> None:
        now = self.clock()
        for sid in [k for k, v in self._expires.items() if v <= now]:
            del self._expires[sid]

    def _save(self) -> None:
        """Write the sessions to the file. A write that fails (a full disk, a read-only
        data dir) keeps them in memory only, with a warning: the referee still logs in;
        the next save that works writes them all."""
        tmp = self.path.with_suffix(".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                json.dump(self._expires, out)
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if not self._unsaved:
                log.warning(
                    "cannot write %s (%s): referee sessions are kept in memory only "
                    "(a restart logs the referee out)",
                    self.path,
                    exc.strerror or exc,
                )
            self._unsaved = True
            return
        if self._unsaved:
            log.info("%s is written again", self.path)
        self._unsaved = False


def load_or_make_secret(data_dir: Path) -> bytes:
    """The key that signs session cookies, kept (mode 0600) in the data dir so a
    restart does not log the referee out. Created on first use."""
    path = data_dir / "web-secret"
    if path.exists():
        text = path.read_text().strip()
        if len(text) >= 32:
            return text.encode()
    data_dir.mkdir(parents=True, exist_ok=True)
    text = secrets.token_hex(32)
    path.write_text(text + "\n")
    path.chmod(0o600)
    return text.encode()


def _pin_mark(pin: str, app: Flask | None = None) -> str:
    """What the session remembers of the PIN: changing the PIN logs every referee out."""
    key = (app or current_app).secret_key
    assert isinstance(key, bytes)
    return hmac.new(key, b"referee:" + pin.encode(), hashlib.sha256).hexdigest()[:32]


class SignedCookies(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the signing serializer built once per key
    instead of once per request, and not looked for at all when a request carries no
    session cookie (a spectator's, or a script's with the PIN header)."""

    def __init__(self) -> None:
        self._kept: tuple[tuple[object, ...], URLSafeTimedSerializer | None] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        keys = (app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ()))  # Flask 3.1+
        kept = self._kept
        if kept is None or kept[0] != keys:
            kept = self._kept = (keys, super().get_signing_serializer(app))
        return kept[1]

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        cookies = request.environ.get("HTTP_COOKIE", "")
        if app.secret_key and self.get_cookie_name(app) not in cookies:
            return self.session_class()  # no such cookie: nothing to parse or check
        return super().open_session(app, request)


def referee_cookie(app: Flask, cookie_header: str) -> bool:
    """Does ``cookie_header`` (a request's ``Cookie``) hold a live referee session of
    ``app``? The same test as :func:`is_referee`, outside any request: the server uses it
    to serve the referee's requests first. A PIN header does not count here (its check
    is throttled: the app makes it, when it serves the request)."""
    return referee_session(app, cookie_header) is not None


def referee_session(app: Flask, cookie_header: str) -> SecureCookieSession | None:
    """The session ``cookie_header`` holds when it is a live referee session of ``app``
    (as :func:`is_referee` judges), else ``None``; read outside any request (a bad or
    expired signature is ``None``, never an error)."""
    value = parse_cookie(cookie_header).get(app.config["SESSION_COOKIE_NAME"])
    if not value:
        return None
    interface = app.session_interface
    if not isinstance(interface, SecureCookieSessionInterface):
        return None  # not Flask's signed cookies: no session to read here
    serializer = interface.get_signing_serializer(app)
    if serializer is None:
        return None
    try:
        data = serializer.loads(value, max_age=int(app.permanent_session_lifetime.total_seconds()))
    except Exception:  # itsdangerous: a bad or expired signature, or not a session at all
        return None
    mark = data.get("ref") if isinstance(data, dict) else None
    store: SessionStore = app.extensions["diablotin.sessions"]
    pin = str(app.extensions["diablotin"].referee_pin)
    if (
        isinstance(mark, str)
        and hmac.compare_digest(mark, _pin_mark(pin, app))
        and store.alive(data.get("sid"))
    ):
        return interface.session_class(data)
    return None


def _service() -> Service:
    service: Service = current_app.extensions["diablotin"]
    return service


def client_address() -> str:
    return request.remote_addr or "unknown"


def _sessions() -> SessionStore:
    store: SessionStore = current_app.extensions["diablotin.sessions"]
    return store


def is_referee() -> bool:
    """True when this request carries a referee session cookie for a session still alive
    on the server (not logged out) and signed for the current PIN."""
    mark = session.get("ref")
    return (
        isinstance(mark, str)
        and hmac.compare_digest(mark, _pin_mark(_service().referee_pin))
        and _sessions().alive(session.get("sid"))
    )


def csrf_token() -> str | None:
    """The referee session's CSRF token (``None`` for spectators)."""
    token = session.get("csrf")
    return token if is_referee() and isinstance(token, str) else None


def check_pin(pin: object) -> None:
    """Raise :class:`ApiError` (429 locked out, 401 wrong) unless ``pin`` is the referee PIN."""
    throttle: PinThrottle = current_app.extensions["diablotin.throttle"]
    client = client_address()
    wait = throttle.wait_s(client)
    if wait > 0:
        raise _locked(wait)
    if not pin_is(pin, _service().referee_pin):
        lockout = throttle.failed(client)
        if lockout > 0:
            raise _locked(lockout)
        raise ApiError(401, "wrong-pin", Said("that is not the referee PIN"))
    throttle.succeeded(client)


def pin_is(pin: object, referee_pin: object) -> bool:
    """Is ``pin`` (a header's text, or anything a body held) the referee PIN? In constant
    time. The caller books the try with the throttle."""
    return isinstance(pin, str) and hmac.compare_digest(pin.encode(), str(referee_pin).encode())


def _locked(wait_s: float) -> ApiError:
    seconds = max(1, int(wait_s + 0.999))
    return ApiError(
        429,
        "too-many-tries",
        Said("too many wrong PINs: try again in {s} s", s=seconds),
        {"Retry-After": str(seconds)},
    )


def log_in(pin: object) -> str:
    """Check ``pin`` and start a referee session; returns its CSRF token."""
    check_pin(pin)
    _sessions().end(session.get("sid"))
    session.clear()
    session.permanent = True
    session["ref"] = _pin_mark(_service().referee_pin)
    session["sid"] = _sessions().start()
    session["csrf"] = secrets.token_urlsafe(24)
    return str(session["csrf"])


def log_out() -> None:
    """End the session on the server (its cookie, even if kept, no longer counts)."""
    _sessions().end(session.get("sid"))
    session.clear()


LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
_ADDRESSES_TTL_S = 30.0
_address_cache: tuple[float, frozenset[str]] = (float("-inf"), frozenset())


def lan_address() -> str | None:
    """This machine's address on the local network, or ``None`` if it has none.

    Asks the kernel which source address a UDP socket *would* use; connecting a
    UDP socket sends no packet.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a routing lookup only
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else str(address)


def local_addresses() -> frozenset[str]:
    """This machine's interface addresses (IPv4 from /proc/net/fib_trie, IPv6 from
    /proc/net/if_inet6, plus the LAN address), re-read every 30 s (DHCP may change them)."""
    global _address_cache
    now = time.monotonic()
    if now - _address_cache[0] < _ADDRESSES_TTL_S:
        return _address_cache[1]
    found: set[str] = set()
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for previous, line in itertools.pairwise(lines):
            if line.strip() == "/32 host LOCAL":
                found.add(previous.split()[-1])
    except OSError:
        pass
    try:
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.IPv6Address(int(raw, 16))))
    except (OSError, ValueError, IndexError):
        pass
    lan = lan_address()
    if lan:
        found.add(lan)
    _address_cache = (now, frozenset(found))
    return _address_cache[1]


def host_allowed(host_header: str, allowed_hosts: Collection[str]) -> bool:
    """Is ``host_header`` (``name[:port]``, ``[v6][:port]``) a name of this machine?
    localhost, 127.0.0.1, ::1, the host name, ``<hostname>.local``, any interface
    address, or a name in ``allowed_hosts`` (``[server] allowed_hosts``). Guards against
    DNS rebinding."""
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.rstrip(".")
    if not host:
        return False
    name = socket.gethostname().lower()
    if host in LOCAL_NAMES or host in (name, f"{name}.local"):
        return True
    if host in allowed_hosts:
        return True
    return host in local_addresses()


def check_same_site() -> None:
    """Refuse (403) a state-changing request addressed to another host name (DNS
    rebinding), or that a browser says comes from elsewhere."""
    refused = same_site_refusal(
        request.host,
        request.headers.get("Sec-Fetch-Site"),
        request.headers.get("Origin"),
        _service().config.server.allowed_hosts,
    )
    if refused is not None:
        raise refused


def same_site_refusal(
    host: str, fetch_site: str | None, origin: str | None, allowed_hosts: Collection[str]
) -> ApiError | None:
    """Why (403) a state-changing request to ``host`` (its ``Host``), with these
    ``Sec-Fetch-Site`` and ``Origin`` headers (``None``: not sent), is refused; ``None``
    when it may go on. One test for the Flask routes and :mod:`controller.web.fast_path`."""
    if not host_allowed(host, allowed_hosts):
        shown = host.split(":")[0] if host.count(":") == 1 else host
        return ApiError(
            403,
            "bad-host",
            Said(
                "this box does not answer to the name {name!r} (Host header): open it by "
                "its address, or add the name to [server] allowed_hosts",
                name=shown[:100],
            ),
        )
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return ApiError(
            403, "cross-site", Said("requests from another site may not change anything")
        )
    if origin is not None and (origin == "null" or urlsplit(origin).netloc != host):
        return ApiError(
            403, "cross-site", Said("requests from another origin may not change anything")
        )
    return None


def check_json_body() -> None:
    """Refuse (403) a body that is not JSON: HTML forms cannot send ``application/json``."""
    has_body = (request.content_length or 0) > 0 or "chunked" in request.headers.get(
        "Transfer-Encoding", ""
    )
    if has_body and request.mimetype != "application/json":
        raise ApiError(403, "json-only", Said("send the request body as application/json"))


def require_referee() -> None:
    """The gate in front of every state-changing API request (see the module doc)."""
    check_same_site()
    check_json_body()
    pin = request.headers.get(PIN_HEADER)
    if pin is not None:
        check_pin(pin)
        return
    if not is_referee():
        raise ApiError(401, "pin-required", Said("only the referee may do this: enter the PIN"))
    token = request.headers.get(CSRF_HEADER, "")
    expected = session.get("csrf")
    if not isinstance(expected, str) or not hmac.compare_digest(token, expected):
        raise ApiError(403, "bad-csrf-token", Said("missing or stale CSRF token: reload the page"))


SECURITY_HEADERS = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)
"""Sent with every answer, unless the answer sets its own value."""


class SecurityHeaders:
    """WSGI middleware: adds :data:`SECURITY_HEADERS` an answer does not set itself, in
    one pass over its header list (cheaper than six look-ups in Flask's ``Headers``)."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        def start(
            status: str, headers: list[tuple[str, str]], exc_info: ExcInfo | None = None
        ) -> Callable[[bytes], object]:
            named = {name.lower() for name, _ in headers}
            headers.extend(pair for pair in SECURITY_HEADERS if pair[0].lower() not in named)
            return start_response(status, headers, exc_info)

        return self.app(environ, start)
