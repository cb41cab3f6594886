"""``diablotin bench attack_load``: can spectators stop the referee? Numbers under attack.

Two scenarios against a dashboard at ``base_url`` (loopback), importable so the
reliability suite's attack part can reuse them:

- :func:`stream_flood`: live streams from many loopback addresses (each client socket
  bound to its own source address, 127.0.0.2 …) plus connections that send their
  headers a byte a second (reconnecting when the server drops them); meanwhile the
  referee submits actions from a fresh address (latency p50/p99/max) and a new phone
  opens a stream from another fresh address.
- :func:`rss_growth`: the server process's RSS before and after N hostile requests
  (oversized, malformed, deeply nested bodies, huge ids, foreign Host headers).

``main`` runs both against a real service + server in this process (temp data dir).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.games import registry

TARGET_REFEREE_P99_MS = 100.0
TARGET_RSS_GROWTH_MB = 10.0


def _host_port(base_url: str) -> tuple[str, int]:
    parts = urlsplit(base_url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def open_stream(
    base_url: str, source: str = "127.0.0.1", topics: str = "games", timeout: float = 5.0
) -> tuple[int, socket.socket]:
    """Open ``GET /stream?topics=…`` from ``source``; returns (HTTP status, the socket, left
    open: the caller closes it). Status 0 if the server closed without answering."""
    host, port = _host_port(base_url)
    sock = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0))
    sock.sendall(f"GET /stream?topics={topics} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    head = b""
    try:
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return 0, sock
            head += chunk
    except OSError:
        return 0, sock
    parts = head.split(b" ", 2)
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0), sock


def slow_header_sockets(
    base_url: str, count: int, sources: list[str] | None = None
) -> list[socket.socket]:
    """``count`` connections (from ``sources[i]``, default 127.0.0.1) that have sent only
    the start of a request. Connections the server refuses at once are left out."""
    host, port = _host_port(base_url)
    out = []
    for i in range(count):
        source = sources[i % len(sources)] if sources else "127.0.0.1"
        try:
            sock = socket.create_connection((host, port), timeout=5, source_address=(source, 0))
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHo")
        except OSError:
            continue
        out.append(sock)
    return out


class _Trickle:
    """Keeps ``count`` slow-header connections open: a byte a second each, reconnecting
    those the server drops (what a patient attacker does)."""

    def __init__(self, base_url: str, count: int, sources: list[str]) -> None:
        self.base_url, self.count, self.sources = base_url, count, sources
        self.socks = slow_header_sockets(base_url, count, sources)
        self.dropped = 0
        self.open_counts: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            alive = []
            for sock in self.socks:
                try:
                    sock.send(b"s")
                    alive.append(sock)
                except OSError:
                    sock.close()
                    self.dropped += 1
            missing = self.count - len(alive)
            if missing > 0:
                alive += slow_header_sockets(self.base_url, missing, self.sources)
            self.socks = alive
            self.open_counts.append(len(alive))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.socks:
            sock.close()


def _referee(
    base_url: str, source: str, pin: str, method: str, path: str, body: Any = None
) -> tuple[int, float]:
    """One referee request on a fresh connection; (status, milliseconds)."""
    host, port = _host_port(base_url)
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=30, source_address=(source, 0))
    try:
        conn.request(
            method,
            path,
            body=json.dumps(body if body is not None else {}),
            headers={"Content-Type": "application/json", "X-Referee-Pin": pin},
        )
        resp = conn.getresponse()
        resp.read()
        status = resp.status
    except OSError:
        status = 0
    finally:
        conn.close()
    return status, (time.monotonic() - started) * 1000


def _quantile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def stream_flood(
    base_url: str,
    *,
    pin: str,
    game_id: int | None = None,
    streams: int = 300,
    addresses: int = 75,
    slow: int = 200,
    actions: int = 100,
    hold_s: float = 15.0,
) -> dict[str, Any]:
    """Open ``streams`` live streams spread over ``addresses`` loopback addresses
    (127.0.0.2 …) and keep ``slow`` slow-header connections open (from 127.0.1.x, four
    per address) for ``hold_s`` seconds (past the server's header deadline, so dropped
    ones have been reopened), then time ``actions`` referee actions (dice hidden / undo,
    alternately) from a fresh address (127.0.2.1) and open a new phone's stream from another
    (127.0.2.2). Returns the figures (counts, latencies in ms, the new phone's status)."""
    opened: list[socket.socket] = []
    refused = 0
    sources = [f"127.0.0.{2 + i % addresses}" for i in range(streams)]
    trickle = None
    try:
        for source in sources:
            status, sock = open_stream(base_url, source)
            if status == 200:
                opened.append(sock)
            else:
                refused += 1
                sock.close()
        slow_sources = [f"127.0.1.{1 + i // 4}" for i in range(slow)]
        trickle = _Trickle(base_url, slow, slow_sources)
        slow_open = len(trickle.socks)
        time.sleep(hold_s)
        if game_id is None:
            new = {"kind": registry.on_box().name}  # the box's game, its defaults
            status, _ = _referee(base_url, "127.0.2.1", pin, "POST", "/api/games", new)
            game_id = 1 if status == 201 else 0
        latencies, ok = [], 0
        for i in range(actions):
            if i % 2 == 0:
                path, body = f"/api/games/{game_id}/actions", {"type": "hidden"}
            else:
                path, body = f"/api/games/{game_id}/undo", None
            status, ms = _referee(base_url, "127.0.2.1", pin, "POST", path, body)
            ok += status == 200
            latencies.append(ms)
        started = time.monotonic()
        new_status, new_sock = open_stream(base_url, "127.0.2.2", timeout=30)
        new_ms = (time.monotonic() - started) * 1000
        new_sock.close()
        slow_during = trickle.open_counts[-1] if trickle.open_counts else slow_open
        return {
            "streams_wanted": streams,
            "streams_open": len(opened),
            "streams_refused": refused,
            "addresses": addresses,
            "slow_wanted": slow,
            "slow_open": slow_open,
            "slow_open_at_end": slow_during,
            "slow_dropped_by_server": trickle.dropped,
            "actions": actions,
            "actions_ok": ok,
            "referee_p50_ms": _quantile(latencies, 50),
            "referee_p99_ms": _quantile(latencies, 99),
            "referee_max_ms": max(latencies, default=float("nan")),
            "new_phone_status": new_status,
            "new_phone_ms": new_ms,
        }
    finally:
        if trickle is not None:
            trickle.close()
        for sock in opened:
            sock.close()


def rss_mb(pid: int | None = None) -> float:
    """Resident set size of process ``pid`` (default: this one) in MB, from /proc."""
    status = Path(f"/proc/{pid or os.getpid()}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise OSError("no VmRSS in /proc status")


def hostile_requests(pin: str = "246810") -> list[tuple[str, str, dict[str, str], bytes]]:
    """(method, path, headers, body) of the hostile kinds, cycled by :func:`rss_growth`;
    the largest bodies carry the referee ``pin`` (so they pass the gate)."""
    js = {"Content-Type": "application/json"}
    pin_js = {**js, "X-Referee-Pin": pin}
    deep = b"[" * 50_000 + b"]" * 50_000
    return [
        ("POST", "/api/session", js, deep),
        ("POST", "/api/session", js, b'{"pin": "' + b"9" * 900_000 + b'"}'),
        ("POST", "/api/import", js, b"{" * 2_000_000),  # over the size limit
        ("POST", "/api/games", js, b'{"kind": "sauteur", "title": "\\ud800"}'),
        ("GET", "/api/games/9223372036854775808", {}, b""),
        ("POST", "/api/games/1/actions", {**js, "Host": "evil.example"}, b"{}"),
        ("POST", "/api/session", js, b"\xff\xfe" * 1000),
        ("GET", "/stream?topics=" + "x" * 4000, {}, b""),
        ("POST", "/api/session", {"Content-Type": "text/plain"}, b"x" * 500_000),
        ("GET", "/api/games/1/steps/" + "9" * 400, {}, b""),
        ("POST", "/api/games", pin_js, b'{"kind": "tails", "title": "' + b"x" * 900_000 + b'"}'),
        (
            "POST",
            "/api/games/1/actions",
            pin_js,
            b'{"type": "x", "n": [' + b"0," * 300_000 + b"0]}",
        ),
        ("POST", "/api/import", pin_js, b'{"format": "x", "n": [' + b"0," * 400_000 + b"0]}"),
    ]


def rss_growth(
    base_url: str, pid: int | None = None, requests: int = 10_000, pin: str = "246810"
) -> dict[str, Any]:
    """RSS of process ``pid`` before and after ``requests`` hostile requests, four at a
    time (after a warm-up of three rounds of each kind). Returns MB figures and the
    statuses seen (no 5xx wanted)."""
    host, port = _host_port(base_url)
    kinds = hostile_requests(pin)
    statuses: dict[int, int] = {}
    lock = threading.Lock()

    def send(i: int) -> None:
        method, path, headers, body = kinds[i % len(kinds)]
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            conn.request(method, path, body=body or None, headers=headers)
            resp = conn.getresponse()
            resp.read()
            status = resp.status
        except OSError:
            status = 0  # the server closed (e.g. a body too large)
        finally:
            conn.close()
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    def run(count: int) -> None:
        def every_fourth(first: int) -> None:
            for i in range(first, count, 4):
                send(i)

        workers = [threading.Thread(target=every_fourth, args=(k,)) for k in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    run(len(kinds) * 3)
    before = rss_mb(pid)
    run(requests)
    time.sleep(0.5)
    after = rss_mb(pid)
    return {
        "requests": requests,
        "rss_before_mb": before,
        "rss_after_mb": after,
        "rss_growth_mb": after - before,
        "statuses": dict(sorted(statuses.items())),
    }


class _Cheroot:
    """Plain cheroot with as many threads as waitress's two pools together (comparison)."""

    def __init__(self, app: Any, threads: int) -> None:
        from cheroot.wsgi import Server

        self.server = Server(("127.0.0.1", 0), app, numthreads=threads, timeout=30)
        self.server.prepare()
        self.port = int(self.server.bind_addr[1])

    def serve(self) -> None:
        self.server.serve()

    def stop(self) -> None:
        self.server.stop()


def _serve(threads: int, server_name: str = "waitress") -> tuple[str, Any, Any, threading.Thread]:
    from controller.config import Config
    from controller.server import bound_port, make_server
    from controller.service import Service
    from controller.web import create_app

    config = Config(data_dir=Path(tempfile.mkdtemp(prefix="diablotin-attack-")))
    config.server.referee_pin = "246810"
    config.server.threads = threads
    service = Service(config, hide_delay_s=3600.0, think_s=3600.0, face_delay_s=3600.0)
    service.start()
    app = create_app(service)
    if server_name == "cheroot":
        server: Any = _Cheroot(app, threads + config.server.max_streams + 8)
    else:
        server = make_server(app, "127.0.0.1", 0, threads)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{bound_port(server)}", service, server, thread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench attack_load", description=__doc__)
    parser.add_argument("--streams", type=int, default=300, help="idle live streams held")
    parser.add_argument("--addresses", type=int, default=75, help="loopback source addresses")
    parser.add_argument("--slow", type=int, default=200, help="slow-header connections")
    parser.add_argument("--actions", type=int, default=200, help="referee actions timed")
    parser.add_argument("--hostile", type=int, default=10_000, help="requests for the RSS part")
    parser.add_argument(
        "--server",
        choices=["waitress", "cheroot"],
        default="waitress",
        help="waitress as diablotin serve runs it, or plain cheroot with as many threads",
    )
    args = parser.parse_args(argv)
    from controller.server import limit_malloc_arenas

    limit_malloc_arenas()  # as `diablotin serve` does, before any thread starts
    base, service, server, thread = _serve(service_threads := 16, args.server)
    try:
        kind = registry.on_box()  # the box's game, long enough for the flood
        game_id = service.new_game(kind.name, dict(kind.long_game or {}))
        flood = stream_flood(
            base,
            pin=service.referee_pin,
            game_id=game_id,
            streams=args.streams,
            addresses=args.addresses,
            slow=args.slow,
            actions=args.actions,
        )
        service.hub.close_all()
        time.sleep(0.5)
        memory = rss_growth(base, requests=args.hostile, pin=service.referee_pin)
    finally:
        service.hub.close_all()
        server.stop()
        thread.join(10)
        service.stop()
    rows = [
        ("server", args.server, ""),
        ("API worker threads", service_threads, ""),
        ("live streams open / wanted", f"{flood['streams_open']}/{flood['streams_wanted']}", ""),
        ("  from loopback addresses", flood["addresses"], ""),
        ("slow-header connections open", f"{flood['slow_open']}/{flood['slow_wanted']}", ""),
        ("  open when measured", flood["slow_open_at_end"], ""),
        ("  dropped by the server (deadline)", flood["slow_dropped_by_server"], ""),
        ("referee actions answered 200", f"{flood['actions_ok']}/{flood['actions']}", "all"),
        ("referee action p50 (ms)", f"{flood['referee_p50_ms']:.1f}", ""),
        (
            "referee action p99 (ms)",
            f"{flood['referee_p99_ms']:.1f}",
            f"< {TARGET_REFEREE_P99_MS:g}",
        ),
        ("referee action max (ms)", f"{flood['referee_max_ms']:.1f}", ""),
        ("new phone's stream (status)", flood["new_phone_status"], "200"),
        ("new phone's stream (ms)", f"{flood['new_phone_ms']:.1f}", ""),
        ("hostile requests", memory["requests"], ""),
        ("RSS before (MB)", f"{memory['rss_before_mb']:.1f}", ""),
        ("RSS after (MB)", f"{memory['rss_after_mb']:.1f}", ""),
        ("RSS growth (MB)", f"{memory['rss_growth_mb']:.1f}", f"<= {TARGET_RSS_GROWTH_MB:g}"),
        ("statuses", json.dumps(memory["statuses"]), "no 5xx"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>12}  target")
    print("-" * (width + 24))
    for name, value, target in rows:
        print(f"{name:<{width}}  {value!s:>12}  {target}")
    ok = (
        flood["actions_ok"] == flood["actions"]
        and flood["referee_p99_ms"] < TARGET_REFEREE_P99_MS
        and flood["new_phone_status"] == 200
        and memory["rss_growth_mb"] <= TARGET_RSS_GROWTH_MB
        and not any(status >= 500 for status in memory["statuses"])
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
