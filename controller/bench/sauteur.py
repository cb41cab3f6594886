"""``diablotin bench sauteur``: speed of the Diable sauteur engine and simulator.

Measures, on this machine, one core, wall clock (``time.perf_counter``):
- whole matches per second through :func:`controller.sim.simulate` (the rules
  engine plus the simulated hider, dice and poppers), rule A and rule B;
- the engine alone: recorded matches replayed through ``apply`` (games/s);
- ``apply`` per action, p50/p99 by action type (µs);
- ``odds`` and the computer's ``choose`` (µs; rule B odds cold = first call for
  a pot/distance, before the cache holds it).

Target (task brief): over 2,000 rule-A games per second through the engine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from controller.games.sauteur import SauteurRules, SauteurState
from controller.games.sauteur.odds import choose, clear_cache, odds
from controller.sim import HIDERS, STRATEGIES, Game, play_match, simulate

TARGET_GAMES_PER_S = 2000.0
STATS_GAMES = [(4, {"rule": "A"}), (2, {"rule": "B", "first_hider": "p2"})]
"""``bench stats``'s sauteur games: (share, options), played at random to the end."""
RULES = SauteurRules()


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _sim_rows(games: int, seed: int) -> list[str]:
    rows = []
    matchups = [
        ("A", "random", "random", True),
        ("A", "computer", "random", True),
        ("A", "computer", "computer", False),
        ("B", "random", "random", False),
        ("B", "computer", "random", False),
        ("B", "computer", "computer", False),
    ]
    for rule, p1, p2, targeted in matchups:
        simulate(rule, 50, seed, {"p1": p1, "p2": p2})  # warm caches
        report = simulate(rule, games, seed, {"p1": p1, "p2": p2})
        goal = f"> {TARGET_GAMES_PER_S:,.0f}" if targeted else "—"
        verdict = ("ok" if report.games_per_s > TARGET_GAMES_PER_S else "SLOW") if targeted else ""
        rows.append(
            f"{f'sim rule {rule}, {p1} vs {p2}':<38} {games:>7} {report.mean_actions:>9.1f}"
            f" {report.games_per_s:>10,.0f}  {goal:>8} {verdict}"
        )
    return rows


def _record(rule: str, games: int, seed: int) -> list[tuple[SauteurState, list[Any]]]:
    """Matches (computer p1 vs random p2) as (first state, actions), for replaying."""
    rng = random.Random(seed)
    first = RULES.setup({"rule": rule})
    recorded = []
    game = Game(seed, rng, {})
    play = {"p1": STRATEGIES["computer"](game), "p2": STRATEGIES["random"](game)}
    for _ in range(games):
        actions: list[Any] = []

        def recording(state: SauteurState, action: Any, actions: list[Any] = actions) -> Any:
            actions.append(action)
            return RULES.apply(state, action)

        play_match(first, rng, play, HIDERS["random"](game), apply=recording)
        recorded.append((first, actions))
    return recorded


def _replay_rows(rule: str, recorded: list[tuple[SauteurState, list[Any]]]) -> list[str]:
    apply = RULES.apply
    count = sum(len(actions) for _, actions in recorded)
    started = time.perf_counter()
    for state, actions in recorded:
        for action in actions:
            state = apply(state, action)
    elapsed = time.perf_counter() - started
    targeted = rule == "A"
    goal = f"> {TARGET_GAMES_PER_S:,.0f}" if targeted else "—"
    rate = len(recorded) / elapsed
    verdict = ("ok" if rate > TARGET_GAMES_PER_S else "SLOW") if targeted else ""
    return [
        f"{f'replay rule {rule} (engine only)':<38} {len(recorded):>7} "
        f"{count / len(recorded):>9.1f} {rate:>10,.0f}  {goal:>8} {verdict}"
    ]


def _apply_rows(recorded: list[tuple[SauteurState, list[Any]]]) -> list[str]:
    clock = time.perf_counter_ns
    samples: dict[str, list[float]] = defaultdict(list)
    apply = RULES.apply
    for state, actions in recorded:
        for action in actions:
            start = clock()
            after = apply(state, action)
            samples[action["type"]].append((clock() - start) / 1000)
            state = after
    everything = [value for values in samples.values() for value in values]
    rows = []
    for kind, values in [*sorted(samples.items()), ("all", everything)]:
        ordered = sorted(values)
        rows.append(
            f"apply {kind:<28} {len(ordered):>9} {statistics.median(ordered):>8.2f}"
            f" {_percentile(ordered, 0.99):>8.2f} {ordered[-1]:>9.1f}"
        )
    return rows


def _time_us(function: Callable[[SauteurState], object], states: list[SauteurState]) -> list[float]:
    """Microseconds of ``function(state)`` for each state, sorted."""
    result = []
    for state in states:
        start = time.perf_counter()
        function(state)
        result.append((time.perf_counter() - start) * 1e6)
    return sorted(result)


def _advice_rows(seed: int) -> list[str]:
    rng = random.Random(seed)
    states: dict[str, list[SauteurState]] = {"A": [], "B": []}
    for rule in ("A", "B"):
        state = RULES.setup({"rule": rule})
        while len(states[rule]) < 300:
            if RULES.is_over(state):
                state = RULES.setup({"rule": rule})
            if state.phase == "pop":
                states[rule].append(state)
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
    rows = []
    for rule in ("A", "B"):
        if rule == "B":
            clear_cache()
            rows.append(_us_row("odds rule B (cold cache)", _time_us(odds, states[rule])))
        rows.append(_us_row(f"odds rule {rule}", _time_us(odds, states[rule] * 3)))
        rows.append(_us_row(f"choose rule {rule}", _time_us(choose, states[rule] * 3)))
    return rows


def _us_row(label: str, ordered: list[float]) -> str:
    return (
        f"{label:<34} {len(ordered):>9} {statistics.median(ordered):>8.1f}"
        f" {_percentile(ordered, 0.99):>8.1f} {ordered[-1]:>9.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the tables; returns 0 (1 if a targeted row misses its target)."""
    parser = argparse.ArgumentParser(prog="diablotin bench sauteur", description=__doc__)
    parser.add_argument("--games", type=int, default=3000, help="matches per simulator row")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    sim_header = f"{'whole matches':<38} {'games':>7} {'actions':>9} {'games/s':>10}  {'target':>8}"
    lines = [sim_header, "-" * len(sim_header), *_sim_rows(args.games, args.seed)]
    for rule in ("A", "B"):
        lines += _replay_rows(rule, _record(rule, max(1, args.games // 3), args.seed))
    apply_header = f"{'per action (µs)':<34} {'count':>9} {'p50':>8} {'p99':>8} {'max':>9}"
    lines += ["", apply_header, "-" * len(apply_header)]
    lines += _apply_rows(_record("A", max(1, args.games // 3), args.seed + 1))
    lines += [
        "",
        f"{'advice (µs)':<34} {'calls':>9} {'p50':>8} {'p99':>8} {'max':>9}",
        "-" * len(apply_header),
    ]
    lines += _advice_rows(args.seed)
    print("\n".join(line.rstrip() for line in lines))
    return 1 if any(line.endswith("SLOW") for line in lines) else 0


if __name__ == "__main__":
    raise SystemExit(main())
