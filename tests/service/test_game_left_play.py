"""A game that leaves play (deleted, abandoned) leaves nothing of itself in memory, and the
next new game starts clean (issue 24, point 1: the computer went on playing for a roster
player seated in a new game that had reused a deleted game's id)."""

from __future__ import annotations

import pytest

from .conftest import wait_for


@pytest.mark.parametrize("backend", ["simulated"])
@pytest.mark.parametrize("leave", ["delete", "abandon"])
def test_per_game_state_is_dropped_when_a_game_leaves_play(service, leave):
    gid = service.new_game("sauteur", {"rule": "B", "circuit_length": 12})
    service.box_play.set_computer(gid, "p1", True, "random")
    assert service.box_play.computer[gid] == {"p1"}
    getattr(service, leave)(gid)
    wait_for(lambda: gid not in service.box_play.computer, what="the computer seats to go")
    assert gid not in service.box_play.levels
    new = service.new_game("sauteur", {"rule": "B", "circuit_length": 12})
    assert new == gid + 1
    assert service.box_play.extras(service.table(new))["computer"] == []
