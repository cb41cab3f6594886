"""Server A of the attack part: live streams (the per-address limit, a freed slot, and a
referee and a new phone under a flood of idle streams and slow-header connections)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from .attack_plan import (
    ACTION_TARGET_MS,
    ACTION_TIMEOUT_S,
    CAP_ADDRESS,
    FREED_ADDRESS,
    FREED_WITHIN_S,
    PHONE_ADDRESS,
    PHONE_TIMEOUT_S,
    REFEREE_ADDRESS,
    STREAM_FLOOD_FIRST,
    STREAMS_PER_ADDRESS,
    Attack,
    AttackPlan,
    _ms,
    new_walk_game,
    quantile_ms,
)
from .common import Log, ServeProcess
from .live import walk_body
from .loopback import close_all, http_status, log_in, open_many, status_text, stream_request

__all__ = [  # with the plan's names and measures that the sieges (siege.py) share
    "ACTION_TARGET_MS",
    "ACTION_TIMEOUT_S",
    "STREAM_FLOOD_FIRST",
    "Attack",
    "AttackPlan",
    "_ms",
    "_new_phone",
    "_referee_actions",
    "quantile_ms",
    "run_streams",
]

# --- server A: live streams ------------------------------------------------------------------


def _open_stream(port: int, source: str, topic: str) -> tuple[socket.socket, int]:
    """One live stream from ``source``: its socket (left open) and the answer's status."""
    ((sock, status),) = open_many(
        port, [source], stream_request(port, topic), status=True, timeout=5
    )
    return sock, status


def _stream_cap(port: int, topic: str) -> Attack:
    """One address opens streams one after the other: the first 4 served, the 5th refused."""
    attack = Attack("streams: 5th from one address refused")
    opened = [_open_stream(port, CAP_ADDRESS, topic) for _ in range(STREAMS_PER_ADDRESS + 1)]
    close_all(sock for sock, _ in opened)
    statuses = [status for _, status in opened]
    attack.figures = f"statuses {', '.join(map(str, statuses))}"
    if statuses[:-1] != [200] * STREAMS_PER_ADDRESS:
        attack.problems.append(f"the first {STREAMS_PER_ADDRESS} streams were not all served")
    if statuses[-1] not in (429, 503):
        attack.problems.append(f"stream {STREAMS_PER_ADDRESS + 1} answered {statuses[-1]}")
    return attack


def _stream_freed(port: int, topic: str) -> Attack:
    """4 streams and a refused 5th; one closed by its client; then a new one is served
    within :data:`FREED_WITHIN_S` (tried every 50 ms)."""
    attack = Attack("streams: slot freed on close")
    opened = [_open_stream(port, FREED_ADDRESS, topic) for _ in range(STREAMS_PER_ADDRESS + 1)]
    fifth = opened[-1][1]
    if fifth not in (429, 503):
        attack.problems.append(
            f"stream {STREAMS_PER_ADDRESS + 1} answered {fifth}: no per-address limit, "
            "so no slot to free"
        )
    opened.pop(0)[0].close()
    closed_at = time.monotonic()
    while True:
        opened.append(_open_stream(port, FREED_ADDRESS, topic))
        again = opened[-1][1]
        if again == 200 or time.monotonic() - closed_at >= FREED_WITHIN_S:
            break
        time.sleep(0.05)
    waited_ms = (time.monotonic() - closed_at) * 1000
    close_all(sock for sock, _ in opened)
    attack.figures = f"5th answered {fifth}; after a close, {again} in {waited_ms:.0f} ms"
    if again != 200:
        attack.problems.append(f"no stream served within {FREED_WITHIN_S:g} s of the close")
    return attack


class SlowHeaders(threading.Thread):
    """Keeps ``socks`` (a request line sent, headers unfinished) alive: one header byte
    on each every second. ``dropped`` counts those the server closed."""

    def __init__(self, socks: list[socket.socket]) -> None:
        super().__init__(name="slow-headers", daemon=True)
        self.socks = socks
        self.dropped = 0
        self.stop = threading.Event()

    def run(self) -> None:
        alive = list(self.socks)
        while not self.stop.wait(1.0):
            for sock in list(alive):
                try:
                    sock.send(b"a")
                except BlockingIOError:
                    pass
                except OSError:
                    alive.remove(sock)
                    self.dropped += 1


def _flood(
    port: int, plan: AttackPlan, idle_topic: str, phone_topic: str, log: Log
) -> list[Attack]:
    """Idle streams and slow-header connections; a referee's actions and a new phone."""
    actions, phone = (
        Attack("flood: referee actions p99 < 100 ms"),
        Attack("flood: a new phone's stream"),
    )
    flood_sources = [
        f"127.0.0.{STREAM_FLOOD_FIRST + i % plan.addresses}" for i in range(plan.streams)
    ]
    streams = open_many(
        port, flood_sources, stream_request(port, idle_topic), status=True, timeout=20
    )
    served = sum(status == 200 for _, status in streams)
    refused = sum(status in (429, 503) for _, status in streams)
    slow_sources = [f"127.0.0.{STREAM_FLOOD_FIRST + i % plan.addresses}" for i in range(plan.slow)]
    slow_request = f"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode()
    slow = open_many(port, slow_sources, slow_request, status=False, timeout=10)
    sender = SlowHeaders([sock for sock, status in slow if status == 1])
    sender.start()
    log(
        f"  flood: {served}/{plan.streams} streams served ({refused} refused), "
        f"{len(sender.socks)}/{plan.slow} slow-header connections"
    )
    try:
        time.sleep(1.5)  # every slow connection has sent a byte more and holds what it holds
        latencies = _referee_actions(port, plan, actions)
        answered = sum(ms != float("inf") for ms in latencies)
        p50, p99 = quantile_ms(latencies, 0.5), quantile_ms(latencies, 0.99)
        actions.figures = (
            f"{served}/{plan.streams} streams served, {len(sender.socks) - sender.dropped}/"
            f"{plan.slow} slow headers open; {answered}/{len(latencies)} actions answered, "
            f"p50 {_ms(p50)} ms, p99 {_ms(p99)} ms"
        )
        if not p99 < ACTION_TARGET_MS:
            actions.problems.append(f"p99 {_ms(p99)} ms, not < {ACTION_TARGET_MS:g} ms")
        _new_phone(port, phone_topic, phone)
    finally:
        sender.stop.set()
        sender.join()
        close_all(sock for sock, _ in streams)
        close_all(sock for sock, _ in slow)
    return [actions, phone]


def _referee_actions(
    port: int, plan: AttackPlan, attack: Attack, source: str = REFEREE_ADDRESS
) -> list[float]:
    """A referee at a fresh address (``source``) logs in, then creates games one after the
    other; returns each request's time (ms; ``inf`` when it was not answered 2xx in time)."""
    started = time.monotonic()
    referee, answer = log_in(port, source, timeout=ACTION_TIMEOUT_S)
    latencies = [answer.ms if referee else float("inf")]
    if referee is None:
        attack.problems.append(f"the login: {status_text(answer.status)}")
        return latencies + [float("inf")] * (plan.actions - 1)
    refused: list[int] = []
    for _ in range(plan.actions - 1):
        if time.monotonic() - started > plan.action_budget_s:
            latencies.append(float("inf"))
            continue
        answer = new_walk_game(port, referee, source, ACTION_TIMEOUT_S)
        ok = 200 <= answer.status < 300
        latencies.append(answer.ms if ok else float("inf"))
        if not ok:
            refused.append(answer.status)
    if refused:
        attack.problems.append(
            f"{len(refused)} actions not answered in {ACTION_TIMEOUT_S:g} s "
            f"(statuses {sorted(set(refused))})"
        )
    return latencies


def _new_phone(port: int, topic: str, attack: Attack, source: str = PHONE_ADDRESS) -> None:
    started = time.monotonic()
    with socket.socket() as sock:
        sock.bind((source, 0))
        sock.settimeout(PHONE_TIMEOUT_S)
        received = b""
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(stream_request(port, topic))
            while f"event: {topic}".encode() not in received:
                data = sock.recv(65536)
                if not data:
                    break
                received += data
                if time.monotonic() - started > PHONE_TIMEOUT_S:
                    break
        except OSError:
            pass
    status = http_status(received)
    ms = (time.monotonic() - started) * 1000
    snapshot = f"event: {topic}".encode() in received
    attack.figures = f"status {status if received else 'none'}, snapshot in {ms:.0f} ms"
    if status != 200 or not snapshot:
        attack.figures = f"status {status if received else 'none'} after {ms:.0f} ms, no snapshot"
        attack.problems.append(f"no snapshot within {PHONE_TIMEOUT_S:g} s")


def run_streams(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server A: the per-address limit, a freed slot, then the flood."""
    server = ServeProcess(workdir / "attack-streams", seed=seed)
    server.start()
    try:
        idle = server.api.call("POST", "/api/games", walk_body(2))
        watched = server.api.call("POST", "/api/games", walk_body(3))
        idle_topic = f"game:{idle['view']['id']}"
        attacks = [_stream_cap(server.port, idle_topic), _stream_freed(server.port, idle_topic)]
        attacks += _flood(server.port, plan, idle_topic, f"game:{watched['view']['id']}", log)
    finally:
        server.stop()
    return attacks
