"""Cards, tails and scores, checked against positions worked out by hand from the spec."""

from __future__ import annotations

import itertools
import json

import pytest

from controller.games.tails import KINDS, game_view, score
from controller.games.tails.cards import LINKS, PLACEMENTS, code_of, rotated_pairs

from .test_tails_support import RULES, with_cards

# Every kind × rotation, worked out by hand: canonical point p goes to (p + 2k) mod 6.
HAND_PAIRS = {
    ("A", 0): {(0, 1), (2, 3), (4, 5)},
    ("B", 0): {(1, 2), (3, 4), (0, 5)},
    ("C", 0): {(0, 3), (1, 4), (2, 5)},
    ("D", 0): {(0, 1), (2, 4), (3, 5)},
    ("D", 1): {(2, 3), (0, 4), (1, 5)},
    ("D", 2): {(4, 5), (0, 2), (1, 3)},
    ("E", 0): {(0, 1), (2, 5), (3, 4)},
    ("E", 1): {(2, 3), (1, 4), (0, 5)},
    ("E", 2): {(4, 5), (0, 3), (1, 2)},
    ("F", 0): {(0, 2), (1, 4), (3, 5)},
    ("F", 1): {(2, 4), (0, 3), (1, 5)},
    ("F", 2): {(0, 4), (2, 5), (1, 3)},
    ("G", 0): {(0, 2), (1, 5), (3, 4)},
    ("G", 1): {(2, 4), (1, 3), (0, 5)},
    ("G", 2): {(0, 4), (3, 5), (1, 2)},
}


def all_matchings() -> set[frozenset[tuple[int, int]]]:
    result = set()
    for order in itertools.permutations(range(6)):
        pairs = frozenset(tuple(sorted(order[i : i + 2])) for i in (0, 2, 4))
        result.add(pairs)
    return result  # type: ignore[return-value]


def test_every_kind_and_rotation_matches_the_hand_table() -> None:
    assert list(PLACEMENTS) == list(HAND_PAIRS)
    for (kind, rotation), pairs in HAND_PAIRS.items():
        assert set(rotated_pairs(kind, rotation)) == pairs


def test_the_fifteen_placements_are_the_fifteen_pairings() -> None:
    found = {frozenset(rotated_pairs(kind, rotation)) for kind, rotation in PLACEMENTS}
    assert len(found) == 15 and found == all_matchings()


def test_symmetric_kinds_look_the_same_rotated_and_others_do_not() -> None:
    for kind in KINDS:
        distinct = {rotated_pairs(kind, r) for r in range(3)}
        assert len(distinct) == (1 if kind in "ABC" else 3)


def test_links_are_involutions_without_fixed_points() -> None:
    for link in LINKS:
        assert sorted(link) == list(range(6))
        for point in range(6):
            assert link[point] != point and link[link[point]] == point


@pytest.mark.parametrize(("kind", "rotation"), list(HAND_PAIRS))
def test_each_placement_routes_devil_a(kind: str, rotation: int) -> None:
    # A's body is point 0 of 2n (top edge); its tail end is point 1 of 2n.
    state = RULES.apply(
        RULES.setup({"players": 2}),
        {"type": "place", "cell": "2n", "kind": kind, "rotation": rotation},
    )
    devil_a = RULES.view(state, "public")["devils"][0]
    out = next(b if a == 0 else a for a, b in HAND_PAIRS[(kind, rotation)] if 0 in (a, b))
    assert devil_a["segments"][0] == ["2n", 0, out]
    if out == 1:  # straight back to its own tail end
        assert (devil_a["end"], devil_a["end_devil"], devil_a["points"]) == ("tail", "A", 1)
    else:  # into an empty neighbour: open, provisional
        assert (devil_a["end"], devil_a["provisional"], devil_a["points"]) == ("open", True, 1)


def test_all_hooks_score_one_each() -> None:
    state = with_cards(RULES.setup({"players": 2}), [(c, "A", 0) for c in load_ids()])
    points, totals = score(state.board, state.cards, 2)
    assert points == [1] * 18 and totals == [9, 9]


def load_ids() -> tuple[str, ...]:
    return RULES.setup({}).board.cell_ids


def test_all_crossings() -> None:
    state = with_cards(RULES.setup({"players": 2}), [(c, "C", 0) for c in load_ids()])
    devils = game_view(state)["devils"]
    assert devils[0]["segments"] == [["2n", 0, 3], ["3n", 2, 5], ["4n", 4, 1]]
    assert (devils[0]["end"], devils[0]["end_devil"], devils[0]["points"]) == ("tail", "B", 3)
    assert (devils[2]["cells"], devils[2]["end_devil"]) == (["6n", "7n"], "D")


def test_all_corner_arcs() -> None:
    state = with_cards(RULES.setup({"players": 2}), [(c, "B", 0) for c in load_ids()])
    devil_a = game_view(state)["devils"][0]
    assert devil_a["segments"] == [["2n", 0, 5], ["1n", 4, 3]]
    assert (devil_a["end"], devil_a["end_devil"], devil_a["points"]) == ("tail", "T", 2)


def test_a_tail_ending_at_a_body_scores_nothing_both_ways() -> None:
    state = with_cards(RULES.setup({"players": 2}), [("2n", "B", 0), ("1n", "D", 0)])
    view = game_view(state)
    devil_a, devil_t = view["devils"][0], view["devils"][17]
    assert devil_a["segments"] == [["2n", 0, 5], ["1n", 4, 2]]
    assert (devil_a["length"], devil_a["end"], devil_a["end_devil"], devil_a["points"]) == (
        2, "body", "T", 0,
    )  # fmt: skip
    assert devil_t["segments"] == [["1n", 2, 4], ["2n", 5, 0]]
    assert (devil_t["end"], devil_t["end_devil"], devil_t["points"]) == ("body", "A", 0)


def test_a_cell_crossed_twice_counts_twice() -> None:
    # T's tail circles the corner shared by 1n, 2n, 3n, 9n, 10n, 11n and comes back to 1n.
    cards = [("1n", "F", 0), ("9n", "B", 0), ("10n", "B", 0), ("11n", "B", 0), ("3n", "B", 0),
             ("2n", "B", 0)]  # fmt: skip
    view = game_view(with_cards(RULES.setup({"players": 2}), cards))
    devil_t = view["devils"][17]
    assert devil_t["cells"] == ["1n", "9n", "10n", "11n", "3n", "2n", "1n"]
    assert devil_t["segments"][0] == ["1n", 2, 0] and devil_t["segments"][-1] == ["1n", 5, 3]
    assert (devil_t["length"], devil_t["end"], devil_t["end_devil"], devil_t["points"]) == (
        7, "tail", "T", 7,
    )  # fmt: skip
    devil_a = view["devils"][0]  # runs into the empty 8n: open, provisional
    assert devil_a["cells"] == ["2n", "1n", "9n"]
    assert (devil_a["end"], devil_a["provisional"], devil_a["points"]) == ("open", True, 3)
    assert view["totals"] == [3 + 0, 7]  # A is provisional; B–I have not started
    assert view["secured_totals"] == [0, 7]


def test_a_tail_into_an_empty_body_cell_is_open_with_length_zero() -> None:
    view = game_view(RULES.setup({"players": 3}))
    assert all(
        (d["length"], d["end"], d["points"], d["provisional"], d["cells"])
        == (0, "open", 0, True, [])
        for d in view["devils"]
    )
    assert view["totals"] == [0, 0, 0]


def test_fast_score_equals_the_traced_view() -> None:
    cards = [("1n", "F", 0), ("9n", "B", 0), ("10n", "B", 0), ("2n", "E", 1), ("3n", "G", 2)]
    state = with_cards(RULES.setup({"players": 3}), cards)
    points, totals = score(state.board, state.cards, 3)
    view = game_view(state)
    assert points == [d["points"] for d in view["devils"]]
    assert totals == view["totals"]
    json.dumps(view)


def test_codes() -> None:
    assert code_of("A", 2) == 0 and code_of("E", 2) == 14 and code_of("G", 1) == 19
