"""``diablotin bench solver``: the Diable sauteur solvers' time, memory and lookups.

Measures, on this machine, one process, wall clock (``time.perf_counter``):
- rule B: solving the table (target ≤ 10 s), its memory (``tracemalloc`` peak during
  the solve and the table's own bytes; target ≤ 50 MB), reading it from the cache;
- the coach's lookup per state of played games, rule B and rule A (target ≤ 5 ms at
  p99; p50 and max printed too);
- rule A: solving the exact tables the optimal popper and coach need (every round's
  utility), the bytes they hold, the process's peak RSS, and reading them from the cache;
- the hider's equilibrium for one hiding, rule B and rule A; rule A's over the hidings
  of played games too, by numpy over each hiding's tree (``chase_tree``) against the
  reference recursion (``hider.best_reply``): both times and that the answers agree.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from functools import partial
from pathlib import Path

from controller.games.sauteur import SauteurRules, SauteurState, hider
from controller.games.sauteur.chase_tree import ChaseTree
from controller.games.sauteur.levels import Tables, coach_popper
from controller.games.sauteur.solve_a import HELD, ChaseHiding
from controller.games.sauteur.solve_b import TOLERANCE, solve
from controller.solver_cache import load_chase_table, load_race_table

RULES = SauteurRules()
SOLVE_TARGET_S = 10.0
MEMORY_TARGET_MB = 50.0
LOOKUP_TARGET_MS = 5.0


def _verdict(ok: bool) -> str:
    return "ok" if ok else "SLOW"


def _states(rule: str, count: int, seed: int) -> list[SauteurState]:
    """States where the popper decides, from random games."""
    rng = random.Random(seed)
    states: list[SauteurState] = []
    state = RULES.setup({"rule": rule})
    while len(states) < count:
        if RULES.is_over(state):
            state = RULES.setup({"rule": rule})
        if state.phase in ("pop", "advance"):
            states.append(state)
        action: dict[str, object]
        if state.phase == "hiding":
            action = {"type": "hidden"}
        elif state.phase == "face":
            faces = state.config.face_choices
            action = {
                "type": "face",
                "face": faces[0] if rng.random() < 0.25 else rng.choice(faces),
            }
        else:
            action = rng.choice(RULES.legal_actions(state))
        state = RULES.apply(state, action)
    return states


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _ms(samples: list[float]) -> str:
    return (
        f"p50 {statistics.median(samples):.2f} ms, p99 {_p99(samples):.2f} ms, "
        f"max {max(samples):.1f} ms"
    )


def _lookups(tables: Tables, states: list[SauteurState]) -> list[float]:
    out = []
    for state in states:
        start = time.perf_counter()
        coach_popper(tables, state)
        out.append((time.perf_counter() - start) * 1000)
    return out


def _rule_b_solve(lines: list[str]) -> bool:
    """Rule B's table: solve time, memory and a read from the cache; True if on target."""
    start = time.perf_counter()
    table = solve(40, [1, 2, 3, 4, 5, 6])
    solve_s = time.perf_counter() - start
    tracemalloc.start()  # a second solve, traced (tracing slows it down many times)
    solve(40, [1, 2, 3, 4, 5, 6])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak_mb = peak / 1e6
    table_mb = sys.getsizeof(table.values) / 1e6
    lines.append(
        f"rule B solve, 40 squares: {solve_s:.2f} s (target ≤ {SOLVE_TARGET_S:g} s) "
        f"{_verdict(solve_s <= SOLVE_TARGET_S)}"
    )
    lines.append(
        f"rule B memory: solve peak {peak_mb:.2f} MB, table {table_mb:.3f} MB "
        f"(target ≤ {MEMORY_TARGET_MB:g} MB) {_verdict(peak_mb <= MEMORY_TARGET_MB)}"
    )
    lines.append(f"rule B first popper's chance, both optimal: {table.win(40, 40):.4f}")
    with tempfile.TemporaryDirectory() as folder:
        load_race_table(Path(folder), 40, [1, 2, 3, 4, 5, 6], solve)
        start = time.perf_counter()
        load_race_table(Path(folder), 40, [1, 2, 3, 4, 5, 6], solve)
        lines.append(
            f"rule B table read from the cache: {(time.perf_counter() - start) * 1e3:.2f} ms"
        )
    return solve_s <= SOLVE_TARGET_S and peak_mb <= MEMORY_TARGET_MB


def _rule_b_lookups(lines: list[str], states: int, seed: int) -> bool:
    """The coach's lookups and one hiding's equilibrium in rule B; True if on target."""
    tables = Tables()
    tables.race(RULES.setup({"rule": "B"}).config)
    samples = _lookups(tables, _states("B", states, seed))
    good = _p99(samples) <= LOOKUP_TARGET_MS
    lines.append(f"coach lookup rule B ({len(samples)} states): {_ms(samples)} {_verdict(good)}")
    start = time.perf_counter()
    hiding = RULES.apply(RULES.setup({"rule": "B"}), {"type": "hidden"})
    tables.placement(hiding)
    lines.append(
        f"hider equilibrium, rule B, one turn: {(time.perf_counter() - start) * 1e3:.0f} ms"
    )
    return good


def _rule_a(lines: list[str], states: int, seed: int) -> bool:
    """Rule A's exact tables, their cache, the coach's lookups and one hiding's
    equilibrium; True if the lookups are on target."""
    first = RULES.setup({"rule": "A"})
    with tempfile.TemporaryDirectory() as folder:
        cached = Tables(load_chase=partial(load_chase_table, Path(folder)))
        start = time.perf_counter()
        solver = cached.chase(first.config)
        solver.prepare()
        warm_s = time.perf_counter() - start
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
        held_mb = solver.held() / 1e6
        lines.append(
            "rule A exact tables (every round's utility + points: 6): "
            f"{warm_s:.1f} s, held {held_mb:.0f} MB (the {HELD} used last; the rest read back "
            f"from the cache), peak RSS {rss_mb:.0f} MB"
        )
        start = time.perf_counter()
        Tables(load_chase=partial(load_chase_table, Path(folder))).chase(first.config).prepare()
        lines.append(f"rule A tables read from the cache: {time.perf_counter() - start:.2f} s")
        lines.append(
            f"rule A first round's popper, match value (both optimal): "
            f"{solver.round_start_value(solver.goal_for(1, 0)):.4f}"
        )
        samples = _lookups(cached, _states("A", states, seed))
        good = _p99(samples) <= LOOKUP_TARGET_MS
        lines.append(
            f"coach lookup rule A ({len(samples)} states): {_ms(samples)} {_verdict(good)}"
        )
        start = time.perf_counter()
        cached.placement(RULES.apply(first, {"type": "hidden"}))
        spent_ms = (time.perf_counter() - start) * 1e3
        lines.append(f"hider equilibrium, rule A, one hiding: {spent_ms:.0f} ms")
        lines.append(_rule_a_hidings(cached, _states("A", states, seed + 1)))
    return good


def _rule_a_hidings(tables: Tables, states: list[SauteurState], count: int = 20) -> str:
    """A rule-A hiding's equilibrium at the first ``count`` distinct hidings of
    ``states``: the fast path (a fresh tree, then the double oracle) against the
    reference's best replies, and whether they agree exactly."""
    seen: set[object] = set()
    fast: list[float] = []
    reference: list[float] = []
    same = True
    for state in states:
        memo, start, key = tables.hiding_game(state)
        if key in seen or len(seen) >= count:
            continue
        seen.add(key)
        assert isinstance(memo, hider.Memo) and isinstance(memo.game, ChaseHiding)
        assert isinstance(start, tuple)
        game = memo.game
        begin = time.perf_counter()
        tree = ChaseTree(game.values, game.d, start)
        found = hider.solve_hiding(game, start, replier=tree.reply)
        fast.append((time.perf_counter() - begin) * 1e3)
        begin = time.perf_counter()
        same &= found == hider.solve_hiding(game, start)
        reference.append((time.perf_counter() - begin) * 1e3)
    ratio = statistics.median(reference) / statistics.median(fast)
    return (
        f"rule A hiding equilibria ({len(fast)} hidings of played games): fast {_ms(fast)}; "
        f"reference {_ms(reference)}; {ratio:.1f}x at p50; "
        f"{'the same equilibria' if same else 'ANSWERS DIFFER'}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the rows; returns 1 if a target is missed."""
    parser = argparse.ArgumentParser(prog="diablotin bench solver", description=__doc__)
    parser.add_argument("--states", type=int, default=300, help="states per lookup row")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--skip-a", action="store_true", help="leave out rule A (slow)")
    args = parser.parse_args(argv)
    lines = [f"value iteration tolerance: {TOLERANCE:g} (max Bellman residual per state)"]
    ok = _rule_b_solve(lines)
    ok &= _rule_b_lookups(lines, args.states, args.seed)
    if not args.skip_a:
        ok &= _rule_a(lines, args.states, args.seed)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
