"""What one rule-A hiding's equilibrium costs (issue 21's speed floor).

``python -m controller.bench.sauteur_hidings [--games 4] [--seed 2301]`` plays ``games``
matches of ``adaptive`` against ``optimal`` (both hiding at equilibrium), then times, for
each distinct hiding they met, a fresh tree and its double oracle; one JSON line
(``compiled``: whether numba's kernels did it, :mod:`controller.games.sauteur.compiled`;
``DIABLOTIN_COMPILED=0`` times the numpy code).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Hashable

from controller.sim import simulate


def hidings(games: int, seed: int) -> dict[str, object]:
    """Rule A: what one hiding costs the equilibrium. Plays ``games`` matches of
    ``adaptive`` against ``optimal`` (both hiding at equilibrium), then for each distinct
    hiding they met times a fresh :class:`.chase_tree.ChaseTree` and its double oracle
    (:func:`.hider.solve_hiding`): ms per hiding (p50, mean) and best replies per hiding."""
    from controller import sim
    from controller.games.sauteur import compiled, hider
    from controller.games.sauteur.chase_tree import ChaseTree
    from controller.games.sauteur.levels import HidingKey
    from controller.games.sauteur.rules import SauteurState
    from controller.games.sauteur.solve_a import ChaseHiding

    met: dict[object, tuple[ChaseHiding, tuple[tuple[int, ...], int]]] = {}
    look_up = sim.TABLES.hiding_game

    def noted(state: SauteurState) -> tuple[hider.HidingGame, Hashable, HidingKey]:
        game, start, key = look_up(state)
        if isinstance(game, hider.Memo) and isinstance(game.game, ChaseHiding):
            assert isinstance(start, tuple)  # rule A: (figures in play, arrived)
            met.setdefault(key, (game.game, start))
        return game, start, key

    sim.TABLES.hiding_game = noted  # type: ignore[method-assign]  # the matches' hidings
    try:
        simulate("A", games, seed, {"p1": "adaptive", "p2": "optimal"}, "equilibrium")
    finally:
        del sim.TABLES.hiding_game
    builds, solves, replies = [], [], []
    for game, start in met.values():
        started = time.perf_counter()
        tree = ChaseTree(game.values, game.d, start)
        built = time.perf_counter()
        asked: list[hider.Vector] = []

        def reply(
            y: hider.Vector, tree: ChaseTree = tree, asked: list[hider.Vector] = asked
        ) -> hider.Vector:
            asked.append(y)
            return tree.reply(y)

        if tree.equilibrium() is None:  # numpy's path: the double oracle in Python
            hider.solve_hiding(game, start, replier=reply)
        builds.append(1000 * (built - started))
        solves.append(1000 * (time.perf_counter() - built))
        replies.append(len(asked))
    totals = sorted(b + s for b, s in zip(builds, solves, strict=True))
    return {
        "rule": "A",
        "games": games,
        "hidings": len(met),
        "hidings_per_game": round(len(met) / games, 1),
        "build_ms_p50": round(statistics.median(builds), 3),
        "build_ms_mean": round(statistics.mean(builds), 3),
        "solve_ms_p50": round(statistics.median(solves), 3),
        "solve_ms_mean": round(statistics.mean(solves), 3),
        "compiled": compiled.kernels() is not None,
        "replies_per_hiding": None if compiled.kernels() else round(statistics.mean(replies), 2),
        "hiding_ms_mean": round(statistics.mean(totals), 3),
        "hiding_ms_p99": round(totals[int(len(totals) * 0.99)], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.bench.sauteur_hidings")
    parser.add_argument("--games", type=int, default=4, help="matches played (default 4)")
    parser.add_argument("--seed", type=int, default=2301, help="their seed (default 2301)")
    args = parser.parse_args(argv)
    print(json.dumps(hidings(args.games, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
