"""``diablotin reliability [--short]``: kill -9, live load and box faults, end to end.

Three parts, each bounded in count and time; every byte goes to 127.0.0.1.

1. **crash** — scripted games of all three kinds against a real ``diablotin serve``
   process (simulated box), each killed with SIGKILL at a random point, then the server
   is restarted and compared. Tail-tile and Teufel games are seeded random legal action
   sequences computed with the engines (with undos), entered over the HTTP API; the
   Diable sauteur is played by the computer on the simulated box. A game passes when
   every acknowledged entry (HTTP 200) is in the journal, in order, with at most the one
   request in flight beyond them; every state the dashboard was sent (``/stream``) is the
   engine's replay of the journal at that version; the restarted server's view equals
   the engine's replay; and play goes on after the restart.
2. **live** — ``clients`` live streams (``GET /stream?topics=game:<id>``) on one game
   while a referee enters ``rate`` actions per second for ``duration`` s: no refused
   action, every client gets every version in order (no gap), and the server's RSS
   (``/proc/<pid>/status``) grows by at most :data:`RSS_GROWTH_LIMIT_MB`.
3. **faults** — box faults during play, in process (the fault switches are not on the
   API): jam, chatter and a missing die (a sensor that never sees its die) on the
   simulated box; silence, unplug, garbage + corrupted frames, and a reset of the
   virtual co-processor. Each passes when the journaled pops always equal the dice that
   really left the toy, the fault shows in ``GET /api/box``, coils end low, and a pop
   works again once the fault is gone.

Exit status 0 when every check passed, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import logging
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import Config
from .journal import Entry, Journal
from .service import rules_for

PIN = "97531"
KINDS = ("sauteur", "tails", "teufel")
TEUFEL_OPS_CAP = 150
"""A scripted Teufel game is cut after this many entries (whole games run to ~6,000)."""
UNDO_CHANCE = 0.08
"""Chance that a scripted action is followed by an undo and the same action again."""
KILL_WINDOW_S = 0.006
"""The kill lands up to this long after the chosen request is sent: often mid-request."""
SAUTEUR_KILL_S = (0.2, 6.0)
"""The computer plays this long (uniform, s) before the kill."""
RESUME_TIMEOUT_S = 15.0
RSS_GROWTH_LIMIT_MB = 16.0
"""The live part fails when the server's RSS grows more than this from start to end."""
TARGET_RSS_MB = 80.0

Log = Callable[[str], None]
Op = dict[str, Any] | None
"""A scripted entry: an action, or ``None`` for an undo."""


# --- the server process --------------------------------------------------------------------


class HttpError(Exception):
    """A non-2xx answer: ``status``, the API's error ``code`` and ``reason``."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(f"HTTP {status} {code}: {reason}")
        self.status = status
        self.code = code
        self.reason = reason


class Api:
    """JSON over HTTP to 127.0.0.1:``port``, as a script would (PIN in a header).

    ``call`` raises :class:`HttpError` for an error answer, ``OSError`` or
    ``http.client.HTTPException`` when the connection fails (a killed server).
    ``keep_alive``: one connection for every call (reopened after a failure, never
    retried); otherwise a new connection per call.
    """

    def __init__(self, port: int, pin: str = PIN, *, keep_alive: bool = False) -> None:
        self.port = port
        self.pin = pin
        self.keep_alive = keep_alive
        self._conn: http.client.HTTPConnection | None = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        referee: bool = True,
        timeout: float = 10.0,
    ) -> Any:
        headers = {"X-Referee-Pin": self.pin} if referee else {}
        payload = None
        if body is not None or method in ("POST", "PUT"):
            payload = json.dumps({} if body is None else body)
            headers["Content-Type"] = "application/json"
        conn = self._conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        self._conn = None
        try:
            conn.request(method, path, body=payload, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except BaseException:
            conn.close()
            raise
        if self.keep_alive and not resp.will_close:
            self._conn = conn
        else:
            conn.close()
        if resp.status >= 400:
            try:
                error = json.loads(data)
            except ValueError:
                error = {}
            raise HttpError(resp.status, error.get("error", "?"), error.get("reason", ""))
        return json.loads(data)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` (MB, from ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (s, from ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServeProcess:
    """A real ``diablotin serve`` on 127.0.0.1 with the simulated box, its data in ``workdir``.

    Output goes to ``workdir/serve.log``. :meth:`start` again after :meth:`kill9` or
    :meth:`stop` is a restart on the same journal.
    """

    def __init__(self, workdir: Path, *, seed: int = 5) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.data = workdir / "data"
        self.config = workdir / "diablotin.toml"
        workdir.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {self.port}\nreferee_pin = "{PIN}"\n'
            f'[data]\ndir = "{self.data}"\n[box]\nbackend = "simulated"\nseed = {seed}\n'
        )
        self.api = Api(self.port)
        self.proc: subprocess.Popen[bytes] | None = None
        self.journal_path = self.data / "diablotin.sqlite3"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 30.0) -> float:
        """Start and wait for the first 200 from ``/api/games``; returns the seconds that took.

        Raises ``RuntimeError`` if the process exits or does not answer within ``timeout``.
        """
        with (self.workdir / "serve.log").open("ab") as log:
            started = time.monotonic()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "controller.cli", "--config", str(self.config), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        while time.monotonic() - started < timeout:
            try:
                self.api.call("GET", "/api/games", referee=False, timeout=2)
                return time.monotonic() - started
            except (OSError, http.client.HTTPException, HttpError):
                if self.proc.poll() is not None:
                    where = self.workdir / "serve.log"
                    raise RuntimeError(f"diablotin serve exited: see {where}") from None
                time.sleep(0.005)
        self.kill9()
        raise RuntimeError(f"diablotin serve did not answer within {timeout} s")

    def kill9(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM (coils off, clean exit); returns the exit status (SIGKILL after 15 s)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill9()
        return int(self.proc.returncode)

    def read_journal(self) -> Journal:
        """The journal file, opened by this process (only while the server is down)."""
        return Journal(self.journal_path)


class StreamWatcher(threading.Thread):
    """Reads ``/stream?topics=<topic>`` as a spectator's phone; keeps the topic's events.

    ``events`` are the decoded ``data`` of each ``<topic>`` event, snapshot first;
    ``ready`` is set once the snapshot is in. Ends when the connection ends.
    """

    def __init__(self, port: int, topic: str) -> None:
        super().__init__(name=f"watch-{topic}", daemon=True)
        self.port = port
        self.topic = topic
        self.events: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("GET", f"/stream?topics={self.topic}")
            resp = conn.getresponse()
            if resp.status != 200:
                self.error = f"stream answered {resp.status}"
                return
            event = None
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == self.topic:
                    self.events.append(json.loads(line[6:]))
                    self.ready.set()
                elif not line:
                    event = None
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the server was killed: what arrived is what the phone saw
        finally:
            conn.close()
            self.ready.set()


# --- scripted games ---------------------------------------------------------------------------


def interleave_undos(actions: Sequence[dict[str, Any]], rng: random.Random) -> list[Op]:
    """The actions, each followed now and then by an undo and the same action again."""
    ops: list[Op] = []
    for action in actions:
        ops.append(action)
        if rng.random() < UNDO_CHANCE:
            ops += [None, action]
    return ops


def tails_script(rng: random.Random) -> tuple[dict[str, Any], list[Op]]:
    """A seeded random legal tail-tile game for 2–4 players: (options, entries)."""
    options = {"players": rng.choice([2, 3, 4])}
    rules = rules_for("tails", Config())
    state, actions = rules.setup(options), []
    while not rules.is_over(state):
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions.append(action)
    return options, interleave_undos(actions, rng)


def teufel_script(rng: random.Random) -> tuple[dict[str, Any], list[Op]]:
    """A seeded random legal Teufel game (``bench teufel``'s player), cut to a few hundred
    entries: (options, entries)."""
    from .bench.teufel import random_game

    game = random_game(rng.randrange(1_000_000))
    ops = interleave_undos(game.actions, rng)
    return game.options, ops[:TEUFEL_OPS_CAP]


def ops_of(entries: Sequence[Entry]) -> list[Op]:
    """Journal entries as scripted entries (``None`` for an undo)."""
    return [None if e.undo else e.action for e in entries]


def entries_of_export(data: dict[str, Any]) -> list[Op]:
    return [None if e.get("undo") else e["action"] for e in data["entries"]]


def views_by_version(
    kind: str, options: dict[str, Any], ops: Sequence[Op], versions: set[int]
) -> dict[int, tuple[Any, bool]]:
    """The engine's public view (JSON round-tripped) and whether the game is over, after
    the first ``v`` journal entries, for each ``v`` in ``versions`` (one replay)."""
    rules = rules_for(kind, Config())
    stack = [rules.setup(options)]
    out: dict[int, tuple[Any, bool]] = {}
    for version in range(len(ops) + 1):
        if version:
            op = ops[version - 1]
            if op is None:
                if len(stack) > 1:
                    stack.pop()
            else:
                stack.append(rules.apply(stack[-1], op))
        if version in versions:
            view = json.loads(json.dumps(rules.view(stack[-1], "public")))
            out[version] = (view, rules.is_over(stack[-1]))
    return out


def acked_problems(acked: Sequence[Op], stored: Sequence[Op], script: Sequence[Op]) -> list[str]:
    """What is wrong with a journal after a kill: every acknowledged entry must be there,
    in order, and beyond them at most the one request in flight (the next scripted one)."""
    problems = []
    if list(stored[: len(acked)]) != list(acked):
        same = next(
            (i for i, (a, b) in enumerate(zip(acked, stored, strict=False)) if a != b),
            min(len(acked), len(stored)),
        )
        problems.append(
            f"acknowledged entry #{same + 1} lost or changed "
            f"({len(acked)} acknowledged, {len(stored)} journaled)"
        )
    extra = list(stored[len(acked) :])
    if len(extra) > 1:
        problems.append(f"{len(extra)} entries journaled beyond the acknowledged ones")
    elif extra and (len(acked) >= len(script) or extra[0] != script[len(acked)]):
        problems.append("the entry journaled beyond the acknowledged ones was never sent")
    return problems


def stream_problems(
    kind: str, options: dict[str, Any], events: Sequence[dict[str, Any]], ops: Sequence[Op]
) -> list[str]:
    """Every state a phone was sent must be journaled: its version at most the journal's
    length, versions never going back, and the state the engine's replay at that version."""
    problems: list[str] = []
    versions = [int(e["version"]) for e in events]
    if any(b < a for a, b in itertools.pairwise(versions)):
        problems.append(f"stream versions went back: {versions}")
    beyond = [v for v in versions if v > len(ops)]
    if beyond:
        problems.append(f"phones saw version {max(beyond)} but the journal has {len(ops)}")
    expected = views_by_version(kind, options, ops, {v for v in versions if v <= len(ops)})
    for event in events:
        version = int(event["version"])
        if version in expected and (event["state"], event["finished"]) != expected[version]:
            problems.append(f"the state sent at version {version} is not the journal's replay")
            break
    return problems


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


# --- part 1: kill -9 --------------------------------------------------------------------------


@dataclass
class CrashGame:
    """One scripted game killed and restarted. ``acked``: entries answered 200 (tail-tile,
    Teufel) or versions the phones were sent (sauteur); ``journaled``: entries after the kill."""

    index: int
    kind: str
    game_id: int = 0
    acked: int = 0
    journaled: int = 0
    in_flight: bool = False
    streamed: int = 0
    """Game events a spectator's phone received before the kill (snapshot included)."""
    restart_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def run_crash(count: int, seed: int, workdir: Path, log: Log = print) -> list[CrashGame]:
    """``count`` games (kinds in turn), each killed with SIGKILL and checked after a restart."""
    server = ServeProcess(workdir / "crash", seed=seed)
    server.start()
    results = []
    try:
        for index in range(count):
            kind = KINDS[index % len(KINDS)]
            result = CrashGame(index + 1, kind)
            try:
                _crash_one(server, result, random.Random(seed * 100_003 + index))
            except (OSError, http.client.HTTPException, HttpError, RuntimeError) as exc:
                result.problems.append(f"{type(exc).__name__}: {exc}")
                if server.proc is None or server.proc.poll() is not None:
                    server.start()
            results.append(result)
            verdict = "ok" if result.ok else "FAILED: " + "; ".join(result.problems)
            log(
                f"  game {result.index:3d}/{count} {kind:7s} #{result.game_id:<4d} "
                f"acked {result.acked:3d} journaled {result.journaled:3d} "
                f"streamed {result.streamed:3d}{' (+1 in flight)' if result.in_flight else ''}"
                f"  {verdict}"
            )
    finally:
        status = server.stop()
        if status != 0 and results:
            results[-1].problems.append(f"SIGTERM exit status {status}, not 0")
    return results


def _crash_one(server: ServeProcess, result: CrashGame, rng: random.Random) -> None:
    api = server.api
    if result.kind == "sauteur":
        options: dict[str, Any] = {"rule": rng.choice(["A", "B"])}
        script: list[Op] = []
    elif result.kind == "tails":
        options, script = tails_script(rng)
    else:
        options, script = teufel_script(rng)
    game = api.call("POST", "/api/games", {"kind": result.kind, "options": options})
    gid = result.game_id = int(game["view"]["id"])
    watcher = StreamWatcher(server.port, f"game:{gid}")
    watcher.start()
    watcher.ready.wait(5)
    acked: list[Op] = []
    if result.kind == "sauteur":
        for player in ("p1", "p2"):
            api.call("PUT", f"/api/games/{gid}/computer", {"player": player, "on": True})
        time.sleep(rng.uniform(*SAUTEUR_KILL_S))
        server.kill9()
    else:
        _enter_until_killed(server, gid, script, acked, rng, result)
    watcher.join(10)
    assert server.proc is not None
    if server.proc.returncode != -signal.SIGKILL:
        result.problems.append(f"the server ended with {server.proc.returncode}, not SIGKILL")
    journal = server.read_journal()
    try:
        record = journal.game(gid)
        stored = ops_of(journal.entries(gid))
        seats = journal.setting(gid, "computer", [])
    finally:
        journal.close()
    result.journaled = len(stored)
    if result.kind == "sauteur":
        result.acked = max((int(e["version"]) for e in watcher.events), default=0)
        if seats != ["p1", "p2"]:
            result.problems.append(f"acknowledged computer seats lost: journal has {seats}")
    else:
        result.acked = len(acked)
        result.in_flight = len(stored) > len(acked)
        result.problems += acked_problems(acked, stored, script)
    result.streamed = len(watcher.events)
    if not watcher.events:
        result.problems.append(f"the spectator's stream got nothing ({watcher.error})")
    result.problems += stream_problems(result.kind, record.options, watcher.events, stored)
    result.restart_s = server.start()
    _check_restarted(server, result, record.options, stored, script)


def _enter_until_killed(
    server: ServeProcess,
    gid: int,
    script: list[Op],
    acked: list[Op],
    rng: random.Random,
    result: CrashGame,
) -> None:
    """Enter the script until the kill, which lands just after entry number ``kill_at`` is sent."""
    kill_at = rng.randrange(len(script))
    killer = threading.Timer(rng.uniform(0, KILL_WINDOW_S), server.kill9)
    try:
        for index, op in enumerate(script):
            if index == kill_at:
                killer.start()
            try:
                _send(server.api, gid, op)
            except HttpError as exc:
                result.problems.append(f"scripted entry #{index + 1} refused: {exc}")
                break
            except (OSError, http.client.HTTPException):
                break  # killed mid-request: not acknowledged
            acked.append(op)
    finally:
        if not killer.is_alive() and not killer.finished.is_set():
            killer.start()  # a refusal stopped the script before the kill point
        killer.join()


def _send(api: Api, gid: int, op: Op) -> dict[str, Any]:
    if op is None:
        answer: dict[str, Any] = api.call("POST", f"/api/games/{gid}/undo")
    else:
        answer = api.call("POST", f"/api/games/{gid}/actions", op)
    return answer


def _check_restarted(
    server: ServeProcess,
    result: CrashGame,
    options: dict[str, Any],
    stored: list[Op],
    script: list[Op],
) -> None:
    """The restarted server shows the journal's replay and plays on."""
    api, gid = server.api, result.game_id
    payload = api.call("GET", f"/api/games/{gid}", referee=False)
    now = entries_of_export(api.call("GET", f"/api/games/{gid}/export"))
    view = payload["view"]
    version = int(view["version"])
    if now[: len(stored)] != stored:
        result.problems.append("the restarted server's journal differs from the file's")
    if result.kind != "sauteur" and version != len(stored):
        result.problems.append(f"restarted at version {version}, journal has {len(stored)}")
    expected = views_by_version(result.kind, options, now, {version}).get(version)
    if expected is None or expected[0] != view["state"]:
        result.problems.append(f"the restarted view (version {version}) is not the replay")
    elif expected[1] != view["finished"]:
        result.problems.append(
            f"restarted with finished={view['finished']} but the replay's game is "
            f"{'over' if expected[1] else 'not over'}"
        )
    if result.kind == "sauteur":
        if payload["extras"]["computer"] != ["p1", "p2"]:
            result.problems.append(f"computer seats after restart: {payload['extras']['computer']}")
        if not view["finished"]:
            _wait_version(api, gid, len(stored) + 1, result)
    elif len(stored) < len(script):
        answer = _send(api, gid, script[len(stored)])
        if answer["view"]["version"] != len(stored) + 1:
            result.problems.append("the first entry after the restart got a wrong version")


def _wait_version(api: Api, gid: int, version: int, result: CrashGame) -> None:
    deadline = time.monotonic() + RESUME_TIMEOUT_S
    while time.monotonic() < deadline:
        if api.call("GET", f"/api/games/{gid}", referee=False)["view"]["version"] >= version:
            return
        time.sleep(0.05)
    result.problems.append(f"the computer did not play on within {RESUME_TIMEOUT_S:g} s")


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


class TailsWalk:
    """A referee's random walk through a tail-tile game: legal placements, and now and
    then an undo (always an undo once the game is over), mirrored by the engine here."""

    def __init__(self, rng: random.Random, players: int = 4) -> None:
        self.rng = rng
        self.rules = rules_for("tails", Config())
        self.options = {"players": players}
        self.states = [self.rules.setup(self.options)]

    def next(self) -> Op:
        state = self.states[-1]
        if len(self.states) > 1 and (self.rules.is_over(state) or self.rng.random() < 0.3):
            self.states.pop()
            return None
        action: dict[str, Any] = self.rng.choice(self.rules.legal_actions(state))
        self.states.append(self.rules.apply(state, action))
        return action


def spawn_clients(port: int, count: int, topic: str) -> tuple[Any, Any]:
    """``count`` live streams in a child process (``bench web``'s client), all connected:
    returns (process, pipe). Send ``"stop"``; it answers ``{client: [(version, t)]}``
    (``time.monotonic`` at receipt, snapshot not included). ``RuntimeError`` if they do
    not all get their snapshot within 60 s."""
    from .bench.web import _clients

    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=_clients, args=(port, count, f"/stream?topics={topic}", theirs))
    child.start()
    if not ours.poll(60) or ours.recv() != "ready":
        child.kill()
        raise RuntimeError(f"the {count} live streams did not all open")
    return child, ours


def stop_clients(child: Any, pipe: Any) -> dict[int, list[tuple[int, float]]]:
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
        walk = TailsWalk(random.Random(seed))
        game = server.api.call("POST", "/api/games", {"kind": "tails", "options": walk.options})
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
    walk: TailsWalk,
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
        version = int(_send(api, gid, op)["view"]["version"])
        sent_at[version] = at
        if answered_at is not None:
            answered_at[version] = time.monotonic()


def _drive(
    api: Api, gid: int, walk: TailsWalk, rate: float, duration_s: float, run: LiveRun
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


# --- part 3: box faults -----------------------------------------------------------------------


class Failed(Exception):
    """A fault scenario's check failed (the message says which)."""


@dataclass
class FaultCase:
    backend: str
    name: str
    pops: int = 0
    seen: str = ""
    """What GET /api/box showed of the fault."""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def dice_out(toy: Any) -> set[int]:
    """Keys whose die is out of its slot on the simulated toy itself (the ground truth)."""
    return set(toy.dice_out())


class FaultRig:
    """A service on ``backend`` (simulated or virtual) served on 127.0.0.1 by cheroot in
    this process, so the suite can flip fault switches the API does not offer and read
    the toy's ground truth. Games, toy faults and box status go through the HTTP API."""

    def __init__(self, backend: str, workdir: Path, seed: int) -> None:
        from web import create_app

        from .server import bound_port, make_server
        from .service import Service

        config = Config(data_dir=workdir / f"faults-{backend}")
        config.box.backend = backend
        config.box.seed = seed
        config.server.referee_pin = PIN
        self.service = Service(
            config, think_s=3600.0, face_delay_s=0.05, hide_delay_s=0.05, steady_s=0.15
        )
        self.service.start()
        self.server = make_server(create_app(self.service), "127.0.0.1", 0, 16)
        # One kept-alive connection: no socket is opened while a fault closes the virtual
        # Pico's pty (its thread may read a stale descriptor number; see docs/reliability.md).
        self.api = Api(bound_port(self.server), keep_alive=True)
        self._thread = threading.Thread(target=self.server.serve, daemon=True)
        self._thread.start()
        self.toy = self.service.toy
        self.coprocessor = getattr(self.service.box, "coprocessor", None)
        self.game_id = 0

    def close(self) -> list[str]:
        """Stop everything; returns problems (a coil left high)."""
        self.api.close()
        self.service.hub.close_all()
        with contextlib.suppress(Exception):
            self.server.stop()
        self.service.stop()
        high = self.coils_high()
        return [f"coils {high} high after the service stopped"] if high else []

    # -- the game, over HTTP ------------------------------------------------------------

    def new_game(self) -> None:
        options = {"rule": "A", "rounds": 100, "track_length": 1000}
        game = self.api.call("POST", "/api/games", {"kind": "sauteur", "options": options})
        self.game_id = int(game["view"]["id"])

    def state(self) -> dict[str, Any]:
        view = self.api.call("GET", f"/api/games/{self.game_id}", referee=False)["view"]
        state: dict[str, Any] = view["state"]
        state["version"] = view["version"]
        return state

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.api.call("POST", f"/api/games/{self.game_id}/actions", action)
        return answer

    def box(self) -> dict[str, Any]:
        status: dict[str, Any] = self.api.call("GET", "/api/box", referee=False)
        return status

    def toy_do(self, **command: Any) -> None:
        self.api.call("POST", "/api/box/toy", command)

    def ready_to_pop(self, free: int = 1, timeout: float = 10.0) -> dict[str, Any]:
        """Play the non-pop steps (advance, rehide) until the popper may pop a key with at
        least ``free`` dice still hidden; returns the state."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            popper = state["roles"]["popper"]
            if state["phase"] == "over":
                raise Failed("the game ended")
            if state["phase"] == "advance":
                figure = next(f["name"] for f in state["figures"] if f["status"] == "in-play")
                self.act({"type": "advance", "figure": figure, "by": popper})
            elif state["phase"] == "pop":
                if state["numbers_this_hiding"] >= 3 or 4 - len(state["popped"]) < free:
                    self.act({"type": "rehide", "by": popper})
                else:
                    return state
            else:
                time.sleep(0.02)
        raise Failed(f"the game did not reach a pop within {timeout:g} s")

    def press(self, key: int, popper: str) -> None:
        """The popper's pop button (waits out a coil's cool-down: 409 box-refused)."""
        for _ in range(60):
            try:
                self.act({"type": "pop", "key": key, "by": popper})
                return
            except HttpError as exc:
                if exc.code != "box-refused":
                    raise Failed(f"pop of key {key} refused: {exc}") from None
                time.sleep(0.05)
        raise Failed(f"key {key} stayed in cool-down")

    def wait_popped(self, key: int, since: int, timeout: float = 3.0) -> None:
        """Wait until the journal has, after entry ``since``, a pop of ``key`` and its face."""
        assert self.service.journal is not None
        journal = self.service.journal

        def done() -> bool:
            later = [e.action for e in journal.entries(self.game_id)[since:]]
            pops = [i for i, a in enumerate(later) if a == {**a, "type": "pop", "key": key}]
            return bool(pops) and any(a["type"] == "face" for a in later[pops[0] :])

        self.wait(done, timeout, f"the pop of key {key} journaled with its face")

    def wait_pops_in_order(self, keys: list[int], since: int, timeout: float = 3.0) -> None:
        """Dice out in the order ``keys``: each is journaled with its face, the referee
        moving a figure between them when a number asks for one. A devil (or a round's
        end) closes the hiding: the dice after it do not count, and the service says so."""
        for i, key in enumerate(keys):
            self.wait_popped(key, since, timeout)
            state = self.state()
            if state["phase"] == "advance":
                figure = next(f["name"] for f in state["figures"] if f["status"] == "in-play")
                self.act({"type": "advance", "figure": figure, "by": state["roles"]["popper"]})
            elif state["phase"] in ("hiding", "over") and i + 1 < len(keys):
                self.wait(
                    lambda: any(
                        "after this hiding ended" in n["text"] for n in self.box()["notices"]
                    ),
                    timeout,
                    f"the notice that key(s) {keys[i + 1 :]} came out too late to count",
                )
                return

    def pop(self, free: int = 1) -> int:
        """Pop a hidden key and wait until it is journaled; returns the key."""
        state = self.ready_to_pop(free)
        key = min(k for k in (1, 2, 3, 4) if k not in state["popped"])
        self.press(key, state["roles"]["popper"])
        self.wait_popped(key, state["version"])
        self.check_truth()
        return key

    def wait(self, condition: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.02)
        raise Failed(f"timed out after {timeout:g} s waiting for {what}")

    def wait_box(self, condition: Callable[[dict[str, Any]], Any], what: str) -> dict[str, Any]:
        """Wait (5 s) for ``GET /api/box`` to satisfy ``condition``; returns the status."""

        def met() -> dict[str, Any] | None:
            status = self.box()
            return status if condition(status) else None

        found: dict[str, Any] = self.wait(met, 5.0, what)
        return found

    # -- checks ---------------------------------------------------------------------------

    def coils_high(self) -> list[int]:
        high = [k for k in (1, 2, 3, 4) if self.toy.coil_pin(k).state]
        if self.coprocessor is not None:
            high += [k for k in self.coprocessor.coils_on() if k not in high]
        return sorted(high)

    def check_truth(self, timeout: float = 1.5) -> None:
        """No lost and no invented pop: while the dice are hidden the journaled pops of this
        hiding are exactly the dice out of the toy; and every coil is low (after a pulse)."""
        table = self.service.table(self.game_id)
        deadline = time.monotonic() + timeout
        while True:
            with table.lock:
                phase, popped = table.state.phase, set(table.state.popped)
            truth = dice_out(self.toy)
            hidden = phase in ("pop", "face", "advance")
            if (not hidden or popped == truth) and not self.coils_high():
                return
            if time.monotonic() > deadline:
                if self.coils_high():
                    raise Failed(f"coils {self.coils_high()} still high")
                raise Failed(f"journaled pops {sorted(popped)} but dice out {sorted(truth)}")
            time.sleep(0.02)

    def refused_without_change(self, key: int, code: str) -> None:
        """A pop of ``key`` is refused with ``code`` and nothing is journaled."""
        before = self.state()
        try:
            self.act({"type": "pop", "key": key, "by": before["roles"]["popper"]})
        except HttpError as exc:
            if exc.code != code:
                raise Failed(f"pop during the fault refused with {exc.code}, not {code}") from None
        else:
            raise Failed("a pop was accepted during the fault")
        if self.state()["version"] != before["version"]:
            raise Failed("a refused pop changed the game")

    def refused_notices(self, since: float) -> list[str]:
        """Box facts the rules refused since ``since`` (service clock, s): a pop seen twice,
        or one seen while the game waited for something else."""
        return [
            n["text"]
            for n in self.box()["notices"]
            if n["at"] >= since and "not accepted" in n["text"]
        ]


def _jam(rig: FaultRig) -> str:
    rig.new_game()
    rig.pop()
    state = rig.ready_to_pop(free=2)
    key, other = [k for k in (1, 2, 3, 4) if k not in state["popped"]][:2]
    rig.toy_do(do="jam", key=key, on=True)
    rig.press(key, state["roles"]["popper"])
    rig.wait_box(lambda s: f"key {key} jammed" in s["faults"], f"key {key} jammed in /api/box")
    rig.check_truth()
    rig.refused_without_change(other, "box-fault")
    rig.toy_do(do="jam", key=key, on=False)
    rig.api.call("POST", "/api/box/jam", {"key": key, "do": "retry"})
    rig.wait_popped(key, state["version"])
    rig.wait_box(lambda s: not s["faults"], "the jam cleared in /api/box")
    rig.check_truth()
    rig.pop()
    return f"faults: ['key {key} jammed']"


def _chatter(rig: FaultRig) -> str:
    rig.new_game()
    rig.toy_do(do="chatter", on=True)
    rig.wait_box(lambda s: s["toy"]["chatter"] is True, "chatter in /api/box")
    for _ in range(4):
        rig.pop()
    state = rig.ready_to_pop()
    key = min(k for k in (1, 2, 3, 4) if k not in state["popped"])
    rig.toy_do(do="press", key=key)  # a pop by hand, sensor bouncing
    rig.wait_popped(key, state["version"])
    rig.check_truth()
    rig.toy_do(do="chatter", on=False)
    rig.pop()
    return "toy.chatter: true"


def _missing_die(rig: FaultRig) -> str:
    key = 3
    rig.toy_do(do="missing_die", key=key, on=True)
    rig.new_game()
    time.sleep(0.6)  # hide delay + three steady periods: the hiding must not complete
    if rig.state()["phase"] != "hiding" or rig.state()["version"] != 0:
        raise Failed("the hiding was taken as done with a die missing")
    status = rig.wait_box(
        lambda s: s["slots"][str(key)] is False and s["toy"]["missing_die"] == key,
        f"slot {key} empty in /api/box",
    )
    rig.refused_without_change(1, "not-hidden")
    rig.check_truth()
    rig.toy_do(do="missing_die", on=False)
    rig.toy_do(do="hide")
    rig.pop()
    return f"slots[{key}]: {status['slots'][str(key)]}, watch: {status['watch']['phase']}"


def _link_down(rig: FaultRig, how: str, pressed: bool, by_hand: bool) -> str:
    """Break the link (``how``: silence or drop) just after a press (``pressed``: its die
    jumps unseen) and/or press a die out by hand while it is down (``by_hand``)."""
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    rig.pop()
    state = rig.ready_to_pop(free=3)
    since = state["version"]
    free = [k for k in (1, 2, 3, 4) if k not in state["popped"]]
    out = []
    if pressed:
        rig.press(free[0], state["roles"]["popper"])
        out.append(free[0])
    (co.silence if how == "silence" else co.drop)()
    status = rig.wait_box(
        lambda s: not s["link"]["up"] and "link" in s["faults"], "the link down in /api/box"
    )
    rig.refused_without_change(free[2], "box-fault")
    if by_hand:
        if not rig.toy.press_by_hand(free[1]):
            raise Failed(f"slot {free[1]} was empty")
        out.append(free[1])
    time.sleep(0.5)  # the watch's check and second pulse run into the dead link
    if rig.coils_high():
        raise Failed(f"coils {rig.coils_high()} high while the link is down")
    if how == "silence":
        co.silence(False)
    else:
        co.restore()
    rig.wait_box(lambda s: s["link"]["up"], "the link back in /api/box")
    rig.wait_pops_in_order(out, since)
    rig.wait_box(lambda s: not s["faults"], "no faults left in /api/box")
    rig.check_truth()
    rig.pop()
    return f"link.up: {status['link']['up']}, faults: {status['faults']}"


def _silence(rig: FaultRig) -> str:
    return _link_down(rig, "silence", pressed=True, by_hand=False)


def _unplug(rig: FaultRig) -> str:
    return _link_down(rig, "drop", pressed=False, by_hand=True)


def _two_dice_unseen(rig: FaultRig) -> str:
    return _link_down(rig, "silence", pressed=True, by_hand=True)


def _two_keys_at_once(rig: FaultRig) -> str:
    """A key pressed by hand while the popped die's face is still awaited (no fault on the
    box: a player's hand is quicker than the face report)."""
    rig.new_game()
    state = rig.ready_to_pop(free=2)
    first, second = [k for k in (1, 2, 3, 4) if k not in state["popped"]][:2]
    rig.press(first, state["roles"]["popper"])
    rig.wait(lambda: first in dice_out(rig.toy), 2.0, f"die {first} out")
    rig.toy_do(do="press", key=second)
    rig.wait_pops_in_order([first, second], state["version"])
    rig.check_truth()
    return "(no fault: two dice out at once)"


def _noise(rig: FaultRig) -> str:
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    bad_before = rig.box()["link"]["bad_frames"]
    co.garbage(0.2)
    co.corrupt(0.3)
    for _ in range(4):
        try:
            rig.pop()
        except Failed as exc:  # a press that met a broken frame: the referee presses again
            if "box-fault" not in str(exc) and "busy" not in str(exc):
                raise
            rig.wait_box(lambda s: s["link"]["up"], "the link up")
    status = rig.wait_box(lambda s: s["link"]["bad_frames"] > bad_before, "bad frames counted")
    co.garbage(0)
    co.corrupt(0)
    rig.wait_box(lambda s: s["link"]["up"] and not s["faults"], "the link up, no faults")
    rig.check_truth()
    rig.pop()
    return f"link.bad_frames: {status['link']['bad_frames'] - bad_before}"


def _reset(rig: FaultRig) -> str:
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    rig.pop()
    before = rig.box()
    boots, reconnects = before["virtual"]["boots"], before["link"]["reconnects"]
    co.reset()
    status = rig.wait_box(
        lambda s: (
            s["virtual"]["boots"] == boots + 1
            and s["link"]["reconnects"] > reconnects
            and s["link"]["up"]
            and not s["faults"]
        ),
        "the Pico rebooted and the link back",
    )
    rig.check_truth()
    rig.pop()
    rig.pop()
    return f"virtual.boots: {boots} -> {status['virtual']['boots']}"


FAULTS: dict[str, list[tuple[str, Callable[[FaultRig], str]]]] = {
    "simulated": [
        ("jam", _jam),
        ("chatter", _chatter),
        ("missing die", _missing_die),
        ("two keys at once", _two_keys_at_once),
    ],
    "virtual": [
        ("silence mid-pop", _silence),
        ("unplug, hand pop", _unplug),
        ("2 dice unseen", _two_dice_unseen),
        ("garbage+corrupt", _noise),
        ("reset", _reset),
    ],
}


def run_faults(rounds: int, seed: int, workdir: Path, log: Log = print) -> list[FaultCase]:
    """Every fault scenario ``rounds`` times on each backend (a fresh service per round)."""
    cases: list[FaultCase] = []
    with _logs_to(workdir / "faults.log"):
        for round_ in range(rounds):
            cases += _fault_round(round_, seed, workdir, log)
    return cases


@contextlib.contextmanager
def _logs_to(path: Path) -> Iterator[None]:
    """The in-process service's log lines go to ``path`` instead of the console."""
    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("controller")
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    propagate, level = logger.propagate, logger.level
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()
        logger.propagate, logger.level = propagate, level


def _fault_round(round_: int, seed: int, workdir: Path, log: Log) -> list[FaultCase]:
    """Every scenario once on each backend, each backend on a fresh service."""
    cases = []
    for backend, scenarios in FAULTS.items():
        rig = FaultRig(backend, workdir / f"round-{round_}", seed + round_)
        try:
            for name, scenario in scenarios:
                case = _fault_case(rig, backend, name, scenario)
                cases.append(case)
                verdict = "ok" if case.ok else "FAILED: " + "; ".join(case.problems)
                log(f"  {backend:9s} {name:17s} {case.seconds:4.1f} s  {case.seen:48s} {verdict}")
        finally:
            cases[-1].problems += rig.close()
    return cases


def _fault_case(
    rig: FaultRig, backend: str, name: str, scenario: Callable[[FaultRig], str]
) -> FaultCase:
    case = FaultCase(backend, name)
    since = rig.service.clock.now()
    started = time.monotonic()
    try:
        case.seen = scenario(rig)
    except (Failed, HttpError, OSError, http.client.HTTPException) as exc:
        case.problems.append(str(exc))
    case.seconds = time.monotonic() - started
    if rig.game_id:
        table = rig.service.table(rig.game_id)
        case.pops = sum(1 for a in table.actions if a["type"] == "pop")
    case.problems += rig.refused_notices(since)
    return case


# --- the command ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    games: int
    clients: int
    rate: float
    duration_s: float
    fault_rounds: int


FULL = Plan(games=100, clients=100, rate=20.0, duration_s=60.0, fault_rounds=3)
SHORT = Plan(games=6, clients=20, rate=20.0, duration_s=10.0, fault_rounds=1)


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``, inclusive method; NaN for none."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def crash_report(results: Sequence[CrashGame]) -> list[str]:
    ok = sum(r.ok for r in results)
    lines = [f"kill -9: {ok}/{len(results)} games with no acknowledged action lost"]
    for kind in KINDS:
        mine = [r for r in results if r.kind == kind]
        if mine:
            lines.append(
                f"  {kind:7s} {sum(r.ok for r in mine)}/{len(mine)} ok, "
                f"{sum(r.acked for r in mine)} acknowledged, "
                f"{sum(r.in_flight for r in mine)} killed with one entry in flight"
            )
    restarts = [r.restart_s for r in results if r.restart_s]
    if restarts:
        lines.append(
            f"  restart to first 200: p50 {quantile(restarts, 0.5):.2f} s, "
            f"max {max(restarts):.2f} s"
        )
    return lines


def live_report(run: LiveRun) -> list[str]:
    rss = run.rss_mb or [float("nan")]
    lines = [
        f"live: {run.clients} clients, {run.accepted}/{run.actions} actions accepted at "
        f"{run.rate:g}/s for {run.duration_s:g} s, "
        f"versions {run.first_version}..{run.last_version}",
        f"  {run.complete_clients}/{run.clients} clients got every event in order",
        f"  action -> client p50 {quantile(run.latencies_ms, 0.5):.1f} ms, "
        f"p99 {quantile(run.latencies_ms, 0.99):.1f} ms, max "
        f"{max(run.latencies_ms, default=float('nan')):.1f} ms",
        f"  server RSS start {rss[0]:.1f} MB, end {rss[-1]:.1f} MB, max {max(rss):.1f} MB "
        f"(growth limit {RSS_GROWTH_LIMIT_MB:g} MB, target < {TARGET_RSS_MB:g} MB)",
    ]
    return lines + [f"  PROBLEM: {p}" for p in run.problems]


def faults_report(cases: Sequence[FaultCase]) -> list[str]:
    ok = sum(c.ok for c in cases)
    lines = [f"box faults: {ok}/{len(cases)} scenarios passed"]
    names = dict.fromkeys((c.backend, c.name) for c in cases)
    for backend, name in names:
        mine = [c for c in cases if (c.backend, c.name) == (backend, name)]
        lines.append(
            f"  {backend:9s} {name:17s} {sum(c.ok for c in mine)}/{len(mine)} ok, "
            f"{sum(c.pops for c in mine)} pops journaled"
        )
    return lines


@contextlib.contextmanager
def _workdir(keep: str | None) -> Iterator[Path]:
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="diablotin-reliability-") as tmp:
            yield Path(tmp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin reliability", description=__doc__)
    parser.add_argument("--short", action="store_true", help="the quick version (< 60 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=["crash", "live", "faults"], action="append")
    parser.add_argument("--games", type=int, help="kill -9 games (default 100; short 6)")
    parser.add_argument("--workdir", help="keep data and server logs here (default: a temp dir)")
    args = parser.parse_args(argv)
    plan = SHORT if args.short else FULL
    games = plan.games if args.games is None else args.games
    if games < 1:
        parser.error("--games must be at least 1")
    parts = args.only or ["crash", "live", "faults"]
    started = time.monotonic()
    report: list[str] = []
    ok = True
    with _workdir(args.workdir) as workdir:
        if "crash" in parts:
            print(f"kill -9 during {games} scripted games")
            results = run_crash(games, args.seed, workdir)
            ok &= all(r.ok for r in results)
            report += crash_report(results)
        if "live" in parts:
            print(f"{plan.clients} live clients, {plan.rate:g} actions/s, {plan.duration_s:g} s")
            run = run_live(plan.clients, plan.rate, plan.duration_s, args.seed, workdir)
            ok &= run.ok
            report += live_report(run)
        if "faults" in parts:
            print(f"box faults during play, {plan.fault_rounds} round(s)")
            cases = run_faults(plan.fault_rounds, args.seed, workdir)
            ok &= all(c.ok for c in cases)
            report += faults_report(cases)
    print()
    print("\n".join(report))
    elapsed = time.monotonic() - started
    print(f"{'PASSED' if ok else 'FAILED'} in {elapsed:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
