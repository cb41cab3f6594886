"""Thread-less live streams on the real server: once a phone has its snapshot, the hub's
fan-out thread writes its frames (``controller.server.PushedStream``); no stream thread
is held or woken per phone, a stalled phone is dropped, a phone that leaves frees its slot."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from controller.reliability.loopback import request, stream_request
from controller.server import PUSH_MOST_BEHIND, DashboardServer, bound_port, make_server
from controller.service import Service
from controller.web import create_app, stream
from controller.web.stream import StreamCounter

from .conftest import PIN, make_service

WITHIN_S = 5.0
"""What "soon" means on a shared 2-core machine."""


@contextmanager
def served(tmp_path: Path) -> Iterator[tuple[int, Service, DashboardServer, StreamCounter]]:
    """The real server on 127.0.0.1: its port, service, server and open streams' counter."""
    service = make_service(tmp_path, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    app = create_app(service)
    counter = app.extensions["diablotin.streams"] = StreamCounter()
    server = make_server(app, "127.0.0.1", 0, 4)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield bound_port(server), service, server, counter
    finally:
        service.hub.close_all()
        server.stop()
        thread.join(10)
        service.stop()


class Phone:
    """A raw live-stream connection from ``source``; ``read_until`` reads from it."""

    def __init__(
        self, port: int, topics: str, source: str = "127.0.0.1", rcvbuf: int = 0, cookie: str = ""
    ):
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.bind((source, 0))
        self.sock.settimeout(WITHIN_S)
        self.sock.connect(("127.0.0.1", port))
        head = stream_request(port, topics)
        if cookie:
            head = head[:-2] + f"Cookie: {cookie}\r\n\r\n".encode()
        self.sock.sendall(head)
        self.received = b""
        self.closed = False
        """The server closed the connection."""

    def read_until(self, marker: bytes, count: int = 1) -> bool:
        """Read until ``marker`` was received ``count`` times (False: the connection closed
        first, or too slow)."""
        deadline = time.monotonic() + WITHIN_S
        while self.received.count(marker) < count:
            if self.closed or time.monotonic() > deadline:
                return False
            try:
                data = self.sock.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                self.closed = True
                return False
            self.received += data
        return True

    def close(self) -> None:
        self.sock.close()


def switches(names: str) -> int:
    """Context switches so far of this process's threads whose names start with ``names``
    (a thread that is woken up switches at least once)."""
    total = 0
    for thread in threading.enumerate():
        if thread.name.startswith(names) and thread.native_id is not None:
            status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
            for line in status.splitlines():
                if "ctxt_switches:" in line:  # voluntary and not
                    total += int(line.split()[-1])
    return total


def wait_for(check: object, within_s: float = WITHIN_S) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if callable(check) and check():
            return True
        time.sleep(0.02)
    return False


def test_a_frame_reaches_50_phones_with_no_stream_thread_woken(tmp_path: Path) -> None:
    with served(tmp_path) as (port, service, server, _counter):
        phones = [Phone(port, "games", f"127.0.4.{i + 1}") for i in range(50)]
        try:
            assert all(phone.read_until(b"event: games\n") for phone in phones)
            assert b" 200 OK" in phones[0].received
            streams = server.server.task_dispatcher.streams
            assert wait_for(lambda: streams.active_count == 0)  # no thread held per phone
            assert service.hub.subscriber_count == 50
            before = -1
            while before != switches("diablotin-stream-"):  # until every one is back asleep
                before = switches("diablotin-stream-")
                time.sleep(0.2)
            service.hub.publish("games", [{"marker": "one frame for all"}])
            assert all(phone.read_until(b"one frame for all") for phone in phones)
            assert switches("diablotin-stream-") == before  # no stream thread woke up
            assert streams.active_count == 0
        finally:
            for phone in phones:
                phone.close()
        assert wait_for(lambda: service.hub.subscriber_count == 0)


def test_stream_threads_left_idle_by_a_crowd_are_retired(tmp_path: Path) -> None:
    """50 phones open at once start stream threads on demand; once their snapshots are out,
    the pool keeps only a few idle (each idle thread held its stack for the server's life)."""
    from controller.server import STREAM_THREADS_IDLE

    with served(tmp_path) as (port, _service, server, _counter):
        phones = [Phone(port, "games", f"127.0.5.{i + 1}") for i in range(50)]
        try:
            assert all(phone.read_until(b"event: games\n") for phone in phones)
            streams = server.server.task_dispatcher.streams

            def stream_threads() -> int:
                names = [t.name for t in threading.enumerate()]
                return sum(name.startswith("diablotin-stream-") for name in names)

            assert wait_for(lambda: stream_threads() <= STREAM_THREADS_IDLE)
            assert len(streams.threads) - streams.stop_count <= STREAM_THREADS_IDLE
            late = Phone(port, "games", "127.0.5.200")  # the pool still serves new phones
            assert late.read_until(b"event: games\n")
            late.close()
        finally:
            for phone in phones:
                phone.close()


def test_a_stalled_phone_is_dropped_and_the_others_still_get_every_frame(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (port, service, _server, counter):
        stalled = Phone(port, "games", "127.0.5.1", rcvbuf=4096)
        reader = Phone(port, "games", "127.0.5.2")
        try:
            assert stalled.read_until(b"event: games\n") and reader.read_until(b"event: games\n")
            frame_bytes = 64 * 1024
            # enough to fill both kernel buffers and PUSH_MOST_BEHIND several times over
            frames = 2 + (8 * 1024 * 1024 + PUSH_MOST_BEHIND) // frame_bytes
            for n in range(frames):
                service.hub.publish("games", [{"n": n, "pad": "x" * frame_bytes}])
                assert reader.read_until(b'[{"n":', n + 1), f"the reader missed frame {n}"
            assert wait_for(lambda: service.hub.subscriber_count == 1)  # the stalled one is out
            assert wait_for(lambda: counter.open == 1)  # and its slot is free
            service.hub.publish("games", [{"marker": "after the drop"}])
            assert reader.read_until(b"after the drop")
        finally:
            stalled.close()
            reader.close()


def test_a_phone_that_leaves_frees_its_slot_and_subscription(tmp_path: Path) -> None:
    with served(tmp_path) as (port, service, _server, counter):
        phone = Phone(port, "games")
        assert phone.read_until(b"event: games\n")
        assert service.hub.subscriber_count == 1 and counter.open == 1
        phone.close()
        assert wait_for(lambda: service.hub.subscriber_count == 0)
        assert wait_for(lambda: counter.open == 0)
        again = [Phone(port, "games") for _ in range(4)]  # the per-phone cap: 4, all free
        try:
            assert all(p.read_until(b"event: games\n") for p in again)
        finally:
            for p in again:
                p.close()


def test_heartbeats_and_the_referees_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "HEARTBEAT_S", 0.5)
    with served(tmp_path) as (port, service, _server, _counter):
        game_id = service.new_game("sauteur", {})
        answer = request(port, "POST", "/api/session", {"pin": PIN})
        assert answer.status == 200, answer
        cookie = answer.headers["set-cookie"].split(";", 1)[0]
        spectator = Phone(port, f"game:{game_id}", "127.0.6.1")
        referee_phone = Phone(port, f"game:{game_id}", cookie=cookie)
        try:
            assert spectator.read_until(b"event: extras\n")
            assert referee_phone.read_until(b'"legal":[{"type":"hidden"}]')
            assert spectator.read_until(b": ping\n\n")  # nothing happened for 0.5-1.5 s
            service.table(game_id).submit({"type": "hidden"})
            assert spectator.read_until(b'"phase":"pop"')
            assert referee_phone.read_until(b'"phase":"pop"')
            assert referee_phone.read_until(b"event: extras\n", 2)  # re-rendered with legal
            assert b"event: extras" not in spectator.received.split(b'"phase":"pop"', 1)[1]
        finally:
            spectator.close()
            referee_phone.close()


def test_the_stream_ends_when_the_hub_closes_every_subscription(tmp_path: Path) -> None:
    """A journal restore (and a stop) closes every subscription: the phone's connection
    ends, so it reconnects to a fresh snapshot, and its slot is freed."""
    with served(tmp_path) as (port, service, _server, counter):
        phone = Phone(port, "games")
        try:
            assert phone.read_until(b"event: games\n")
            service.hub.close_all()
            assert not phone.read_until(b"never sent") and phone.closed
            assert phone.received.endswith(b"\r\n0\r\n\r\n")  # the chunked body's end
            assert wait_for(lambda: counter.open == 0)
        finally:
            phone.close()
