"""Teufel Teufel as statistics read it (:class:`controller.games.registry.Stats`).

Seats are the players' colours; the first player is ``first``; everyone who leaves the
board wins (all but the losers); there are no points. The chart is the letters each
player holds after each action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.games.registry import Outcome, Stats

from .rules import TeufelRules
from .state import State


def _state(state: object) -> State:
    assert isinstance(state, State), type(state)  # the engine of this kind made it
    return state


def seats(options: Mapping[str, object]) -> list[str]:
    return [player.colour for player in TeufelRules().setup(options).players]


def outcome(state: object, seats: Sequence[str]) -> Outcome:
    game = _state(state)
    winners = tuple(seat for i, seat in enumerate(seats) if i not in game.losers)
    return Outcome(f"{len(seats)}p", seats[game.first], winners)


def chart(
    options: Mapping[str, object], actions: Sequence[Mapping[str, object]], seats: Sequence[str]
) -> dict[str, object]:
    rules = TeufelRules()
    state = rules.setup(options)
    held = [[len(p.letters) for p in state.players]]
    for action in actions:
        state = rules.apply(state, action)
        held.append([len(p.letters) for p in state.players])
    return {
        "chart": "letters",
        "series": {seat: [row[i] for row in held] for i, seat in enumerate(seats)},
    }


def seat_word(seat: str) -> tuple[str, dict[str, object]]:
    return f"teufel.colour.{seat}", {}


STATS = Stats(seats=seats, outcome=outcome, chart=chart, seat_word=seat_word)
