"""Part 4, ``attack``: hostile clients against a real ``diablotin serve`` (issue 10).

Every attack runs against ``diablotin serve`` processes started here (simulated box,
temporary data dir, the default 128 threads) on 127.0.0.1, from loopback source addresses
(a client socket is bound to 127.0.0.2 …, 127.1.x.y before it connects), bounded in count
and time. Each attack ends *held* or *failed* with its figures (docs/reliability.md,
"Attacks", has the list and the bounds):

- **server A, live streams**: a 5th stream from one address is refused; a stream's slot
  is freed when its client closes the socket; under a flood of idle streams (4 per
  address) and slow-header connections a referee's actions answer with p99 < 100 ms and
  a new phone's stream connects;
- **server B, requests**: logout ends the session; hostile requests (deep JSON, huge
  game ids, lone surrogates, nested lists, NaN, huge bodies, wrong Host, cross-site
  Origin) answer 4xx, never 5xx; the server's RSS over thousands of them; a hostile
  title comes back escaped in the game's page; PIN guessing from rotating addresses is
  held to :data:`GUESSES_PER_MINUTE` checked guesses while a logged-in referee plays on;
- **start-up**: ``serve`` with a bad config, a second ``serve`` on B's data dir, and B's
  journal truncated to 0 bytes each refuse to start, with a message and no traceback;
- **server G** (:mod:`.attack_data`, issue 26): data, text and config.
"""

from __future__ import annotations

import http.client
import math
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .attack_data import SERVER_G, run_data
from .common import PIN, Log, ServeProcess, free_port, rss_mb
from .hostile import (
    HOST,
    HOSTILE_GROUPS,
    ORIGIN,
    Hostile,
    Rotation,
    holds,
    hostile_requests,
    send_hostile,
)
from .loopback import (
    CLOSED,
    NO_ANSWER,
    Answer,
    Referee,
    close_all,
    http_status,
    log_in,
    open_many,
    request,
    status_text,
    stream_request,
)
from .siege import SIEGE_ATTACKS, run_cpu, run_fuzz, run_idle

ACTION_TARGET_MS = 100.0
"""A referee's action under the stream flood must answer within this (p99)."""
ACTION_TIMEOUT_S = 1.0
"""An action (or the login) not answered within this counts as not answered."""
PHONE_TIMEOUT_S = 2.0
"""A new phone's stream must bring the game's snapshot within this."""
STREAMS_PER_ADDRESS = 4
"""Live streams one address may hold; the next one is refused (429 or 503)."""
FREED_WITHIN_S = 1.0
"""After a client closes a stream, a new one from its address is served within this."""
GUESSES_PER_MINUTE = 10
"""Wrong PINs the server may check (answer 401) per minute, from all addresses together."""
ATTACK_RSS_GROWTH_MB = 10.0
"""The server's RSS may grow at most this over the hostile-request mix."""
START_TIMEOUT_S = 15.0
"""A ``serve`` that should refuse to start and neither exits nor answers within this fails."""
GIVE_UP_SEED = 152
"""``bench teufel``'s random game from this seed reaches "devil, devil" (give up two
letters) after 70 actions: the Teufel game the hostile ``give_up_letters`` go to."""

STREAM_FLOOD_FIRST = 2
"""Flood addresses are 127.0.0.2, 127.0.0.3, …; fresh ones (referee, phone) 127.0.0.200 …"""
REFEREE_ADDRESS = "127.0.0.200"
PHONE_ADDRESS = "127.0.0.201"
CAP_ADDRESS = "127.0.0.202"
FREED_ADDRESS = "127.0.0.203"
SESSION_ADDRESS = "127.0.0.204"
LOGOUT_ADDRESS = "127.0.0.205"


@dataclass(frozen=True)
class AttackPlan:
    streams: int
    addresses: int
    slow: int
    actions: int
    action_budget_s: float
    """The referee's actions stop after this long (the rest count as not answered)."""
    guess_s: float
    guess_rate: float
    """PIN guesses sent per second (each from a new address)."""
    hostile: int
    """Requests in the memory mix."""
    renames: int = 3000
    """Game renames in a row (the WAL must still be checkpointed)."""
    idle: int = 1024
    """Silent connections held on server D (issue 26), from :attr:`idle_addresses`."""
    idle_addresses: int = 32
    hammers: int = 32
    """Clients asking the most expensive read on server E."""
    fuzz_s: float = 300.0
    """Seconds of schemathesis on server F."""


FULL_ATTACK = AttackPlan(
    streams=300,
    addresses=75,
    slow=200,
    actions=50,
    action_budget_s=20.0,
    guess_s=60.0,
    guess_rate=40.0,
    hostile=10_000,
)
SHORT_ATTACK = AttackPlan(
    streams=300,
    addresses=75,
    slow=200,
    actions=20,
    action_budget_s=4.0,
    guess_s=4.0,
    guess_rate=40.0,
    hostile=2_000,
    renames=250,
    fuzz_s=5.0,
)


@dataclass
class Attack:
    """One attack's outcome: ``figures`` (what was measured), ``problems`` (empty: held)."""

    name: str
    figures: str = ""
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.name not in ATTACKS:
            raise ValueError(f"{self.name!r} is not one of ATTACKS")

    @property
    def held(self) -> bool:
        return not self.problems


ATTACKS = (
    "streams: 5th from one address refused",
    "streams: slot freed on close",
    "flood: referee actions p99 < 100 ms",
    "flood: a new phone's stream",
    "PIN guessing from many addresses",
    "referee session during PIN guessing",
    "logout ends the session",
    *HOSTILE_GROUPS,
    "RSS over the hostile mix",
    "hostile title escaped in its page",
    "config: min_gap_ms = nan",
    "config: duty_window_s = inf",
    "config: duty_window_s = 3600",
    "config: not UTF-8",
    "second serve on the same data dir",
    "journal truncated to 0 bytes",
    *SIEGE_ATTACKS,
    # server G: data, text and config (issue 26, items 6-13; attack_data.py)
    *SERVER_G,
    "config: array nested 500 deep",
    "config: /dev/zero",
    "config: Arabic-Indic referee_pin",
    "replay FIFO --import",
)
"""Every attack, in the order they run and are reported."""
DATA_ATTACKS = ATTACKS[ATTACKS.index("sessions: web-sessions.json unwritable") :]
STREAM_ATTACKS, GUESS_ATTACKS = ATTACKS[:4], ATTACKS[4:6]
REQUEST_ATTACKS = ATTACKS[6 : len(ATTACKS) - len(DATA_ATTACKS)]
"""The attacks on server A (streams), server C (PIN guessing), server B (requests, then
start-up, then the sieges of :mod:`.siege` on servers D, E and F), server G (data, text and
config: :mod:`.attack_data`)."""


# --- HTTP from any loopback address ------------------------------------------------------------


def new_tails_game(port: int, referee: Referee, source: str, timeout: float = 5.0) -> Answer:
    body = {"kind": "tails", "options": {"players": 2}}
    return request(
        port, "POST", "/api/games", body, headers=referee.headers, source=source, timeout=timeout
    )


def quantile_ms(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``; ``inf`` values count (not answered)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _ms(value: float) -> str:
    return f">{ACTION_TIMEOUT_S * 1000:.0f}" if value == float("inf") else f"{value:.1f}"


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
        answer = new_tails_game(port, referee, source, ACTION_TIMEOUT_S)
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
        idle = server.api.call("POST", "/api/games", {"kind": "tails", "options": {"players": 2}})
        watched = server.api.call(
            "POST", "/api/games", {"kind": "tails", "options": {"players": 3}}
        )
        idle_topic = f"game:{idle['view']['id']}"
        attacks = [_stream_cap(server.port, idle_topic), _stream_freed(server.port, idle_topic)]
        attacks += _flood(server.port, plan, idle_topic, f"game:{watched['view']['id']}", log)
    finally:
        server.stop()
    return attacks


# --- server B: requests ------------------------------------------------------------------------


def _logout(port: int) -> Attack:
    attack = Attack("logout ends the session")
    referee, answer = log_in(port, LOGOUT_ADDRESS)
    if referee is None:
        attack.problems.append(f"the login answered {answer.status}")
        return attack
    before = new_tails_game(port, referee, LOGOUT_ADDRESS).status
    out = request(
        port, "DELETE", "/api/session", headers=referee.headers, source=LOGOUT_ADDRESS
    ).status
    after = new_tails_game(port, referee, LOGOUT_ADDRESS).status
    attack.figures = f"a game before the logout {before}, logout {out}, old cookie after {after}"
    if before != 201 or out != 200:
        attack.problems.append("the session did not work before the logout")
    if after not in (401, 403):
        attack.problems.append(f"the old cookie still changes things after the logout ({after})")
    return attack


def _hostile(
    port: int, cases: Sequence[Hostile], referee: Referee, rotation: Rotation
) -> list[Attack]:
    """Each case once; one attack per group: how many held, and each that did not."""
    attacks = {name: Attack(name) for name in dict.fromkeys(c.attack for c in cases)}
    held: dict[str, int] = dict.fromkeys(attacks, 0)
    for case in cases:
        status = send_hostile(port, case, referee, rotation)
        if holds(case, status):
            held[case.attack] += 1
        else:
            attacks[case.attack].problems.append(f"{case.label[:70]} -> {status_text(status)}")
    for name, attack in attacks.items():
        total = sum(case.attack == name for case in cases)
        want = "403" if name in (HOST, ORIGIN) else "4xx"
        attack.figures = f"{held[name]}/{total} answered {want}"
    return list(attacks.values())


def _memory(
    port: int, pid: int, cases: Sequence[Hostile], count: int, referee: Referee, rotation: Rotation
) -> Attack:
    """``count`` requests cycling through the mix (4 at a time); the server's RSS before,
    after each quarter (growth that levels off is a high-water mark, growth that goes on
    a leak) and 0.5 s after the end."""
    attack = Attack("RSS over the hostile mix")
    mix = [case for case in cases if case.mix]
    statuses: dict[int, int] = {}
    quarters: list[float] = []
    lock = threading.Lock()
    silent_run = [0]

    def worker(offset: int) -> None:
        for i in range(offset, count, 4):
            if silent_run[0] >= 20:
                return  # the server stopped answering: do not wait 5 s for each of the rest
            status = send_hostile(port, mix[i % len(mix)], referee, rotation)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                silent_run[0] = silent_run[0] + 1 if status in (NO_ANSWER, CLOSED) else 0
                if sum(statuses.values()) % max(1, count // 4) == 0 and len(quarters) < 3:
                    quarters.append(rss_mb(pid))

    start = rss_mb(pid)
    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - started
    time.sleep(0.5)
    end = rss_mb(pid)
    sent = sum(statuses.values())
    errors = sum(n for status, n in statuses.items() if status >= 500)
    silent = statuses.get(NO_ANSWER, 0) + statuses.get(CLOSED, 0)
    steps = "".join(f" -> {mb:.1f}" for mb in quarters)
    attack.figures = (
        f"{sent} requests in {seconds:.0f} s ({errors} 5xx, {silent} unanswered): "
        f"RSS {start:.1f}{steps} -> {end:.1f} MB by quarters "
        f"(+{end - start:.1f}, limit {ATTACK_RSS_GROWTH_MB:g})"
    )
    if not end - start <= ATTACK_RSS_GROWTH_MB:
        attack.problems.append(f"RSS grew {end - start:.1f} MB")
    if sent < count:
        attack.problems.append(f"the server stopped answering after {sent} requests")
    return attack


HOSTILE_TITLE = '<!--<script>alert("diablotin")</script><!--'


def _hostile_title(port: int, referee: Referee) -> Attack:
    attack = Attack("hostile title escaped in its page")
    body = {"kind": "tails", "options": {"players": 2}, "title": HOSTILE_TITLE}
    answer = request(port, "POST", "/api/games", body, headers=referee.headers)
    if 400 <= answer.status < 500:
        attack.figures = f"title refused ({answer.status}): nothing stored"
        return attack
    if answer.status != 201:
        attack.problems.append(f"creating the game answered {answer.status}")
        return attack
    gid = answer.json()["view"]["id"]
    checked = []
    for path in (f"/games/{gid}", f"/history/{gid}"):
        page = request(port, "GET", path)
        if page.status != 200:
            continue
        checked.append(path)
        html = page.body.decode("utf-8", "replace")
        for script in re.findall(r"<script\b[^>]*>(.*?)</script\s*>", html, re.S | re.I):
            if "<!--" in script or re.search(r"</script", script, re.I):
                attack.problems.append(f"{path}: a <script> holds a raw <!-- or </script")
                break
        if HOSTILE_TITLE in html:
            attack.problems.append(f"{path}: the title is in the page unescaped")
    if not checked:
        attack.problems.append(f"no page of game {gid} answered 200")
    attack.figures = f"stored as game {gid}; checked {', '.join(checked) or 'no page'}"
    return attack


def _pin_guessing(
    port: int, plan: AttackPlan, gid: int, referee: Referee, rotation: Rotation
) -> tuple[Attack, Attack]:
    """Wrong PINs from a new address each, ``guess_rate`` a second for ``guess_s``, half
    by logging in, half in the PIN header; meanwhile ``referee`` (logged in at
    :data:`SESSION_ADDRESS` before any wrong PIN was sent) creates a game every 0.25 s."""
    guessing, session = (
        Attack("PIN guessing from many addresses"),
        Attack("referee session during PIN guessing"),
    )
    rng = random.Random(7)
    statuses: dict[int, int] = {}
    done = threading.Event()

    def guess() -> None:
        started = time.monotonic()
        count = round(plan.guess_s * plan.guess_rate)
        for i in range(count):
            delay = started + i / plan.guess_rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            pin = f"{rng.randrange(100_000):05d}"
            if pin == PIN:
                continue
            source = rotation.next()
            if i % 2:
                status = request(port, "POST", "/api/session", {"pin": pin}, source=source).status
            else:
                headers = {"X-Referee-Pin": pin}
                status = request(
                    port, "GET", f"/api/games/{gid}", headers=headers, source=source
                ).status
            statuses[status] = statuses.get(status, 0) + 1
        done.set()

    guesser = threading.Thread(target=guess, name="pin-guesses")
    started = time.monotonic()
    guesser.start()
    plays: list[float] = []
    failed: list[int] = []
    while not done.wait(0.25):
        answer = new_tails_game(port, referee, SESSION_ADDRESS)
        if answer.status == 201:
            plays.append(answer.ms)
        else:
            failed.append(answer.status)
    guesser.join()
    seconds = time.monotonic() - started
    sent = sum(statuses.values())
    checked, refused = statuses.get(401, 0), statuses.get(429, 0)
    others = {s: n for s, n in statuses.items() if s not in (401, 429)}
    allowed = GUESSES_PER_MINUTE * max(1, round(seconds / 60))
    guessing.figures = (
        f"{sent} wrong PINs from {sent} addresses in {seconds:.0f} s: {checked} checked (401), "
        f"{refused} refused (429)" + (f", others {others}" if others else "")
    )
    if checked > allowed:
        guessing.problems.append(f"{checked} guesses checked, at most {allowed} allowed")
    if any(status >= 500 or status <= 0 for status in others):
        guessing.problems.append(f"answers other than 401/429: {others}")
    session.figures = (
        f"{len(plays)}/{len(plays) + len(failed)} games created with the session, "
        f"p99 {quantile_ms(plays, 0.99):.1f} ms"
    )
    if failed:
        session.problems.append(f"{len(failed)} refused: {sorted(set(failed))}")
    if not plays and not failed:
        session.problems.append("no action was tried")
    return guessing, session


def run_guessing(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server C, fresh (no wrong PIN before): a referee logs in, then the guessing starts."""
    server = ServeProcess(workdir / "attack-pin", seed=seed)
    server.start()
    try:
        game = server.api.call("POST", "/api/games", {"kind": "tails", "options": {"players": 2}})
        referee = _log_in(server.port, SESSION_ADDRESS)
        log(f"  PIN guessing for {plan.guess_s:g} s")
        gid = int(game["view"]["id"])
        return list(_pin_guessing(server.port, plan, gid, referee, Rotation(3)))
    finally:
        server.stop()


def give_up_script() -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """A Teufel game's options and actions that end waiting for "devil, devil: give up two
    letters", and the colour who must (``bench teufel``'s random games from
    :data:`GIVE_UP_SEED` on; the first that gets there within 200 actions)."""
    from ..bench.teufel import random_game
    from ..games.teufel import TeufelRules

    rules = TeufelRules()
    for seed in range(GIVE_UP_SEED, GIVE_UP_SEED + 500):
        game = random_game(seed)
        state = rules.setup(game.options)
        for index, action in enumerate(game.actions[:200]):
            state = rules.apply(state, action)
            if state.pending.kind == "give_up":
                assert state.pending.player is not None
                return (
                    game.options,
                    game.actions[: index + 1],
                    state.players[state.pending.player].colour,
                )
    raise RuntimeError("no random Teufel game reached devil, devil")


def run_requests(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server B: logout, hostile requests, memory, the hostile title; then, while it
    runs, the start-up attacks (a second ``serve`` on its data dir), and after it
    stopped, its journal truncated."""
    server = ServeProcess(workdir / "attack-requests", seed=seed)
    server.start()
    attacks: list[Attack] = []
    try:
        port = server.port
        options, script, who = give_up_script()
        teufel = server.api.call("POST", "/api/games", {"kind": "teufel", "options": options})
        ids = {"tails": 0, "teufel": int(teufel["view"]["id"])}
        for action in script:
            server.api.call("POST", f"/api/games/{ids['teufel']}/actions", action)
        tails = server.api.call("POST", "/api/games", {"kind": "tails", "options": {"players": 2}})
        ids["tails"] = int(tails["view"]["id"])
        referee = _log_in(port, "127.0.0.1")
        attacks.append(_logout(port))
        cases = hostile_requests(port, ids, who, referee)
        log(f"  {len(cases)} hostile requests, then {plan.hostile} in a mix")
        rotation = Rotation(2)
        attacks += _hostile(port, cases, referee, rotation)
        attacks.append(_memory(port, server.pid, cases, plan.hostile, referee, rotation))
        attacks.append(_hostile_title(port, referee))
        attacks += _bad_configs(workdir / "attack-configs", seed)
        attacks.append(_second_serve(server, workdir / "attack-second"))
    finally:
        server.stop()
    attacks.append(_truncated_journal(server))
    return attacks


def _log_in(port: int, source: str) -> Referee:
    """A referee's session from ``source``; ``RuntimeError`` if the login is refused."""
    referee, answer = log_in(port, source)
    if referee is None:
        raise RuntimeError(f"the referee's login from {source} answered {answer.status}")
    return referee


# --- start-up ----------------------------------------------------------------------------------


def serve_config(port: int, data: Path, seed: int, extra: str = "") -> str:
    """The config text :class:`ServeProcess` writes, with ``extra`` appended."""
    return (
        f'[server]\nhost = "127.0.0.1"\nport = {port}\nreferee_pin = "{PIN}"\n'
        f'[data]\ndir = "{data}"\n[box]\nbackend = "simulated"\nseed = {seed}\n{extra}'
    )


def refuses_to_start(name: str, config: Path, port: int, log_path: Path, expect: str) -> Attack:
    """``diablotin --config config serve`` must exit non-zero, without a traceback, with a
    message matching the regular expression ``expect``, and never answer on ``port``."""
    attack = Attack(name)
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "--config", str(config), "serve"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    started = time.monotonic()
    served = False
    while proc.poll() is None and time.monotonic() - started < START_TIMEOUT_S:
        if request(port, "GET", "/api/games", timeout=1).status == 200:
            served = True
            break
        time.sleep(0.05)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    output = log_path.read_text("utf-8", "replace")
    lines = [line for line in output.splitlines() if line.strip()]
    said = lines[-1].strip() if lines else ""
    if served:
        attack.figures = "started and served /api/games"
        attack.problems.append("it started")
        return attack
    attack.figures = f"exit {proc.returncode}: {said[:100]}"
    if proc.returncode in (0, None):
        attack.problems.append(f"exit status {proc.returncode}")
    if "Traceback" in output:
        attack.problems.append("a traceback")
        attack.figures = f"exit {proc.returncode} with a traceback: {said[:80]}"
    if not re.search(expect, output):
        attack.problems.append(f"the message does not match {expect!r}")
    return attack


def _bad_configs(workdir: Path, seed: int) -> list[Attack]:
    """``serve`` with each bad config, all at once (each its own port and data dir)."""
    workdir.mkdir(parents=True, exist_ok=True)
    runs = []
    for name, extra, expect in (
        ("config: min_gap_ms = nan", "[limits]\nmin_gap_ms = nan\n", "min_gap_ms"),
        ("config: duty_window_s = inf", "[limits]\nduty_window_s = inf\n", "duty_window_s"),
        ("config: duty_window_s = 3600", "[limits]\nduty_window_s = 3600\n", "duty_window_s"),
        ("config: not UTF-8", "# caf\udce9\n", "not-utf8.toml"),
    ):
        port = free_port()
        index = ATTACKS.index(name)
        path = workdir / ("not-utf8.toml" if index == 21 else f"config-{index}.toml")
        text = serve_config(port, workdir / f"data-{index}", seed, extra)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))  # \udce9: the byte 0xE9
        runs.append((name, path, port, workdir / f"serve-{index}.log", expect))
    results: dict[str, Attack] = {}

    def run(args: tuple[str, Path, int, Path, str]) -> None:
        results[args[0]] = refuses_to_start(*args)

    threads = [threading.Thread(target=run, args=(args,)) for args in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[name] for name, *_ in runs]


def _second_serve(server: ServeProcess, workdir: Path) -> Attack:
    """A second ``serve`` on the running server's data dir (another port)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = workdir / "second.toml"
    config.write_text(serve_config(port, server.data, 1))
    expect = rf"(?i)lock|in use|already|another|{re.escape(str(server.data))}"
    return refuses_to_start(
        "second serve on the same data dir", config, port, workdir / "serve.log", expect
    )


def _truncated_journal(server: ServeProcess) -> Attack:
    """The stopped server's journal (which holds games) cut to 0 bytes, then ``serve``."""
    server.journal_path.write_bytes(b"")
    log_path = server.workdir / "serve-truncated.log"
    expect = r"(?i)journal|sqlite3|empty|truncat"
    return refuses_to_start(
        "journal truncated to 0 bytes", server.config, server.port, log_path, expect
    )


SERVERS: tuple[tuple[Callable[[AttackPlan, Path, int, Log], list[Attack]], Sequence[str]], ...] = (
    (run_streams, STREAM_ATTACKS),
    (run_guessing, GUESS_ATTACKS),
    (run_requests, REQUEST_ATTACKS[: -len(SIEGE_ATTACKS)]),
    (run_idle, SIEGE_ATTACKS[:2]),
    (run_cpu, SIEGE_ATTACKS[2:3]),
    (run_fuzz, SIEGE_ATTACKS[3:]),
    (run_data, DATA_ATTACKS),
)
"""Each server's run and the attacks it reports, in the order of :data:`ATTACKS`."""


def run_attack(plan: AttackPlan, workdir: Path, seed: int = 1, log: Log = print) -> list[Attack]:
    """Every attack of :data:`ATTACKS`, in order; an attack that could not run fails with
    the reason."""
    attacks: list[Attack] = []
    for part, names in SERVERS:
        try:
            attacks += part(plan, workdir, seed, log)
        except (OSError, http.client.HTTPException, RuntimeError, ValueError) as exc:
            log(f"  {part.__name__} stopped: {type(exc).__name__}: {exc}")
            reason = f"not run: {type(exc).__name__}: {exc}"
            done = {a.name for a in attacks}
            attacks += [Attack(name, problems=[reason]) for name in names if name not in done]
    return attacks
