"""One game holds the box, the referee chooses which, and a game that takes the box trusts
the sensors (issue 12, point 3): the reported case, replayed on the simulated toy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.games.base import Refused
from controller.service import Service

from .conftest import make_config, wait_for


@pytest.fixture
def svc(tmp_path) -> Iterator[Service]:
    """The toy hides at once; the referee enters every face (the toy holds them 30 s)."""
    service = Service(make_config(tmp_path), think_s=0.01, face_delay_s=30, hide_delay_s=0.01)
    service.start()
    yield service
    service.stop()


def popping(service: Service, gid: int) -> None:
    table = service.table(gid)
    wait_for(lambda: table.state.phase == "pop", what=f"game {gid} ready to pop")


def pop(service: Service, gid: int, key: int, face: int | str) -> None:
    """Press ``key`` on the box, then enter the face the referee saw."""
    table = service.table(gid)
    service.box_play.press(gid, key)
    wait_for(lambda: table.state.phase == "face", what=f"the die from key {key} out")
    service.submit(gid, {"type": "face", "face": face})
    if table.state.phase == "advance":  # rule A: the first figure takes the squares
        name = table.legal_actions()[0]["figure"]
        service.submit(gid, {"type": "advance", "figure": name, "by": table.state.popper})


def holder(service: Service) -> int | None:
    table = service.box_play.box_game()
    return None if table is None else table.game_id


def test_game_one_put_back_after_two_other_games_hides_again_and_keeps_its_pot(svc):
    one = svc.new_game("sauteur", {"rule": "B", "first_hider": "p1"}, "One")
    popping(svc, one)
    pop(svc, one, 2, 3)  # pot 6, slot 2 empty, one number counted
    game = svc.table(one)
    assert (game.state.phase, game.state.pot, game.state.popped) == ("pop", 6, (2,))

    two = svc.new_game("sauteur", {"rule": "A"}, "Two")  # a new game takes the box
    assert holder(svc) == two
    popping(svc, two)
    pop(svc, two, 1, 4)
    three = svc.new_game("sauteur", {"rule": "A"}, "Three")
    assert holder(svc) == three
    popping(svc, three)  # the toy hid every die again for game 3
    pop(svc, three, 4, 2)
    listed = {g["id"]: g["on_box"] for g in svc.games()}
    assert listed == {one: False, two: False, three: True}  # the home list marks it

    # a game that is not on the box presses nothing
    with pytest.raises(Refused) as info:
        svc.box_play.press(one, 1)
    assert info.value.code == "not-on-box"

    svc.put_on_box(one)
    assert holder(svc) == one
    # slot 2 reads full and slot 4 empty: not what game 1 believes, so a new hiding,
    # which keeps rule B's pot and its count of numbers, and offers all four keys
    wait_for(lambda: game.state.hidings == 2 and game.state.phase == "pop", what="new hiding")
    assert game.actions[-2] == {"type": "new-hiding"}
    assert (game.state.pot, game.state.carried, game.state.popped) == (6, 1, ())
    pops = sorted(a["key"] for a in game.legal_actions() if a["type"] == "pop")
    assert pops == [1, 2, 3, 4]
    assert {"type": "stop", "by": game.state.popper} in game.legal_actions()
    assert any("new hiding" in n["text"] for n in svc.box_status()["notices"])
    # two more numbers make three: the pot is banked, as the rule says
    pop(svc, one, 3, 1)  # pot 9
    pop(svc, one, 4, 1)  # pot 13: the third number of the turn
    assert game.state.phase == "hiding" and game.state.pot == 0
    assert game.state.laps[0 if game.state.hider == "p1" else 1] == 13  # the popper banked


def test_a_holder_whose_dice_agree_with_the_sensors_carries_on(svc):
    one = svc.new_game("sauteur", {"rule": "A"})
    popping(svc, one)
    pop(svc, one, 3, 2)
    game = svc.table(one)
    before = list(game.actions)
    two = svc.new_game("sauteur", {"rule": "A"})
    svc.abandon(two)  # game 2 never touched the dice: the box passes back to game 1
    assert holder(svc) == one
    wait_for(lambda: not svc.box_play._check_sensors, what="the sensor check")
    assert game.actions == before  # no new hiding: the sensors agree


def test_pop_keys_follow_the_sensors(svc, monkeypatch):
    one = svc.new_game("sauteur", {"rule": "A"})
    popping(svc, one)
    table = svc.table(one)
    extras = svc.box_play.extras(table)
    assert extras["on_box"] and extras["slots"] == {"1": True, "2": True, "3": True, "4": True}
    # Slot 2 reads empty while the game still counts its die in (a sensor the watch has not
    # heard from yet): the key is disabled and a press is refused before any coil fires.
    reading = {**svc.box.slots(), 2: False}
    monkeypatch.setattr(svc.box, "slots", lambda: dict(reading))
    assert svc.box_play.extras(table)["slots"]["2"] is False
    before, fired = list(table.actions), svc.box.cooldown_s(2)
    with pytest.raises(Refused) as info:
        svc.box_play.press(one, 2)
    assert info.value.code == "slot-empty" and "sensors" in info.value.reason
    assert table.actions == before and svc.box.cooldown_s(2) == fired == 0


def test_a_die_taken_out_by_hand_while_hidden_is_a_pop_by_hand(svc):
    one = svc.new_game("sauteur", {"rule": "A"})
    popping(svc, one)
    table = svc.table(one)
    svc.toy.move_die(2, False)
    wait_for(lambda: table.state.phase == "face", what="the pop by hand journaled")
    assert table.actions[-1]["type"] == "pop" and table.actions[-1]["key"] == 2
    assert svc.box_play.extras(table)["slots"]["2"] is False


def test_the_holder_survives_a_restart(tmp_path):
    config = make_config(tmp_path)
    first = Service(config, think_s=0.01, face_delay_s=30, hide_delay_s=0.01)
    first.start()
    try:
        one = first.new_game("sauteur", {"rule": "A"})
        first.new_game("sauteur", {"rule": "A"})
        first.put_on_box(one)
    finally:
        first.stop()
    again = Service(config, think_s=0.01, face_delay_s=30, hide_delay_s=0.01)
    again.start()
    try:
        assert holder(again) == one  # the referee's choice, not the newest game
    finally:
        again.stop()
