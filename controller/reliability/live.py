"""Part 2, ``live``: live clients under load (see the package doc)."""

from __future__ import annotations

import contextlib
import http.client
import multiprocessing
import random
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from ..config import Config
from ..games import registry
from ..service import rules_for
from .common import Api, HttpError, Log, Op, ServeProcess, answer_version, rss_mb, send_op

RSS_GROWTH_LIMIT_MB = 16.0
"""The live part fails when the server's RSS grows more than this from start to end."""
TARGET_RSS_MB = 80.0


def version_gaps(received: Sequence[int], first: int, last: int) -> str | None:
    """``None`` when ``received`` is exactly ``first..last`` in order, else what is wrong."""
    expected = list(range(first, last + 1))
    if list(received) == expected:
        return None
    missing = sorted(set(expected) - set(received))
    extra = sorted(set(received) - set(expected))
    if missing or extra:
        return f"missing {missing[:5]}{'…' if len(missing) > 5 else ''}, unexpected {extra[:5]}"
    return "out of order"


# --- part 2: live load ------------------------------------------------------------------------


@dataclass
class LiveRun:
    clients: int
    rate: float
    duration_s: float
    actions: int = 0
    accepted: int = 0
    first_version: int = 0
    last_version: int = 0
    complete_clients: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    """Server RSS samples: the first once the clients are connected, the last at the end."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def walk_body(players: int) -> dict[str, Any]:
    """``POST /api/games``'s body for a new game of the walked kind
    (:func:`~controller.games.registry.walked`, the tail-tile game) for ``players``."""
    kind = registry.walked()
    assert kind.walk is not None
    return {"kind": kind.name, "options": kind.walk(players)}


class Walk:
    """A referee's random walk through a game of the walked kind (the tail-tile game):
    legal actions, and now and then an undo (always an undo once the game is over),
    mirrored by the engine here. :attr:`body` starts its game."""

    def __init__(self, rng: random.Random, players: int = 4) -> None:
        self.rng = rng
        self.body = walk_body(players)
        self.rules = rules_for(self.body["kind"], Config())
        self.options = self.body["options"]
        self.states = [self.rules.setup(self.options)]

    def next(self) -> Op:
        state = self.states[-1]
        if len(self.states) > 1 and (self.rules.is_over(state) or self.rng.random() < 0.3):
            self.states.pop()
            return None
        action: dict[str, Any] = self.rng.choice(self.rules.legal_actions(state))
        self.states.append(self.rules.apply(state, action))
        return action


def spawn_clients(port: int, count: int, topic: str) -> tuple[BaseProcess, Connection]:
    """``count`` live streams in a child process (``bench web``'s client), all connected:
    returns (process, pipe). Send ``"stop"``; it answers ``{client: [(version, t)]}``
    (``time.monotonic`` at receipt, snapshot not included). ``RuntimeError`` if they do
    not all get their snapshot within 60 s."""
    from ..bench.web import _clients

    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=_clients, args=(port, count, f"/stream?topics={topic}", theirs))
    child.start()
    if not ours.poll(60) or ours.recv() != "ready":
        child.kill()
        raise RuntimeError(f"the {count} live streams did not all open")
    return child, ours


def stop_clients(child: BaseProcess, pipe: Connection) -> dict[int, list[tuple[int, float]]]:
    pipe.send("stop")
    if not pipe.poll(30):
        child.kill()
        raise RuntimeError("the live streams' process did not report")
    seen: dict[int, list[tuple[int, float]]] = pipe.recv()
    child.join(10)
    return seen


def run_live(
    clients: int, rate: float, duration_s: float, seed: int, workdir: Path, log: Log = print
) -> LiveRun:
    """``clients`` streams on one game, ``rate`` referee actions/s for ``duration_s``."""
    run = LiveRun(clients, rate, duration_s)
    server = ServeProcess(workdir / "live", seed=seed)
    server.start()
    sampling = threading.Event()
    try:
        walk = Walk(random.Random(seed))
        game = server.api.call("POST", "/api/games", walk.body)
        gid = int(game["view"]["id"])
        run.first_version = int(game["view"]["version"]) + 1
        child, pipe = spawn_clients(server.port, clients, f"game:{gid}")
        sampler = threading.Thread(target=_sample_rss, args=(server.pid, run.rss_mb, sampling))
        sampler.start()
        sent_at = _drive(server.api, gid, walk, rate, duration_s, run)
        time.sleep(0.5)
        seen = stop_clients(child, pipe)
        sampling.set()
        sampler.join()
        run.last_version = int(
            server.api.call("GET", f"/api/games/{gid}", referee=False)["view"]["version"]
        )
        for client, received in sorted(seen.items()):
            gap = version_gaps([v for v, _ in received], run.first_version, run.last_version)
            if gap is None:
                run.complete_clients += 1
            elif len(run.problems) < 5:
                run.problems.append(f"client {client}: {gap}")
            run.latencies_ms += [(t - sent_at[v]) * 1000 for v, t in received if v in sent_at]
        if run.complete_clients != clients:
            run.problems.append(f"{clients - run.complete_clients} clients missed events")
        if run.accepted != run.actions:
            run.problems.append(f"{run.actions - run.accepted} actions not accepted")
        growth = run.rss_mb[-1] - run.rss_mb[0] if run.rss_mb else float("nan")
        if not growth <= RSS_GROWTH_LIMIT_MB:
            run.problems.append(f"RSS grew {growth:.1f} MB (limit {RSS_GROWTH_LIMIT_MB:g})")
    except (OSError, http.client.HTTPException, HttpError, RuntimeError) as exc:
        run.problems.append(f"{type(exc).__name__}: {exc}")
    finally:
        sampling.set()
        status = server.stop()
        if status != 0:
            run.problems.append(f"SIGTERM exit status {status}, not 0")
    return run


def _sample_rss(pid: int, samples: list[float], stop: threading.Event) -> None:
    while True:
        with contextlib.suppress(OSError):
            samples.append(rss_mb(pid))
        if stop.wait(0.5):
            with contextlib.suppress(OSError):
                samples.append(rss_mb(pid))
            return


def enter_actions(
    api: Api,
    gid: int,
    walk: Walk,
    times: Iterable[float],
    sent_at: dict[int, float],
    answered_at: dict[int, float] | None = None,
) -> None:
    """Enter the walk's next entry at each ``time.monotonic`` time in ``times`` (at once when
    late), recording each new version's send time in ``sent_at`` (and the 200's arrival in
    ``answered_at``). Raises :class:`HttpError` when one is refused (the dicts then hold
    those entered before)."""
    for when in times:
        delay = when - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        op = walk.next()
        at = time.monotonic()
        version = answer_version(send_op(api, gid, op))
        sent_at[version] = at
        if answered_at is not None:
            answered_at[version] = time.monotonic()


def _drive(
    api: Api, gid: int, walk: Walk, rate: float, duration_s: float, run: LiveRun
) -> dict[int, float]:
    """Enter actions at ``rate`` per second; returns the send time of each version."""
    sent_at: dict[int, float] = {}
    started = time.monotonic()
    run.actions = round(rate * duration_s)
    try:
        enter_actions(api, gid, walk, (started + i / rate for i in range(run.actions)), sent_at)
    except HttpError as exc:
        run.problems.append(f"action {len(sent_at) + 1} refused: {exc}")
    run.accepted = len(sent_at)
    return sent_at
