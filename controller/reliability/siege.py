"""The attacks of issue 26 on the server, each on its own ``diablotin serve``:

- **server D, idle connections**: 1,024 connections that send nothing, 32 from each of 32
  addresses (127.0.1.1–32, each within its cap), reopened as fast as the server closes
  them, plus 300 idle live streams (4 from each of 75 addresses); a referee from a fresh
  address logs in and creates games (p99 < 100 ms) and a new phone gets its stream;
- **server E, CPU**: 32 clients, one per address (127.0.6.1–32), ask the tail-tile
  advisor's most expensive read (``odds?kind=E&lookahead=end``, 0.5 s of Monte Carlo)
  of the game the referee plays, again and again; the referee's actions must answer
  with p99 < 200 ms;
- **server F, schemathesis** on the served OpenAPI document with the PIN (for
  :attr:`AttackPlan.fuzz_s`): no 5xx, no schema violation. Left out: the system commands
  (restart, poweroff, the clock: they would run on this machine) and ``/api/session``
  (wrong PINs there would pause PIN checks for everyone: the rest would go untested).

The functions import :mod:`.attack` when run (it lists these attacks in ``ATTACKS``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import random
import selectors
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..games import registry
from .attack_plan import CPU_ACTIONS, FUZZ, IDLE_ACTIONS, IDLE_PHONE
from .common import PIN, Log, ServeProcess
from .live import walk_body
from .loopback import Referee, close_all, log_in, open_many, request, stream_request

if TYPE_CHECKING:
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Event

    from .attack_plan import Attack, AttackPlan


IDLE_FIRST = "127.0.1."
"""Idle connections come from 127.0.1.1, 127.0.1.2, …"""
HAMMER_FIRST = "127.0.6."
"""The CPU attack's clients: 127.0.6.1, …"""
IDLE_REFEREE = "127.0.0.206"
IDLE_NEW_PHONE = "127.0.0.207"
CPU_REFEREE = "127.0.0.208"
CPU_TARGET_MS = 200.0
"""The referee's actions under the CPU attack must answer within this (p99)."""
EXPENSIVE_READ = "/api/games/{gid}/odds?kind=E&lookahead=end"


class IdleFlood(threading.Thread):
    """Holds ``count`` silent connections from ``sources`` (in turn): every 0.2 s those
    the server closed are opened again. ``first_opened`` counts the connections the first
    round made (-1 until it is done; the server may shed some at once, by design: they are
    no failure to open), ``reopened`` those opened again since."""

    def __init__(self, port: int, sources: list[str], count: int) -> None:
        super().__init__(name="idle-flood", daemon=True)
        self.port, self.sources, self.count = port, sources, count
        self.first_opened = -1  # until the first round is done
        self.reopened = 0
        self.stop = threading.Event()
        self.socks: list[socket.socket] = []

    def open(self, sources: list[str]) -> list[socket.socket]:
        opened = open_many(self.port, sources, b"", status=False, timeout=10)
        return [sock for sock, status in opened if status == 1]

    def run(self) -> None:
        wanted = [self.sources[i % len(self.sources)] for i in range(self.count)]
        self.socks = self.open(wanted)
        self.first_opened = len(self.socks)
        sel = selectors.DefaultSelector()
        for sock in self.socks:
            sel.register(sock, selectors.EVENT_READ)
        while not self.stop.wait(0.2):
            sources = []
            for key, _ in sel.select(0):  # readable: closed by the server (it sends nothing)
                gone = key.fileobj
                assert isinstance(gone, socket.socket)
                sel.unregister(gone)
                sources.append(gone.getsockname()[0])
                gone.close()
                self.socks.remove(gone)
            for new in self.open(sources) if sources else []:
                sel.register(new, selectors.EVENT_READ)
                self.socks.append(new)
                self.reopened += 1
        sel.close()
        close_all(self.socks)


def _flood_process(
    port: int, sources: list[str], count: int, stop: Event, out: Queue[tuple[int, int, int]]
) -> None:
    """An :class:`IdleFlood` in a process of its own (the referee's client keeps this
    one's interpreter); puts ``(open, reopened, first_opened)`` in ``out`` every 0.5 s
    and at the end."""
    flood = IdleFlood(port, sources, count)
    flood.start()
    while not stop.wait(0.5):
        out.put((len(flood.socks), flood.reopened, flood.first_opened))
    flood.stop.set()
    flood.join(10)
    out.put((len(flood.socks), flood.reopened, flood.first_opened))


def _hammer_process(
    port: int, sources: list[str], path: str, stop: Event, out: Queue[dict[int, int]]
) -> None:
    """A :class:`Hammer` per source, in a process of their own; puts the answers' count
    by status in ``out`` once stopped."""
    hammers = [Hammer(port, source, path) for source in sources]
    for hammer in hammers:
        hammer.start()
    stop.wait()
    for hammer in hammers:
        hammer.stop.set()
    statuses: dict[int, int] = {}
    for hammer in hammers:
        hammer.join(15)
        for status, n in hammer.statuses.items():
            statuses[status] = statuses.get(status, 0) + n
    out.put(statuses)


class Helper:
    """``target(*args, stop, out)`` in a spawned process (the attack's clients must not
    share the measuring client's interpreter): :meth:`latest` reads what it put in
    ``out`` so far, :meth:`stop` ends it and returns the last."""

    def __init__(self, target: Callable[..., None], *args: object) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop_event = context.Event()
        self.out: Any = context.Queue()
        self.process = context.Process(target=target, args=(*args, self.stop_event, self.out))
        self.process.start()
        self.last: Any = None

    def latest(self, wait_s: float = 0.0) -> Any:
        """The last value put so far (waiting up to ``wait_s`` for a first one)."""
        with contextlib.suppress(queue.Empty):
            self.last = self.out.get(timeout=wait_s) if wait_s else self.out.get_nowait()
            while True:
                self.last = self.out.get_nowait()
        return self.last

    def stop(self) -> Any:
        self.stop_event.set()
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        return self.latest()


def run_idle(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server D: the idle connections and streams; the referee's actions; a new phone."""
    from . import attack_streams as atk

    actions, phone = atk.Attack(IDLE_ACTIONS), atk.Attack(IDLE_PHONE)
    server = ServeProcess(workdir / "attack-idle", seed=seed)
    server.start()
    flood: Helper | None = None
    streams: list[tuple[socket.socket, int]] = []
    try:
        body = walk_body(2)
        idle_topic = f"game:{server.api.call('POST', '/api/games', body)['view']['id']}"
        watched = f"game:{server.api.call('POST', '/api/games', body)['view']['id']}"
        sources = [
            f"127.0.0.{atk.STREAM_FLOOD_FIRST + i % plan.addresses}" for i in range(plan.streams)
        ]
        streams = open_many(
            server.port, sources, stream_request(server.port, idle_topic), status=True, timeout=20
        )
        served = sum(status == 200 for _, status in streams)
        idle_sources = [f"{IDLE_FIRST}{1 + i}" for i in range(plan.idle_addresses)]
        flood = Helper(_flood_process, server.port, idle_sources, plan.idle)
        deadline = time.monotonic() + 30
        while (flood.latest(wait_s=1) or (0, 0, -1))[2] < 0 and time.monotonic() < deadline:
            pass  # the first round of connections is still being made
        time.sleep(2.0)  # the flood is open, and has been reopening what the server closed
        opened, reopened, first_open = flood.latest() or (0, 0, 0)
        log(
            f"  idle: {served}/{plan.streams} streams served, {opened}/{plan.idle} "
            f"silent connections open, {reopened} reopened"
        )
        latencies = atk._referee_actions(server.port, plan, actions, IDLE_REFEREE)
        opened, reopened, _ = flood.latest() or (0, 0, 0)
        answered = sum(ms != float("inf") for ms in latencies)
        p50, p99 = atk.quantile_ms(latencies, 0.5), atk.quantile_ms(latencies, 0.99)
        actions.figures = (
            f"{served}/{plan.streams} streams, {plan.idle} silent connections from "
            f"{plan.idle_addresses} addresses ({reopened} reopened); "
            f"{answered}/{len(latencies)} actions answered, p50 {atk._ms(p50)} ms, "
            f"p99 {atk._ms(p99)} ms"
        )
        if not p99 < atk.ACTION_TARGET_MS:
            actions.problems.append(f"p99 {atk._ms(p99)} ms, not < {atk.ACTION_TARGET_MS:g} ms")
        if first_open < plan.idle:
            actions.problems.append(f"only {first_open}/{plan.idle} silent connections opened")
        atk._new_phone(server.port, watched, phone, IDLE_NEW_PHONE)
    finally:
        if flood is not None:
            flood.stop()
        close_all(sock for sock, _ in streams)
        server.stop()
    return [actions, phone]


class Hammer(threading.Thread):
    """Asks ``path`` from ``source`` again and again (a new connection each) until
    stopped; counts the answers by status."""

    def __init__(self, port: int, source: str, path: str) -> None:
        super().__init__(name=f"hammer-{source}", daemon=True)
        self.port, self.source, self.path = port, source, path
        self.statuses: dict[int, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            status = request(self.port, "GET", self.path, source=self.source, timeout=10).status
            self.statuses[status] = self.statuses.get(status, 0) + 1


def run_cpu(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server E: :attr:`AttackPlan.hammers` clients on the advisor while the referee plays
    a seeded tail-tile game (its actions make every cached answer old)."""
    from . import attack_streams as atk
    from .crash import scenario

    attack = atk.Attack(CPU_ACTIONS)
    server = ServeProcess(workdir / "attack-cpu", seed=seed)
    server.start()
    hammers: Helper | None = None
    try:
        kind = registry.walked().name
        options, script = scenario(kind, random.Random(seed))
        referee, answer = log_in(server.port, CPU_REFEREE)
        if referee is None:
            raise RuntimeError(f"the referee's login answered {answer.status}")
        created = request(
            server.port,
            "POST",
            "/api/games",
            {"kind": kind, "options": options},
            headers=referee.headers,
            source=CPU_REFEREE,
        )
        gid = int(created.json()["view"]["id"])
        path = EXPENSIVE_READ.format(gid=gid)
        sources = [f"{HAMMER_FIRST}{1 + i}" for i in range(plan.hammers)]
        hammers = Helper(_hammer_process, server.port, sources, path)
        time.sleep(3.0)  # the process started, and its clients are at work
        log(f"  cpu: {plan.hammers} clients on {path}")
        latencies = _play(server.port, gid, referee, script, plan)
        statuses: dict[int, int] = hammers.stop() or {}
        hammers = None
        answered = sum(ms != float("inf") for ms in latencies)
        p50, p99 = atk.quantile_ms(latencies, 0.5), atk.quantile_ms(latencies, 0.99)
        shown = ", ".join(f"{n} × {s}" for s, n in sorted(statuses.items()))
        attack.figures = (
            f"{plan.hammers} clients, their answers {shown}; {answered}/{len(latencies)} "
            f"actions answered, p50 {atk._ms(p50)} ms, p99 {atk._ms(p99)} ms"
        )
        if not p99 < CPU_TARGET_MS:
            attack.problems.append(f"p99 {atk._ms(p99)} ms, not < {CPU_TARGET_MS:g} ms")
        if sum(statuses.values()) < plan.hammers:
            attack.problems.append(f"the clients' requests were not made ({shown or 'none'})")
        if any(status >= 500 and status != 503 for status in statuses):
            attack.problems.append(f"the advisor answered {shown}")
    finally:
        if hammers is not None:
            hammers.stop()
        server.stop()
    return [attack]


def _play(
    port: int, gid: int, referee: Referee, script: list[Any], plan: AttackPlan
) -> list[float]:
    """The referee's scripted actions (an undo for ``None``), one every 0.1 s at most:
    each one's time in ms (``inf``: not answered 200 within 1 s)."""
    from . import attack_streams as atk

    latencies = []
    started = time.monotonic()
    for op in script[: plan.actions]:
        if time.monotonic() - started > plan.action_budget_s:
            latencies.append(float("inf"))
            continue
        path = f"/api/games/{gid}/" + ("undo" if op is None else "actions")
        answer = request(
            port,
            "POST",
            path,
            {} if op is None else op,
            headers=referee.headers,
            source=CPU_REFEREE,
            timeout=atk.ACTION_TIMEOUT_S,
        )
        latencies.append(answer.ms if answer.status == 200 else float("inf"))
        time.sleep(0.1)
    return latencies


def run_fuzz(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server F: schemathesis for :attr:`AttackPlan.fuzz_s` (see the module doc)."""
    from . import attack_streams as atk
    from .fuzz import SYSTEM_OPERATIONS, run_schemathesis

    attack = atk.Attack(FUZZ)
    server = ServeProcess(workdir / "attack-fuzz", seed=seed)
    server.start()
    try:
        log(f"  schemathesis for {plan.fuzz_s:g} s")
        run = run_schemathesis(
            f"http://127.0.0.1:{server.port}",
            PIN,
            plan.fuzz_s,
            seed=seed,
            exclude_paths=(*SYSTEM_OPERATIONS, "/api/session"),
            report_dir=workdir / "attack-fuzz" / "report",
        )
    except ModuleNotFoundError as exc:
        attack.figures = "schemathesis is not installed"
        attack.problems.append(f"not run: {exc} (pip install 'diablotin[dev]')")
        return [attack]
    finally:
        server.stop()
    attack.figures = f"{run.cases} cases, {run.failures} failures (exit {run.returncode})"
    if not run.ok:  # each failure with its operation and request (the report dir is temporary)
        attack.problems.append(" | ".join(run.failed[:4]) or run.output[-300:])
    return [attack]
