"""``diablotin bench stages``: where an accepted action's time goes, stage by stage, beside
the raw commit floor measured in the same run.

A real service (simulated box, temporary data dir) and the real server (waitress, as
``diablotin serve`` sets it up) run in a process of their own on loopback. The referee is
another process: one keep-alive connection with the PIN header, entering tail-tile placements and
undos (``reliability``'s walk), about 20 a second. 0, 50 and 100 phones hold live streams
(``bench web``'s client process). Each accepted action is timed on the server's request
thread with ``time.perf_counter``, around the functions that do each stage:

- **parse**: the request in -> the rules called (Flask, the PIN gate, the JSON body);
- **rules**: ``Table.check`` (the engine's ``apply``);
- **commit**: ``Journal.append`` (``BEGIN IMMEDIATE`` ... ``COMMIT``, the fsync);
- **publish**: ``Table._set`` (listeners, the public view, the hand-off to the hub);
- **reply**: the referee's payload and the response;
- **server**: the whole request in the WSGI app;
- **server CPU**: the request thread's CPU in it (``time.thread_time``: user and system,
  the fsync's share in the kernel too); unlike the wall-clock stages it hardly moves when
  other work shares the machine;
- **acknowledged**: the referee's round trip, request sent -> 200 read (client side);
- **a page's GET meanwhile**: a spectator's page asking for the game's view every 20 ms
  while the actions go on (is the page still responsive when a commit is slow?).

**Floors**, measured right after each action in a process of their own that is slowed
as the server is (``--pi-class``) and sees the same disk (``--fsync-delay``):

- **commit floor**: one 300-byte row per transaction into its own SQLite file in the same
  data dir (WAL, ``synchronous=FULL``), timed around ``BEGIN IMMEDIATE`` ... ``COMMIT``:
  the least an acknowledged action can cost;
- **HTTP + commit floor**: the referee's round trip to that process, where the same
  waitress server as ``diablotin serve``'s (:func:`controller.server.make_server`) runs a
  WSGI app that does nothing but that commit: the least an acknowledged action can cost
  through this server, with no Flask, no rules and no view.

The ratios acknowledged / each floor are printed. Measured beside the server, a floor
shares its core with it under ``--pi-class`` (a spectator's GET every 20 ms keeps a slowed
server busy), so the two floors are also measured first **alone**: the floors' process
with nothing else running, slowed the same way.

Stages are wall-clock on the request thread: a stage that waits for the GIL includes the
wait. Nothing here changes what the service does.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from . import piclass, slowdisk

if TYPE_CHECKING:
    from flask import Flask

PIN = "246810"
PHONES = (0, 50, 100)
STAGES = ("parse", "rules", "commit", "publish", "reply", "server", "server CPU")
FLOOR_ROW = b"x" * 300


# --- the referee (child process) ------------------------------------------------------------


class StageResult(TypedDict):
    """One phone count of :func:`run` (durations in ms)."""

    stages: dict[str, list[float]]
    """Each stage's durations, per action."""
    acknowledged: list[float]
    floor: list[float]
    """The commit floor, in the floors' process."""
    http_floor: list[float]
    """The referee's round trip to the floors' process (waitress and that commit)."""
    views: list[float]
    errors: list[str]


def _referee(
    port: int, gid: int, count: int, interval_s: float, floor_port: int, pipe: Connection
) -> None:
    """Enter ``count`` actions; after each, one round trip to the floor server. Sends
    ``(round trips ms, (commit floor ms, HTTP + commit floor ms), errors)``."""
    import random

    from controller.reliability.common import Api, HttpError, send_op
    from controller.reliability.live import Walk

    api = Api(port, PIN, keep_alive=True, minimal=True)  # as the page with its stream live
    walk = Walk(random.Random(5))
    floor_http = http.client.HTTPConnection("127.0.0.1", floor_port, timeout=60)
    trips: list[float] = []
    floor: list[float] = []
    http_floor: list[float] = []
    errors: list[str] = []
    next_at = time.monotonic()
    for _ in range(count):
        next_at += interval_s
        op = walk.next()
        started = time.perf_counter()
        try:
            send_op(api, gid, op)
        except (HttpError, OSError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            if isinstance(exc, OSError):
                break
            continue
        trips.append((time.perf_counter() - started) * 1000)
        commit_ms, trip_ms = _floor_trip(floor_http)
        floor.append(commit_ms)
        http_floor.append(trip_ms)
        time.sleep(max(0.0, next_at - time.monotonic()))
    floor_http.close()
    pipe.send((trips, (floor, http_floor), errors))


def _floor_trip(conn: http.client.HTTPConnection) -> tuple[float, float]:
    """One round trip to the floors' process: (its commit, the whole trip), ms."""
    started = time.perf_counter()
    conn.request("POST", "/", body=FLOOR_ROW, headers={"Content-Type": "text/plain"})
    answer = conn.getresponse().read()
    trip_ms = (time.perf_counter() - started) * 1000
    return float(json.loads(answer)["commit_ms"]), trip_ms


def _floor_server(floor_dir: str, pipe: Connection) -> None:
    """The floors' process: the dashboard's waitress server (:func:`controller.server.make_server`)
    running a WSGI app that commits each request's body as one row and answers
    ``{"commit_ms": ...}``. Sends ``(pid, port)``, then serves until the pipe closes."""
    from controller import server as server_module

    db = sqlite3.connect(
        Path(floor_dir) / "floor.sqlite3", isolation_level=None, check_same_thread=False
    )
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS t (x BLOB)")
    lock = threading.Lock()

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        row = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        with lock:
            started = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t VALUES (?)", (row,))
            db.execute("COMMIT")
            took = (time.perf_counter() - started) * 1000
        body = json.dumps({"commit_ms": took}).encode()
        start_response(
            "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        )
        return [body]

    srv = server_module.make_server(app, "127.0.0.1", 0, 4)
    threading.Thread(target=srv.serve, daemon=True).start()
    pipe.send((os.getpid(), server_module.bound_port(srv)))
    with contextlib.suppress(EOFError):
        pipe.recv()
    srv.stop()
    db.close()


def _reader(port: int, gid: int, pipe: Connection) -> None:
    """A spectator's page asking for the game's view every 20 ms until told to stop; sends
    the round trips (ms)."""
    from controller.reliability.common import Api

    api = Api(port, PIN, keep_alive=True)
    trips: list[float] = []
    while not pipe.poll(0.02):
        started = time.perf_counter()
        try:
            api.call("GET", f"/api/games/{gid}", referee=False)
        except OSError:
            break
        trips.append((time.perf_counter() - started) * 1000)
    pipe.send(trips)


# --- the server's stages (this process) -----------------------------------------------------


class StageTimer:
    """Wraps the functions of each stage; keeps one record per accepted action."""

    def __init__(self) -> None:
        self.records: list[dict[str, float]] = []
        self._local = threading.local()

    def _now(self) -> dict[str, float] | None:
        return getattr(self._local, "marks", None)

    def wrap(self, owner: object, name: str, stage: str) -> Callable[[], None]:
        """Time ``owner.name`` as ``stage`` (start and end marks); returns the undo."""
        original = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            marks = self._now()
            if marks is None:
                return original(*args, **kwargs)
            marks.setdefault(stage + ".start", time.perf_counter())
            try:
                return original(*args, **kwargs)
            finally:
                marks[stage + ".end"] = time.perf_counter()

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)

    def wsgi(self, app: Flask) -> WSGIApplication:
        """The app's ``wsgi_app``, timing the whole request of every action."""
        inner = app.wsgi_app

        def timed(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
            path = str(environ.get("PATH_INFO", ""))
            if not (path.endswith("/actions") or path.endswith("/undo")):
                return inner(environ, start_response)
            self._local.marks = marks = {"in": time.perf_counter(), "cpu.in": time.thread_time()}
            try:
                return inner(environ, start_response)
            finally:
                marks["out"] = time.perf_counter()
                marks["cpu.out"] = time.thread_time()
                self._local.marks = None
                if "commit.end" in marks:
                    self.records.append(marks)

        return timed

    def stages_ms(self) -> dict[str, list[float]]:
        """Each stage's durations (ms) over the kept records."""
        out: dict[str, list[float]] = {stage: [] for stage in STAGES}
        for m in self.records:
            first = m.get("rules.start", m["commit.start"])
            out["parse"].append((first - m["in"]) * 1000)
            out["rules"].append((m.get("rules.end", first) - first) * 1000)
            out["commit"].append((m["commit.end"] - m["commit.start"]) * 1000)
            published = m.get("publish.end", m["commit.end"])
            out["publish"].append((published - m["commit.end"]) * 1000)
            out["reply"].append((m["out"] - published) * 1000)
            out["server"].append((m["out"] - m["in"]) * 1000)
            out["server CPU"].append((m["cpu.out"] - m["cpu.in"]) * 1000)
        return out


@contextmanager
def instrumented(timer: StageTimer) -> Iterator[None]:
    from controller.journal import Journal
    from controller.table import Table

    undo = [
        timer.wrap(Table, "check", "rules"),
        timer.wrap(Journal, "append", "commit"),
        timer.wrap(Table, "_set", "publish"),
    ]
    try:
        yield
    finally:
        for u in undo:
            u()


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def _server(data_dir: str, max_phones: int, pipe: Connection) -> None:
    """The server process: a service and the dashboard, instrumented; answers ``("game",)``
    with a new tail-tile game's id, ``("records",)`` with the stage records since the last
    ask, ``("stop",)`` by stopping."""
    from controller import server as server_module
    from controller.config import Config
    from controller.reliability.live import walk_body
    from controller.service import Service
    from controller.web import create_app

    config = Config(data_dir=Path(data_dir))
    config.server.referee_pin = PIN
    service = Service(config, hide_delay_s=3600.0, think_s=3600.0, face_delay_s=3600.0)
    service.start()
    app = create_app(service, max_streams=max_phones + 8)
    timer = StageTimer()
    # why the ignore below: Flask's documented way to wrap its WSGI app
    app.wsgi_app = timer.wsgi(app)  # type: ignore[method-assign, assignment]
    srv = server_module.make_server(app, "127.0.0.1", 0, config.server.threads)
    threading.Thread(target=srv.serve, daemon=True).start()
    pipe.send((os.getpid(), server_module.bound_port(srv)))
    try:
        with instrumented(timer):
            while (message := pipe.recv()) != ("stop",):
                if message == ("game",):
                    body = walk_body(4)
                    pipe.send(service.new_game(body["kind"], body["options"]))
                elif message[0] == "drain":  # end the streams of phones that left
                    service.hub.publish(f"game:{message[1]}", {"drain": True})
                    pipe.send(True)
                else:
                    pipe.send(timer.stages_ms())
                    timer.records.clear()
    finally:
        service.hub.close_all()
        time.sleep(0.2)
        srv.stop()
        service.stop()


def _floors_process(ctx: SpawnContext, data_dir: Path) -> tuple[BaseProcess, Connection]:
    """The floors' process (:func:`_floor_server`) started, and our end of its pipe."""
    ours, theirs = ctx.Pipe()
    floors = ctx.Process(target=_floor_server, args=(str(data_dir), theirs), daemon=True)
    floors.start()
    return floors, ours


def floors_alone(
    actions: int,
    interval_s: float,
    *,
    folder: Path | None = None,
    confine: Callable[[int], None] | None = None,
    server_env: dict[str, str] | None = None,
) -> tuple[list[float], list[float]]:
    """The floors with nothing else running: the floors' process alone (confined with
    ``confine``, on the disk ``server_env`` makes), ``actions`` round trips from this
    process ``interval_s`` apart. Its SQLite file is in ``folder`` (default: a temporary
    one, removed after). Returns (commit floor ms, HTTP + commit floor ms)."""
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="diablotin-floors-") as tmp:
            return floors_alone(
                actions, interval_s, folder=Path(tmp), confine=confine, server_env=server_env
            )

    data_dir = folder
    ctx = multiprocessing.get_context("spawn")
    with _environment(server_env or {}):
        floors, ours = _floors_process(ctx, data_dir)
    try:
        if not ours.poll(60):
            raise RuntimeError("the floors' process did not start")
        pid, port = ours.recv()
        if confine is not None:
            confine(pid)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        commits: list[float] = []
        trips: list[float] = []
        next_at = time.monotonic()
        for _ in range(actions):
            next_at += interval_s
            commit_ms, trip_ms = _floor_trip(conn)
            commits.append(commit_ms)
            trips.append(trip_ms)
            time.sleep(max(0.0, next_at - time.monotonic()))
        conn.close()
    finally:
        ours.close()
        floors.join(10)
        if floors.is_alive():
            floors.kill()
    return commits, trips


def run(
    actions: int,
    interval_s: float,
    phones: tuple[int, ...],
    log: Callable[[str], None],
    *,
    confine: Callable[[int], None] | None = None,
    server_env: dict[str, str] | None = None,
) -> dict[int, StageResult]:
    """Every phone count in turn on one server process; returns, per count, the stage
    durations, the round trips and the floors (ms lists) and the errors. ``confine(pid)``
    is called with the server's pid and the floors' process's (``--pi-class``);
    ``server_env`` is added to both processes' environment (an ``LD_PRELOAD`` shim)."""
    from controller.reliability.live import spawn_clients, stop_clients

    data_dir = Path(tempfile.mkdtemp(prefix="diablotin-stages-"))
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with _environment(server_env or {}):
        server = ctx.Process(
            target=_server, args=(str(data_dir), max(phones, default=0), theirs), daemon=True
        )
        server.start()
        floors, floors_end = _floors_process(ctx, data_dir)
    results: dict[int, StageResult] = {}
    try:
        if not ours.poll(60) or not floors_end.poll(60):
            raise RuntimeError("the server process or the floors' did not start")
        pid, port = ours.recv()
        floors_pid, floors_port = floors_end.recv()
        if confine is not None:
            confine(pid)
            confine(floors_pid)
        for count in phones:
            ours.send(("game",))
            gid = ours.recv()
            log(f"{count} phones, {actions} actions")
            streams = spawn_clients(port, count, f"game:{gid}") if count else None
            ours.send(("records",))
            ours.recv()  # drop what the set-up did
            reader_end, reader_pipe = ctx.Pipe()
            reader = ctx.Process(target=_reader, args=(port, gid, reader_pipe))
            reader.start()
            referee_end, referee_pipe = ctx.Pipe()
            referee = ctx.Process(
                target=_referee, args=(port, gid, actions, interval_s, floors_port, referee_pipe)
            )
            referee.start()
            trips, (floor, http_floor), errors = _receive(referee_end, referee)
            reader_end.send("stop")
            views = reader_end.recv() if reader_end.poll(30) else []
            reader.join(10)
            ours.send(("records",))
            stages = ours.recv()
            if streams is not None:
                stop_clients(*streams)
                ours.send(("drain", gid))
                ours.recv()
                time.sleep(0.2)
            results[count] = {
                "stages": stages,
                "acknowledged": trips,
                "floor": floor,
                "http_floor": http_floor,
                "views": views,
                "errors": errors,
            }
    finally:
        floors_end.close()
        floors.join(10)
        if floors.is_alive():
            floors.kill()
        if server.is_alive():
            ours.send(("stop",))
            server.join(15)
        if server.is_alive():
            server.kill()
            server.join(5)
        shutil.rmtree(data_dir, ignore_errors=True)
    return results


def _receive(
    pipe: Connection, process: BaseProcess
) -> tuple[list[float], tuple[list[float], list[float]], list[str]]:
    if not pipe.poll(600):
        process.kill()
        raise RuntimeError("the referee's process did not report")
    trips, floor, errors = pipe.recv()
    process.join(10)
    return trips, floor, errors


@contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    """``extra`` in ``os.environ`` while a child process is spawned."""
    saved = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def rows(results: dict[int, StageResult]) -> list[tuple[str, float, float]]:
    """(name, p50, p99) rows: per phone count, each stage, acknowledged, floor, ratio."""
    out: list[tuple[str, float, float]] = []
    for count, r in results.items():
        for stage, values in r["stages"].items():
            out.append((f"{count} phones: {stage}", quantile(values, 0.5), quantile(values, 0.99)))
        ack, floor = r["acknowledged"], r["floor"]
        out.append((f"{count} phones: acknowledged", quantile(ack, 0.5), quantile(ack, 0.99)))
        out.append((f"{count} phones: commit floor", quantile(floor, 0.5), quantile(floor, 0.99)))
        http_floor = r["http_floor"]
        out.append(
            (
                f"{count} phones: HTTP + commit floor",
                quantile(http_floor, 0.5),
                quantile(http_floor, 0.99),
            )
        )
        views = r["views"]
        out.append(
            (f"{count} phones: a page's GET meanwhile", quantile(views, 0.5), quantile(views, 0.99))
        )
        out.append(
            (
                f"{count} phones: acknowledged / floor (x)",
                quantile(ack, 0.5) / quantile(floor, 0.5),
                quantile(ack, 0.99) / quantile(floor, 0.99),
            )
        )
        out.append(
            (
                f"{count} phones: acknowledged / HTTP floor (x)",
                quantile(ack, 0.5) / quantile(http_floor, 0.5),
                quantile(ack, 0.99) / quantile(http_floor, 0.99),
            )
        )
    return out


def report(
    results: dict[int, StageResult], alone: tuple[list[float], list[float]] | None = None
) -> str:
    """The table of :func:`rows`; ``alone`` (:func:`floors_alone`) adds its two rows first."""
    table = rows(results)
    if alone is not None:
        table[:0] = [
            (f"floors alone: {name}", quantile(values, 0.5), quantile(values, 0.99))
            for name, values in zip(("commit floor", "HTTP + commit floor"), alone, strict=True)
        ]
    lines = [f"{'stage (ms)':<46}{'p50':>9}{'p99':>9}", "-" * 64]
    lines += [f"{name:<46}{p50:>9.2f}{p99:>9.2f}" for name, p50, p99 in table]
    errors = [e for r in results.values() for e in r["errors"]]
    if errors:
        lines.append(f"errors: {len(errors)} (first: {errors[0]})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench stages", description=__doc__)
    parser.add_argument("--actions", type=int, default=300, help="actions per phone count")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between actions")
    parser.add_argument(
        "--phones", type=int, nargs="+", default=list(PHONES), help="live streams to hold"
    )
    parser.add_argument(
        "--pi-class", action="store_true", help="the server as slow as a Pi Zero 2 W (piclass)"
    )
    parser.add_argument(
        "--pi-method",
        choices=piclass.METHODS,
        default="hog",
        help="--pi-class's throttle: a real-time hog on the server's core, a cgroup quota "
        "(held 20-90 ms at a time), or a SIGSTOP/SIGCONT duty cycle (which starves a process "
        "with many threads): see piclass",
    )
    parser.add_argument(
        "--fsync-delay", type=float, default=0.0, metavar="MS", help="a slow disk (slowdisk)"
    )
    args = parser.parse_args(argv)
    env = slowdisk.environment(args.fsync_delay) if args.fsync_delay > 0 else None
    confinement = piclass.calibrated(method=args.pi_method)[0] if args.pi_class else None
    try:
        print(f"the floors alone, {args.actions} round trips")
        alone = floors_alone(
            args.actions,
            args.interval,
            confine=confinement.add if confinement else None,
            server_env=env,
        )
        results = run(
            args.actions,
            args.interval,
            tuple(args.phones),
            print,
            confine=confinement.add if confinement else None,
            server_env=env,
        )
    finally:
        if confinement is not None:
            print(f"pi-class: the server was {confinement.throttled().said()}")
            confinement.close()
    print(report(results, alone))
    return 1 if any(r["errors"] for r in results.values()) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
