"""Two-player tail-tile games between advisors, through the rules engine.

A seeded :class:`random.Random` turns the cards (each kind weighted by the cards left in
stock); each seat places with its advisor, seeing the card first:

- ``greedy``: :func:`~controller.games.tails.advisor.advise`'s best;
- ``lookahead``: the same with ``lookahead=True`` (the next placement played too);
- ``rollouts``: :func:`~controller.games.tails.advisor.advise_rollouts`'s best, with a fixed
  number of rollout rounds (``rollouts``, reproducible) or a time budget (``budget_s``).

Seats are ``p1`` (seat 0, moves first) and ``p2``. ``diablotin sim tails`` prints the
:func:`controller.sim.report_json`-shaped contract, plus the seconds each seat thought.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from controller.games.tails.advisor import _final_value, advise, advise_rollouts
from controller.games.tails.cards import KINDS
from controller.games.tails.rules import TailsRules, TailsState, pending

ADVISORS = ("greedy", "lookahead", "rollouts")
RULES = TailsRules()
SEATS = ("p1", "p2")


@dataclass
class TailsReport:
    games: int
    wins: dict[str, int] = field(default_factory=lambda: {"p1": 0, "p2": 0, "draw": 0})
    points: dict[str, float] = field(default_factory=lambda: {"p1": 0.0, "p2": 0.0})
    think_s: dict[str, float] = field(default_factory=lambda: {"p1": 0.0, "p2": 0.0})
    moves: dict[str, int] = field(default_factory=lambda: {"p1": 0, "p2": 0})

    def as_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": {seat: self.wins[seat] for seat in SEATS},
            "draws": self.wins["draw"],
            "mean_scores": {seat: round(self.points[seat] / self.games, 3) for seat in SEATS},
            "seconds_per_move": {
                seat: round(self.think_s[seat] / max(1, self.moves[seat]), 4) for seat in SEATS
            },
        }


def _choose(
    name: str,
    state: TailsState,
    kind: str,
    rng: random.Random,
    rollouts: int | None,
    budget_s: float,
) -> dict[str, object]:
    if name == "greedy":
        return advise(state, kind, top=1)[0].action()
    if name == "lookahead":
        return advise(state, kind, lookahead=True, top=1)[0].action()
    if name == "rollouts":
        best = advise_rollouts(state, kind, rng, rollouts=rollouts, budget_s=budget_s, top=1)
        return best[0].action()
    raise ValueError(f"unknown advisor {name!r}; known: {', '.join(ADVISORS)}")


def play_game(
    advisors: dict[str, str],
    rng: random.Random,
    report: TailsReport,
    rollouts: int | None = None,
    budget_s: float = 0.2,
) -> None:
    """One game, added to ``report``."""
    state = RULES.setup({"players": 2})
    while (due := pending(state)) is not None:
        if not due.legal:
            state = RULES.apply(state, {"type": "pass"})
            continue
        kind = rng.choices(KINDS, weights=state.stock)[0]
        seat = SEATS[due.seat]
        start = time.perf_counter()
        action = _choose(advisors[seat], state, kind, rng, rollouts, budget_s)
        report.think_s[seat] += time.perf_counter() - start
        report.moves[seat] += 1
        state = RULES.apply(state, action)
    scores = {seat: _final_value(state, side) for side, seat in enumerate(SEATS)}
    for seat in SEATS:
        report.points[seat] += (scores[seat] - scores[other(seat)]) / 2  # own total minus other
    if scores["p1"] == scores["p2"]:
        report.wins["draw"] += 1
    else:
        report.wins[max(SEATS, key=lambda seat: scores[seat])] += 1


def other(seat: str) -> str:
    return "p2" if seat == "p1" else "p1"


def duel(
    games: int,
    seed: int,
    p1: str,
    p2: str,
    rollouts: int | None = None,
    budget_s: float = 0.2,
) -> TailsReport:
    """``games`` games, ``p1`` moving first every game; raises ``ValueError`` for an unknown
    advisor or a count below 1."""
    for name in (p1, p2):
        if name not in ADVISORS:
            raise ValueError(f"unknown advisor {name!r}; known: {', '.join(ADVISORS)}")
    if games < 1:
        raise ValueError("games must be at least 1")
    rng = random.Random(seed)
    report = TailsReport(games)
    for _ in range(games):
        play_game({"p1": p1, "p2": p2}, rng, report, rollouts, budget_s)
    return report
