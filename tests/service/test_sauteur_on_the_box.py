"""The Diable sauteur played through the service on mocked pins: pops are pulses,
refusals move no pin and journal nothing, coils are low after stop and after errors."""

from __future__ import annotations

import itertools

import pytest

from controller.box.base import BoxError, BoxFault, Limits
from controller.games.base import Refused
from controller.service import Service

from .conftest import wait_for


def coils_idle(service: Service) -> None:
    wait_for(lambda: not any(service.toy.coil_pin(k).state for k in (1, 2, 3, 4)), 2, "coils off")


def coil_states(service: Service, key: int) -> list[bool]:
    return [bool(s.state) for s in service.toy.coil_pin(key).states]


def pulses(service: Service, key: int) -> list[float]:
    states = service.toy.coil_pin(key).states
    return [b.timestamp for a, b in itertools.pairwise(states) if a.state and not b.state]


def start_popping(service: Service, **options) -> int:
    gid = service.new_game("sauteur", {"rule": "A", **options})
    table = service.table(gid)
    wait_for(lambda: table.state.phase == "pop", what="hiding done")
    return gid


def test_one_pop_is_exactly_one_pulse_of_the_configured_length(service):
    gid = start_popping(service)
    table = service.table(gid)
    for key in (1, 2, 3, 4):
        service.toy.coil_pin(key).clear_states()
    service.box_play.press(gid, 3)
    wait_for(
        lambda: table.state.phase in ("advance", "pop", "hiding") and len(table.actions) >= 3,
        what="pop and face journaled",
    )
    coils_idle(service)
    assert coil_states(service, 3) == [False, True, False]
    assert pulses(service, 3) == [pytest.approx(0.030, abs=0.015)]
    for other in (1, 2, 4):
        assert coil_states(service, other) == [False]
    assert [a["type"] for a in table.actions[:3]] == ["hidden", "pop", "face"]
    assert table.actions[1] == {"type": "pop", "key": 3, "by": "p2"}


def refused_without_change(service: Service, gid: int, call, code: str | None = None):
    table = service.table(gid)
    before = (table.state, list(table.actions), service.journal.entries(gid))
    for key in (1, 2, 3, 4):
        service.toy.coil_pin(key).clear_states()
    with pytest.raises((Refused, BoxError)) as info:
        call()
    if code is not None:
        assert isinstance(info.value, Refused) and info.value.code == code
    coils_idle(service)
    assert (table.state, table.actions, service.journal.entries(gid)) == before
    for key in (1, 2, 3, 4):
        assert coil_states(service, key) == [False], f"coil {key} moved"
    return info.value


def test_pop_before_hiding_is_done_is_refused(tmp_path, backend):
    from .conftest import make_config

    svc = Service(make_config(tmp_path, backend), think_s=0.01, face_delay_s=0.01, hide_delay_s=30)
    svc.start()
    try:
        gid = svc.new_game("sauteur", {"rule": "A"})
        error = refused_without_change(svc, gid, lambda: svc.box_play.press(gid, 1), "not-hidden")
        assert "hid" in error.reason
    finally:
        svc.stop()


def pop_a_number(service: Service, gid: int) -> int:
    """Press keys until one shows a number (a devil starts a new hiding); returns the key."""
    table = service.table(gid)
    for _ in range(20):
        wait_for(lambda: table.state.phase == "pop", what="the popper's turn")
        key = next(k for k in (1, 2, 3, 4) if k not in table.state.popped)
        wait_for(lambda k=key: service.box.cooldown_s(k) == 0, what="coil cool-down")
        version = table.version
        service.box_play.press(gid, key)
        wait_for(
            lambda v=version: table.version >= v + 2 and table.state.phase != "face",
            what="pop and face",
        )
        if table.state.phase == "advance":
            service.submit(gid, {"type": "advance", "figure": "green", "by": table.state.popper})
            return key
    pytest.fail("no number in 20 pops")


def test_popping_an_empty_slot_is_refused(service):
    gid = start_popping(service)
    key = pop_a_number(service, gid)
    wait_for(lambda: service.box.cooldown_s(key) == 0, what="coil cool-down")
    error = refused_without_change(
        service, gid, lambda: service.box_play.press(gid, key), "slot-empty"
    )
    assert f"key {key}" in error.reason or str(key) in error.reason


def test_a_face_the_die_cannot_show_is_refused(referee_faces):
    svc = referee_faces
    gid = start_popping(svc)
    table = svc.table(gid)
    svc.box_play.press(gid, 1)
    wait_for(lambda: table.state.phase == "face", what="the popped die waiting for its face")
    for face in (7, 0, "six", "1", True):
        error = refused_without_change(
            svc, gid, lambda f=face: svc.submit(gid, {"type": "face", "face": f}), "bad-face"
        )
        assert "cannot show" in error.reason or "face" in error.reason
    svc.submit(gid, {"type": "face", "face": 5})
    assert table.state.phase == "advance" and table.actions[-1] == {"type": "face", "face": 5}


def test_an_action_by_the_wrong_role_is_refused(service):
    gid = start_popping(service)
    table = service.table(gid)
    hider = table.state.hider
    refused_without_change(
        service, gid, lambda: service.box_play.press(gid, 1, by=hider), "wrong-role"
    )
    refused_without_change(
        service, gid, lambda: service.submit(gid, {"type": "rehide", "by": hider}), "wrong-role"
    )


def test_a_pop_while_a_jam_is_unresolved_is_refused_then_resolved(service):
    gid = start_popping(service)
    table = service.table(gid)
    service.toy.set_jam(1)  # stuck until cleared
    service.box_play.press(gid, 1)
    wait_for(lambda: service.box_play.active_faults(), timeout=5, what="key 1 jammed")
    assert service.box_play.active_faults() == ["key 1 jammed"]
    assert coil_states(service, 1) == [False, True, False, True, False]  # one retry, then jammed
    assert len(table.actions) == 1  # only 'hidden': no phantom pop
    wait_for(lambda: service.box.cooldown_s(4) == 0)
    error = refused_without_change(service, gid, lambda: service.box_play.press(gid, 4))
    assert isinstance(error, BoxFault) and "jammed" in str(error)
    service.box_play.resolve_jam({"key": 1, "do": "popped"})  # the referee freed it by hand
    wait_for(lambda: table.state.phase == "face", what="the pop by hand journaled")
    assert table.actions[1] == {"type": "pop", "key": 1, "by": table.state.popper}
    assert service.box_play.active_faults() == []
    service.submit(gid, {"type": "face", "face": 2})  # the toy cannot tell: the referee does
    assert table.actions[-1] == {"type": "face", "face": 2}


def test_a_key_pressed_by_hand_is_a_pop(service):
    gid = start_popping(service)
    table = service.table(gid)
    assert service.toy.press_by_hand(4)
    wait_for(lambda: len(table.actions) >= 3, what="hand pop journaled with its face")
    assert table.actions[1]["key"] == 4 and table.actions[2]["type"] == "face"
    assert coil_states(service, 4) == [False]


def test_computer_plays_a_whole_short_match(service):
    gid = service.new_game("sauteur", {"rule": "B", "circuit_length": 12})
    service.box_play.set_computer(gid, "p1", True)
    service.box_play.set_computer(gid, "p2", True)
    table = service.table(gid)
    wait_for(lambda: table.finished, timeout=60, what="the match to end")
    assert table.state.winner in ("p1", "p2")
    # Every pop in the journal was a real pulse of that key's coil.
    pops = [a["key"] for a in table.actions if a["type"] == "pop"]
    for key in (1, 2, 3, 4):
        assert len(pulses(service, key)) >= pops.count(key)


def test_coils_are_low_after_stop_even_mid_pulse(tmp_path, backend):
    from .conftest import make_config

    config = make_config(tmp_path, backend)
    config.box.limits = Limits(pulse_ms=100)
    svc = Service(config, think_s=0.01, face_delay_s=0.01, hide_delay_s=0.01)
    svc.start()
    gid = start_popping(svc)
    svc.box_play.press(gid, 2)
    assert svc.toy.coil_pin(2).state  # energised right now (100 ms pulse)
    svc.stop()
    assert [bool(svc.toy.coil_pin(k).state) for k in (1, 2, 3, 4)] == [False] * 4
    assert coil_states(svc, 2)[-1] is False


def test_coils_are_low_after_an_exception_in_the_service(tmp_path, backend):
    from .conftest import make_config

    config = make_config(tmp_path, backend)
    config.box.limits = Limits(pulse_ms=100)
    svc = Service(config, think_s=0.01, face_delay_s=0.01, hide_delay_s=0.01)
    svc.start()
    try:
        gid = start_popping(svc)

        def press_then_fail() -> None:
            svc.box_play.watch.press(3)
            assert svc.toy.coil_pin(3).state
            raise RuntimeError("bug in a service job")

        svc.post(press_then_fail)
        wait_for(lambda: len(svc.toy.coil_pin(3).states) >= 3, timeout=2, what="coil 3 off")
        states = svc.toy.coil_pin(3).states
        assert [bool(s.state) for s in states] == [False, True, False]
        assert states[2].timestamp < 0.090  # cut short by the error, not by the 100 ms pulse end
        assert svc.table(gid).state.phase in ("pop", "face", "advance")
    finally:
        svc.stop()


def test_a_second_die_out_before_the_first_face_is_journaled_after_it(referee_faces):
    svc = referee_faces
    gid = start_popping(svc)
    table = svc.table(gid)
    svc.box_play.press(gid, 1)
    wait_for(lambda: table.state.phase == "face", what="key 1 waiting for its face")
    assert svc.toy.press_by_hand(3)  # a quick hand, before the face is in
    wait_for(lambda: svc.box_play.watch.state()["popped"] == [1, 3], what="the watch saw key 3")
    assert [a["type"] for a in table.actions] == ["hidden", "pop"]  # held, not lost
    svc.submit(gid, {"type": "face", "face": 2})
    svc.submit(gid, {"type": "advance", "figure": "blue", "by": table.state.popper})
    wait_for(lambda: table.state.phase == "face", what="key 3's pop journaled")
    assert table.actions[-1] == {"type": "pop", "key": 3, "by": table.state.popper}
    svc.submit(gid, {"type": "face", "face": "devil"})
    assert table.state.phase == "hiding"


def test_a_die_out_after_a_devil_is_not_counted_and_said_so(referee_faces):
    svc = referee_faces
    gid = start_popping(svc)
    table = svc.table(gid)
    svc.box_play.press(gid, 2)
    wait_for(lambda: table.state.phase == "face", what="key 2 waiting for its face")
    assert svc.toy.press_by_hand(4)
    wait_for(lambda: 4 in svc.box_play.watch.state()["popped"], what="the watch saw key 4")
    svc.submit(gid, {"type": "face", "face": "devil"})  # the hiding is over
    wait_for(lambda: any("came out after" in n["text"] for n in svc.box_status()["notices"]))
    assert [a.get("key") for a in table.actions if a["type"] == "pop"] == [2]
