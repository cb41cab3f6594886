"""Whole Diable sauteur matches simulated through the rules engine.

A seeded :class:`random.Random` plays the toy: it hides (puts the devil die under
a slot), draws the face of each popped die from the die under that key, and
drives the poppers with named strategies. The rules engine itself stays pure:
every move goes through :meth:`SauteurRules.apply`.

Strategies (``popper_strategy``): the levels ``"random"`` (a uniformly random legal
move), ``"heuristic"`` (:func:`~controller.games.sauteur.odds.choose`; old name
``"computer"``) and ``"optimal"`` (:mod:`controller.games.sauteur.levels`), and
``"counter"`` (the best reply to the equilibrium hider). Hiders (``hider``):
``"uniform"`` (every arrangement equally likely, as the odds assume; old name
``"random"``), ``"equilibrium"`` (the hider's equilibrium placement) and
``"devil-on-K"`` (the devil die always under key K: a predictable hider).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from controller.games.base import Refused
from controller.games.sauteur import DEVIL, PLAYERS, SauteurRules, SauteurState
from controller.games.sauteur.levels import Tables, counter_action, level_action
from controller.games.sauteur.odds import choose

Strategy = Callable[[SauteurState], Mapping[str, Any]]
"""A popper: the state (in phase ``pop`` or ``advance``) -> its action."""

Hider = Callable[[SauteurState], int]
"""A hider: the state (phase ``hiding``) -> the key the devil die goes under."""

RULES = SauteurRules()
TABLES = Tables()
"""Solved tables of this process (each solved once, on first use)."""


def _level(name: str) -> Callable[[random.Random], Strategy]:
    def make(rng: random.Random) -> Strategy:
        return lambda state: level_action(name, state, TABLES, rng)

    return make


def _heuristic(rng: random.Random) -> Strategy:
    return choose


def _random(rng: random.Random) -> Strategy:
    legal_actions = RULES.legal_actions
    return lambda state: rng.choice(legal_actions(state))


def _counter(rng: random.Random) -> Strategy:
    return lambda state: counter_action(TABLES, state)


STRATEGIES: dict[str, Callable[[random.Random], Strategy]] = {
    "random": _random,
    "heuristic": _heuristic,
    "computer": _heuristic,
    "optimal": _level("optimal"),
    "counter": _counter,
}
"""Strategy makers: the simulation's rng -> a popper. ``computer`` is ``heuristic``'s
old name; ``counter`` is the best reply to the equilibrium hider (a measuring stick,
not a level)."""


def _hide_uniform(rng: random.Random) -> Hider:
    return lambda state: 1 + int(rng.random() * 4)  # as rng.randrange(1, 5), five times faster


def _hide_equilibrium(rng: random.Random) -> Hider:
    def place(state: SauteurState) -> int:
        y, _ = TABLES.placement(state)
        draw = rng.random()
        for key, share in enumerate(y, start=1):
            draw -= share
            if draw < 0:
                return key
        return max(range(1, 5), key=lambda k: y[k - 1])

    return place


def _hide_on(key: int) -> Callable[[random.Random], Hider]:
    return lambda rng: lambda state: key


HIDERS: dict[str, Callable[[random.Random], Hider]] = {
    "uniform": _hide_uniform,
    "random": _hide_uniform,
    "equilibrium": _hide_equilibrium,
    **{f"devil-on-{key}": _hide_on(key) for key in (1, 2, 3, 4)},
}
"""How the hider places the devil die: ``rng -> (state -> key of the devil die)``. The
three number dice are alike, so where the devil die goes is the whole arrangement.
``random`` is ``uniform``'s old name; ``equilibrium`` is :meth:`Tables.placement`."""


@dataclass
class SimReport:
    """What :func:`simulate` found. Rates are fractions of ``games`` (0-1)."""

    rule: str
    games: int
    seed: int
    hider: str
    strategies: dict[str, str]
    wins: dict[str, int] = field(default_factory=dict)
    """Wins per player (``p1``, ``p2``) and ``draw``."""
    mean_points: dict[str, float] = field(default_factory=dict)
    """Mean match score per player (rule A points; rule B races won)."""
    strategy_win_rate: dict[str, float] = field(default_factory=dict)
    """Per strategy: wins / seats it played (a seat per game per player)."""
    mean_actions: float = 0.0
    mean_rounds: float = 0.0
    mean_hidings: float = 0.0
    elapsed_s: float = 0.0
    first_popper: float = 0.0
    """Matches won by the player who popped first (the first hider's opponent), a draw ½."""
    workers: int = 1
    """Processes the games were split over (see :func:`simulate_parallel`)."""

    @property
    def games_per_s(self) -> float:
        return self.games / self.elapsed_s if self.elapsed_s > 0 else float("inf")

    def win_rate(self, player: str) -> float:
        return self.wins.get(player, 0) / self.games


def _strategies(popper_strategy: str | Mapping[str, str]) -> dict[str, str]:
    names = (
        dict.fromkeys(PLAYERS, popper_strategy)
        if isinstance(popper_strategy, str)
        else dict(popper_strategy)
    )
    if set(names) != set(PLAYERS):
        raise ValueError(f"popper_strategy must name a strategy for p1 and p2, got {names}")
    for name in names.values():
        if name not in STRATEGIES:
            raise ValueError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}")
    return names


def simulate_parallel(
    rule: str,
    games: int,
    seed: int,
    popper_strategy: str | Mapping[str, str] = "computer",
    hider: str = "uniform",
    options: Mapping[str, Any] | None = None,
    workers: int | None = None,
) -> SimReport:
    """:func:`simulate` split over ``workers`` processes (default: one per core).

    Worker ``i`` plays its share with seed ``seed * 1000 + i``, so a report depends on
    ``(seed, workers)``. ``elapsed_s`` is the wall time of the whole run (pool start
    included). With one worker this is exactly :func:`simulate`.
    """
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    if workers == 1:
        return simulate(rule, games, seed, popper_strategy, hider, options)
    shares = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        parts = list(
            pool.map(
                simulate,
                [rule] * workers,
                shares,
                [seed * 1000 + i for i in range(workers)],
                [popper_strategy] * workers,
                [hider] * workers,
                [options] * workers,
            )
        )
    report = _merge(parts, seed)
    report.elapsed_s = time.perf_counter() - started
    return report


def _merge(parts: list[SimReport], seed: int) -> SimReport:
    """One report from the workers' reports (sums, and means weighted by games)."""
    games = sum(part.games for part in parts)
    first = parts[0]
    report = SimReport(first.rule, games, seed, first.hider, first.strategies)
    report.wins = {key: sum(part.wins[key] for part in parts) for key in first.wins}

    def mean(get: Callable[[SimReport], float]) -> float:
        return sum(get(part) * part.games for part in parts) / games

    report.mean_points = {
        player: sum(part.mean_points[player] * part.games for part in parts) / games
        for player in PLAYERS
    }
    report.first_popper = sum(part.first_popper for part in parts)
    report.mean_actions = mean(lambda part: part.mean_actions)
    report.mean_rounds = mean(lambda part: part.mean_rounds)
    report.mean_hidings = mean(lambda part: part.mean_hidings)
    report.strategy_win_rate = {
        name: sum(part.strategy_win_rate[name] * part.games for part in parts) / games
        for name in first.strategy_win_rate
    }
    report.workers = len(parts)
    return report


def simulate(
    rule: str,
    games: int,
    seed: int,
    popper_strategy: str | Mapping[str, str] = "computer",
    hider: str = "uniform",
    options: Mapping[str, Any] | None = None,
) -> SimReport:
    """Play ``games`` matches of ``rule`` ("A"/"B") and report.

    ``popper_strategy`` is one strategy name for both players or ``{"p1": ..., "p2": ...}``.
    The first hider is drawn per game unless ``options`` sets ``first_hider``.
    Raises ``ValueError`` on an unknown strategy or hider, ``games < 1``, or bad
    options (the :class:`Refused` from setup, which is a ``ValueError``).
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if hider not in HIDERS:
        raise ValueError(f"unknown hider {hider!r}; known: {', '.join(HIDERS)}")
    seats = _strategies(popper_strategy)
    base = {**(options or {}), "rule": rule}
    first = {player: RULES.setup({**base, "first_hider": player}) for player in PLAYERS}
    fixed_first = base.get("first_hider")
    rng = random.Random(seed)
    play = {player: STRATEGIES[name](rng) for player, name in seats.items()}
    place_devil = HIDERS[hider](rng)
    report = SimReport(rule=rule, games=games, seed=seed, hider=hider, strategies=seats)
    wins = dict.fromkeys((*PLAYERS, "draw"), 0)
    points = dict.fromkeys(PLAYERS, 0)
    actions = rounds = hidings = 0
    first_score = 0.0
    started = time.perf_counter()
    for _ in range(games):
        state = first[fixed_first if fixed_first else rng.choice(PLAYERS)]
        first_popper = state.popper
        state, moves, hides = play_match(state, rng, play, place_devil)
        first_score += (
            1.0 if state.winner == first_popper else 0.5 if state.winner == "draw" else 0.0
        )
        actions += moves
        hidings += hides
        rounds += state.round
        wins[state.winner or "draw"] += 1
        points["p1"] += state.scores[0]
        points["p2"] += state.scores[1]
    report.elapsed_s = time.perf_counter() - started
    report.wins = wins
    report.mean_points = {player: points[player] / games for player in PLAYERS}
    report.first_popper = first_score
    report.mean_actions = actions / games
    report.mean_rounds = rounds / games
    report.mean_hidings = hidings / games
    for name in sorted(set(seats.values())):
        players = [player for player in PLAYERS if seats[player] == name]
        report.strategy_win_rate[name] = sum(wins[p] for p in players) / (games * len(players))
    return report


def play_match(
    state: SauteurState,
    rng: random.Random,
    play: Mapping[str, Strategy],
    place_devil: Hider,
    apply: Callable[[SauteurState, Mapping[str, Any]], SauteurState] = RULES.apply,
) -> tuple[SauteurState, int, int]:
    """Play ``state`` to the end: (final state, actions applied, hidings).

    ``play`` maps each player to its popper, ``place_devil`` is the hider;
    ``apply`` is the engine's (a benchmark may pass one that records).
    """
    # The engine never mutates an action, so the chance actions are built once.
    number_die = [{"type": "face", "face": face} for face in state.config.number_faces]
    devil_die = {"type": "face", "face": DEVIL}
    hidden = {"type": "hidden"}
    draw = rng.random
    devil_key = 0
    moves = hides = 0
    while True:
        phase = state.phase
        if phase == "pop" or phase == "advance":
            action = play[state.popper](state)
        elif phase == "face":
            if state.popped[-1] == devil_key:
                action = devil_die
            else:
                action = number_die[int(draw() * len(number_die))]
        elif phase == "hiding":
            devil_key = place_devil(state)
            hides += 1
            action = hidden
        else:
            return state, moves, hides
        state = apply(state, action)
        moves += 1


def format_report(report: SimReport) -> str:
    """A short plain-text table of ``report`` for the CLI."""
    lines = [
        f"Diable sauteur, rule {report.rule}: {report.games} games, seed {report.seed}, "
        f"hider {report.hider}",
        f"{'player':<8}{'strategy':<10}{'wins':>8}{'win rate':>10}{'mean score':>12}",
    ]
    for player in PLAYERS:
        lines.append(
            f"{player:<8}{report.strategies[player]:<10}{report.wins[player]:>8}"
            f"{report.win_rate(player):>10.1%}{report.mean_points[player]:>12.2f}"
        )
    lines.append(f"{'draw':<18}{report.wins['draw']:>8}{report.win_rate('draw'):>10.1%}")
    for name, rate in report.strategy_win_rate.items():
        lines.append(f"strategy {name}: wins {rate:.1%} of the seats it played")
    lines.append(
        f"first popper: {report.first_popper / report.games:.1%} of the matches (a draw ½)"
    )
    lines.append(
        f"mean per game: {report.mean_actions:.1f} actions, {report.mean_rounds:.2f} rounds, "
        f"{report.mean_hidings:.1f} hidings"
    )
    procs = f", {report.workers} processes" if report.workers > 1 else ""
    lines.append(f"speed: {report.games_per_s:,.0f} games/s ({report.elapsed_s:.2f} s{procs})")
    return "\n".join(lines)


def report_json(report: SimReport) -> dict[str, Any]:
    """The CLI's ``--json`` contract: ``{"games", "wins": {"p1", "p2"}, "draws",
    "mean_scores": {"p1", "p2"}}`` (p1 and p2 are seats, whatever role they play)."""
    return {
        "games": report.games,
        "wins": {player: report.wins[player] for player in PLAYERS},
        "draws": report.wins["draw"],
        "mean_scores": {player: round(report.mean_points[player], 4) for player in PLAYERS},
    }


def main(argv: list[str] | None = None) -> int:
    """``diablotin sim sauteur --rule A|B --games N --seed S [--p1 S] [--p2 S] [--hider H]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="diablotin sim sauteur", description=main.__doc__)
    parser.add_argument("--rule", choices=("A", "B"), default="A")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--p1", choices=tuple(STRATEGIES), default="heuristic")
    parser.add_argument("--p2", choices=tuple(STRATEGIES), default="random")
    parser.add_argument("--hider", choices=tuple(HIDERS), default="uniform")
    parser.add_argument("--json", action="store_true", help="print the JSON contract only")
    args = parser.parse_args(argv)
    try:
        report = simulate(
            args.rule, args.games, args.seed, {"p1": args.p1, "p2": args.p2}, args.hider
        )
    except (ValueError, Refused) as error:
        parser.error(str(error))
    print(json.dumps(report_json(report)) if args.json else format_report(report))
    return 0
