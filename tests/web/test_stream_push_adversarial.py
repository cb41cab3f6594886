"""Adversarial checks of the thread-less live streams (``controller.server.PushedStream``)
with real sockets against the real server: what a hostile or unlucky world does to them."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path

import pytest

from controller import server as server_module
from controller.reliability.loopback import stream_request
from controller.server import PUSH_MOST_BEHIND
from controller.service import Service
from controller.web import stream

from .test_stream_push import WITHIN_S, Phone, served, wait_for


def _raw(port: int, data: bytes, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(WITHIN_S)
    sock.connect(("127.0.0.1", port))
    sock.sendall(data)
    return sock


def _read_for(sock: socket.socket, seconds: float) -> tuple[bytes, bool]:
    """What arrives within ``seconds``, and whether the server closed the connection."""
    deadline = time.monotonic() + seconds
    got = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(1 << 16)
        except TimeoutError:
            break
        except OSError:
            return got, True
        if not data:
            return got, True
        got += data
    return got, False


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    """Read until ``marker`` has arrived (what arrived; short of it: closed or too slow)."""
    got, deadline = b"", time.monotonic() + WITHIN_S
    while marker not in got and time.monotonic() < deadline:
        try:
            data = sock.recv(1 << 16)
        except OSError:
            break
        if not data:
            break
        got += data
    return got


def _closed_soon(sock: socket.socket) -> bool:
    """The server closes this connection within WITHIN_S (whatever it sends first)."""
    _got, closed = _read_for(sock, WITHIN_S)
    return closed


def _wifi_phone(port: int, topics: str, source: str, rcvbuf: int = 64 * 1024) -> Phone:
    """A phone as on Wi-Fi: MSS 1460 (so the server's kernel send buffer for it is tens of
    KiB, as off loopback, not the MiBs loopback's 64 KiB segments give) and ``rcvbuf``."""
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(WITHIN_S)
    sock.connect(("127.0.0.1", port))
    sock.sendall(stream_request(port, topics))
    phone = Phone.__new__(Phone)
    phone.sock, phone.received, phone.closed = sock, b"", False
    return phone


class _Reader:
    """A phone that keeps reading everything as it comes (a background thread); with
    ``pace_s``, 64 KiB per ``pace_s`` s (a Wi-Fi link's pace)."""

    def __init__(self, phone: Phone, pace_s: float = 0.0) -> None:
        self.phone, self.pace_s = phone, pace_s
        self.data = b""
        self.closed = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        self.phone.sock.settimeout(30)
        while True:
            try:
                data = self.phone.sock.recv(64 * 1024 if self.pace_s else 1 << 20)
            except OSError:
                data = b""
            if not data:
                self.closed.set()
                return
            with self._lock:
                self.data += data
            time.sleep(self.pace_s)

    def has(self, marker: bytes) -> bool:
        with self._lock:
            return marker in self.data


# -- defects ---------------------------------------------------------------------------


def test_a_phone_that_keeps_reading_is_not_dropped_for_one_large_frame(tmp_path: Path) -> None:
    """One legitimate frame larger than PUSH_MOST_BEHIND (the games list of a box with a
    long history: every game ever, ~250 B each, is > 128 KiB from ~500 games) cannot leave
    at once for a phone on Wi-Fi (MSS 1460: the kernel's send buffer starts at some tens of
    KiB), and the next frame a moment later finds it "too far behind": a phone that reads
    every byte as fast as it comes is dropped, and reconnects for a snapshot of the same
    size (a reconnection loop for every phone on Wi-Fi whenever two frames come close)."""
    with served(tmp_path) as (port, service, _server, counter):
        phone = _wifi_phone(port, "games", "127.0.11.1")
        assert phone.read_until(b"event: games\n")
        reader = _Reader(phone, pace_s=0.02)  # 3 MiB/s: a good Wi-Fi link, always reading
        big = [{"id": n, "title": f"game {n}", "pad": "x" * 200} for n in range(1500)]
        assert len(str(big)) > 2 * PUSH_MOST_BEHIND
        service.hub.publish("games", big)
        service.hub.publish("games", [{"marker": "right after"}])
        try:
            assert wait_for(lambda: reader.has(b"right after") or reader.closed.is_set())
            assert not reader.closed.is_set(), "a phone reading every byte was dropped"
            assert service.hub.subscriber_count == 1 and counter.open == 1
        finally:
            phone.close()


def test_a_phone_gone_during_its_snapshot_frees_exactly_one_slot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``left`` (sub.close + counter.leave, not idempotent) is registered with
    ``on_disconnect`` on the stream's thread while the loop thread may be in
    ``_Channel.handle_close`` between ``connected = False`` and taking ``close_hooks``:
    the hook is appended to the list the loop is about to run AND run by ``on_disconnect``
    (it sees ``not connected``): the slot is freed twice, ``counter.open`` goes to -1 and
    the MAX_STREAMS cap is one higher for good. The window (the socket's close, the
    channel's removal) is widened here with a pause so the interleaving is certain."""
    in_close = threading.Event()
    real_del_channel = server_module._Channel.del_channel
    real_snapshot = stream._snapshot

    def slow_del_channel(self: server_module._Channel, map: object = None) -> None:
        real_del_channel(self, map)
        if getattr(self, "addr", ("",))[0] == "127.0.12.1" and not in_close.is_set():
            in_close.set()
            time.sleep(0.5)  # the loop thread between connected = False and the hooks

    def snapshot_once_gone(*args: object) -> list[bytes]:
        in_close.wait(WITHIN_S)
        return real_snapshot(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(server_module._Channel, "del_channel", slow_del_channel)
    monkeypatch.setattr(stream, "_snapshot", snapshot_once_gone)
    with served(tmp_path) as (port, service, _server, counter):
        sock = _raw(port, stream_request(port, "games"), "127.0.12.1")
        assert wait_for(lambda: counter.open == 1)  # the stream has its slot
        sock.close()  # the phone leaves while its snapshot is being made
        assert in_close.wait(WITHIN_S)
        time.sleep(1.0)  # both the stream's thread and the loop are done
        assert service.hub.subscriber_count == 0
        assert counter.open == 0, f"slots freed twice: open = {counter.open}"


def test_a_head_request_for_the_stream_frees_its_slot(tmp_path: Path) -> None:
    """``HEAD /stream`` (Flask routes it to the GET view) is not pushed (``push`` only for
    GET): it takes a slot and a subscription, and the body (the ``_events`` generator that
    would free the slot) is never started for a HEAD answer (werkzeug sends no body), so its
    ``finally`` never runs: four HEADs and the phone can never open a live stream again.
    Not new in s9-stream (main has the same path), but it is the slot accounting."""
    with served(tmp_path) as (port, service, _server, counter):
        for _ in range(4):
            head = stream_request(port, "games").replace(b"GET ", b"HEAD ", 1)
            sock = _raw(port, head, "127.0.13.1")
            answer = _read_until(sock, b"\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 "), answer
            sock.close()
        assert wait_for(lambda: counter.open == 0), f"{counter.open} slots held by HEADs"
        assert wait_for(lambda: service.hub.subscriber_count == 0)
        phone = Phone(port, "games", "127.0.13.1")
        try:
            assert phone.read_until(b"event: games\n"), phone.received[:200]
        finally:
            phone.close()


def test_a_request_pipelined_with_expect_continue_writes_nothing_into_the_stream(
    tmp_path: Path,
) -> None:
    """A request pipelined after ``GET /stream`` whose headers ask ``Expect: 100-continue``
    (body not sent) is still waitress's partial ``channel.request`` when the stream's task
    ends; ``_Task.service`` drops ``channel.requests[1:]`` but not it, so waitress's
    ``HTTPChannel.service`` then sends ``HTTP/1.1 100 Continue`` into the middle of the
    chunked event stream (the phone's parser sees a broken chunk). Only the sender's own
    stream suffers: minor."""
    with served(tmp_path) as (port, service, _server, _counter):
        expect = (
            f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 20\r\n"
            "Expect: 100-continue\r\n\r\n"
        ).encode()
        sock = _raw(port, stream_request(port, "games") + expect, "127.0.19.1")
        try:
            got = _read_until(sock, b"event: games\n")
            service.hub.publish("games", [{"marker": "after"}])
            got += _read_until(sock, b'"marker":"after"')
            got += _read_for(sock, 0.3)[0]  # whatever the stream's thread sends last
            assert b'"marker":"after"' in got
            assert b"100 Continue" not in got, got.split(b"\r\n\r\n", 1)[1]
        finally:
            sock.close()


# -- what held ---------------------------------------------------------------------------


def test_a_frame_published_between_subscribe_and_snapshot_comes_once_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_snapshot = stream._snapshot

    def snapshot_after_a_frame(service: Service, *args: object) -> list[bytes]:
        frame = ("games", [{"marker": "meanwhile"}])  # from another thread: not held
        elsewhere = threading.Thread(target=service.hub.publish, args=frame)
        elsewhere.start()
        elsewhere.join()
        assert service.hub.flush()  # delivered (kept for the phone) before the snapshot
        return real_snapshot(service, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(stream, "_snapshot", snapshot_after_a_frame)
    with served(tmp_path) as (port, _service, _server, _counter):
        phone = Phone(port, "games", "127.0.20.1")
        try:
            assert phone.read_until(b"meanwhile")
            more, closed = _read_for(phone.sock, 0.5)
            body = (phone.received + more).split(b"\r\n\r\n", 1)[1]
            assert not closed and body.count(b"meanwhile") == 1
            assert body.index(b"retry: 10000") < body.index(b"meanwhile")
        finally:
            phone.close()


def test_500_quick_visits_give_every_slot_channel_and_subscription_back(tmp_path: Path) -> None:
    """A phone opening and leaving its stream 500 times, at every moment (before the
    answer, during the snapshot, after it, with a reset), frames published meanwhile."""
    with served(tmp_path) as (port, service, dashboard, counter):
        loop = dashboard.server
        for n in range(500):
            sock = socket.socket()
            sock.bind(("127.0.14.1", 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(stream_request(port, "games,box"))
            if n % 4 == 1:
                time.sleep(0.001)
            elif n % 4 == 2:  # once the answer starts (or a 503, or shed: a reset)
                sock.settimeout(WITHIN_S)
                with contextlib.suppress(OSError):
                    sock.recv(64)
            elif n % 4 == 3:  # leave with a reset
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
            sock.close()
            if n % 25 == 0:
                service.hub.publish("games", [{"n": n}])
        assert wait_for(
            lambda: (
                counter.open == 0
                and service.hub.subscriber_count == 0
                and not loop.active_channels
                and not loop.by_address
            ),
            5.0,
        ), (counter.open, service.hub.subscriber_count, len(loop.active_channels))
        assert counter.by_client == {}
        phones = [Phone(port, "games", "127.0.14.1") for _ in range(4)]  # the cap: all free
        try:
            assert all(p.read_until(b"event: games\n") for p in phones)
        finally:
            for p in phones:
                p.close()


def test_an_http_1_0_stream_is_sent_unchunked_until_the_end(tmp_path: Path) -> None:
    with served(tmp_path) as (port, service, _server, _counter):
        request = f"GET /stream?topics=games HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        sock = _raw(port, request.encode(), "127.0.15.1")
        try:
            head = _read_until(sock, b"event: games\n")
            assert head.startswith(b"HTTP/1.0 200 OK") and b"chunked" not in head.lower()
            service.hub.publish("games", [{"marker": "for the old client"}])
            more, closed = _read_for(sock, 1.0)
            assert not closed
            assert more.startswith(b"event: games\nid: ")  # the frame itself, no chunk size
            assert b"for the old client" in more
        finally:
            sock.close()


def test_a_request_pipelined_after_the_stream_is_ignored_and_the_stream_goes_on(
    tmp_path: Path,
) -> None:
    with served(tmp_path) as (port, service, _server, counter):
        second = f"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        sock = _raw(port, stream_request(port, "games") + second, "127.0.16.1")
        try:
            first = _read_until(sock, b"event: games\n")
            first += _read_for(sock, 0.3)[0]
            sock.sendall(second)  # and once it is pushed
            service.hub.publish("games", [{"marker": "still streaming"}])
            later, closed = _read_for(sock, 1.0)
            assert not closed and b"still streaming" in later
            assert (first + later).count(b"HTTP/1.1 ") == 1  # no answer inside the stream
            assert counter.open == 1
        finally:
            sock.close()


def test_a_stalled_phone_costs_49_others_no_frame_and_no_order(tmp_path: Path) -> None:
    with served(tmp_path) as (port, service, dashboard, counter):
        stalled = _wifi_phone(port, "games", "127.0.17.200", rcvbuf=4096)
        phones = [Phone(port, "games", f"127.0.17.{i // 4 + 1}") for i in range(49)]
        try:
            assert stalled.read_until(b"event: games\n")
            assert all(p.read_until(b"event: games\n") for p in phones)  # all subscribed
            readers = [_Reader(p) for p in phones]
            frames = 2 + 4 * PUSH_MOST_BEHIND // (16 * 1024)
            for n in range(frames):
                service.hub.publish("games", [{"n": n, "pad": "y" * 16 * 1024}])
            last = f'[{{"n":{frames - 1},'.encode()
            done = wait_for(lambda: all(r.has(last) for r in readers), 10.0)
            assert done, (
                [r.data.count(b'[{"n":') for r in readers],
                [r.closed.is_set() for r in readers],
                service.hub.subscriber_count,
            )
            for reader in readers:
                got = [int(part.split(b",", 1)[0]) for part in reader.data.split(b'[{"n":')[1:]]
                assert got == list(range(frames))
            assert wait_for(lambda: service.hub.subscriber_count == 49 and counter.open == 49)
            channels = dashboard.server.active_channels.values()
            assert max(ch.total_outbufs_len for ch in channels) <= PUSH_MOST_BEHIND  # bounded
        finally:
            stalled.close()
            for p in phones:
                p.close()


def test_stopping_with_100_streams_open_is_prompt(tmp_path: Path) -> None:
    with served(tmp_path) as (port, service, dashboard, _counter):
        phones = [Phone(port, "games", f"127.0.18.{i // 4 + 1}") for i in range(100)]
        try:
            assert all(p.read_until(b"event: games\n") for p in phones)
            pool = dashboard.server.task_dispatcher.streams
            assert wait_for(lambda: pool.active_count == 0)  # no thread held by a stream
            started = time.monotonic()
            service.hub.close_all()
            dashboard.stop()
            assert time.monotonic() - started < 3.0
            assert all(_closed_soon(p.sock) for p in phones)
            assert not pool.threads  # every stream thread has ended
        finally:
            for p in phones:
                p.close()


def test_a_stream_ended_by_the_hub_before_its_snapshot_left_still_ends_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal restore (``hub.close_all``) while a phone's snapshot is being made: the
    phone gets its snapshot, the chunked body's end, the connection's close; slot freed."""
    real_snapshot = stream._snapshot

    def snapshot_during_a_restore(service: Service, *args: object) -> list[bytes]:
        service.hub.close_all()
        return real_snapshot(service, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(stream, "_snapshot", snapshot_during_a_restore)
    with served(tmp_path) as (port, service, _server, counter):
        phone = Phone(port, "games", "127.0.21.1")
        try:
            assert not phone.read_until(b"never sent") and phone.closed
            assert b"event: games\n" in phone.received
            assert phone.received.endswith(b"\r\n0\r\n\r\n")
            assert wait_for(lambda: counter.open == 0 and service.hub.subscriber_count == 0)
        finally:
            phone.close()
