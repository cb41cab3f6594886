"""Spectators cannot stop the referee: slow headers, stream floods, phones that leave.

Against the real server (``controller.server.make_server``) on loopback, small and
bounded: the full-size scenario is ``diablotin bench attack`` /
``controller.bench.attack_load.stream_flood``.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.bench.attack_load import open_stream, slow_header_sockets, stream_flood
from controller.server import bound_port, make_server
from controller.service import Service
from controller.web import create_app

from .conftest import PIN, make_service


@contextmanager
def server_for(tmp_path: Path, **server: Any) -> Iterator[tuple[str, Service]]:
    """A service and the real server on 127.0.0.1, ``server`` overriding [server] keys."""
    service = make_service(tmp_path, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    for key, value in server.items():
        setattr(service.config.server, key, value)
    srv = make_server(create_app(service), "127.0.0.1", 0, service.config.server.threads)
    thread = threading.Thread(target=srv.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{bound_port(srv)}", service
    finally:
        service.hub.close_all()
        srv.stop()
        thread.join(10)
        service.stop()


def get_games(base: str, source: str = "127.0.0.1", timeout: float = 5.0) -> int:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout, source_address=(source, 0))
    try:
        conn.request("GET", "/api/games")
        return conn.getresponse().status
    finally:
        conn.close()


def test_slow_headers_do_not_stop_the_api(tmp_path: Path) -> None:
    """More slow-header connections than the server has threads: the API still answers."""
    with server_for(tmp_path, threads=8) as (base, _service):
        slow = slow_header_sockets(base, 40, sources=["127.0.0.1"] * 10 + ["127.0.0.3"] * 30)
        try:
            assert len(slow) >= 40 - 32  # the rest may be refused (per-client cap)
            started = time.monotonic()
            assert get_games(base, "127.0.0.2") == 200
            assert time.monotonic() - started < 5.0
        finally:
            for sock in slow:
                sock.close()


def test_a_request_whose_headers_never_end_is_dropped(tmp_path: Path) -> None:
    with server_for(tmp_path, header_timeout_s=1.0) as (base, _service):
        (sock,) = slow_header_sockets(base, 1)
        sock.settimeout(5.0)
        started = time.monotonic()
        try:
            while True:  # keep trickling: a byte a 1/4 s never ends the headers
                sock.sendall(b"X")
                time.sleep(0.25)
                if time.monotonic() - started > 5.0:
                    raise AssertionError("the server kept a slow request open for 5 s")
        except OSError:
            pass  # reset or broken pipe: the server closed it
        finally:
            sock.close()
        assert time.monotonic() - started < 4.0


def test_a_body_that_never_ends_is_dropped(tmp_path: Path) -> None:
    with server_for(tmp_path, body_timeout_s=1.0) as (base, _service):
        host, port = base.removeprefix("http://").split(":")
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(
            f"POST /api/session HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json"
            "\r\nContent-Length: 1000\r\n\r\n{".encode()
        )
        started = time.monotonic()
        try:
            while time.monotonic() - started < 5.0:
                sock.sendall(b" ")  # a byte every 1/4 s: the body never completes in time
                time.sleep(0.25)
            raise AssertionError("the server kept a slow body open for 5 s")
        except OSError:
            pass
        finally:
            sock.close()
        assert time.monotonic() - started < 4.0


def test_streams_per_client_are_capped(tmp_path: Path) -> None:
    with server_for(tmp_path, max_streams_per_client=4) as (base, _service):
        mine = [open_stream(base, "127.0.0.1") for _ in range(4)]
        try:
            assert all(status == 200 for status, _ in mine)
            status, extra = open_stream(base, "127.0.0.1")
            extra.close()
            assert status == 503
            status, other = open_stream(base, "127.0.0.2")  # another phone is welcome
            other.close()
            assert status == 200
        finally:
            for _, sock in mine:
                sock.close()


def test_a_phone_that_leaves_frees_its_slot_at_once(tmp_path: Path) -> None:
    with server_for(tmp_path, max_streams=2) as (base, _service):
        first, second = open_stream(base, "127.0.0.2"), open_stream(base, "127.0.0.3")
        assert first[0] == second[0] == 200
        status, third = open_stream(base, "127.0.0.4")
        third.close()
        assert status == 503
        first[1].close()  # the phone leaves (no heartbeat needed to notice)
        deadline = time.monotonic() + 3.0
        while True:
            status, again = open_stream(base, "127.0.0.4")
            again.close()
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        second[1].close()
        assert status == 200


def test_a_small_flood_leaves_the_referee_answered(tmp_path: Path) -> None:
    """The bench scenario, small: streams from several addresses, slow-header connections;
    a referee action from a fresh address answers, and a new phone's stream connects."""
    with server_for(tmp_path, threads=8) as (base, service):
        game_id = service.new_game("sauteur", {"rule": "A"})
        result = stream_flood(
            base, pin=PIN, game_id=game_id, streams=24, addresses=6, slow=24, actions=10, hold_s=0
        )
    assert result["streams_open"] == 24
    assert result["actions_ok"] == 10
    assert result["new_phone_status"] == 200
    assert result["referee_max_ms"] < 5000
