"""``diablotin bench all``: the one table.

- **action -> dashboard** with 1, 10, 50 and 100 live clients: a real ``diablotin serve``
  (simulated box, temporary data dir, 127.0.0.1); a referee enters tail-tile actions over
  HTTP (placements and undos, about 20 a second); each client is a live stream
  (``/stream?topics=game:<id>``, ``bench web``'s client process). Latency is from the
  moment the action's request is sent to the moment a client has the event, both on
  ``time.monotonic`` (one clock for the machine): it includes the request, the rules,
  the journal's fsync and the fan-out.
- **action acknowledged**: the same requests' round trip to their 200 (all client counts):
  where the dashboard's time goes when it is not the fan-out.
- **where an action's time goes** (``bench stages``, an in-process server with 0, 50 and 100
  phones): acknowledged p50/p99 per phone count, each stage's time on the request thread
  with 50 phones (parse, rules, commit, publish, reply), the raw SQLite commit floor
  measured in the same run (WAL, ``synchronous=FULL``, one 300-byte row), the same commit
  behind the same waitress server with no app (the least an acknowledged action can
  cost through it), and the ratios; with ``--pi-class`` the floors are slowed as the
  server is.
- **naive baseline**, in the same server run: a page polling ``GET /api/games/<id>`` once
  a second, latency from the action to the first poll showing its version, side by side
  with one live stream on the same actions, and their ratio.
- **tap -> coil** (server time: ``Service.press`` to the mock coil pin high),
  **sauteur sim games/s**: ``bench service``'s run.
- **idle CPU** of the running server over N s (``/proc/<pid>/stat`` utime+stime, with a
  tail-tile and a sauteur game open, no page), **RSS** idle and with 100 clients
  (``/proc/<pid>/status``), **start-up** (process start -> first 200 from ``/api/games``).
- **engines**: ``bench tails``'s full-board scoring, ``bench teufel``'s random games
  replayed through ``apply``.
- **camera**: ``bench camera``'s face reader on fresh 640×480 renders, one OpenCV thread.

``--quick`` shortens every phase (idle CPU over 3 s instead of 60 s). Exit status 1 when a
target is missed or a measurement failed (an action refused, an event lost).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller import reliability as rel
from controller.bench import kind_benches
from controller.games import registry

CLIENT_COUNTS = (1, 10, 50, 100)
TARGET_COIL_MS = 10.0


@dataclass(frozen=True)
class Targets:
    """What each judged row must meet: on this machine, or ``--pi-class``."""

    latency_ms: dict[int, float]
    """action -> dashboard p99 per client count"""
    ack_p50_ms: float
    ack_p99_ms: float
    idle_cpu: float
    start_s: float
    rss_mb: float


LAPTOP = Targets({1: 10.0, 10: 10.0, 50: 10.0, 100: 15.0}, 1.5, 5.0, 1.0, 2.0, 50.0)
PI_CLASS = Targets({1: 60.0, 10: 60.0, 50: 60.0, 100: 90.0}, 10.0, 25.0, 2.0, 5.0, 50.0)
POLL_S = 1.0
"""The naive page's polling period (s)."""

LATENCY = {n: f"action -> dashboard, {n} client{'s' if n > 1 else ''} (ms)" for n in CLIENT_COUNTS}
ACK = "  action acknowledged, HTTP 200 (ms)"
POLLING = "baseline: page polling 1/s (ms)"
POLLING_LIVE = "  same actions, 1 live stream (ms)"
RATIO = "  polling / live stream (x)"
STAGE_PHONES = (0, 50, 100)
ACKED = {n: f"action acknowledged, {n} phones, in-process (ms)" for n in STAGE_PHONES}
STAGE = {
    stage: f"  stage with 50 phones: {stage} (ms)"
    for stage in ("parse", "rules", "commit", "publish", "reply", "server CPU")
}
FLOOR = "  raw SQLite commit, same run (ms)"
FLOOR_RATIO = "  acknowledged / commit, 50 phones (x)"
HTTP_FLOOR = "  waitress + commit, no app, same run (ms)"
HTTP_FLOOR_RATIO = "  acknowledged / waitress + commit (x)"
COIL = "tap -> coil high, server time (ms)"
IDLE = "idle CPU of diablotin serve (%)"
RSS_IDLE = "server RSS idle (MB)"
RSS_BUSY = "server RSS, 100 clients (MB)"
START = "start-up to first 200 (s)"
SIM = f"{registry.on_box().name} sim, rule A (games/s, all cores)"
CAMERA = "camera: read a 640x480 frame, 1 core (ms)"


ROWS = (
    *LATENCY.values(),
    ACK,
    POLLING,
    POLLING_LIVE,
    RATIO,
    *ACKED.values(),
    *STAGE.values(),
    FLOOR,
    FLOOR_RATIO,
    HTTP_FLOOR,
    HTTP_FLOOR_RATIO,
    COIL,
    IDLE,
    RSS_IDLE,
    RSS_BUSY,
    START,
    SIM,
    *(bench.ENGINE_ROW for bench in kind_benches("ENGINE_ROW")),
    CAMERA,
)
"""Every row of the table, in order (the smoke test checks them all)."""


@dataclass(frozen=True)
class Sizes:
    actions: int
    baseline_actions: int
    idle_s: float
    starts: int
    coil_samples: int
    camera_reads: int = 200
    stage_actions: int = 300
    quick: bool = False
    """The kinds' engine rows (:func:`~controller.bench.kind_benches`) take their short sizes."""


FULL = Sizes(
    actions=200,
    baseline_actions=30,
    idle_s=60.0,
    starts=3,
    coil_samples=200,
)
QUICK = Sizes(
    actions=20,
    baseline_actions=3,
    idle_s=3.0,
    starts=1,
    coil_samples=10,
    camera_reads=20,
    stage_actions=10,
    quick=True,
)


@dataclass(frozen=True)
class Row:
    """One line: ``first`` is the p50 (or the value), ``second`` the p99 (or the max)."""

    name: str
    n: int
    first: float
    second: float | None = None
    target: str = "—"
    ok: bool | None = None


def judged(name: str, n: int, value: float, limit: float, *, above: bool = False) -> Row:
    """A single value against a limit (below it, or ``above`` it)."""
    ok = value > limit if above else value < limit
    return Row(name, n, value, None, f"{'>' if above else '<'} {limit:g}", ok)


def spread(name: str, values: list[float], limit: float | None = None) -> Row:
    """p50 and p99 of ``values``, judged on the p99 against ``limit``."""
    p99 = rel.quantile(values, 0.99)
    if limit is None:
        return Row(name, len(values), rel.quantile(values, 0.5), p99)
    return Row(name, len(values), rel.quantile(values, 0.5), p99, f"p99 < {limit:g}", p99 < limit)


class ServerBench:
    """One ``diablotin serve`` run: start-ups, idle, latencies, baseline."""

    def __init__(
        self,
        sizes: Sizes,
        seed: int,
        workdir: Path,
        log: Callable[[str], None],
        targets: Targets = LAPTOP,
    ):
        self.sizes = sizes
        self.targets = targets
        self.seed = seed
        self.log = log
        self.server = rel.ServeProcess(workdir / "serve", seed=seed, installed=True)
        self.rows: list[Row] = []
        self.errors: list[str] = []
        self.walk = rel.Walk(random.Random(seed), players=4)
        self.game_id = 0
        self.ack_ms: list[float] = []
        self.referee: rel.Api | None = None

    def run(self) -> None:
        starts = []
        for attempt in range(self.sizes.starts):
            starts.append(self.server.start())
            if attempt < self.sizes.starts - 1:
                self.server.stop()
        try:
            row = judged(START, len(starts), statistics.median(starts), self.targets.start_s)
            self.rows.append(dataclasses.replace(row, second=max(starts)))
            self._idle()
            for count in CLIENT_COUNTS:
                self._latency(count)
            self.rows.append(spread(ACK, self.ack_ms))
            self._baseline()
        finally:
            status = self.server.stop()
            if status != 0:
                self.errors.append(f"diablotin serve exited with {status} on SIGTERM")

    def _idle(self) -> None:
        api = self.server.api
        game = api.call("POST", "/api/games", self.walk.body)
        self.game_id = int(game["view"]["id"])
        box = registry.on_box()  # the box's game: its toy hides, then sits still
        api.call("POST", "/api/games", {"kind": box.name, "options": dict(box.long_game or {})})
        time.sleep(1.8)  # the simulated toy hides (1 s), the box sees the dice settle (0.5 s)
        pid, seconds = self.server.pid, self.sizes.idle_s
        self.log(f"idle CPU over {seconds:g} s")
        before, started = rel.cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        share = (rel.cpu_seconds(pid) - before) / (time.monotonic() - started) * 100
        self.rows.append(judged(IDLE, round(seconds), share, self.targets.idle_cpu))
        self.rows.append(judged(RSS_IDLE, 1, rel.rss_mb(pid), self.targets.rss_mb))

    def _enter(self, times: list[float], acks: list[float] | None = None) -> dict[int, float]:
        """Enter actions at ``times``; returns their send times by version (and adds each
        one's request -> 200 time to ``acks``)."""
        sent: dict[int, float] = {}
        answered: dict[int, float] = {}
        try:
            rel.enter_actions(self._referee(), self.game_id, self.walk, times, sent, answered)
        except rel.HttpError as exc:
            self.errors.append(f"an action was refused: {exc}")
        if acks is not None:
            acks += [(answered[v] - sent[v]) * 1000 for v in answered]
        return sent

    def _referee(self) -> rel.Api:
        """The referee's page: one kept connection, short answers (its stream is live)."""
        if self.referee is None or self.referee.port != self.server.port:
            self.referee = rel.Api(self.server.port, keep_alive=True, minimal=True)
        return self.referee

    def _version(self) -> int:
        view = self.server.api.call("GET", f"/api/games/{self.game_id}", referee=False)
        return int(view["view"]["version"])

    def _latency(self, count: int) -> None:
        self.log(f"{count} live client(s), {self.sizes.actions} actions")
        child, pipe = rel.spawn_clients(self.server.port, count, f"game:{self.game_id}")
        first = self._version() + 1
        rng = random.Random(self.seed + count)
        start = time.monotonic() + 0.1
        times = [start + i * 0.05 + rng.uniform(0, 0.02) for i in range(self.sizes.actions)]
        sent = self._enter(times, self.ack_ms)
        time.sleep(0.3)
        if count == CLIENT_COUNTS[-1]:
            self.rows.append(
                judged(RSS_BUSY, count, rel.rss_mb(self.server.pid), rel.TARGET_RSS_MB)
            )
        latencies = self._latencies(rel.stop_clients(child, pipe), sent, first)
        self.rows.append(spread(LATENCY[count], latencies, self.targets.latency_ms[count]))
        self._drain()

    def _drain(self) -> None:
        """A few more actions after the clients left: writing them to the closed sockets
        ends those streams, so their server threads are free for the next phase."""
        self._enter([time.monotonic() + i * 0.05 for i in range(3)])
        time.sleep(0.2)

    def _latencies(
        self, seen: dict[int, list[tuple[int, float]]], sent: dict[int, float], first: int
    ) -> list[float]:
        """Receipt minus send time, every client, every version; a gap is an error."""
        last = max(sent, default=first - 1)
        for client, received in seen.items():
            gap = rel.version_gaps([v for v, _ in received], first, last)
            if gap is not None:
                self.errors.append(f"{len(seen)} clients: client {client}: {gap}")
                break
        return [
            (t - sent[v]) * 1000 for received in seen.values() for v, t in received if v in sent
        ]

    def _baseline(self) -> None:
        count = self.sizes.baseline_actions
        self.log(f"baseline: a page polling once a second, {count} actions")
        polls: list[tuple[float, int]] = []
        stop = threading.Event()
        poller = threading.Thread(target=self._poll, args=(polls, stop), daemon=True)
        child, pipe = rel.spawn_clients(self.server.port, 1, f"game:{self.game_id}")
        first = self._version() + 1
        poller.start()
        rng = random.Random(self.seed)
        times, at = [], time.monotonic() + POLL_S
        for _ in range(count):
            at += rng.uniform(0.6, 1.4)  # out of step with the poll
            times.append(at)
        sent = self._enter(times)
        time.sleep(POLL_S + 0.3)
        stop.set()
        poller.join()
        live = self._latencies(rel.stop_clients(child, pipe), sent, first)
        polled = []
        for version, at in sorted(sent.items()):
            shown = [t for t, v in polls if t > at and v >= version]
            if shown:
                polled.append((min(shown) - at) * 1000)
            else:
                self.errors.append(f"the polling page never showed version {version}")
        self.rows.append(spread(POLLING, polled))
        self.rows.append(spread(POLLING_LIVE, live))
        ratio_50 = rel.quantile(polled, 0.5) / rel.quantile(live, 0.5)
        ratio_99 = rel.quantile(polled, 0.99) / rel.quantile(live, 0.99)
        self.rows.append(Row(RATIO, len(polled), ratio_50, ratio_99))

    def _poll(self, polls: list[tuple[float, int]], stop: threading.Event) -> None:
        """The naive page: ``GET /api/games/<id>`` every second; (receipt time, version)."""
        while not stop.is_set():
            asked = time.monotonic()
            polls.append((time.monotonic(), self._version()))
            stop.wait(max(0.0, asked + POLL_S - time.monotonic()))


def stage_rows(
    sizes: Sizes,
    log: Callable[[str], None],
    targets: Targets = LAPTOP,
    confine: Callable[[int], None] | None = None,
) -> list[Row]:
    """``bench stages``: acknowledged per phone count, the stages with 50 phones, the floor."""
    from . import stages

    results = stages.run(sizes.stage_actions, 0.05, STAGE_PHONES, log, confine=confine)
    rows = []
    for count, result in results.items():
        ack = result["acknowledged"]
        p50, p99 = rel.quantile(ack, 0.5), rel.quantile(ack, 0.99)
        ok = p50 <= targets.ack_p50_ms and p99 <= targets.ack_p99_ms
        target = f"<= {targets.ack_p50_ms:g}|{targets.ack_p99_ms:g}"
        rows.append(Row(ACKED[count], len(ack), p50, p99, target, ok))
    middle = results[50]
    rows += [spread(name, middle["stages"][stage]) for stage, name in STAGE.items()]
    rows.append(spread(FLOOR, middle["floor"]))
    floor_p50 = rel.quantile(middle["floor"], 0.5)
    floor_p99 = rel.quantile(middle["floor"], 0.99)
    ack_p50 = rel.quantile(middle["acknowledged"], 0.5)
    ack_p99 = rel.quantile(middle["acknowledged"], 0.99)
    rows.append(Row(FLOOR_RATIO, len(middle["floor"]), ack_p50 / floor_p50, ack_p99 / floor_p99))
    rows.append(spread(HTTP_FLOOR, middle["http_floor"]))
    http_p50 = rel.quantile(middle["http_floor"], 0.5)
    http_p99 = rel.quantile(middle["http_floor"], 0.99)
    rows.append(
        Row(HTTP_FLOOR_RATIO, len(middle["http_floor"]), ack_p50 / http_p50, ack_p99 / http_p99)
    )
    return rows


def engine_rows(sizes: Sizes, seed: int) -> list[Row]:
    """Tap -> coil and sim games/s (``bench service``), each kind's engine row (tails
    scoring, Teufel apply: :func:`~controller.bench.kind_benches`), the camera."""
    from . import service

    press_ms, _edges, games_per_s = service.run(sizes.coil_samples)
    rows = [
        spread(COIL, press_ms, TARGET_COIL_MS),
        judged(SIM, 4000, games_per_s, service.TARGET_GAMES_PER_S, above=True),
    ]
    for bench in kind_benches("ENGINE_ROW"):
        samples = bench.engine_samples(sizes.quick, seed)
        rows.append(spread(bench.ENGINE_ROW, samples, bench.ENGINE_TARGET_MS))
    from . import camera

    with contextlib.suppress(ImportError):  # no [camera] extra: the row is reported missing
        rows.append(spread(CAMERA, camera.read_ms(sizes.camera_reads, seed), camera.TARGET_MS))
    return rows


def measure(
    quick: bool,
    seed: int,
    workdir: Path,
    log: Callable[[str], None] = print,
    confine: Callable[[int], None] | None = None,
) -> tuple[list[Row], list[str]]:
    """Run everything; returns the rows in :data:`ROWS` order and the errors met.
    ``confine(pid)`` (``--pi-class``) slows each server process it is given, and the
    Pi-class targets apply."""
    sizes = QUICK if quick else FULL
    targets = LAPTOP if confine is None else PI_CLASS
    bench = ServerBench(sizes, seed, workdir, log, targets)
    bench.server.confine = confine
    try:
        bench.run()
    except (OSError, RuntimeError, rel.HttpError) as exc:
        bench.errors.append(f"{type(exc).__name__}: {exc}")
    staged: list[Row] = []
    try:
        staged = stage_rows(sizes, log, targets, confine)
    except (OSError, RuntimeError) as exc:
        bench.errors.append(f"stages: {type(exc).__name__}: {exc}")
    log(f"tap -> coil ({sizes.coil_samples} samples) and engines")
    rows = {row.name: row for row in [*bench.rows, *staged, *engine_rows(sizes, seed)]}
    return [rows[name] for name in ROWS if name in rows], bench.errors


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.2f}"


def format_table(rows: list[Row]) -> str:
    """The table: measure, n, p50 (or value), p99 (or max), target, verdict."""
    width = max(len(name) for name in ROWS)
    head = f"{'measure':<{width}} {'n':>6} {'p50|value':>10} {'p99|max':>9}  {'target':<15} ok"
    lines = [head, "-" * len(head)]
    for row in rows:
        verdict = {True: "ok", False: "MISS", None: ""}[row.ok]
        lines.append(
            f"{row.name:<{width}} {row.n:>6} {_number(row.first):>10} {_number(row.second):>9}"
            f"  {row.target:<15} {verdict}".rstrip()
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench all", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short phases (about 30 s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of every part (default 1)")
    parser.add_argument(
        "--pi-class",
        action="store_true",
        help="the servers as slow as a Raspberry Pi Zero 2 W (controller/bench/piclass.py)",
    )
    parser.add_argument(
        "--pi-method",
        choices=("hog", "cgroup", "duty"),  # piclass.METHODS (imported only for --pi-class)
        default="hog",
        help="--pi-class's throttle: a real-time hog on the server's core, a cgroup quota "
        "(held 20-90 ms at a time), or a SIGSTOP/SIGCONT duty cycle (which starves a process "
        "with many threads): see piclass",
    )
    args = parser.parse_args(argv)
    load = os.getloadavg()
    confinement = None
    if args.pi_class:
        from . import piclass

        confinement = piclass.calibrated(method=args.pi_method)[0]
    try:
        with tempfile.TemporaryDirectory(prefix="diablotin-bench-all-") as tmp:
            confine = None if confinement is None else confinement.add
            rows, errors = measure(args.quick, args.seed, Path(tmp), confine=confine)
    finally:
        if confinement is not None:
            confinement.close()  # its figures stay readable
    after = os.getloadavg()
    print()
    flags = (" --quick" if args.quick else "") + (" --pi-class" if args.pi_class else "")
    print(
        f"diablotin bench all{flags}: {os.cpu_count()} cores, "
        f"load average {load[0]:.2f} at start, {after[0]:.2f} at end"
    )
    if confinement is not None:
        print(f"pi-class: {confinement.method}; servers {confinement.throttled().said()}")
    print(format_table(rows))
    missing = [name.strip() for name in ROWS if name not in {row.name for row in rows}]
    for error in [*errors, *(f"no number for {name}" for name in missing)]:
        print(f"error: {error}")
    missed = [row.name.strip() for row in rows if row.ok is False]
    if missed:
        print("targets missed: " + "; ".join(missed))
    return 1 if errors or missed or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
