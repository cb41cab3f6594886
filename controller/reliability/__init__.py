"""``diablotin reliability [--short]``: kill -9, live load, box faults and attacks, end to end.

Five parts, each bounded in count and time; every byte goes to 127.0.0.1.

1. **crash** — scripted games of all three kinds against a real ``diablotin serve``
   process (simulated box), each killed with SIGKILL at a random point, then the server
   is restarted and compared. Each kind's scenario is its own (``GameKind.crash_script``):
   tail-tile and Teufel games are seeded random legal action sequences computed with the
   engines (with undos), entered over the HTTP API; the Diable sauteur is played by the
   computer on the simulated box. A game passes when
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
4. **attack** — hostile clients against real ``diablotin serve`` processes, from many
   loopback source addresses: a flood of idle live streams and slow-header connections,
   PIN guessing, a stale session after logout, hostile requests (each must answer 4xx),
   the server's memory over thousands of them, a hostile title in the game's page, and
   bad configs, a second server and an emptied journal at start-up (:mod:`.attack`); and
   server G's data, text and config attacks (:mod:`.attack_data`: a sessions file that
   cannot be written, invisible and look-alike names, thousands of renames, a WAL deleted
   after kill -9, damaged rows, configs too deep or endless, ``replay FIFO``).
   Each attack is reported held or failed with its figures.
5. **coils** — how long a coil really stays on: 100 ms pulses on thread-timed mock pins,
   idle and under 4 busy threads, read from the pin's own change times (:mod:`.coils`):
   held when no pulse is over 100 ms, no 10 s window over 10 % and no gap under 250 ms.

Exit status 0 when every check passed, 1 otherwise, 2 for bad arguments.

Modules: :mod:`.common` (the server process, the API client), :mod:`.crash`,
:mod:`.live`, :mod:`.faults`, :mod:`.attack`, :mod:`.coils` (the parts), :mod:`.report`
(the summary lines).
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .attack import ATTACKS, FULL_ATTACK, SHORT_ATTACK, Attack, AttackPlan, run_attack
from .coils import CoilRun, coils_report, run_coils
from .common import (
    KINDS,
    PIN,
    Api,
    HttpError,
    Log,
    Op,
    ServeProcess,
    StreamWatcher,
    cpu_seconds,
    free_port,
    rss_mb,
    send_op,
)
from .crash import (
    OPS_CAP,
    CrashGame,
    acked_problems,
    run_crash,
    scenario,
    stream_problems,
    views_by_version,
)
from .faults import FAULTS, FaultCase, FaultRig, run_faults
from .live import (
    RSS_GROWTH_LIMIT_MB,
    TARGET_RSS_MB,
    LiveRun,
    Walk,
    enter_actions,
    run_live,
    spawn_clients,
    stop_clients,
    version_gaps,
)
from .report import attack_report, crash_report, faults_report, live_report, quantile

__all__ = [
    "ATTACKS",
    "FAULTS",
    "FULL",
    "FULL_ATTACK",
    "KINDS",
    "OPS_CAP",
    "PARTS",
    "PIN",
    "RSS_GROWTH_LIMIT_MB",
    "SHORT",
    "SHORT_ATTACK",
    "TARGET_RSS_MB",
    "Api",
    "Attack",
    "AttackPlan",
    "CoilRun",
    "CrashGame",
    "FaultCase",
    "FaultRig",
    "HttpError",
    "LiveRun",
    "Log",
    "Op",
    "Plan",
    "ServeProcess",
    "StreamWatcher",
    "Walk",
    "acked_problems",
    "attack_report",
    "coils_report",
    "cpu_seconds",
    "crash_report",
    "enter_actions",
    "faults_report",
    "free_port",
    "live_report",
    "main",
    "quantile",
    "rss_mb",
    "run_attack",
    "run_coils",
    "run_crash",
    "run_faults",
    "run_live",
    "scenario",
    "send_op",
    "spawn_clients",
    "stop_clients",
    "stream_problems",
    "version_gaps",
    "views_by_version",
]

# --- the command ------------------------------------------------------------------------------


PARTS = ["crash", "live", "faults", "attack", "coils"]


@dataclass(frozen=True)
class Plan:
    games: int
    clients: int
    rate: float
    duration_s: float
    fault_rounds: int
    attack: AttackPlan
    coil_s: float
    """Seconds of pulses per load in the coils part."""


FULL = Plan(
    games=100,
    clients=100,
    rate=20.0,
    duration_s=60.0,
    fault_rounds=3,
    attack=FULL_ATTACK,
    coil_s=30.0,
)
SHORT = Plan(
    games=6,
    clients=20,
    rate=20.0,
    duration_s=10.0,
    fault_rounds=1,
    attack=SHORT_ATTACK,
    coil_s=6.0,
)


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
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument(
        "--only", choices=PARTS, action="append", help="run this part only (repeat for more)"
    )
    parser.add_argument("--games", type=int, help="kill -9 games (default 100; short 6)")
    parser.add_argument("--workdir", help="keep data and server logs here (default: a temp dir)")
    args = parser.parse_args(argv)
    plan = SHORT if args.short else FULL
    games = plan.games if args.games is None else args.games
    if games < 1:
        parser.error("--games must be at least 1")
    parts = args.only or PARTS
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
        if "attack" in parts:
            print(f"attacks on {plan.attack.streams} streams, PIN, requests, start-up")
            attacks = run_attack(plan.attack, workdir, args.seed)
            ok &= all(a.held for a in attacks)
            report += attack_report(attacks)
        if "coils" in parts:
            print(f"coil pulses on thread-timed pins, idle and under load, {plan.coil_s:g} s each")
            coil_runs = run_coils(plan.coil_s)
            ok &= all(r.held for r in coil_runs)
            report += coils_report(coil_runs)
    print()
    print("\n".join(report))
    elapsed = time.monotonic() - started
    print(f"{'PASSED' if ok else 'FAILED'} in {elapsed:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
