"""The serial backend on the virtual co-processor (real threads, a real pty), and its faults.

Each fault of the virtual co-processor's menu gets a test: no coil stays on, no phantom
or lost pop, the link comes back within 2 s of the fault ending, and the state is visible
in ``status()``, as LinkChanged events and in the log.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.box.base import (
    BoxEvent,
    BoxFault,
    CoilFired,
    FaultChanged,
    LidChanged,
    LimitRefused,
    Limits,
    LinkChanged,
    SlotChanged,
)
from controller.box.pins import PinMap
from controller.box.virtual import (
    BAD_FIELD_FRAMES,
    VirtualBox,
    VirtualCoprocessor,
    make_virtual_box,
)
from controller.clock import RealClock

from .harness import PINS

RECOVER_S = 2.0


class Recorder:
    """Collects box events from the listener thread; waits for conditions."""

    def __init__(self) -> None:
        self.events: list[BoxEvent] = []
        self._cond = threading.Condition()

    def __call__(self, event: BoxEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def of(self, kind: type) -> list[Any]:
        with self._cond:
            return [e for e in self.events if isinstance(e, kind)]

    def wait(self, done: Callable[[], bool], timeout: float = 5.0) -> float:
        """Seconds until ``done()`` (AssertionError after ``timeout``)."""
        start = time.monotonic()
        with self._cond:
            assert self._cond.wait_for(done, timeout), f"not done within {timeout} s"
        return time.monotonic() - start

    def links(self) -> list[bool]:
        return [e.up for e in self.of(LinkChanged)]

    def slot_changes(self) -> list[tuple[int, bool]]:
        return [(e.key, e.present) for e in self.of(SlotChanged)]


def wait_until(done: Callable[[], bool], timeout: float = 5.0) -> float:
    start = time.monotonic()
    while not done():
        assert time.monotonic() - start < timeout, f"not done within {timeout} s"
        time.sleep(0.005)
    return time.monotonic() - start


@pytest.fixture
def rig() -> Iterator[tuple[VirtualBox, VirtualCoprocessor, Recorder]]:
    clock = RealClock()
    box, co = make_virtual_box(PINS, Limits(), clock, seed=5)
    recorder = Recorder()
    box.subscribe(recorder)
    assert box.wait_until_up(5)
    co.toy.hide()
    recorder.wait(lambda: recorder.slot_changes() == [(k, True) for k in (1, 2, 3, 4)])
    recorder.events.clear()
    try:
        yield box, co, recorder
    finally:
        box.close()
        clock.close()
    assert co.coils_on() == []


def pop(box: VirtualBox, rec: Recorder, key: int) -> None:
    """Fire ``key`` and wait for its slot to empty."""
    box.fire(key)
    rec.wait(lambda: (key, False) in rec.slot_changes())


def pulses(co: VirtualCoprocessor) -> list[int]:
    return [key for key, _on, _off in co.hal.pulses]


def test_fire_ack_and_sensor_report_end_to_end(rig: Any) -> None:
    box, co, rec = rig
    assert box.status()["link"]["up"] is True
    assert box.status()["backend"] == "virtual"
    assert box.slots() == {1: True, 2: True, 3: True, 4: True}
    pop(box, rec, 3)
    assert pulses(co) == [3]
    fired = rec.of(CoilFired)
    assert [(e.key, e.pulse_ms) for e in fired] == [(3, 30.0)]
    (emptied,) = rec.of(SlotChanged)
    assert emptied.at > fired[0].at
    assert box.slots() == {1: True, 2: True, 3: False, 4: True}
    assert co.toy.face(3) is not None
    on, off = co.hal.pulses[0][1], co.hal.pulses[0][2]
    assert off is not None and 0.025 <= off - on <= 0.06


def test_host_limits_refuse_before_anything_is_sent(rig: Any) -> None:
    box, co, _rec = rig
    box.fire(1)
    with pytest.raises(LimitRefused, match="one coil at a time"):
        box.fire(2)
    time.sleep(0.05)
    with pytest.raises(LimitRefused, match="wait at least 250 ms"):
        box.fire(1)
    assert pulses(co) == [1]


def test_fault_silence(rig: Any, caplog: pytest.LogCaptureFixture) -> None:
    box, co, rec = rig
    caplog.set_level(logging.INFO)
    box.fire(1, 100)
    co.silence()
    silent_at = time.monotonic()
    # Firmware side: the latch and every coil off within 1 s of the host's last frame.
    took = wait_until(lambda: "host-silent" in co.status()["firmware_faults"], 2.0)
    assert took <= 1.15
    assert co.coils_on() == []
    # Host side: the link is reported down, fire refuses.
    rec.wait(lambda: rec.links() == [False], 2.0)
    assert time.monotonic() - silent_at <= 1.5
    status = box.status()
    assert status["link"]["up"] is False
    assert "link" in status["faults"]
    with pytest.raises(BoxFault, match=r"^link to the Pico is down"):
        box.fire(2)
    co.silence(False)
    back_at = time.monotonic()
    rec.wait(lambda: rec.links() == [False, True], RECOVER_S + 1)
    assert time.monotonic() - back_at <= RECOVER_S
    assert [(e.name, e.active) for e in rec.of(FaultChanged)] == [
        ("pico:host-silent", True),
        ("pico:host-silent", False),
    ]
    pop(box, rec, 2)
    assert rec.slot_changes() == [(1, False), (2, False)]
    assert pulses(co) == [1, 2]
    assert "link to the Pico lost" in caplog.text
    assert "link to the Pico up" in caplog.text


def test_fault_garbage(rig: Any) -> None:
    box, co, rec = rig
    co.garbage(0.2)
    for key in (1, 2, 3, 4):
        pop(box, rec, key)
        time.sleep(0.05)
    time.sleep(0.5)
    co.garbage(0)
    assert rec.slot_changes() == [(1, False), (2, False), (3, False), (4, False)]
    assert pulses(co) == [1, 2, 3, 4]
    status = box.status()
    assert status["link"]["bad_frames"] > 0
    assert co.firmware.bad_frames > 0
    assert status["link"]["up"] is True


def test_fault_dropped_link(rig: Any, caplog: pytest.LogCaptureFixture) -> None:
    box, co, rec = rig
    co.drop()
    rec.wait(lambda: rec.links() == [False], 2.0)
    with pytest.raises(BoxFault, match=r"^link to the Pico is down"):
        box.fire(1)
    assert co.toy.press_by_hand(3)  # a pop while nobody listens
    wait_until(lambda: "host-silent" in co.status()["firmware_faults"], 2.0)
    assert co.coils_on() == []
    assert box.status()["link"]["reconnects"] >= 1
    time.sleep(0.3)
    co.restore()
    back_at = time.monotonic()
    rec.wait(lambda: rec.links() == [False, True], RECOVER_S + 1)
    assert time.monotonic() - back_at <= RECOVER_S
    assert box.status()["link"]["reconnects"] >= 2  # a new connection (maybe a new path)
    rec.wait(lambda: rec.slot_changes() == [(3, False)])
    time.sleep(0.3)
    assert rec.slot_changes() == [(3, False)]  # exactly once; nothing else
    assert box.slots() == {1: True, 2: True, 3: False, 4: True}
    pop(box, rec, 1)
    assert "Pico link on" in caplog.text


@pytest.mark.parametrize("drop_usb", [True, False], ids=["usb-re-enumerates", "same-port"])
def test_fault_reset_mid_game(rig: Any, drop_usb: bool) -> None:
    box, co, rec = rig
    pop(box, rec, 2)
    box.fire(4, 100)
    co.reset(drop_usb=drop_usb)
    assert co.coils_on() == []
    rec.wait(lambda: rec.links() == [False, True], RECOVER_S + 1)
    assert co.boots == 2
    time.sleep(0.3)
    assert box.status()["firmware"]["boot"] == co.firmware.boot_id
    # The interrupted pulse may or may not have popped slot 4 (the toy decides); either
    # way each emptied slot is reported exactly once, and nothing else.
    changes = rec.slot_changes()
    assert changes[0] == (2, False)
    assert changes[1:] in ([], [(4, False)])
    assert box.slots()[4] == (changes[1:] == [])
    pop(box, rec, 1)


def test_fault_slow_replies(rig: Any) -> None:
    box, co, rec = rig
    co.slow(0.3)
    start = time.monotonic()
    box.fire(1)
    assert 0.25 <= time.monotonic() - start <= 1.0
    rec.wait(lambda: (1, False) in rec.slot_changes())
    time.sleep(0.3)
    assert pulses(co) == [1]  # retried while the answer was late, acted once
    assert box.status()["link"]["retries"] >= 1
    assert rec.links() == []  # slow is not silent
    co.slow(1.5)  # slower than the silence limit: the link is lost...
    rec.wait(lambda: rec.links() == [False], 3.0)
    co.slow(0)
    back_at = time.monotonic()
    rec.wait(lambda: rec.links() == [False, True], RECOVER_S + 1)
    assert time.monotonic() - back_at <= RECOVER_S
    pop(box, rec, 2)
    assert rec.slot_changes() == [(1, False), (2, False)]
    assert pulses(co) == [1, 2]


def test_fault_corrupted_crc(rig: Any) -> None:
    box, co, rec = rig
    co.corrupt(0.3)
    for key in (4, 3, 2, 1):
        pop(box, rec, key)
    time.sleep(0.3)
    co.corrupt(0)
    assert rec.slot_changes() == [(4, False), (3, False), (2, False), (1, False)]
    assert pulses(co) == [4, 3, 2, 1]
    assert box.status()["link"]["bad_frames"] + co.firmware.bad_frames > 0


def test_lid_switch_through_the_pico() -> None:
    clock = RealClock()
    pins = PinMap(coils=(10, 11, 12, 13), sensors=(2, 3, 4, 5), lid=6, led=25)
    box, co = make_virtual_box(pins, Limits(), clock, seed=2)
    rec = Recorder()
    box.subscribe(rec)
    try:
        assert box.wait_until_up(5)
        assert box.lid_closed() is False
        co.toy.hide()
        rec.wait(lambda: [e.closed for e in rec.of(LidChanged)] == [True])
        co.toy.open_lid()
        rec.wait(lambda: [e.closed for e in rec.of(LidChanged)] == [True, False])
        assert box.lid_closed() is False
        assert box.status()["lid"] is False
    finally:
        box.close()
        clock.close()


def test_close_switches_off_and_stops(rig: Any) -> None:
    box, co, _rec = rig
    box.fire(2, 100)
    box.close()
    box.close()  # idempotent
    assert co.coils_on() == []
    assert not box._driver.is_alive()


def test_crc_valid_frames_with_bad_fields_are_counted_and_the_link_goes_on(rig: Any) -> None:
    box, co, rec = rig
    co.bad_fields()
    wait_until(lambda: box.status()["link"]["bad_frames"] >= len(BAD_FIELD_FRAMES), 10)
    assert box.status()["link"]["up"] is True
    pop(box, rec, 2)  # the link still works while bad frames keep coming
    assert pulses(co) == [2]
    co.clear()
    assert rec.links() == []  # never went down
    assert box._driver.is_alive()


def test_a_link_thread_that_fails_goes_down_and_reconnects(
    rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    box, co, rec = rig
    before = box.status()["link"]["reconnects"]
    real_tick = box._link.tick
    failures = iter([RuntimeError("a bug in the link code")])

    def failing_tick(now: float) -> str | None:
        for exc in failures:
            raise exc
        return real_tick(now)

    monkeypatch.setattr(box._link, "tick", failing_tick)
    rec.wait(lambda: rec.links()[:1] == [False])
    assert "a bug in the link code" in rec.of(LinkChanged)[0].detail
    rec.wait(lambda: rec.links() == [False, True], timeout=RECOVER_S + 3)
    assert box.status()["link"]["up"] is True
    assert box.status()["link"]["reconnects"] == before + 1
    pop(box, rec, 4)
    assert pulses(co) == [4]
