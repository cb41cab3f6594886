"""``diablotin bench web``: live-update latency with many phones, memory, page weight.

Runs a real service (simulated box, temporary data dir) and the real WSGI server
(waitress, as ``diablotin serve`` sets it up; ``--server cheroot`` to compare) on loopback,
opens ``--clients`` live streams (default 50) in a separate process (one thread,
``selectors``), then submits ``--actions`` referee actions over HTTP (alternately
"dice hidden" and undo, so the game never moves on its own). For each action it
measures, per client, the time from the action being accepted (journaled, handed
to the hub) to that client receiving the event. Both sides use ``time.monotonic``
(one clock for the whole machine on Linux).

Also prints the server process's RSS and the Diable sauteur page's weight: bytes
and requests of the page and everything it loads, and external requests (must be 0).
Exit status 1 if an action was refused, an event was lost, or the page refers elsewhere.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import re
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication
from urllib.parse import urljoin, urlsplit

from controller.games import registry

PIN = "246810"
TARGET_P99_MS = 20.0
TARGET_RSS_MB = 120.0
_VERSION = re.compile(
    rb'^event: game:\d+\n(?:id: \d+\n)?data: \{"id":\d+,"kind":"\w+",'
    rb'"title":"[^"]*","version":(\d+)'
)


# --- the phones (child process) ----------------------------------------------------------


def phone_address(i: int) -> str:
    """Loopback source address of client ``i``: four clients per address (127.3.0.2, …),
    as phones on a Wi-Fi each have their own, within the server's per-phone stream cap."""
    phone = i // 4
    return f"127.3.{phone // 250}.{2 + phone % 250}"


def _clients(port: int, count: int, path: str, pipe: Connection) -> None:
    """Open ``count`` streams; report ready; then record (version, receipt time) per client."""
    sel = selectors.DefaultSelector()
    buffers: dict[socket.socket, bytes] = {}
    seen: dict[int, list[tuple[int, float]]] = {i: [] for i in range(count)}
    socks = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), source_address=(phone_address(i), 0))
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ, i)
        buffers[sock] = b""
        socks.append(sock)
    snapshots = 0
    got_snapshot: set[int] = set()
    stop_at: float | None = None
    while True:
        if pipe.poll():
            message = pipe.recv()
            if message == "stop":
                stop_at = time.monotonic() + 0.5
        if stop_at is not None and time.monotonic() > stop_at:
            break
        for key, _ in sel.select(timeout=0.05):
            now = time.monotonic()
            sock = socks[key.data]
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                sel.unregister(sock)
                continue
            buf = buffers[sock] + data
            *frames, buffers[sock] = buf.split(b"\n\n")
            for frame in frames:
                match = _VERSION.match(frame.split(b"\r\n\r\n", 1)[-1])
                if not match:
                    continue
                client = key.data
                if client not in got_snapshot:
                    got_snapshot.add(client)
                    snapshots += 1
                    if snapshots == count:
                        pipe.send("ready")
                    continue
                seen[client].append((int(match.group(1)), now))
    for sock in socks:
        sock.close()
    pipe.send(seen)


# --- the box (this process) ------------------------------------------------------------


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _post(port: int, path: str, body: dict[str, object] | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    payload = json.dumps(body or {})
    conn.request(
        "POST",
        path,
        body=payload,
        headers={"Content-Type": "application/json", "X-Referee-Pin": PIN},
    )
    status = conn.getresponse().status
    conn.close()
    return status


def _get(url: str, headers: dict[str, str] | None = None) -> bytes:
    """The body of ``url`` as sent on the wire (still gzipped when asked for with
    ``Accept-Encoding``); RuntimeError unless 200."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    conn.request("GET", path, headers=headers or {})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    if resp.status != 200:
        raise RuntimeError(f"GET {url}: {resp.status}")
    return body


_REFS = [
    re.compile(rb'(?:src|href)="([^"#]+)"'),
    re.compile(rb'(?:import|from)\s*"([^"]+)"'),
    re.compile(rb"url\(([^)]+)\)"),
]


class PageWeight(TypedDict):
    """What :func:`page_weight` found: bytes plain and gzipped, requests, external references,
    and each file's bytes."""

    bytes: int
    gzipped: int
    requests: int
    external: list[str]
    files: dict[str, int]


def page_weight(base: str, path: str) -> PageWeight:
    """Bytes and requests of a page and what it loads (scripts, imports, styles, icons,
    manifest), plain and gzipped (what a phone receives); external = references to any
    other host."""
    seen: dict[str, int] = {}
    wire: dict[str, int] = {}  # the same, gzipped as a phone asks for it
    external: list[str] = []
    todo = [urljoin(base, path)]
    host = urlsplit(base).netloc
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        body = _get(url)
        seen[url] = len(body)
        wire[url] = len(_get(url, {"Accept-Encoding": "gzip"}))
        if not url.endswith((".html", ".js", ".css", "/")) and "/games/" not in url:
            continue
        for pattern in _REFS:
            for ref in pattern.findall(body):
                target = urljoin(url, ref.decode().strip("'\""))
                if target.startswith("data:") or "/api/" in target or "/lang/" in target:
                    continue
                if "/theme/" in target or target.rstrip("/") == base.rstrip("/"):
                    continue
                if urlsplit(target).scheme in ("http", "https"):
                    if urlsplit(target).netloc != host:
                        external.append(target)
                    elif target.endswith((".js", ".css", ".svg", ".png", ".webmanifest")):
                        todo.append(target)
    return {
        "bytes": sum(seen.values()),
        "gzipped": sum(wire.values()),
        "requests": len(seen),
        "external": external,
        "files": seen,
    }


class WebResult(TypedDict):
    """What :func:`run` measured (latencies in ms, RSS in MB)."""

    server: str
    clients: int
    actions: int
    accepted: int
    expected_receipts: int
    receipts: int
    latencies_ms: list[float]
    rss_idle_mb: float
    rss_busy_mb: float
    weight: PageWeight


class _Serving(Protocol):
    """waitress (as ``diablotin serve`` runs it) or plain cheroot."""

    def serve(self) -> None: ...

    def stop(self) -> None: ...


def _start_server(app: WSGIApplication, server_name: str, threads: int) -> tuple[_Serving, int]:
    """``server_name`` serving ``app`` on a free loopback port, on its own thread."""
    from .. import server as server_module

    srv: _Serving
    if server_name == "waitress":
        waitress = server_module.make_server(app, "127.0.0.1", 0, 16)
        srv, port = waitress, server_module.bound_port(waitress)
    else:
        from cheroot.wsgi import Server

        cheroot = Server(("127.0.0.1", 0), app, numthreads=threads, timeout=30)
        cheroot.prepare()
        srv, port = cheroot, int(cheroot.bind_addr[1])
    threading.Thread(target=srv.serve, daemon=True).start()
    return srv, port


def run(clients: int, actions: int, server_name: str, interval_s: float) -> WebResult:
    """Serve a Diable sauteur game to ``clients`` live streams, send ``actions`` (one every
    ``interval_s``), and measure; see the module's doc."""
    from controller.config import Config
    from controller.service import Service

    data_dir = Path(tempfile.mkdtemp(prefix="diablotin-bench-"))
    config = Config(data_dir=data_dir)
    config.server.referee_pin = PIN
    service = Service(config, hide_delay_s=3600.0, think_s=3600.0, face_delay_s=3600.0)
    service.start()
    published: dict[int, float] = {}
    original = service.hub.publish

    def publish(topic: str, data: object) -> int:
        if topic == f"game:{game_id}":  # data is built later, on the hub's thread
            published[service.table(game_id).version] = time.monotonic()
        return original(topic, data)

    game_id = service.new_game(registry.on_box().name, {"rule": "A"})  # the box's game
    # why the ignore below: the bench times a stand-in publish
    service.hub.publish = publish  # type: ignore[method-assign]
    from controller.web import create_app

    srv, port = _start_server(
        create_app(service, max_streams=clients + 8), server_name, clients + 16
    )
    rss_idle = _rss_mb()
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(
        target=_clients, args=(port, clients, f"/stream?topics=game:{game_id}", theirs)
    )
    child.start()
    if not ours.poll(30) or ours.recv() != "ready":
        raise RuntimeError("the streams did not all open")
    statuses = _act(port, game_id, actions, interval_s)
    rss_busy = _rss_mb()
    ours.send("stop")
    seen: dict[int, list[tuple[int, float]]] = ours.recv()
    child.join(10)
    weight = page_weight(f"http://127.0.0.1:{port}/", f"/games/{game_id}")
    service.hub.close_all()  # end the streams before the server closes its threads
    time.sleep(0.2)
    srv.stop()
    service.stop()
    latencies = [
        (at - published[version]) * 1000
        for per_client in seen.values()
        for version, at in per_client
        if version in published
    ]
    return {
        "server": server_name,
        "clients": clients,
        "actions": actions,
        "accepted": statuses.count(200),
        "expected_receipts": clients * actions,
        "receipts": sum(len(v) for v in seen.values()),
        "latencies_ms": latencies,
        "rss_idle_mb": rss_idle,
        "rss_busy_mb": rss_busy,
        "weight": weight,
    }


def _act(port: int, game_id: int, actions: int, interval_s: float) -> list[int]:
    """The referee's ``actions``: "dice hidden" and undo in turn; their HTTP statuses."""
    statuses = []
    for i in range(actions):
        if i % 2 == 0:
            statuses.append(_post(port, f"/api/games/{game_id}/actions", {"type": "hidden"}))
        else:
            statuses.append(_post(port, f"/api/games/{game_id}/undo"))
        time.sleep(interval_s)
    return statuses


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return (
        statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]
        if q < 100
        else max(values)
    )


def report(result: WebResult) -> str:
    lat = result["latencies_ms"]
    weight = result["weight"]
    page = registry.on_box().name  # the page measured: the box's game's
    p50, p99 = _quantile(lat, 50), _quantile(lat, 99)
    rows = [
        ("server", result["server"], ""),
        ("live clients (SSE, loopback)", result["clients"], ""),
        ("actions accepted (HTTP 200)", f"{result['accepted']}/{result['actions']}", "all"),
        ("events received", f"{result['receipts']}/{result['expected_receipts']}", "all"),
        ("accepted -> receipt p50 (ms)", f"{p50:.2f}", ""),
        ("accepted -> receipt p99 (ms)", f"{p99:.2f}", f"< {TARGET_P99_MS:g}"),
        ("accepted -> receipt max (ms)", f"{max(lat) if lat else float('nan'):.2f}", ""),
        ("server RSS idle (MB)", f"{result['rss_idle_mb']:.1f}", ""),
        ("server RSS with clients (MB)", f"{result['rss_busy_mb']:.1f}", f"< {TARGET_RSS_MB:g}"),
        (f"{page} page weight (bytes)", weight["bytes"], ""),
        (f"{page} page weight gzipped (bytes)", weight["gzipped"], ""),
        (f"{page} page requests", weight["requests"], ""),
        ("external requests", len(weight["external"]), "0"),
    ]
    width = max(len(r[0]) for r in rows)
    lines = [f"{'measure':<{width}}  {'value':>12}  target", "-" * (width + 24)]
    lines += [f"{name:<{width}}  {value!s:>12}  {target}" for name, value, target in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench web", description=__doc__)
    parser.add_argument("--clients", type=int, default=50, help="live clients (SSE)")
    parser.add_argument("--actions", type=int, default=200, help="referee actions sent")
    parser.add_argument("--interval", type=float, default=0.03, help="seconds between actions")
    parser.add_argument(
        "--server",
        choices=["waitress", "cheroot"],
        default="waitress",
        help="waitress as diablotin serve runs it, or plain cheroot (for comparison)",
    )
    args = parser.parse_args(argv)
    if args.clients < 1 or args.actions < 2:
        parser.error("--clients >= 1 and --actions >= 2")
    result = run(args.clients, args.actions, args.server, args.interval)
    print(report(result))
    if result["weight"]["external"]:
        print("external references:", *result["weight"]["external"], sep="\n  ")
    ok = (
        result["receipts"] == result["expected_receipts"]
        and result["accepted"] == result["actions"]
        and not result["weight"]["external"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
