"""Placement rules: setup, turn order, twin, exception and sector rules, stock, refusals."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Refused, replay
from controller.games.tails import (
    TailsState,
    cell_refusals,
    format_move,
    legal_cells,
    parse_move,
    pending,
)
from controller.games.tails.notation import NotationError

from .test_tails_board import tiny_board
from .test_tails_support import RULES, fill_except


def place(cell: str, kind: str = "D", rotation: int = 1) -> dict[str, Any]:
    return {"type": "place", "cell": cell, "kind": kind, "rotation": rotation}


def play(state: TailsState, *moves: str) -> TailsState:
    for move in moves:
        state = RULES.apply(state, parse_move(move))
    return state


def refused(state: TailsState, action: Any) -> Refused:
    with pytest.raises(Refused) as caught:
        RULES.apply(state, action)
    return caught.value


# -- setup ----------------------------------------------------------------------------


def test_setup_defaults() -> None:
    state = RULES.setup({})
    assert state.players == 2
    assert state.stock == (8,) * 7
    assert state.cards == (-1,) * 54
    assert (state.turn, state.seat, state.step) == (1, 0, 0)
    assert RULES.name == "tails"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"players": 5}, "players must be one of 2, 3, 4, not 5"),
        ({"players": "2"}, "players must be one of 2, 3, 4, not '2'"),
        ({"players": True}, "players must be one of 2, 3, 4, not True"),
        ({"colour": "red"}, "unknown option(s): colour"),
        ({"stock": 7}, "49 cards cannot fill 54 cells"),
        ({"stock": -1}, "stock of A must be a whole number ≥ 0, not -1"),
        ({"stock": {"J": 3}}, "stock: unknown kind(s) ['J']"),
        ({"stock": {"E": 1.5}}, "stock of E must be a whole number ≥ 0, not 1.5"),
        ({"board": 3}, "board must be a board name or a file path"),
    ],
)
def test_bad_setup_options(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(Refused) as caught:
        RULES.setup(options)
    assert caught.value.reason == reason
    assert caught.value.code in ("bad-options", "bad-board")


def test_stock_per_kind() -> None:
    state = RULES.setup({"players": 3, "stock": {"E": 1, "A": 13}})
    assert state.stock == (13, 8, 8, 8, 1, 8, 8)


# -- 2 players: turn order and the twin rule -------------------------------------------


def test_two_player_turn_order_and_twin_rule() -> None:
    state = RULES.setup({"players": 2})
    due = pending(state)
    assert due is not None and (due.seat, due.forced, due.of) == (0, None, 1)
    state = play(state, "14n:E2")
    due = pending(state)
    assert due is not None
    assert (due.seat, due.placement, due.of) == (1, 1, 2)
    assert due.forced == state.board.index["14s"] and legal_cells(state) == ["14s"]
    wrong = refused(state, place("13n"))
    assert (wrong.reason, wrong.code) == ("the twin rule forces 14s", "twin-rule")
    state = play(state, "14s:D1")
    due = pending(state)
    assert due is not None and (due.seat, due.placement, due.forced) == (1, 2, None)
    state = play(state, "5n:G0")
    due = pending(state)
    assert due is not None and (due.seat, due.placement) == (0, 1)
    assert legal_cells(state) == ["5s"]
    assert state.moves == ("14n:E2", "14s:D1", "5n:G0")


def test_twin_already_filled_makes_the_placement_chosen() -> None:
    # Seat 1 (K–T) must pass: only A–I body cells are empty. Its last card was on 3s, whose
    # twin 3n is filled, so seat 0's next first placement is chosen, not forced.
    state = RULES.setup({"players": 2})
    state = dataclasses.replace(state, turn=5, seat=1, step=1)
    state = fill_except(state, {"2n", "4n", "6n"}, last="3s")
    assert legal_cells(state) == []
    assert RULES.legal_actions(state) == [{"type": "pass"}]
    blocked = refused(state, place("2n"))
    assert blocked.reason == "exception rule: 2n borders devil A's body, an opponent's"
    state = RULES.apply(state, {"type": "pass"})
    assert state.moves[-1] == "pass"
    due = pending(state)
    assert due is not None
    assert (due.seat, due.placement, due.forced) == (0, 1, None)
    assert legal_cells(state) == ["2n", "4n", "6n"]


def test_the_forced_placement_is_exempt_from_the_exception_rule(tmp_path: Path) -> None:
    # On the tiny board 2n (U's body, side 0) and 2s (X's body, side 1) are twins; make the
    # twin of 2n hold another side-0 body so seat 1 is forced onto an opponent's body cell.
    data = tiny_board()
    data["devils"][3] = {"name": "X", "body": ["2s", 1], "tail": ["2s", 0]}
    data["sides"]["2"] = [["U", "V", "W", "X"], ["Y", "Z"]]
    path = tmp_path / "twisted.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    state = RULES.setup({"players": 2, "board": str(path), "stock": 2})
    state = play(state, "2n:A0")
    assert legal_cells(state) == ["2s"]
    state = play(state, "2s:B0")  # seat 1 onto X's body cell: allowed, it is forced
    assert state.cards[state.board.index["2s"]] >= 0
    # ...while a chosen placement may not go on such a cell
    assert cell_refusals(state)["3s"] == "exception rule: 3s borders devil W's body, an opponent's"


# -- exception rule -------------------------------------------------------------------


def test_exception_rule_refuses_an_opponents_body_cell() -> None:
    state = RULES.setup({"players": 2})
    wrong = refused(state, place("2s"))
    assert (wrong.reason, wrong.code) == (
        "exception rule: 2s borders devil K's body, an opponent's",
        "exception-rule",
    )
    assert refused(state, place("1n")).reason == (
        "exception rule: 1n borders devil T's body, an opponent's"
    )
    # own devils' cells, and inner cells, are fine
    assert RULES.apply(state, place("2n")).cards[state.board.index["2n"]] >= 0
    assert RULES.apply(state, place("12n")).cards[state.board.index["12n"]] >= 0
    assert len(legal_cells(state)) == 45


def test_exception_rule_with_teams() -> None:
    state = RULES.setup({"players": 4})
    assert [pending(state).side for state in [state]] == [0]  # type: ignore[union-attr]
    state = play(state, "12n:A0", "12s:A0", "13n:A0")  # seat 0, then seat 1 (twin, chosen)
    due = pending(state)
    assert due is not None and (due.seat, due.side) == (2, 0)
    state = play(state, "13s:A0")  # seat 2's forced placement
    # seat 2 is on seat 0's team: partner's devils are its own, K–T are opponents'
    assert "2n" in legal_cells(state) and "2s" not in legal_cells(state)
    assert refused(state, place("7s")).reason == (
        "exception rule: 7s borders devil N's body, an opponent's"
    )
    state = play(state, "2n:B0")
    due = pending(state)
    assert due is not None and (due.seat, due.side) == (3, 1)
    view = RULES.view(state, "public")
    assert view["sides"][0]["seats"] == [0, 2] and view["sides"][1]["seats"] == [1, 3]


def test_corner_cells_only_count_their_own_boundary_edge() -> None:
    # 1n's apex touches the corner next to A's body on 2n, but only T's body is on 1n.
    state = RULES.setup({"players": 2})
    assert "1n" not in legal_cells(state)  # T is the opponent's
    state = play(state, "12n:A0", "12s:A0")
    assert "1n" in legal_cells(state)  # seat 1 owns T: 1n is fine for it
    state = play(state, "1n:A0")
    assert state.cards[state.board.index["1n"]] >= 0


# -- 3 players: the sector rule -------------------------------------------------------


def test_sector_rule() -> None:
    state = RULES.setup({"players": 3})
    state = play(state, "12n:A0")  # sector 0
    due = pending(state)
    assert due is not None and (due.seat, due.excluded_sector, due.forced) == (1, 0, None)
    wrong = refused(state, place("13n"))
    assert (wrong.reason, wrong.code) == (
        "sector rule: choose a cell outside sector 0",
        "sector-rule",
    )
    state = play(state, "15n:C0")  # sector 1
    assert pending(state).excluded_sector == 1  # type: ignore[union-attr]
    state = play(state, "13n:C0")  # back in sector 0 is fine now
    assert pending(state).seat == 0  # type: ignore[union-attr]
    # 3 players: no twin rule, one card a turn
    assert len(legal_cells(state)) > 1


def test_sector_rule_falls_back_to_the_same_sector() -> None:
    state = RULES.setup({"players": 3})
    # only sector-0 cells are empty and the last card went into sector 0
    state = fill_except(state, {"3n", "12n", "13n"}, last="11n")
    due = pending(state)
    assert due is not None and due.excluded_sector is None
    assert legal_cells(state) == ["3n", "12n", "13n"]
    state = RULES.apply(state, place("12n"))
    assert state.moves == ("12n:D1",)


def test_three_player_pass_when_nothing_is_legal() -> None:
    state = RULES.setup({"players": 3})
    # empty: 2n (A, side 0's) only; seat 1 (G–M) may not choose it
    state = dataclasses.replace(state, seat=1)
    state = fill_except(state, {"2n"}, last="12n")
    assert RULES.legal_actions(state) == [{"type": "pass"}]
    state = RULES.apply(state, {"type": "pass"})
    state = RULES.apply(state, {"type": "pass"})  # seat 2 too
    due = pending(state)
    assert due is not None and due.seat == 0 and legal_cells(state) == ["2n"]
    wrong = refused(state, {"type": "pass"})
    assert (wrong.reason, wrong.code) == ("cannot pass: 1 cell(s) are legal, e.g. 2n", "must-place")
    state = RULES.apply(state, place("2n"))
    assert RULES.is_over(state) and pending(state) is None
    assert RULES.legal_actions(state) == []


# -- stock, kinds, rotations ------------------------------------------------------------


def test_no_cards_of_a_kind_left() -> None:
    state = RULES.setup({"players": 2, "stock": {"E": 1, "A": 13}})
    state = play(state, "14n:E2")
    assert state.stock[4] == 0
    wrong = refused(state, place("14s", "E", 0))
    assert (wrong.reason, wrong.code) == ("no E cards left", "no-stock")
    assert all(action["kind"] != "E" for action in RULES.legal_actions(state))


def test_symmetric_kinds_normalise_rotation() -> None:
    state = RULES.setup({"players": 2})
    after = RULES.apply(state, place("12n", "C", 2))
    assert after.cards[after.board.index["12n"]] == 2 * 3 + 0
    assert after.moves == ("12n:C0",)
    assert RULES.apply(state, {"type": "place", "cell": "12n", "kind": "A"}).moves == ("12n:A0",)
    wrong = refused(state, {"type": "place", "cell": "12n", "kind": "E"})
    assert wrong.reason == "rotation must be 0, 1 or 2, not None"


def test_legal_actions_cover_every_distinct_placement() -> None:
    state = RULES.setup({"players": 2})
    actions = RULES.legal_actions(state)
    assert len(actions) == 45 * 15
    assert {"type": "place", "cell": "12n", "kind": "A", "rotation": 0} in actions
    assert {"type": "place", "cell": "12n", "kind": "A", "rotation": 1} not in actions
    for action in actions[::37]:
        RULES.apply(state, action)
    state = play(state, "14n:E2")
    assert {a["cell"] for a in RULES.legal_actions(state)} == {"14s"}


# -- bad input changes nothing -----------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "reason", "code"),
    [
        ("not a dict", "an action is a JSON object with a 'type'", "bad-action"),
        ({"type": "jump"}, "unknown action type 'jump' (known: place, pass)", "unknown-action"),
        ({"cell": "12n"}, "an action is a JSON object with a 'type'", "bad-action"),
        ({"type": "place", "cell": "99n", "kind": "A"}, "unknown cell '99n'", "bad-cell"),
        ({"type": "place", "kind": "A"}, "unknown cell None", "bad-cell"),
        ({"type": "place", "cell": "12n", "kind": "J", "rotation": 0},
         "unknown card kind 'J': one of A, B, C, D, E, F, G", "bad-kind"),
        ({"type": "place", "cell": "12n", "kind": "E", "rotation": 3},
         "rotation must be 0, 1 or 2, not 3", "bad-rotation"),
        ({"type": "place", "cell": "12n", "kind": "E", "rotation": "1"},
         "rotation must be 0, 1 or 2, not '1'", "bad-rotation"),
        ({"type": "place", "cell": "12n", "kind": "E", "rotation": True},
         "rotation must be 0, 1 or 2, not True", "bad-rotation"),
        ({"type": "place", "cell": "12n", "kind": "E", "rotation": 1, "seat": 0},
         "unexpected field(s) ['seat']", "bad-action"),
        ({"type": "pass", "cell": "12n"}, "a pass has no other fields", "bad-action"),
        ({"type": "pass"}, "cannot pass: 45 cell(s) are legal, e.g. 2n", "must-place"),
    ],
)  # fmt: skip
def test_bad_actions_are_refused_and_change_nothing(action: Any, reason: str, code: str) -> None:
    state = RULES.setup({"players": 2})
    before = dataclasses.astuple(state)
    wrong = refused(state, action)
    assert (wrong.reason, wrong.code) == (reason, code)
    assert dataclasses.astuple(state) == before


def test_taken_cell_is_refused() -> None:
    state = play(RULES.setup({"players": 3}), "12n:A0", "15n:A0")
    wrong = refused(state, place("15n"))
    assert (wrong.reason, wrong.code) == ("cell 15n is taken", "cell-taken")


def test_game_over_refuses_everything() -> None:
    state = fill_except(RULES.setup({"players": 2}), set(), last="12n")
    assert RULES.is_over(state)
    assert refused(state, place("12n")).code == "game-over"
    assert refused(state, {"type": "pass"}).code == "game-over"


def test_cell_refusals_explain_each_blocked_cell() -> None:
    state = play(RULES.setup({"players": 2}), "14n:E2")
    reasons = cell_refusals(state)
    assert len(reasons) == 53 and "14s" not in reasons
    assert reasons["12n"] == "the twin rule forces 14s"
    state = play(state, "14s:A0")
    reasons = cell_refusals(state)
    assert reasons["14n"] == "cell 14n is taken"
    assert reasons["2n"] == "exception rule: 2n borders devil A's body, an opponent's"
    assert len(reasons) == 2 + 9


# -- notation and replay ---------------------------------------------------------------


def test_notation_round_trip() -> None:
    assert parse_move(" 14n:E2 ") == place("14n", "E", 2)
    assert parse_move("14n : e2") == place("14n", "E", 2)
    assert parse_move("3s:A") == {"type": "place", "cell": "3s", "kind": "A"}
    assert parse_move("PASS") == {"type": "pass"}
    assert format_move(place("14n", "E", 2)) == "14n:E2"
    assert format_move(place("3s", "B", 2)) == "3s:B0"
    assert format_move({"type": "pass"}) == "pass"
    for text in ("14n", "14n:", "14n:E22", ":E2", "14n:2E", "pass 2"):
        with pytest.raises(NotationError, match="expected a placement like 14n:E2"):
            parse_move(text)


def test_replay_of_moves_equals_the_state() -> None:
    state = play(RULES.setup({"players": 2}), "14n:E2", "14s:D1", "5n:G0", "5s:A0", "20n:F2")
    rebuilt = replay(RULES, {"players": 2}, [parse_move(m) for m in state.moves])
    assert rebuilt == state
    with pytest.raises(Refused) as caught:
        replay(RULES, {"players": 2}, [parse_move("14n:E2"), parse_move("13n:E2")])
    assert caught.value.reason == "action 2: the twin rule forces 14s"
