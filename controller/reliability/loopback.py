"""HTTP to 127.0.0.1 from any loopback source address, for the attack part.

A client socket is bound to its source (127.0.0.2, 127.1.0.1, …: the whole of 127.0.0.0/8
is this machine) before it connects, so the server sees many clients. Nothing here raises
for a network error: an answer's status is the HTTP status, or :data:`NO_ANSWER` /
:data:`CLOSED`.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import selectors
import socket
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .common import PIN

NO_ANSWER = 0
"""Status of a request that got no HTTP answer in time."""
CLOSED = -1
"""Status of a request whose connection failed or was closed without an answer."""


@dataclass
class Answer:
    """An HTTP answer: ``status`` (:data:`NO_ANSWER`, :data:`CLOSED` when there was none),
    ``ms`` from connect to the whole answer."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    ms: float = float("inf")
    error: str = ""

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | Mapping[str, object] | None = None,
    *,
    headers: dict[str, str] | None = None,
    source: str = "127.0.0.1",
    timeout: float = 5.0,
) -> Answer:
    """One request on a new connection from ``source``; never raises for network errors
    (the answer's status says what happened). A dict body is sent as JSON."""
    sent_headers = dict(headers or {})
    if isinstance(body, Mapping):
        body = json.dumps(body).encode()
    if body is not None:
        sent_headers.setdefault("Content-Type", "application/json")
    started = time.monotonic()
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        conn.request(method, path, body=body, headers=sent_headers)
        resp = conn.getresponse()
        data = resp.read()
    except TimeoutError as exc:
        return Answer(NO_ANSWER, error=f"no answer in {timeout:g} s ({exc})")
    except (OSError, http.client.HTTPException) as exc:
        return Answer(CLOSED, error=f"{type(exc).__name__}: {exc}")
    finally:
        conn.close()
    ms = (time.monotonic() - started) * 1000
    return Answer(resp.status, data, {k.lower(): v for k, v in resp.getheaders()}, ms)


@dataclass
class Referee:
    """A referee's logged-in session: the cookie and its CSRF token."""

    cookie: str
    csrf: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}


def log_in(port: int, source: str, timeout: float = 5.0) -> tuple[Referee | None, Answer]:
    """``POST /api/session`` with the PIN from ``source``: the session, or ``None``."""
    answer = request(port, "POST", "/api/session", {"pin": PIN}, source=source, timeout=timeout)
    cookie = answer.headers.get("set-cookie", "").split(";", 1)[0]
    if answer.status != 200 or not cookie:
        return None, answer
    return Referee(cookie, str(answer.json()["csrf"])), answer


def http_status(head: bytes) -> int:
    """The status code of a response starting with ``head`` (:data:`CLOSED` if none)."""
    match = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return int(match.group(1)) if match else CLOSED


def open_many(
    port: int, sources: Sequence[str], request_bytes: bytes, *, status: bool, timeout: float
) -> list[tuple[socket.socket, int]]:
    """Connect from each of ``sources`` at once (non-blocking), send ``request_bytes`` and,
    with ``status``, wait for each answer's status line (all within ``timeout`` s).
    Returns (socket, status) pairs: an HTTP status, :data:`NO_ANSWER` when none came in
    time, :data:`CLOSED` when the connection failed; without ``status``, 1 once sent.
    The sockets stay open (the caller closes them)."""
    sel = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    results = [NO_ANSWER] * len(sources)
    heads = [b""] * len(sources)
    for index, source in enumerate(sources):
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((source, 0))
        sock.connect_ex(("127.0.0.1", port))
        sel.register(sock, selectors.EVENT_WRITE, index)
        socks.append(sock)
    pending = len(sources)
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key, mask in sel.select(max(0.0, deadline - time.monotonic())):
            index, sock = key.data, socks[key.data]
            done = False
            try:
                if mask & selectors.EVENT_WRITE:
                    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        results[index], done = CLOSED, True
                    else:
                        sock.send(request_bytes)
                        if status:
                            sel.modify(sock, selectors.EVENT_READ, index)
                        else:
                            results[index], done = 1, True
                else:
                    data = sock.recv(4096)
                    heads[index] += data
                    if not data or b"\r\n" in heads[index]:
                        results[index], done = http_status(heads[index]), True
            except OSError:
                results[index], done = CLOSED, True
            if done:
                sel.unregister(sock)
                pending -= 1
    sel.close()
    return list(zip(socks, results, strict=True))


def stream_request(port: int, topic: str) -> bytes:
    return f"GET /stream?topics={topic} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()


def close_all(socks: Iterator[socket.socket] | Sequence[socket.socket]) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.close()


def send_raw(port: int, data: bytes, source: str, timeout: float = 5.0) -> int:
    with socket.socket() as sock:
        sock.bind((source, 0))
        sock.settimeout(timeout)
        head = b""
        try:
            sock.connect(("127.0.0.1", port))
            with contextlib.suppress(OSError):  # the server may answer and close early
                sock.sendall(data)
            while b"\r\n" not in head:
                more = sock.recv(4096)
                if not more:
                    break
                head += more
        except TimeoutError:
            return NO_ANSWER if not head else http_status(head)
        except OSError:
            pass
    return http_status(head)


def status_text(status: int) -> str:
    if status == NO_ANSWER:
        return "no answer in 5 s"
    return "closed without an answer" if status == CLOSED else str(status)
