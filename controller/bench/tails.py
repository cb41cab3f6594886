"""``diablotin bench tails``: speed of the tail-tile engine.

Measures, on positions taken from seeded random games:
- scoring a full board (all 18 tails followed), and the full view;
- the advisor for one drawn kind over every legal placement, with and without
  one placement of lookahead, at several stages of a game;
- random legal games played through ``apply`` (games per second).

Times are wall-clock (``time.perf_counter``) on this machine, one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from controller.games.tails import (
    KINDS,
    TailsRules,
    TailsState,
    advise,
    game_view,
    legal_cells,
    score,
)
from controller.games.tails.cards import KIND_INDEX, rotations

TARGET_SCORE_MS = 1.0
TARGET_ADVISE_MS = 50.0
TARGET_LOOKAHEAD_MS = 1000.0

_RULES = TailsRules()


def _random_action(rng: random.Random, state: TailsState) -> dict[str, object]:
    cells = legal_cells(state)
    if not cells:
        return {"type": "pass"}
    kinds = [kind for kind in KINDS if state.stock[KIND_INDEX[kind]] > 0]
    kind = rng.choices(kinds, [state.stock[KIND_INDEX[kind]] for kind in kinds])[0]
    rotation = rng.choice(rotations(kind))
    return {"type": "place", "cell": rng.choice(cells), "kind": kind, "rotation": rotation}


def _play(rng: random.Random, players: int, placements: int = 54) -> TailsState:
    state = _RULES.setup({"players": players})
    while not state.finished and len(state.placed) < placements:
        state = _RULES.apply(state, _random_action(rng, state))
    return state


def _times_ms(run: Callable[[], object], repeat: int) -> list[float]:
    result = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        result.append((time.perf_counter() - start) * 1000)
    return result


def _row(label: str, samples: list[float], target: float | None) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    goal = "—" if target is None else f"< {target:g}"
    verdict = "" if target is None else ("ok" if p99 < target else "SLOW")
    return (
        f"{label:<52} {len(samples):>6} {p50:>9.3f} {p99:>9.3f} {ordered[-1]:>9.3f}"
        f"  {goal:>8} {verdict}"
    )


ENGINE_ROW = "tails: score a full board (ms)"
"""``bench all``'s row for this engine (:func:`engine_samples`, against TARGET_SCORE_MS)."""
ENGINE_TARGET_MS = TARGET_SCORE_MS


def engine_samples(quick: bool, seed: int) -> list[float]:
    """``bench all``'s engine row: full boards of 2, 3 and 4 players (3 each when
    ``quick``, else 20) scored 10 times each (ms per scoring)."""
    rng = random.Random(seed)
    score_ms: list[float] = []
    for players in (2, 3, 4):
        for _ in range(3 if quick else 20):
            state = _play(rng, players)
            score_ms += _times_ms(partial(score, state.board, state.cards, state.players), 10)
    return score_ms


STATS_GAMES = [(3, {"players": 2})]
"""``bench stats``'s tail-tile games: (share, options), played by :func:`stats_actions`."""


def stats_actions(options: dict[str, object], rng: random.Random) -> list[dict[str, object]]:
    """A random two-player game to its end (:func:`_play`), as the journal's actions."""
    from controller.games.tails import parse_move

    return [parse_move(move) for move in _play(rng, 2).moves]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench tails", description=__doc__)
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--games", type=int, default=300, help="random games per player count")
    parser.add_argument("--positions", type=int, default=6, help="positions per advisor row")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    print("tails engine benchmark (times in ms)")
    print(f"{'measure':<52} {'n':>6} {'p50':>9} {'p99':>9} {'max':>9}  {'target':>8}")

    boards = [_play(rng, players) for players in (2, 3, 4) for _ in range(20)]
    samples: list[float] = []
    for state in boards:
        samples += _times_ms(partial(score, state.board, state.cards, state.players), 50)
    print(_row("score a full board (18 tails)", samples, TARGET_SCORE_MS))
    samples = []
    for state in boards[::4]:
        samples += _times_ms(partial(game_view, state), 10)
    print(_row("full view of a finished game (tails + segments)", samples, None))

    cases = [
        ("2 players, chosen placement", 2, (0, 10, 20, 30, 40), False),
        ("3 players, chosen placement", 3, (1, 10, 20, 30, 40), False),
        ("2 players, chosen + lookahead (forced reply)", 2, (0, 10, 20, 30, 40), True),
        ("2 players, forced + lookahead (own chosen)", 2, (1, 11, 21, 31, 41), True),
        ("3 players, chosen + lookahead (chosen reply)", 3, (1, 10, 20, 30, 40), True),
        ("4 players, chosen + lookahead (forced reply)", 4, (0, 10, 20, 30, 40), True),
    ]
    for label, players, stages, lookahead in cases:
        samples = []
        for _ in range(args.positions):
            for placed in stages:
                state = _play(rng, players, placed)
                kinds = [k for k in KINDS if state.stock[KIND_INDEX[k]] > 0]
                kind = rng.choice(kinds)
                repeat = 1 if lookahead else 5
                samples += _times_ms(
                    partial(advise, state, kind, lookahead=lookahead, top=None), repeat
                )
        target = TARGET_LOOKAHEAD_MS if lookahead else TARGET_ADVISE_MS
        print(_row(f"advise: {label}", samples, target))

    print()
    print(f"{'random games (apply + legal cells)':<52} {'games':>6} {'games/s':>9}")
    for players in (2, 3, 4):
        start = time.perf_counter()
        for _ in range(args.games):
            _play(rng, players)
        elapsed = time.perf_counter() - start
        print(f"{f'{players} players':<52} {args.games:>6} {args.games / elapsed:>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
