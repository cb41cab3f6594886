"""Issue 24, item 4: the game and the box never wait for different things.

The evening's case: the referee tapped "Dice are hidden" on the box's game before the box
had seen the hiding. The game went on to "Computer pops a key" while the box still waited
for the dice, so every press (the computer's and the referee's) was refused with "the dice
are not hidden yet", and nothing on the page said why. Now the referee's word hides the
simulated toy's dice and the box takes them as hidden; a real box takes it only when its
sensors see four dice (else it says which slots are empty); and a hiding the box sees
while the game already pops wakes the computer popper.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from controller.box.base import BoxError
from controller.config import Config
from controller.service import Service
from tests.service.conftest import wait_for


def started(tmp_path: Path, hide_delay_s: float) -> Service:
    config = Config(data_dir=tmp_path)
    config.box.seed = 5
    service = Service(config, think_s=0.01, face_delay_s=0.01, hide_delay_s=hide_delay_s)
    service.start()
    return service


def test_the_referees_hidden_on_the_box_game_never_leaves_the_box_waiting(tmp_path: Path) -> None:
    service = started(tmp_path, hide_delay_s=3600)  # the toy would hide in an hour
    try:
        game = service.new_game("sauteur", {"rule": "A"})
        table = service.table(game)
        play = service.box_play
        # the computer plays the popper; the referee says the dice are hidden
        service.submit(game, {"type": "hidden"})
        assert table.state.phase in ("pop", "face", "advance", "hiding")
        assert play.watch.state()["phase"] == "hidden"
        play.set_computer(game, table.state.popper, True, "heuristic")  # not a level under test
        wait_for(lambda: table.state.history, what="the computer's first pop")
        assert not [n for n in service.box_status()["notices"] if "refused" in n["text"]]
    finally:
        service.stop()


@pytest.mark.parametrize("worker_busy_s", [0.0, 0.3])
def test_a_hiding_the_box_sees_late_wakes_the_computer(
    tmp_path: Path, worker_busy_s: float
) -> None:
    service = started(tmp_path, hide_delay_s=3600)
    try:
        # a busy worker thread (a loaded machine: CI saw it) must not change the case
        service.post(lambda: time.sleep(worker_busy_s))
        game = service.new_game("sauteur", {"rule": "A"})
        table = service.table(game)
        play = service.box_play
        service.call(lambda: None)  # the box has taken the game and started its hiding
        table.submit({"type": "hidden"})  # the game alone (as before): the box still waits
        assert play.watch.state()["phase"] == "hiding"
        play.set_computer(game, table.state.popper, True, "heuristic")  # not a level under test
        wait_for(
            lambda: any("refused" in n["text"] for n in service.box_status()["notices"]),
            what="the computer refused while the box waits",
        )
        service.call(service.toy.hide)  # the Box page's "Hide the dice"
        wait_for(lambda: table.state.history, what="the computer pops once the box sees it")
    finally:
        service.stop()


def test_a_real_box_takes_the_referees_word_only_with_four_dice_seen(tmp_path: Path) -> None:
    service = started(tmp_path, hide_delay_s=3600)
    try:
        game = service.new_game("sauteur", {"rule": "B", "first_hider": "p1"})
        table = service.table(game)
        toy, service.toy = service.toy, None  # as on a real box: nobody hides for us
        with pytest.raises(BoxError, match=r"key\(s\) 1, 2, 3, 4"):
            service.submit(game, {"type": "hidden"})
        assert table.state.phase == "hiding"  # nothing changed
        service.call(toy.hide)  # the referee hides the dice by hand
        wait_for(lambda: all(service.box_play.watch.state()["slots"].values()), what="4 dice")
        service.submit(game, {"type": "hidden"})
        assert table.state.phase == "pop"
        assert service.box_play.watch.state()["phase"] == "hidden"
        service.toy = toy
    finally:
        service.stop()
