"""The advisor, checked against brute force (apply every option, score the board)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from controller.games.base import Refused
from controller.games.tails import (
    KINDS,
    TailsState,
    advise,
    advise_cell,
    legal_cells,
    pending,
    score,
)
from controller.games.tails.advisor import advise_rollouts, playout
from controller.games.tails.cards import rotations

from .test_tails_support import RULES, fill_except, random_game


def value(state: TailsState, side: int) -> int:
    totals = score(state.board, state.cards, state.players)[1]
    return 2 * totals[side] - sum(totals)


def place(cell: str, kind: str, rotation: int) -> dict[str, object]:
    return {"type": "place", "cell": cell, "kind": kind, "rotation": rotation}


def brute_force(state: TailsState, kind: str) -> dict[tuple[str, int], float]:
    side = pending(state).side  # type: ignore[union-attr]
    return {
        (cell, r): float(value(RULES.apply(state, place(cell, kind, r)), side))
        for cell in legal_cells(state)
        for r in rotations(kind)
    }


def brute_force_reply(state: TailsState, me: int) -> float:
    """Expected value for ``me`` after the next placement, played greedily by its player."""
    due = pending(state)
    if due is None or not due.legal:
        return float(value(state, me))
    left = sum(state.stock)
    best: tuple[float, float] | None = None
    for cell in legal_cells(state):
        mover_total = mine_total = 0.0
        for k, kind in enumerate(KINDS):
            if state.stock[k] == 0:
                continue
            options = [RULES.apply(state, place(cell, kind, r)) for r in rotations(kind)]
            chosen = max(options, key=lambda after: value(after, due.side))
            mover_total += state.stock[k] / left * value(chosen, due.side)
            mine_total += state.stock[k] / left * value(chosen, me)
        if best is None or mover_total > best[0]:
            best = (mover_total, mine_total)
    assert best is not None
    return best[1]


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (4, 4), (3, 5)])
def test_advice_values_equal_brute_force(players: int, seed: int) -> None:
    rng = random.Random(seed)
    for placed in (0, 8, 20, 35, 50):
        state = random_game(rng, players, placements=placed)
        if not legal_cells(state):
            continue
        kind = rng.choice([k for i, k in enumerate(KINDS) if state.stock[i] > 0])
        expected = brute_force(state, kind)
        suggestions = advise(state, kind, top=None)
        assert {(s.cell, s.rotation): s.value for s in suggestions} == expected
        assert [s.value for s in suggestions] == sorted(expected.values(), reverse=True)
        now = value(state, pending(state).side)  # type: ignore[union-attr]
        assert all(s.gain == s.value - now for s in suggestions)


@pytest.mark.parametrize(
    ("players", "seed", "placed"),
    [(2, 11, 30), (2, 12, 47), (2, 17, 21), (3, 13, 44), (3, 16, 20), (4, 14, 38), (3, 15, 51)],
)
def test_lookahead_values_equal_brute_force(players: int, seed: int, placed: int) -> None:
    rng = random.Random(seed)
    state = random_game(rng, players, placements=placed)
    assert not state.finished
    me = pending(state).side  # type: ignore[union-attr]
    kind = next(k for i, k in enumerate(KINDS) if state.stock[i] > 0)
    suggestions = advise(state, kind, lookahead=True, top=None)
    assert len(suggestions) == len(legal_cells(state)) * len(rotations(kind))
    for suggestion in rng.sample(suggestions, min(4, len(suggestions))):
        after = RULES.apply(state, suggestion.action())
        assert suggestion.value == pytest.approx(brute_force_reply(after, me))


def test_the_advisor_closes_a_long_tail_rather_than_breaking_it() -> None:
    # Every cell but 1n holds a B card. Seat 1 (K–T) draws F for 1n, where T's tail starts.
    # F0 sends T round the corner and back into 1n to its own tail end (7) and takes A on to
    # S's tail end (1 → 4); F1 and F2 join T to A's body (both 0).
    state = fill_except(RULES.setup({"players": 2}), {"1n"}, last="3s", kind="B")
    state = dataclasses.replace(state, seat=1, turn=3, step=1)
    suggestions = advise(state, "F", top=None)
    assert [(s.cell, s.rotation, s.gain) for s in suggestions] == [
        ("1n", 0, 7 - 3),
        ("1n", 1, 0 - (-1)),
        ("1n", 2, 0 - (-1)),
    ]
    devils = RULES.view(RULES.apply(state, suggestions[0].action()), "public")["devils"]
    assert (devils[17]["length"], devils[17]["end"], devils[17]["points"]) == (7, "tail", 7)
    assert (devils[0]["cells"], devils[0]["end_devil"]) == (["2n", "1n", "9n", "8n"], "S")


def test_forced_placement_only_ranks_rotations() -> None:
    state = RULES.apply(RULES.setup({"players": 2}), place("14n", "E", 2))
    suggestions = advise(state, "G", top=None)
    assert {s.cell for s in suggestions} == {"14s"} and len(suggestions) == 3
    assert [s.rotation for s in advise(state, "A", top=None)] == [0]


def test_advise_cell_is_the_expected_best_over_the_stock() -> None:
    state = random_game(random.Random(21), 2, placements=25)
    due = pending(state)
    assert due is not None
    left = sum(state.stock)
    expected = {}
    for cell in legal_cells(state):
        total = 0.0
        for k, kind in enumerate(KINDS):
            if state.stock[k]:
                best = max(
                    value(RULES.apply(state, place(cell, kind, r)), due.side)
                    for r in rotations(kind)
                )
                total += state.stock[k] / left * best
        expected[cell] = total
    suggestions = advise_cell(state, top=None)
    assert {s.cell: s.value for s in suggestions} == pytest.approx(expected)
    assert all(s.kind is None and s.rotation is None for s in suggestions)
    with pytest.raises(ValueError, match="has no action"):
        suggestions[0].action()


def test_advice_when_there_is_nothing_to_advise() -> None:
    state = RULES.setup({"players": 2})
    with pytest.raises(Refused) as caught:
        advise(state, "J")
    assert caught.value.code == "bad-kind"
    no_e = RULES.apply(
        RULES.setup({"players": 2, "stock": {"E": 1, "A": 13}}), place("14n", "E", 2)
    )
    with pytest.raises(Refused) as caught:
        advise(no_e, "E")
    assert caught.value.reason == "no E cards left"
    finished = fill_except(state, set(), last="12n")
    assert advise(finished, "A") == [] and advise_cell(finished) == []
    blocked = fill_except(state, {"2n"}, last="3s")
    blocked = dataclasses.replace(blocked, seat=1, turn=4, step=1)
    assert legal_cells(blocked) == [] and advise(blocked, "A") == []
    suggestion = advise(state, "C")[0]
    assert suggestion.as_dict()["kind"] == "C" and suggestion.action()["type"] == "place"


def test_a_playout_ends_the_game_and_returns_its_final_measure() -> None:
    state = random_game(random.Random(21), 2, placements=30)
    draws = [k for k, count in enumerate(state.stock) for _ in range(count)]
    random.Random(22).shuffle(draws)
    final, turned = state, iter(draws)
    while (due := pending(final)) is not None:  # the same playout, by hand
        if not due.legal:
            final = RULES.apply(final, {"type": "pass"})
            continue
        kind = KINDS[next(turned)]
        options = brute_force(final, kind)
        cell, rotation = max(options, key=lambda option: options[option])
        final = RULES.apply(final, place(cell, kind, rotation))
    assert final.finished
    assert playout(state, draws, 1) == value(final, 1)
    assert playout(state, draws, 0) == value(final, 0) == -value(final, 1)


@pytest.mark.parametrize("seed", [31, 32, 33])
def test_rollout_values_are_exact_when_no_card_is_left_to_chance(seed: int) -> None:
    # With one cell left no card is turned after this one: every playout is the same, so
    # the Monte Carlo value of each candidate is its exact final measure.
    rng = random.Random(seed)
    state = random_game(rng, 2, placements=0)
    while state.cards.count(-1) > 1:
        state = random_game(rng, 2, placements=state.board.cell_count - 1)
    if not legal_cells(state):
        pytest.skip("the last cell is not this player's to fill")
    kind = next(k for i, k in enumerate(KINDS) if state.stock[i] > 0)
    ranked = advise_rollouts(state, kind, random.Random(1), rollouts=3, top=None)
    exact = brute_force(state, kind)
    assert ranked and all(s.value == exact[(s.cell, s.rotation)] for s in ranked)
    assert [s.value for s in ranked] == sorted((s.value for s in ranked), reverse=True)


def test_rollout_advice_is_reproducible_legal_and_refuses_like_the_greedy() -> None:
    state = random_game(random.Random(41), 2, placements=20)
    kind = next(k for i, k in enumerate(KINDS) if state.stock[i] > 0)
    first = advise_rollouts(state, kind, random.Random(5), rollouts=4)
    again = advise_rollouts(state, kind, random.Random(5), rollouts=4)
    assert first == again and 1 <= len(first) <= 3
    for suggestion in first:
        RULES.apply(state, suggestion.action())  # legal: raises Refused otherwise
    greedy_cells = {(s.cell, s.rotation) for s in advise(state, kind, top=6)}
    assert {(s.cell, s.rotation) for s in first} <= greedy_cells
    with pytest.raises(Refused):
        advise_rollouts(state, "Z", random.Random(5), rollouts=1)
