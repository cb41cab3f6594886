"""Scenario tests, one group per paragraph of shared/spec/teufel.md.

Each paragraph has at least one accepted and one refused case (with its
reason); docs/rules-teufel.md holds more worked examples, run by
test_teufel_docs.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.games.base import Refused, replay
from controller.games.teufel import TeufelRules, blocked_steps, exact_odds, reachable
from controller.games.teufel.cards import LETTERS
from tests.games.test_teufel_support import RULES, act, play, player, refuse, seen, start

COLOURS = ["yellow", "green", "blue", "purple", "white", "black"]


# ------------------------------------------------------------------ Material


def test_material_board_vines_and_devil_face() -> None:
    state = RULES.setup(
        {"players": ["blue", "green"], "vines": ["a1", "b1", "c1", "e1", "f1", "g1"]}
    )
    view = seen(state)
    empty = sorted(sq for sq, cell in view["squares"].items() if cell["card"] is None)
    assert empty == ["a1", "b1", "c1", "d4", "e1", "f1", "g1"]
    assert view["face_down"] == 42
    assert view["devils_on_face"] == 4
    assert view["vines"] == ["a1", "b1", "c1", "e1", "f1", "g1"]
    with pytest.raises(Refused) as bad:
        RULES.setup({"players": ["blue", "green"], "vines": ["a1", "b1", "c1", "e1", "f1", "d4"]})
    assert bad.value.code == "bad-option"
    assert bad.value.reason == "vines: d4 is the devil face, it never holds a card anyway"
    with pytest.raises(Refused) as short:
        RULES.setup({"players": ["blue", "green"], "vines": ["a1"]})
    assert short.value.reason == "vines: give exactly six squares (42 cards fill the other 42)"


def test_material_all_42_cards_are_dealt_whatever_the_players() -> None:
    state = start(("blue", "green"))
    state = play(state, act("step", to="c4"))
    cards = {a["card"] for a in RULES.legal_actions(state)}
    assert len(cards) == 38  # 36 letters of all six colours, devil, tower
    assert {"yellow-A", "black-F", "devil", "tower"} <= cards
    shown = play(state, act("reveal", card="yellow-A"))  # a colour nobody plays
    assert seen(shown)["squares"]["c4"]["card"]["colour"] == "yellow"
    reason = refuse(state, act("reveal", card="orange-A"), "bad-card")
    assert reason.startswith("'orange-A' is not a card")


def test_material_pegs_four_devils_and_one_per_player() -> None:
    state = start(("blue", "green", "purple", "white", "yellow"), devils=["blue", "green"])
    assert seen(state)["devils_on_face"] == 2
    with pytest.raises(Refused) as too_many:
        start(
            ("blue", "green", "purple", "white", "yellow", "black"),
            sleds={
                "blue": "c3",
                "green": "g7",
                "purple": "a7",
                "white": "g1",
                "yellow": "a1",
                "black": "e5",
            },
            devils=["blue", "green", "purple", "white", "yellow"],
        )
    assert too_many.value.reason == (
        "position: devils: at most four holders, none of them off the board"
    )


def test_material_custom_colour_names() -> None:
    colours = ["jaune", "vert", "bleu", "violet", "blanc", "noir"]
    state = RULES.setup({"players": ["bleu", "noir"], "colours": colours})
    state = play(state, act("place_sled", square="a1"), act("place_sled", square="g7"))
    state = play(state, act("step", to="a2"), act("reveal", card="bleu-A"))
    assert player(state, "bleu")["letters"] == ["A"]
    with pytest.raises(Refused) as bad:
        RULES.setup({"players": ["bleu", "noir"], "colours": ["a-b", *colours[1:]]})
    assert bad.value.reason == "colours: 'a-b' is not a usable name (a short word without '-')"


# ------------------------------------------------------------------ Setup


@pytest.mark.parametrize("count", [2, 6])
def test_setup_two_to_six_players(count: int) -> None:
    state = RULES.setup({"players": COLOURS[:count]})
    assert len(seen(state)["players"]) == count
    assert seen(state)["pending"]["player"] == "yellow"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"players": ["blue"]}, "players: give 2 to 6 colours in seat order (clockwise)"),
        ({"players": [*COLOURS, "blue"]}, "players: give 2 to 6 colours in seat order (clockwise)"),
        ({"players": ["blue", "blue"]}, "players: each player needs a different colour"),
        (
            {"players": ["blue", "pink"]},
            "players: 'pink' is not one of the colours (yellow, green, blue, purple, white, black)",
        ),
        (
            {"players": ["blue", "green"], "first": "white"},
            "first must be one of the players (blue, green), not 'white'",
        ),
        ({"players": ["blue", "green"], "speed": 2}, "unknown setup option(s): speed"),
        ({}, "players: give 2 to 6 colours in seat order (clockwise)"),
    ],
)
def test_setup_refuses_bad_options(options: dict[str, Any], reason: str) -> None:
    with pytest.raises(Refused) as bad:
        RULES.setup(options)
    assert (bad.value.code, bad.value.reason) == ("bad-option", reason)


def test_setup_placement_in_seat_order_from_first_with_spacing() -> None:
    state = RULES.setup({"players": ["blue", "green", "purple"], "first": "purple"})
    state = play(state, act("place_sled", player="purple", square="a1"))
    assert seen(state)["pending"]["player"] == "blue"  # clockwise after purple
    refuse(state, act("place_sled", player="green", square="g7"), "wrong-player")
    reason = refuse(state, act("place_sled", square="b3"), "bad-placement")
    assert reason == (
        "b3 is only 3 steps from purple's sled on a1: sleds start at least 4 steps apart "
        "(three free squares between)"
    )
    state = play(state, act("place_sled", square="a5"))  # exactly 4 steps: allowed
    state = play(state, act("place_sled", square="g7"))
    assert seen(state)["turn"] == "purple"
    assert seen(state)["phase"] == "play"


def test_setup_placement_leaves_room_for_the_others() -> None:
    state = RULES.setup({"players": COLOURS})
    for square in ["a1", "e1", "a5", "e5", "g3"]:
        state = play(state, act("place_sled", square=square))
    assert [a["square"] for a in RULES.legal_actions(state)] == ["c3", "c7", "g7"]
    state = RULES.setup({"players": COLOURS[:5]})
    for square in ["g6", "c6", "e2"]:
        state = play(state, act("place_sled", square=square))
    reason = refuse(state, act("place_sled", square="a1"), "bad-placement")
    assert reason == (
        "a sled on a1 would leave no room for white: every sled needs 4 steps between it "
        "and the others"
    )
    state = play(state, act("place_sled", square="a4"), act("place_sled", square="b1"))
    assert seen(state)["phase"] == "play"


def test_setup_placing_flips_nothing() -> None:
    state = RULES.setup({"players": ["blue", "green"]})
    state = play(state, act("place_sled", square="c4"))
    assert seen(state)["squares"]["c4"]["card"] == {"face": "down"}
    assert seen(state)["events"] == ["blue places their sled on c4"]
    reason = refuse(state, act("reveal", card="devil"), "not-now")
    assert reason == "no reveal now: green places their sled"


# ------------------------------------------------------------------ A turn is exactly one of


def test_turn_move_then_the_next_player() -> None:
    state = play(start(), act("step", to="b3"), act("reveal", card="yellow-A"))
    assert seen(state)["turn"] == "green"
    refuse(state, act("step", player="blue", to="b4"), "wrong-player")


def test_turn_exchange_moves_odds_with_the_cards() -> None:
    state = start(devils=["blue"], face_up={"c4": "green-A"})
    state = play(
        state,
        act("pick_up", square="c4"),
        act("pick_up", square="e5"),
        act("lay_down", squares=["b2", "c4"]),
    )
    before = exact_odds(state, "green")
    state = play(state, act("exchange", player="green", a="b2", b="a1"))
    after = exact_odds(state, "green")
    assert after["a1"] == before["b2"] and after["b2"] == before["a1"]
    assert after["c4"] == before["c4"]
    refuse(state, act("exchange", a="a1", b="a1"), "bad-exchange")


def test_turn_shuffle_only_with_a_devil_and_two_to_four_cards() -> None:
    state = start(devils=["blue"])
    state = play(state, act("pick_up", square="a1"))
    assert seen(state)["pending"]["unavailable"] == {
        "lay_down": "a shuffle takes at least 2 cards: pick up another"
    }
    for square in ("a2", "a3", "a4"):
        state = play(state, act("pick_up", square=square))
    reason = refuse(state, act("pick_up", square="a5"), "hand-full")
    assert reason == "a shuffle takes at most 4 cards: lay them down"
    assert seen(state)["pending"]["unavailable"] == {"pick_up": reason}
    assert seen(state)["pending"]["hand"] == [
        {"from": sq, "card": None} for sq in ("a1", "a2", "a3", "a4")
    ]
    reason = refuse(state, act("lay_down", squares=["a1", "a2", "a3"]), "bad-lay")
    assert reason == "lay the 4 cards on 4 different squares"
    state = play(state, act("lay_down", squares=["a4", "b2", "d1", "a1"]))
    view = seen(state)
    assert [view["squares"][sq]["card"] for sq in ("a2", "a3")] == [None, None]
    assert view["face_down"] == 42
    assert view["turn"] == "green"


def test_turn_shuffle_may_lay_under_a_sled_on_a_card_free_square() -> None:
    state = start(sleds={"blue": "c3", "green": "b2"}, devils=["blue"])
    state = play(state, act("pick_up", square="a1"), act("pick_up", square="a2"))
    state = play(state, act("lay_down", squares=["b2", "f2"]))
    assert seen(state)["squares"]["b2"] == {
        "card": {"face": "down"},
        "sleds": ["green"],
        "vine": True,
    }


def test_turn_flip_two_only_for_players_who_left() -> None:
    state = start(("blue", "green", "purple"), left=["blue"], sleds={"green": "g7", "purple": "a7"})
    assert seen(state)["pending"]["kind"] == "flip_two"
    state = play(state, act("flip_card", square="a1"), act("reveal", card="devil"))
    assert player(state, "blue")["devil"] is False  # flipping gives nobody anything
    assert seen(state)["devils_on_face"] == 4
    state = play(state, act("flip_card", square="a2"), act("reveal", card="blue-A"))
    assert seen(state)["turn"] == "green"
    reason = refuse(state, act("flip_card", square="a3"), "not-now")
    assert reason == "no flip_card now: green's turn: move or exchange two cards"


def test_turn_pass_only_when_nothing_else_is_possible() -> None:
    """Blue on a1 boxed in by green (a2) and purple (b1); every card face up but
    the one under blue; blue's own letters all under sleds; no devil."""
    players = ("blue", "green", "purple", "white", "yellow", "black")
    sleds = {
        "blue": "a1",
        "green": "a2",
        "purple": "b1",
        "white": "a3",
        "yellow": "a4",
        "black": "a5",
    }
    squares = [f"{f}{r}" for r in "1234567" for f in "abcdefg"]
    card_squares = [s for s in squares if s not in ("b2", "f2", "d1", "d7", "b6", "f6", "d4")]
    cards = [f"{c}-{letter}" for c in COLOURS if c != "blue" for letter in LETTERS]
    cards += ["devil"] * 4 + ["tower"] * 2
    face_up = {"a2": "blue-B", "b1": "blue-C", "a3": "blue-D", "a4": "blue-E", "a5": "blue-F"}
    rest = [s for s in card_squares if s not in face_up and s != "a1"]
    face_up.update(zip(rest, cards, strict=True))
    state = start(players, sleds=sleds, face_up=face_up)
    assert seen(state)["face_down"] == 1
    assert RULES.legal_actions(state) == [{"type": "pass", "player": "blue"}]
    assert seen(state)["pending"]["prompt"] == "blue's turn: pass (nothing else is possible)"
    assert seen(state)["pending"]["unavailable"] == {
        "step": "blue cannot step onto any neighbouring square (see blocked)",
        "exchange": "fewer than two cards may be exchanged (face-down cards and blue's own "
        "face-up letters, with no sled on them)",
        "pick_up": "only a player holding a devil may shuffle; blue holds none",
    }
    assert blocked_steps(state) == {
        "b1": "purple's sled is on b1: only a player holding a devil may enter it",
        "a2": "green's sled is on a2: only a player holding a devil may enter it",
    }
    state = play(state, act("pass"))
    assert seen(state)["turn"] == "green"
    assert seen(state)["events"] == ["blue can do nothing and passes"]
    reason = refuse(state, act("pass"), "can-act")
    assert reason.startswith("green can still move, exchange or shuffle")


# ------------------------------------------------------------------ Entering a square


def test_entering_no_card_is_free_and_the_move_may_end_there() -> None:
    state = start(sleds={"blue": "b3", "green": "g7"})
    state = play(state, act("step", to="b2"))
    assert seen(state)["pending"]["kind"] == "move"
    assert seen(state)["move"] == {"path": ["b3", "b2"]}
    state = play(state, act("end_move"))
    assert player(state, "blue")["square"] == "b2"
    refuse(state, act("end_move"), "not-now")


def test_entering_a_move_needs_at_least_one_step() -> None:
    reason = refuse(start(), act("end_move"), "not-now")
    assert reason == "no end_move now: blue's turn: move or exchange two cards"


def test_entering_face_up_letter_held_is_free_any_colour() -> None:
    state = start(face_up={"c4": "purple-B"}, letters={"blue": ["B"]})
    assert reachable(state)["c4"] == "free"
    state = play(state, act("step", to="c4"), act("step", to="c5"))
    assert seen(state)["pending"]["kind"] == "reveal"
    reason = refuse(state, act("end_move"), "not-now")
    assert reason == "no end_move now: enter the card flipped on c5"


def test_entering_own_letter_not_held_stops_and_takes_it() -> None:
    state = start(face_up={"c4": "blue-E", "c5": "blue-A"}, letters={"blue": ["A"]})
    assert reachable(state)["c4"] == "stop"
    state = play(state, act("step", to="c4"))
    assert player(state, "blue")["letters"] == ["A", "E"]
    assert seen(state)["turn"] == "green"
    refuse(state, act("step", player="blue", to="c5"), "wrong-player")


def test_entering_other_letter_stops_the_move() -> None:
    state = start(face_up={"c4": "green-E"})
    state = play(state, act("step", to="c4"))
    assert seen(state)["events"] == ["blue stops on green E"]
    assert player(state, "blue")["letters"] == []
    assert seen(state)["turn"] == "green"
    refuse(state, act("step", player="blue", to="c5"), "wrong-player")


def test_entering_other_letter_under_a_sled_stops_a_player_without_devil_outright() -> None:
    state = start(sleds={"blue": "c3", "green": "c4"}, face_up={"c4": "yellow-A"})
    assert "c4" not in reachable(state)
    refuse(state, act("step", to="c4"), "blocked")


def test_entering_face_down_with_a_devil_flip_is_the_same_as_anyone() -> None:
    state = start(devils=["blue"], letters={"blue": ["C"]})
    state = play(state, act("step", to="c4"), act("flip"), act("reveal", card="yellow-C"))
    assert seen(state)["pending"]["kind"] == "move"
    state = play(state, act("step", to="c5"), act("flip"), act("reveal", card="blue-D"))
    assert player(state, "blue")["letters"] == ["C", "D"]
    assert seen(state)["turn"] == "green"
    reason = refuse(start(devils=["blue"]), act("flip"), "not-now")
    assert reason == "no flip now: blue's turn: move, exchange two cards or shuffle"


def test_entering_the_path_never_revisits_a_square() -> None:
    state = start(sleds={"blue": "b3", "green": "g7"})
    state = play(state, act("step", to="b2"))
    reason = refuse(state, act("step", to="b3"), "revisit")
    assert reason == "blue has already been on b3 during this move"
    assert blocked_steps(state)["b3"] == reason


def test_entering_a_stop_ends_the_move_at_the_first_stop() -> None:
    state = start(sleds={"blue": "b3", "green": "g7"}, face_up={"b4": "green-A", "b5": "blue-A"})
    assert reachable(state)["b4"] == "stop"
    assert "b5" not in reachable(state)  # only through b4, which stops the move
    state = play(state, act("step", to="b4"))
    assert seen(state)["turn"] == "green"
    refuse(state, act("step", player="blue", to="b5"), "wrong-player")


# ------------------------------------------------------------------ Devils


def test_devils_devil_devil_with_fewer_than_two_letters_loses_all() -> None:
    state = start(devils=["blue"], face_up={"c4": "devil"}, letters={"blue": ["A", "D"]})
    state = play(state, act("step", to="c4"))
    assert player(state, "blue")["letters"] == []
    assert seen(state)["turn"] == "green"
    state = start(devils=["blue"], face_up={"c4": "devil"})
    state = play(state, act("step", to="c4"))
    assert seen(state)["events"][-1] == "blue has no letters to lose"
    refuse(state, act("give_up_letters", letters=[]), "not-now")


def test_devils_the_letters_lost_can_be_collected_again() -> None:
    state = start(
        devils=["blue"], face_up={"c4": "devil", "b3": "blue-A"}, letters={"blue": ["A", "B", "C"]}
    )
    state = play(state, act("step", to="c4"), act("give_up_letters", letters=["A", "B"]))
    state = play(state, act("exchange", a="a1", b="a2"))
    assert seen(state)["squares"]["b3"]["card"]["card"] == "blue-A"
    state = play(state, act("step", to="b4"), act("reveal", card="green-B"))
    state = play(state, act("exchange", a="a1", b="a2"))
    state = play(state, act("step", to="b3"))
    assert player(state, "blue")["letters"] == ["A", "C"]


def test_devils_taking_from_a_player_when_only_one_could_lose_one() -> None:
    players = ("blue", "green", "purple", "white")
    state = start(players, devils=["green", "purple", "white", "blue"], face_up={"c4": "devil"})
    state = play(state, act("step", to="c4"))
    assert seen(state)["pending"]["kind"] == "take_devil"
    state = play(state, act("take_devil_from", from_="white"))
    assert player(state, "white")["devil"] is False
    assert player(state, "blue")["devil"] is False  # devil, devil for blue
    assert seen(state)["devils_on_face"] == 2
    players5 = ("blue", "green", "purple", "white", "yellow")
    state = start(players5, devils=["green", "purple", "white", "yellow"], face_up={"c4": "devil"})
    state = play(state, act("step", to="c4"), act("take_devil_from", from_="green"))
    assert seen(state)["devils_on_face"] == 0
    assert seen(state)["pending"]["kind"] == "turn"
    refuse(state, act("take_devil_from", from_="purple"), "not-now")


def test_devils_a_player_who_loses_their_devil_with_six_letters_leaves() -> None:
    players = ("blue", "green", "purple", "white", "yellow")
    state = start(
        players,
        devils=["green", "purple", "white", "yellow"],
        letters={"purple": list(LETTERS)},
        face_up={"c4": "devil"},
    )
    state = play(state, act("step", to="c4"), act("take_devil_from", from_="purple"))
    assert player(state, "purple")["left"] is True
    assert seen(state)["exit_order"] == ["purple"]


def test_devils_giving_is_a_must() -> None:
    """The French text: a possessed player ending on another sled must give."""
    state = start(sleds={"blue": "c3", "green": "c4"}, devils=["blue"])
    state = play(state, act("step", to="c4"), act("pass_over"))
    reason = refuse(state, act("end_move", keep_devil=True), "bad-action")
    assert reason == "end_move has unexpected field(s): keep_devil"
    state = play(state, act("end_move"))
    assert (player(state, "blue")["devil"], player(state, "green")["devil"]) == (False, True)


def test_devils_flipping_a_tower_under_another_sled_protects_them() -> None:
    state = start(sleds={"blue": "c3", "green": "c4"}, devils=["blue"])
    state = play(state, act("step", to="c4"), act("flip"), act("reveal", card="tower"))
    assert seen(state)["pending"]["kind"] == "tower"
    state = play(state, act("done"))
    assert seen(state)["events"] == ["green stands on a tower: no devil can be given"]
    assert (player(state, "blue")["devil"], player(state, "green")["devil"]) == (True, False)
    refuse(state, act("return_devil", player="blue"), "not-now")


def test_devils_passing_over_a_sled_gives_nothing() -> None:
    state = start(sleds={"blue": "c3", "green": "c4"}, devils=["blue"], face_up={"c4": "yellow-A"})
    state = play(state, act("step", to="c4"), act("step", to="c5"), act("pass_over"))
    state = play(state, act("end_move"))
    assert (player(state, "blue")["devil"], player(state, "green")["devil"]) == (True, False)


def test_devils_giving_to_the_sled_on_own_letter_stop() -> None:
    state = start(sleds={"blue": "c3", "green": "c4"}, devils=["blue"], face_up={"c4": "blue-C"})
    state = play(state, act("step", to="c4"))
    assert player(state, "blue")["letters"] == ["C"]
    assert (player(state, "blue")["devil"], player(state, "green")["devil"]) == (False, True)


def test_devils_tower_decision_needs_a_devil_to_return() -> None:
    state = start(face_up={"c4": "tower"})
    state = play(state, act("step", to="c4"))
    assert RULES.legal_actions(state)[-1] == {"type": "done", "player": "blue"}
    reason = refuse(state, act("return_devil"), "no-devil")
    assert reason == "blue holds no devil"
    assert seen(state)["pending"]["unavailable"] == {"return_devil": reason}
    state = play(state, act("peek", square="a1"))  # nothing else to do: the move ends
    assert seen(state)["turn"] == "green"
    assert seen(state)["peeks"] == [{"player": "blue", "square": "a1"}]


# ------------------------------------------------------------------ Leaving and the end


def test_end_when_every_card_is_face_up_everyone_on_the_board_loses() -> None:
    squares = [f"{f}{r}" for r in "1234567" for f in "abcdefg"]
    card_squares = [s for s in squares if s not in ("b2", "f2", "d1", "d7", "b6", "f6", "d4")]
    cards = [f"{c}-{letter}" for c in COLOURS for letter in LETTERS] + ["devil"] * 4
    cards += ["tower"] * 2
    face_up = dict(zip([s for s in card_squares if s != "c4"], cards[1:], strict=True))
    players = ("blue", "green", "purple")
    state = start(players, face_up=face_up, left=["green"], sleds={"blue": "c3", "purple": "a7"})
    reason = refuse(state, act("reveal", card="devil"), "not-now")
    assert reason == "no reveal now: blue's turn: move or exchange two cards"
    state = play(state, act("step", to="c4"), act("reveal", card="yellow-A"))
    assert seen(state)["result"] == {"ending": "all-face-up", "losers": ["blue", "purple"]}
    assert RULES.is_over(state)
    assert RULES.legal_actions(state) == []


def test_end_exit_order_is_recorded() -> None:
    players = ("blue", "green", "purple")
    five = ["A", "B", "C", "D", "E"]
    state = start(
        players, face_up={"c4": "blue-F", "g6": "green-F"}, letters={"blue": five, "green": five}
    )
    state = play(state, act("step", to="c4"), act("step", to="g6"))
    assert seen(state)["exit_order"] == ["blue", "green"]
    assert seen(state)["result"] == {"ending": "one-left", "losers": ["purple"]}
    assert [p["exit_rank"] for p in seen(state)["players"]] == [1, 2, None]


def test_end_six_letters_with_a_devil_stays_until_rid_of_it() -> None:
    state = start(
        face_up={"c4": "blue-F", "c5": "tower"},
        devils=["blue"],
        letters={"blue": ["A", "B", "C", "D", "E"]},
    )
    state = play(state, act("step", to="c4"))
    assert player(state, "blue")["left"] is False
    state = play(state, act("exchange", a="a1", b="a2"))
    state = play(state, act("step", to="c5"), act("return_devil"))
    assert seen(state)["pending"]["kind"] == "tower"  # the peek is still open
    state = play(state, act("done"))
    assert player(state, "blue")["left"] is True
    assert seen(state)["result"] == {"ending": "one-left", "losers": ["green"]}


def test_end_position_refuses_an_impossible_start() -> None:
    with pytest.raises(Refused) as bad:
        start(letters={"blue": list(LETTERS)})
    assert bad.value.reason == (
        "position: blue holds all six letters and no devil, so has left the board: "
        "list them under left"
    )
    with pytest.raises(Refused) as seen_twice:
        start(face_up={"a1": "blue-A", "a2": "blue-A"})
    assert seen_twice.value.reason == "position: face_up: more blue-A cards than the game has"


# ------------------------------------------------------------------ What the product knows


def test_knows_a_shuffled_card_becomes_possible_again_only_where_it_went() -> None:
    state = start(devils=["blue"], face_up={"c4": "green-A"})
    refuse(
        play(state, act("exchange", a="a1", b="a2"), act("step", to="g6")),
        act("reveal", card="green-A"),
        "impossible-card",
    )
    state = play(state, act("pick_up", square="c4"), act("pick_up", square="e5"))
    state = play(state, act("lay_down", squares=["b2", "c4"]))
    state = play(state, act("step", player="green", to="g6"))
    reason = refuse(state, act("reveal", card="green-A"), "impossible-card")
    assert reason == "green A cannot be on g6: it was shuffled face down onto b2, c4"
    assert {"type": "reveal", "card": "green-A"} not in RULES.legal_actions(state)


def test_knows_a_fully_known_shuffle_allows_only_its_cards() -> None:
    state = start(
        sleds={"blue": "c3", "green": "c5"},
        devils=["blue"],
        face_up={"c4": "green-A", "a1": "yellow-B"},
    )
    state = play(state, act("pick_up", square="c4"), act("pick_up", square="a1"))
    state = play(state, act("lay_down", squares=["c4", "b2"]), act("step", to="c4"))
    assert RULES.legal_actions(state) == [
        {"type": "reveal", "card": "green-A"},
        {"type": "reveal", "card": "yellow-B"},
    ]
    reason = refuse(state, act("reveal", card="devil"), "impossible-card")
    assert reason == (
        "a devil cannot be on c4: that card was shuffled face down onto b2, c4 "
        "and is green A or yellow B"
    )
    state = play(state, act("reveal", card="yellow-B"))
    assert exact_odds(state, "green")["b2"]["letters"] == 1


def test_knows_reveal_has_no_player() -> None:
    state = play(start(), act("step", to="c4"))
    reason = refuse(state, act("reveal", player="blue", card="devil"), "bad-action")
    assert reason == "a reveal is the referee's entry: it has no player"


def test_knows_all_devils_face_up_refuses_a_fifth() -> None:
    state = start(face_up={"a1": "devil", "a2": "devil", "a3": "devil", "a4": "devil"})
    state = play(state, act("step", to="c4"))
    reason = refuse(state, act("reveal", card="devil"), "impossible-card")
    assert reason == "all 4 devil cards are already face up (a1, a2, a3, a4)"


def test_knows_odds_are_exact_fractions() -> None:
    from fractions import Fraction

    state = start(face_up={"a1": "tower"}, letters={"green": ["A", "B", "C"]})
    odds = exact_odds(state, "green")
    assert odds["c4"] == {
        "devil": Fraction(4, 41),
        "tower": Fraction(1, 41),
        "letters": Fraction(3, 41),
    }
    assert "a1" not in odds and "c3" in odds  # a sled on a face-down card: still odds
    with pytest.raises(KeyError):
        exact_odds(state, "white")


# ------------------------------------------------------------------ actions and views


def test_bad_actions_are_refused_with_reasons() -> None:
    state = start()
    assert (
        refuse(state, {"kind": "step"}, "bad-action") == "an action is a JSON object with a 'type'"
    )
    assert refuse(state, act("step"), "bad-action") == "step needs to"
    assert refuse(state, act("step", to="z9"), "bad-square") == (
        "'z9' is not a square: use a file a-g and a rank 1-7, like 'c4'"
    )
    with pytest.raises(Refused):
        RULES.apply(state, "step")  # type: ignore[arg-type]


def test_views_serialise_and_hide_nothing_the_product_does_not_know() -> None:
    state = play(start(devils=["blue"]), act("step", to="c4"), act("pass_over"))
    public = RULES.view(state, "public")
    referee = RULES.view(state, "referee")
    json.dumps(public)
    json.dumps(referee)
    assert "legal" not in public
    assert referee["legal"] == RULES.legal_actions(state)
    assert {k: v for k, v in referee.items() if k != "legal"} == public
    assert public["squares"]["c4"] == {"card": {"face": "down"}, "sleds": ["blue"], "vine": False}
    assert len(public["squares"]) == 49
    assert public["pending"]["choices"] == {"step": ["b4", "c5"], "end_move": True}
    assert public["blocked"] == {
        "c3": "blue has already been on c3 during this move",
        "d4": "d4 is the devil face: it opens only when all four devils are on players "
        "(3 pegs are still on it)",
    }
    assert isinstance(public["odds"]["green"]["a1"]["devil"], float)


def test_replay_rebuilds_the_state() -> None:
    options = {"players": ["blue", "green"]}
    actions = [
        act("place_sled", square="c3"),
        act("place_sled", square="g7"),
        act("step", to="c4"),
        act("reveal", card="devil"),
        act("pick_up", player="green", square="a1"),
    ]
    rules = TeufelRules()
    with pytest.raises(Refused) as bad:
        replay(rules, options, actions)
    assert (
        bad.value.reason == "action 5: only a player holding a devil may shuffle; green holds none"
    )
    state = replay(rules, options, actions[:4])
    assert player(state, "blue")["devil"] is True
