"""The view: one JSON-ready picture of the game for the dashboard."""

from __future__ import annotations

import dataclasses
import json
import random

from controller.games.tails import parse_move

from .test_tails_support import RULES, fill_except, random_game


def test_view_of_a_game_in_progress() -> None:
    state = RULES.setup({"players": 2})
    for move in ("14n:E2", "14s:D1", "2s:C0"):
        state = RULES.apply(state, parse_move(move))
    view = RULES.view(state, "public")
    assert view == json.loads(json.dumps(view))
    assert view == RULES.view(state, "referee")  # nothing on this table is hidden
    assert (view["game"], view["board"], view["players"], view["turn"]) == (
        "tails",
        "default",
        2,
        3,
    )
    assert view["sides"] == [
        {"side": 0, "label": "A–I", "devils": list("ABCDEFGHI"), "seats": [0]},
        {"side": 1, "label": "K–T", "devils": list("KLMNPQRST"), "seats": [1]},
    ]
    assert view["to_move"] == {"seat": 0, "side": 0}
    assert view["pending"] == {
        "seat": 0, "side": 0, "placement": 1, "of": 2, "mode": "forced", "cell": "2n",
        "excluded_sector": None, "legal_cells": ["2n"], "must_pass": False,
    }  # fmt: skip
    assert view["placed"] == [
        {"order": 1, "cell": "14n", "kind": "E", "rotation": 2},
        {"order": 2, "cell": "14s", "kind": "D", "rotation": 1},
        {"order": 3, "cell": "2s", "kind": "C", "rotation": 0},
    ]
    assert view["moves"] == ["14n:E2", "14s:D1", "2s:C0"]
    assert view["stock"] == {"A": 8, "B": 8, "C": 7, "D": 7, "E": 7, "F": 8, "G": 8}
    assert view["devils"][9] == {
        "name": "K", "side": 1, "length": 1, "end": "open", "end_devil": None, "points": 1,
        "provisional": True, "cells": ["2s"], "segments": [["2s", 0, 3]],
    }  # fmt: skip
    assert view["devils"][0]["cells"] == [] and view["devils"][0]["length"] == 0
    assert view["totals"] == [0, 1] and view["secured_totals"] == [0, 0]
    assert (view["finished"], view["winners"], view["winning_seats"]) == (False, [], [])


def test_view_of_a_three_player_game_shows_the_excluded_sector() -> None:
    state = RULES.apply(RULES.setup({"players": 3}), parse_move("12n:A0"))
    pending = RULES.view(state, "public")["pending"]
    assert (pending["seat"], pending["mode"], pending["excluded_sector"]) == (1, "chosen", 0)
    assert "13n" not in pending["legal_cells"] and "15n" in pending["legal_cells"]


def test_view_of_a_finished_game_names_the_winners() -> None:
    state = random_game(random.Random(3), 4)
    view = RULES.view(state, "public")
    assert view["finished"] is True and view["pending"] is None and view["to_move"] is None
    totals = view["totals"]
    winners = [side for side, total in enumerate(totals) if total == max(totals)]
    assert view["winners"] == winners
    assert view["winning_seats"] == [seat for side in winners for seat in (side, side + 2)]


def test_a_tie_has_two_winners() -> None:
    state = fill_except(RULES.setup({"players": 2}), set(), last="12n", kind="A")
    state = dataclasses.replace(state, stock=(0, 8, 8, 8, 8, 8, 8))
    view = RULES.view(state, "public")
    assert view["totals"] == [9, 9] and view["winners"] == [0, 1]
    assert view["winning_seats"] == [0, 1]


def test_must_pass_is_shown() -> None:
    state = fill_except(RULES.setup({"players": 2}), {"2n"}, last="3s")
    state = dataclasses.replace(state, seat=1, turn=4, step=1)
    pending = RULES.view(state, "public")["pending"]
    assert (pending["must_pass"], pending["legal_cells"], pending["mode"]) == (True, [], "chosen")
