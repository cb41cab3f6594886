"""``diablotin bench teufel``: speed of the Teufel, Teufel rules engine.

Measures, on positions taken from seeded random games:
- legal destinations for the mover (``reachable`` plus the legal steps);
- applying one action (every action of the games, replayed one by one);
- the referee's view (board, choices, odds for every player);
- random legal games played through ``apply`` (games per second).

Times are wall-clock (``time.perf_counter``) on this machine, one core.
The random player here is also what ``tests/games/test_teufel_sim.py`` plays.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

from controller.games.teufel import reachable
from controller.games.teufel.actions import legal_actions

# The random player lives with the game; named here too for its old users.
from controller.games.teufel.random_play import MAX_ACTIONS as MAX_ACTIONS
from controller.games.teufel.random_play import RULES as RULES
from controller.games.teufel.random_play import STYLES as STYLES
from controller.games.teufel.random_play import Game as Game
from controller.games.teufel.random_play import Style as Style
from controller.games.teufel.random_play import choose as choose
from controller.games.teufel.random_play import random_game as random_game
from controller.games.teufel.state import State

TARGET_DESTINATIONS_MS = 5.0
TARGET_APPLY_MS = 5.0


def _destinations(state: State) -> tuple[dict[str, str], list[dict[str, object]]]:
    """What the phone needs to draw the mover's options: reach and legal steps."""
    return reachable(state), legal_actions(state, only=("step",))


def _percentile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _time_ms(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


ENGINE_ROW = "teufel: apply one action (ms)"
"""``bench all``'s row for this engine (:func:`engine_samples`, against TARGET_APPLY_MS)."""
ENGINE_TARGET_MS = TARGET_APPLY_MS


def engine_samples(quick: bool, seed: int) -> list[float]:
    """``bench all``'s engine row: ``apply`` timed on every action of random games (8
    games when ``quick``, else 100) replayed from their seeded start (ms per action)."""
    apply_ms: list[float] = []
    for index in range(8 if quick else 100):
        game = random_game(seed + index, keep_states=True)
        before = RULES.setup(game.options)
        for action, after in zip(game.actions, game.states, strict=True):
            apply_ms.append(_time_ms(partial(RULES.apply, before, action)))
            before = after
    return apply_ms


STATS_END = {
    "players": ["blue", "green"],
    "position": {
        "sleds": {"blue": "c3", "green": "g7"},
        "face_up": {"c4": "blue-F"},
        "letters": {"blue": ["A", "B", "C", "D", "E"]},
    },
}
"""Blue holds five letters next to the sixth: a Teufel Teufel game a few moves from its end."""
STATS_GAMES = [(1, STATS_END)]
"""``bench stats``'s Teufel games (random legal Teufel play rarely ends): (share, options)."""


def stats_actions(options: dict[str, object], rng: object) -> list[dict[str, object]]:
    """Blue steps onto the sixth letter and wins."""
    return [{"type": "step", "player": "blue", "to": "c4"}]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench teufel", description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="random games to play")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    games = [random_game(args.seed + i, keep_states=True) for i in range(args.games)]
    elapsed = time.perf_counter() - start
    actions = sum(len(g.actions) for g in games)

    destinations: list[float] = []
    applies: list[float] = []
    views: list[float] = []
    for game in games:
        before = RULES.setup(game.options)
        for index, action in enumerate(game.actions):
            applies.append(_time_ms(partial(RULES.apply, before, action)))
            if before.pending.kind in ("turn", "move"):
                destinations.append(_time_ms(partial(_destinations, before)))
            if index % 10 == 0:
                views.append(_time_ms(partial(RULES.view, before, "referee")))
            before = game.states[index]

    rows = [
        ("legal destinations (reach + steps)", destinations, TARGET_DESTINATIONS_MS),
        ("apply one action", applies, TARGET_APPLY_MS),
        ("referee view (board, choices, odds)", views, None),
    ]
    print(f"Teufel engine, {args.games} random games (2-6 players), seeds {args.seed}+")
    print(f"{'measure':<38} {'n':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'target':>12}")
    for label, times, target in rows:
        goal = f"p99 < {target:g} ms" if target else "-"
        print(
            f"{label:<38} {len(times):>7} {statistics.median(times):>8.3f} "
            f"{_percentile(times, 0.99):>8.3f} {max(times):>8.3f} {goal:>12}"
        )
    print(
        f"random games: {args.games / elapsed:.1f} games/s, {actions / elapsed:.0f} actions/s "
        f"({actions / args.games:.0f} actions per game, random player included)"
    )
    ok = all(_percentile(t, 0.99) < goal for _, t, goal in rows if goal is not None)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1
