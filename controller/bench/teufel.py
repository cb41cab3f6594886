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
import random
import statistics
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from controller.games.teufel import TeufelRules, reachable
from controller.games.teufel import knowledge as kn
from controller.games.teufel.actions import legal_actions, legal_types
from controller.games.teufel.board import NEIGHBOURS, distance, name, parse
from controller.games.teufel.cards import DEFAULT_COLOURS
from controller.games.teufel.state import FACE_DOWN, State

TARGET_DESTINATIONS_MS = 5.0
TARGET_APPLY_MS = 5.0
MAX_ACTIONS = 6000
"""A random game longer than this counts as not ending (a failure in the tests)."""

RULES = TeufelRules()


@dataclass(frozen=True)
class Style:
    """How a random player picks among the legal action types."""

    name: str
    weights: dict[str, float]
    seek: float
    """Chance of stepping toward the nearest face-down card rather than anywhere."""


STYLES = (
    Style("walker", {"step": 8, "end_move": 1, "exchange": 0.2, "pick_up": 0.3, "flip": 2}, 0.85),
    Style(
        "devilish",
        {"step": 5, "end_move": 2, "exchange": 1, "pick_up": 0.6, "pass_over": 3, "lay_down": 1},
        0.7,
    ),
)


@dataclass
class Game:
    options: dict[str, object]
    actions: list[dict[str, object]] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    """The state after each action (kept only when asked)."""
    final: State | None = None


def random_game(
    seed: int,
    keep_states: bool = False,
    check: Callable[[State, dict[str, object], State], None] | None = None,
) -> Game:
    """Play one random legal game from ``seed``; ``check(before, action, after)`` runs
    after every action. Raises ``RuntimeError`` if it has not ended by MAX_ACTIONS."""
    rng = random.Random(seed)
    players = rng.sample(DEFAULT_COLOURS, rng.randint(2, 6))
    options: dict[str, object] = {"players": players, "first": rng.choice(players)}
    if rng.random() < 0.2:
        options["vines"] = [name(s) for s in rng.sample([s for s in range(49) if s != 24], 6)]
    style = STYLES[1] if seed % 4 == 1 else STYLES[0]  # one game in four is devilish
    game = Game(options)
    state = RULES.setup(options)
    while not RULES.is_over(state):
        if len(game.actions) >= MAX_ACTIONS:
            raise RuntimeError(f"seed {seed}: no end after {MAX_ACTIONS} actions")
        action = choose(rng, state, style)
        after = RULES.apply(state, action)
        if check is not None:
            check(state, action, after)
        game.actions.append(action)
        if keep_states:
            game.states.append(after)
        state = after
    game.final = state
    return game


def choose(rng: random.Random, state: State, style: Style) -> dict[str, object]:
    """A random legal action: a type by the style's weights, then one of that type."""
    kinds = legal_types(state)
    kind = rng.choices(kinds, weights=[style.weights.get(k, 1.0) for k in kinds])[0]
    if kind == "step" and rng.random() < style.seek:
        target = _toward_face_down(rng, state)
        if target is not None:
            return legal_actions(state, only=("step",))[0] | {"to": target}
    options = legal_actions(state, only=(kind,))
    if kind == "reveal" and rng.random() < 0.5:  # as likely as the odds say
        square = state.pending.square
        assert square is not None
        chances = kn.chances(state.knowledge, [square])[square]
        weights = [float(chances[a["card"]]) for a in options]
        return rng.choices(options, weights=weights)[0]
    return rng.choice(options)


def _toward_face_down(rng: random.Random, state: State) -> str | None:
    """The first step of a shortest path to a reachable face-down card (or, if none
    is reachable, toward the reachable square nearest to one)."""
    reach = {parse(square): label for square, label in reachable(state).items()}
    if not reach:
        return None
    goals = [square for square, label in reach.items() if label == "flip"]
    if not goals:
        down = [s for s, card in enumerate(state.cards) if card == FACE_DOWN]
        if not down:
            return None
        gap = {square: min(_DISTANCE[square][d] for d in down) for square in reach}
        nearest = min(gap.values())
        goals = [square for square, g in gap.items() if g == nearest]
    assert state.turn is not None
    start = state.players[state.turn].square
    assert start is not None
    came_from: dict[int, int] = {}
    frontier = deque([start])
    while frontier:
        here = frontier.popleft()
        if here != start and reach[here] != "free":
            continue
        for square in NEIGHBOURS[here]:
            if square in reach and square not in came_from:
                came_from[square] = here
                frontier.append(square)
    step = rng.choice(goals)
    while came_from[step] != start:
        step = came_from[step]
    return name(step)


_DISTANCE = [[distance(a, b) for b in range(49)] for a in range(49)]


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
