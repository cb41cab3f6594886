"""The summary lines each part prints at the end of ``diablotin reliability``."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from .attack import Attack
from .common import KINDS
from .crash import CrashGame
from .faults import FaultCase
from .live import RSS_GROWTH_LIMIT_MB, TARGET_RSS_MB, LiveRun


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


def attack_report(attacks: Sequence[Attack]) -> list[str]:
    """A line per attack (held or FAILED, its figures), and for a failed one what failed."""
    held = sum(a.held for a in attacks)
    lines = [f"attacks: {held}/{len(attacks)} held"]
    for attack in attacks:
        verdict = "held" if attack.held else "FAILED"
        lines.append(f"  {attack.name:38s} {verdict:6s} {attack.figures}")
        if attack.problems:
            more = len(attack.problems) - 4
            lines.append(
                "      " + "; ".join(attack.problems[:4]) + (f"; … {more} more" if more > 0 else "")
            )
    return lines
