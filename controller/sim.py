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
from controller.games.sauteur.adaptive import adaptive_action, belief_now
from controller.games.sauteur.levels import Tables, counter_action, level_action, reply_action
from controller.games.sauteur.rules import IDLE_LIMIT

Strategy = Callable[[SauteurState], Mapping[str, Any]]
"""A popper: the state (in phase ``pop`` or ``advance``) -> its action."""

Hider = Callable[[SauteurState], int]
"""A hider: the state (phase ``hiding``) -> the key the devil die goes under."""

RULES = SauteurRules()
TABLES = Tables()
"""Solved tables of this process (each solved once, on first use)."""


@dataclass
class Game:
    """One simulated game as its poppers and hiders see it: its own ``seed`` and the
    generator made from it, where the devil die is (for ``oracle`` only), and
    ``beliefs``: ``adaptive``'s counts at the game's start per hiding seat (kept across
    the run's games, as for a roster player)."""

    seed: int
    rng: random.Random
    beliefs: dict[str, list[float]]
    devil_key: int = 0


def _level(name: str) -> Callable[[Game], Strategy]:
    def make(game: Game) -> Strategy:
        return lambda state: level_action(name, state, TABLES, game.rng, game.seed)

    return make


def _random(game: Game) -> Strategy:
    legal_actions = RULES.legal_actions
    rng = game.rng
    return lambda state: rng.choice(legal_actions(state))


def _counter(game: Game) -> Strategy:
    return lambda state: counter_action(TABLES, state)


def _oracle(game: Game) -> Strategy:
    """Sees the hiding: the best reply to the devil die's true slot."""

    def play(state: SauteurState) -> Mapping[str, Any]:
        known = tuple(1.0 if key == game.devil_key else 0.0 for key in (1, 2, 3, 4))
        # why the ignore below: known has one value per key (4)
        return reply_action(TABLES, state, known)  # type: ignore[arg-type]

    return play


def _adaptive(game: Game) -> Strategy:
    return lambda state: adaptive_action(TABLES, state, game.seed, game.beliefs)


STRATEGIES: dict[str, Callable[[Game], Strategy]] = {
    "random": _random,
    "heuristic": _level("heuristic"),
    "computer": _level("heuristic"),
    "optimal": _level("optimal"),
    "adaptive": _adaptive,
    "counter": _counter,
    "oracle": _oracle,
}
"""Strategy makers: the game -> a popper. ``computer`` is ``heuristic``'s old name;
``counter`` (the best reply to the equilibrium hider) and ``oracle`` (the best reply to
the hiding it sees) are measuring sticks, never offered at the table."""


def _hide_uniform(game: Game) -> Hider:
    rng = game.rng
    return lambda state: 1 + int(rng.random() * 4)  # as rng.randrange(1, 5), five times faster


def _hide_equilibrium(game: Game) -> Hider:
    rng = game.rng

    def place(state: SauteurState) -> int:
        y, _ = TABLES.placement(state)
        draw = rng.random()
        for key, share in enumerate(y, start=1):
            draw -= share
            if draw < 0:
                return key
        return max(range(1, 5), key=lambda k: y[k - 1])

    return place


def _hide_on(key: int) -> Callable[[Game], Hider]:
    return lambda game: lambda state: key


BIAS = 0.6
"""``biased-K``: the devil die under key K this often, uniform over the four otherwise."""


def _hide_biased(key: int) -> Callable[[Game], Hider]:
    def make(game: Game) -> Hider:
        rng = game.rng
        return lambda state: key if rng.random() < BIAS else 1 + int(rng.random() * 4)

    return make


HIDERS: dict[str, Callable[[Game], Hider]] = {
    "uniform": _hide_uniform,
    "random": _hide_uniform,
    "equilibrium": _hide_equilibrium,
    **{f"devil-on-{key}": _hide_on(key) for key in (1, 2, 3, 4)},
    **{f"biased-{key}": _hide_biased(key) for key in (1, 2, 3, 4)},
}
"""How a seat places the devil die when it hides: ``game -> (state -> key of the devil
die)``. The three number dice are alike, so where the devil die goes is the whole
arrangement. ``random`` is ``uniform``'s old name; ``equilibrium`` is
:meth:`Tables.placement`; ``biased-K`` puts it under K with chance :data:`BIAS`, else
uniformly (so K gets 70 % in all)."""


def _hiders(hider: str | Mapping[str, str]) -> dict[str, str]:
    """Each seat's hider from one name or ``{"p1": ..., "p2": ...}``; ``ValueError`` else."""
    names = dict.fromkeys(PLAYERS, hider) if isinstance(hider, str) else dict(hider)
    if set(names) != set(PLAYERS):
        raise ValueError(f"hider must name a hider for p1 and p2, got {names}")
    for name in names.values():
        if name not in HIDERS:
            raise ValueError(f"unknown hider {name!r}; known: {', '.join(HIDERS)}")
    return names


@dataclass
class SimReport:
    """What :func:`simulate` found. Rates are fractions of ``games`` (0-1)."""

    rule: str
    games: int
    seed: int
    hider: str
    """Both seats' hider, or ``p1-name/p2-name`` when they differ."""
    strategies: dict[str, str]
    hiders: dict[str, str] = field(default_factory=dict)
    """How each seat hides."""
    idle_draws: int = 0
    """Matches drawn by the table rule (:data:`IDLE_LIMIT` turns without a figure moving)."""
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
    hider: str | Mapping[str, str] = "uniform",
    options: Mapping[str, object] | None = None,
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
    report = SimReport(first.rule, games, seed, first.hider, first.strategies, first.hiders)
    report.wins = {key: sum(part.wins[key] for part in parts) for key in first.wins}
    report.idle_draws = sum(part.idle_draws for part in parts)

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
    hider: str | Mapping[str, str] = "uniform",
    options: Mapping[str, object] | None = None,
) -> SimReport:
    """Play ``games`` matches of ``rule`` ("A"/"B") and report.

    ``popper_strategy`` is one strategy name for both players or ``{"p1": ..., "p2": ...}``;
    ``hider`` likewise says how each seat hides. Each game gets its own seed, drawn from
    ``seed`` (:func:`game_seeds`); everything random in it (hiding, faces, plans) comes
    from that seed, so :func:`play_game` replays it alone. The first hider is drawn per
    game unless ``options`` sets ``first_hider``. ``adaptive`` seats keep their belief
    across the run's games (the same opponent, as a roster player). Raises
    ``ValueError`` on an unknown strategy or hider, ``games < 1``, or bad options (the
    :class:`Refused` from setup, which is a ``ValueError``).
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    hiders = _hiders(hider)
    seats = _strategies(popper_strategy)
    base = {**(options or {}), "rule": rule}
    RULES.setup(base)  # bad options fail before any game
    names = set(hiders.values())
    label = hiders["p1"] if len(names) == 1 else f"{hiders['p1']}/{hiders['p2']}"
    report = SimReport(rule, games, seed, label, seats, hiders)
    wins = dict.fromkeys((*PLAYERS, "draw"), 0)
    points = dict.fromkeys(PLAYERS, 0)
    actions = rounds = hidings = 0
    first_score = 0.0
    beliefs: dict[str, list[float]] = {}
    started = time.perf_counter()
    for game_seed in game_seeds(seed, games):
        state, moves, hides, first_popper = play_game(
            base, game_seed, seats, hiders, beliefs, learn=True
        )
        first_score += (
            1.0 if state.winner == first_popper else 0.5 if state.winner == "draw" else 0.0
        )
        actions += moves
        hidings += hides
        rounds += state.round
        wins[state.winner or "draw"] += 1
        report.idle_draws += state.idle >= IDLE_LIMIT
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


def game_seeds(seed: int, games: int) -> list[int]:
    """The seeds of a run's games (32 bits each), all from the run's ``seed``."""
    master = random.Random(seed)
    return [master.getrandbits(32) for _ in range(games)]


def play_game(
    options: Mapping[str, object],
    seed: int,
    seats: Mapping[str, str],
    hiders: Mapping[str, str],
    beliefs: dict[str, list[float]] | None = None,
    learn: bool = False,
) -> tuple[SauteurState, int, int, str]:
    """One game from its own ``seed``: (final state, actions, hidings, first popper).

    ``beliefs``: ``adaptive``'s counts per hiding seat at the game's start (empty: the
    prior); with ``learn`` they become the counts at its end."""
    beliefs = {} if beliefs is None else beliefs
    rng = random.Random(seed)
    game = Game(seed, rng, {seat: list(counts) for seat, counts in beliefs.items()})
    options = dict(options)
    if not options.get("first_hider"):
        options["first_hider"] = rng.choice(PLAYERS)
    state = RULES.setup(options)
    first_popper = state.popper
    play = {player: STRATEGIES[name](game) for player, name in seats.items()}
    place = {player: HIDERS[name](game) for player, name in hiders.items()}

    def place_devil(state: SauteurState) -> int:
        game.devil_key = place[state.hider](state)
        return game.devil_key

    state, moves, hides = play_match(state, rng, play, place_devil)
    if learn and "adaptive" in seats.values():
        beliefs.clear()
        beliefs.update(belief_now(game.beliefs, state))
    return state, moves, hides, first_popper


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
    lines.append(
        f"drawn by the {IDLE_LIMIT}-turn rule: {report.idle_draws} "
        f"({report.idle_draws / report.games:.2%} of the matches)"
    )
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
    "idle_draws", "mean_scores": {"p1", "p2"}}`` (p1 and p2 are seats, whatever role
    they play; ``idle_draws``: the draws the 100-turn rule made, counted in ``draws``)."""
    return {
        "games": report.games,
        "wins": {player: report.wins[player] for player in PLAYERS},
        "draws": report.wins["draw"],
        "idle_draws": report.idle_draws,
        "mean_scores": {player: round(report.mean_points[player], 4) for player in PLAYERS},
    }


def seat_hiders(both: str, first: str | None, second: str | None) -> dict[str, str]:
    """``--hider`` for both seats, ``--hider1``/``--hider2`` overriding a seat."""
    return {"p1": first or both, "p2": second or both}


def main(argv: list[str] | None = None) -> int:
    """``diablotin sim sauteur --rule A|B --games N --seed S [--p1 S] [--p2 S] [--hider H]
    [--hider1 H] [--hider2 H]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="diablotin sim sauteur", description=main.__doc__)
    parser.add_argument("--rule", choices=("A", "B"), default="A")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--p1", choices=tuple(STRATEGIES), default="heuristic")
    parser.add_argument("--p2", choices=tuple(STRATEGIES), default="random")
    parser.add_argument("--hider", choices=tuple(HIDERS), default="uniform")
    parser.add_argument("--hider1", choices=tuple(HIDERS), default=None)
    parser.add_argument("--hider2", choices=tuple(HIDERS), default=None)
    parser.add_argument("--json", action="store_true", help="print the JSON contract only")
    args = parser.parse_args(argv)
    try:
        report = simulate(
            args.rule,
            args.games,
            args.seed,
            {"p1": args.p1, "p2": args.p2},
            seat_hiders(args.hider, args.hider1, args.hider2),
        )
    except (ValueError, Refused) as error:
        parser.error(str(error))
    print(json.dumps(report_json(report)) if args.json else format_report(report))
    return 0
