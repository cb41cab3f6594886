"""``diablotin bench stats``: the cost of the Stats page over a journal of many games.

Builds a journal (a temporary SQLite file) of finished games, by default 500: random legal
sauteur games (rule A and B) and tail-tile games for two, and short Teufel Teufel games
from a set position (random legal Teufel play rarely ends), then times

- ``GET /api/stats``'s work cold (every game replayed) and warm (facts cached per game);
- one game's chart data (:func:`controller.stats.game_series`) for each kind.

Times are wall-clock (``time.perf_counter``) on this machine, one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from controller.bench import kind_benches
from controller.games import registry
from controller.games.base import Rules
from controller.journal import Journal
from controller.stats import StatsCache, game_series


def _random_game(rules: Rules[Any], options: dict[str, Any], rng: random.Random) -> list[Any]:
    """Random legal actions from ``options`` to the end (``[]``: no end within 5000)."""
    state = rules.setup(options)
    actions: list[Any] = []
    while not rules.is_over(state) and len(actions) < 5000:
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions.append(action)
    return actions if rules.is_over(state) else []


def build(path: Path, games: int, seed: int) -> dict[str, int]:
    """Write ``games`` finished games to a new journal at ``path``; returns games per kind."""
    mix: list[tuple[str, dict[str, Any], Callable[..., list[Any]]]] = []
    weights: list[int] = []
    for bench in kind_benches("STATS_GAMES"):  # each kind's games and their share
        name = bench.__name__.rsplit(".", 1)[-1]
        play = getattr(bench, "stats_actions", partial(_random_game, registry.get(name).rules()))
        for weight, options in bench.STATS_GAMES:
            mix.append((name, options, play))
            weights.append(weight)
    rng = random.Random(seed)
    journal = Journal(path)
    made: dict[str, int] = {}
    start = 1_700_000_000.0
    while sum(made.values()) < games:
        kind, options, play = rng.choices(mix, weights)[0]
        actions = play(options, rng)
        if not actions:
            continue
        entries = [{"at": start + 20.0 * i, "action": a} for i, a in enumerate(actions)]
        start += 20.0 * len(actions) + 600
        journal.import_game(
            {
                "format": "diablotin-game/1",
                "kind": kind,
                "options": options,
                "finished": entries[-1]["at"],
                "entries": entries,
            }
        )
        made[kind] = made.get(kind, 0) + 1
    journal.close()
    return made


def _ms(run: Any) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench stats", description=__doc__)
    parser.add_argument("--games", type=int, default=500, help="finished games in the journal")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        t0 = time.perf_counter()
        made = build(path, args.games, args.seed)
        print(
            f"journal: {sum(made.values())} finished games "
            f"({', '.join(f'{k} {n}' for k, n in sorted(made.items()))}), "
            f"built in {time.perf_counter() - t0:.1f} s"
        )
        journal = Journal(path)
        try:
            cache = StatsCache()
            cold = _ms(lambda: cache.summary(journal))
            warm = statistics.median(_ms(lambda: cache.summary(journal)) for _ in range(5))
            per_game = cold / max(1, sum(made.values()))
            print(f"GET /api/stats work, cold (every game replayed): {cold:8.1f} ms")
            print(f"  per game:                                        {per_game:8.2f} ms")
            print(f"GET /api/stats work, warm (facts cached), median:  {warm:8.1f} ms")
            print(f"  cold/warm: {cold / warm:.1f}x")
            seen: set[str] = set()
            for record in journal.games():
                key = record.kind + "/" + str(record.options.get("rule", ""))
                if key in seen:
                    continue
                seen.add(key)
                entries = journal.entries(record.id)
                run = partial(game_series, record, entries)
                ms = statistics.median(_ms(run) for _ in range(3))
                print(
                    f"chart data, {key:10s} game {record.id} ({len(entries)} entries): {ms:7.1f} ms"
                )
        finally:
            journal.close()
    return 0
