"""``diablotin bench journal``: the WAL under failing checkpoints, and the start-up checks.

Measures, on a real SQLite file in a temporary folder:

- the WAL's size after ``--actions`` appends (default 1,000, ``PACE_S`` apart) when every
  checkpoint works, when the first ``--failures`` checkpoints fail (a disk I/O error injected
  into the checkpoint thread's connection; it retries with its backoff shortened to 0.05 s
  here), and when every one fails (what a dead checkpoint thread gave);
- the time of ``PRAGMA quick_check`` (every start) and ``integrity_check`` (``doctor``) on a
  journal of ``--games`` games of ``--actions`` entries each.

Target: with failing checkpoints the WAL ends within ``TARGET_WAL_RATIO`` of the healthy
one (before issue 10 the thread died at the first failure: 10 MB against 1.8 MB). Exit
status 1 when it is missed.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.games import registry
from controller.journal import Journal, inspect_file
from controller.journal import connection as journal_module

TARGET_WAL_RATIO = 2.0
PACE_S = 0.002
"""Pause after each append: one referee's requests come one at a time, and a passive
checkpoint lets the WAL start over only in a gap between two commits."""


class _Flaky:
    def __init__(self, real: sqlite3.Connection, failures: list[int]) -> None:
        self.real, self.failures = real, failures

    def execute(self, sql: str, *args: Any) -> Any:
        if "wal_checkpoint" in sql and self.failures[0] > 0:
            self.failures[0] -= 1
            raise sqlite3.OperationalError("disk I/O error (injected)")
        return self.real.execute(sql, *args)

    def close(self) -> None:
        self.real.close()


def wal_after(folder: Path, actions: int, failures: int) -> tuple[int, int]:
    """(WAL bytes, checkpoints done) after ``actions`` appends with ``failures`` injected."""
    left = [failures]

    class FlakyJournal(Journal):
        def _checkpoint_connection(self) -> Any:
            return _Flaky(super()._checkpoint_connection(), left)

    journal = FlakyJournal(folder / f"wal-{failures}.sqlite3")
    try:
        gid = journal.create_game(registry.names()[0], {})  # the journal checks no rules
        for n in range(actions):
            journal.append(gid, {"type": "place", "n": n, "pad": "x" * 200})
            time.sleep(PACE_S)
        health = journal.health()
        return int(health["wal_bytes"]), int(health["checkpoints"])
    finally:
        journal.close()


def check_times(folder: Path, games: int, actions: int) -> tuple[float, float, float]:
    """(journal MB, quick_check ms, integrity_check ms)."""
    path = folder / "big.sqlite3"
    journal = Journal(path)
    walked = registry.walked()  # the tail-tile game: its placements below
    assert walked.walk is not None
    for _ in range(games):
        gid = journal.create_game(walked.name, walked.walk(2))
        for n in range(actions):
            journal.append(gid, {"type": "place", "cell": "14n", "kind": "E", "n": n})
    journal.close()
    start = time.perf_counter()
    inspect_file(path)
    quick = time.perf_counter() - start
    start = time.perf_counter()
    inspect_file(path, full=True)
    full = time.perf_counter() - start
    return path.stat().st_size / 1e6, quick * 1e3, full * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench journal", description=__doc__)
    parser.add_argument("--actions", type=int, default=1000, help="actions appended")
    parser.add_argument("--failures", type=int, default=3, help="disk failures injected")
    parser.add_argument("--games", type=int, default=50, help="games in the journal")
    args = parser.parse_args(argv)
    journal_module.CHECKPOINT_RETRY_S = (0.05, 0.2)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        healthy, done = wal_after(folder, args.actions, 0)
        flaky, done_flaky = wal_after(folder, args.actions, args.failures)
        dead, _ = wal_after(folder, args.actions, args.actions)
        size, quick, full = check_times(folder, args.games, args.actions // 5)
    ratio = flaky / max(healthy, 1)
    print(
        f"WAL after {args.actions} appends, checkpoints healthy: {healthy / 1e6:.2f} MB "
        f"({done} checkpoints)"
    )
    print(
        f"WAL after {args.actions} appends, first {args.failures} checkpoints failing: "
        f"{flaky / 1e6:.2f} MB ({done_flaky} checkpoints), {ratio:.2f}x the healthy one "
        f"(target <= {TARGET_WAL_RATIO:g}x)"
    )
    print(
        f"WAL after {args.actions} appends, every checkpoint failing (as when the thread "
        f"died, before issue 10): {dead / 1e6:.2f} MB, {dead / max(healthy, 1):.2f}x"
    )
    print(
        f"start-up check of a {size:.1f} MB journal ({args.games} games x {args.actions // 5} "
        f"entries): quick_check {quick:.0f} ms, doctor's integrity_check {full:.0f} ms"
    )
    return 0 if ratio <= TARGET_WAL_RATIO else 1
