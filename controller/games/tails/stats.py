"""The tail-tile game as statistics read it (:class:`controller.games.registry.Stats`).

Seats are ``seat1``..``seatN``; seat 1 plays first; every seat of a winning side wins (a
tie gives every tied side a win); a seat's points are its side's. The chart is the
score of each side after each action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.games.registry import Outcome, Stats

from .rules import TailsRules, TailsState, game_view, seats_of_side, side_of_seat
from .scoring import side_totals, trace_all


def _state(state: object) -> TailsState:
    assert isinstance(state, TailsState), type(state)  # the engine of this kind made it
    return state


def seats(options: Mapping[str, object]) -> list[str]:
    return [f"seat{i + 1}" for i in range(TailsRules().setup(options).players)]


def outcome(state: object, seats: Sequence[str]) -> Outcome:
    winning = game_view(_state(state))["winning_seats"]
    return Outcome(f"{len(seats)}p", seats[0], tuple(seats[i] for i in winning))


def scores(state: object, seats: Sequence[str]) -> dict[str, int]:
    game = _state(state)
    totals = game_view(game)["totals"]
    return {seat: int(totals[side_of_seat(game.players, i)]) for i, seat in enumerate(seats)}


def _totals(state: TailsState) -> list[int]:
    points = [tail.points for tail in trace_all(state.board, state.cards)]
    return side_totals(state.board, state.players, points)


def chart(
    options: Mapping[str, object], actions: Sequence[Mapping[str, object]], seats: Sequence[str]
) -> dict[str, object]:
    rules = TailsRules()
    state = rules.setup(options)
    count = len(state.board.sides[state.players])
    sides = [[seats[seat] for seat in seats_of_side(state.players, side)] for side in range(count)]
    points = [_totals(state)]
    for action in actions:
        state = rules.apply(state, action)
        points.append(_totals(state))
    return {
        "chart": "score",
        "sides": sides,
        "series": [[row[side] for row in points] for side in range(count)],
    }


def seat_word(seat: str) -> tuple[str, dict[str, object]]:
    return "tails.player", {"n": int(seat.removeprefix("seat"))}


STATS = Stats(seats=seats, outcome=outcome, chart=chart, scores=scores, seat_word=seat_word)
