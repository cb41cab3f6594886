"""The host link against the firmware's code, in-process on a simulated clock (no threads)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from controller.box.base import CoilFired, FaultChanged, Limits, LinkChanged, SlotChanged
from controller.box.protocol import (
    FIRMWARE_VERSION,
    PROTOCOL,
    HostLink,
    expected_settings,
    handshake_problems,
    wire,
)
from controller.box.virtual import BAD_FIELD_FRAMES

from .harness import PINS, Joined


def _flip_first(kind: str) -> tuple[list[bytes], object]:
    """A filter that corrupts the first frame of ``kind`` (e.g. b'"t":"r"') and logs it."""
    hits: list[bytes] = []

    def flt(data: bytes) -> bytes:
        if not hits and kind.encode() in data:
            hits.append(data)
            i = data.index(kind.encode())
            return data[:i] + b"X" + data[i + 1 :]
        return data

    return hits, flt


def test_handshake_brings_the_link_up() -> None:
    j = Joined()
    ms = j.up()
    assert ms < 20
    assert j.link.firmware == {"version": FIRMWARE_VERSION, "protocol": PROTOCOL, "boot": 2}
    assert [(e.up, e.detail.startswith("firmware 0.2.0")) for e in j.of(LinkChanged)] == [
        (True, True)
    ]
    assert j.hal.watchdog is True
    assert j.link.stats.bad_frames == 0


def test_first_sync_is_silent_and_sets_the_slots() -> None:
    j = Joined()
    for key in (1, 3):
        j.set_present(key, True)
    j.reset_pico()  # boot with dice present: debounced from the start
    j.up()
    assert j.link.slots == {1: True, 2: False, 3: True, 4: False}
    assert j.of(SlotChanged) == []


def test_fire_is_acknowledged_once_and_reported() -> None:
    j = Joined()
    j.up()
    fired_at = j.t
    pending = j.request("fire", k=2, ms=30)
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.hal.pulses_started == [2]
    (event,) = j.of(CoilFired)
    assert (event.key, event.pulse_ms) == (2, 30.0)
    assert fired_at <= event.at <= fired_at + 0.005


def test_a_slot_change_is_reported_once_with_its_edge_time() -> None:
    j = Joined()
    j.up()
    j.set_present(4, True)
    edge = j.t
    j.run(300)
    (event,) = j.of(SlotChanged)
    assert (event.key, event.present) == (4, True)
    assert edge < event.at <= edge + 0.003  # the debounce (20 ms) is not counted in
    assert j.link.slots[4] is True


def test_a_lost_request_is_retried_and_acts_once() -> None:
    j = Joined()
    j.up()
    dropped: list[bytes] = []

    def lose_first_fire(data: bytes) -> bytes:
        if not dropped and b'"fire"' in data:
            dropped.append(data)
            return b""
        return data

    j.to_pico = lose_first_fire
    pending = j.request("fire", k=1, ms=30)
    assert dropped
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.hal.pulses_started == [1]
    assert j.link.stats.retries >= 1


def test_a_lost_reply_is_asked_again_and_the_coil_fires_once() -> None:
    j = Joined()
    j.up()
    lost: list[bytes] = []

    def lose_first_reply(data: bytes) -> bytes:
        if not lost and b'"t":"r"' in data:
            lost.append(data)
            return b""
        return data

    j.to_host = lose_first_reply
    pending = j.request("fire", k=3, ms=30)
    assert lost
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.hal.pulses_started == [3]
    assert len(j.of(CoilFired)) == 1


def test_a_corrupted_reply_is_dropped_and_re_asked() -> None:
    j = Joined()
    j.up()
    hits, flt = _flip_first('"ok"')
    j.to_host = flt  # type: ignore[assignment]
    pending = j.request("fire", k=1, ms=30)
    assert hits
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.link.stats.bad_frames == 1
    assert j.link.stats.naks_sent == 1
    assert j.hal.pulses_started == [1]


def test_a_corrupted_request_is_never_acted_on() -> None:
    j = Joined()
    j.up()
    hits, flt = _flip_first('"k":2')
    j.to_pico = flt  # type: ignore[assignment]
    pending = j.request("fire", k=2, ms=30)
    assert hits
    assert j.fw.bad_frames == 1
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.hal.pulses_started == [2]  # only the clean retry acted


def test_a_corrupted_or_repeated_event_is_reported_once() -> None:
    j = Joined()
    j.up()
    hits, flt = _flip_first('"e":"slot"')
    j.to_host = flt  # type: ignore[assignment]
    j.set_present(1, True)
    j.run(300)
    assert hits
    assert [(e.key, e.present) for e in j.of(SlotChanged)] == [(1, True)]
    # The ack gets lost: the firmware repeats the event, the host acks again, no repeat.
    lost: list[bytes] = []

    def lose_ack(data: bytes) -> bytes:
        if not lost and b'"ack"' in data:
            lost.append(data)
            return data.replace(data[data.index(b"{") :], b"")
        return data

    j.to_host = None
    j.to_pico = lose_ack
    j.set_present(1, False)
    j.run(600)
    assert lost
    assert [(e.key, e.present) for e in j.of(SlotChanged)] == [(1, True), (1, False)]
    assert j.fw._events == []


def test_slow_replies_still_act_once() -> None:
    j = Joined()
    j.up()
    queue: list[tuple[float, bytes]] = []

    def late(data: bytes) -> bytes:
        if data:
            queue.append((j.t + 0.3, data))
        ready = b"".join(d for due, d in queue if due <= j.t)
        queue[:] = [(due, d) for due, d in queue if due > j.t]
        return ready

    j.to_host = late
    pending = j.request("fire", k=4, ms=30)
    assert pending.reply is not None and pending.reply["ok"] is True
    assert j.hal.pulses_started == [4]
    assert j.link.stats.retries >= 2  # retried while the answer was on its way
    j.run(2000)
    assert j.link.up
    assert j.drops == []


def test_silence_latches_the_firmware_and_drops_the_link_then_recovers() -> None:
    j = Joined()
    j.up()
    j.request("fire", k=1, ms=100)
    j.wire_up = False
    silent_ms = j.run_until(lambda: "host-silent" in j.fw.faults, 2000)
    assert silent_ms <= 1001
    assert j.hal.energised() == []
    j.cut("test: wire cut")
    assert [e.up for e in j.of(LinkChanged)] == [True, False]
    refused = j.link.submit("fire", j.t, k=2, ms=30)
    assert refused.error is not None and refused.error.startswith("link to the Pico is down")
    j.reconnect()
    assert j.up() < 50
    faults = [(e.name, e.active) for e in j.of(FaultChanged)]
    assert faults == [("pico:host-silent", True), ("pico:host-silent", False)]
    assert j.fw.faults == {}
    assert j.request("fire", k=2, ms=30).reply["ok"] is True


def test_the_host_notices_silence_from_the_pico_within_a_second() -> None:
    j = Joined()
    j.up()
    j.to_host = lambda data: b""
    ms = j.run_until(lambda: bool(j.drops), 2000)
    assert 990 <= ms <= 1010
    assert j.drops == ["no valid frame from the Pico for 1 s"]
    assert [e.up for e in j.of(LinkChanged)] == [True, False]


def test_a_pico_without_the_firmware_is_named() -> None:
    j = Joined()
    j.to_host = lambda data: b""  # a bare MicroPython REPL never answers the handshake
    ms = j.run_until(lambda: bool(j.drops), 2000)
    assert 990 <= ms <= 1010
    assert j.drops == [
        "the Pico did not answer 'hello' within 1 s: is the Diablotin firmware installed? "
        "(`diablotin firmware flash`)"
    ]
    assert j.of(LinkChanged) == []


def test_a_restart_is_noticed_by_heartbeat_and_resynced() -> None:
    j = Joined()
    j.set_present(1, True)
    j.set_present(2, True)
    j.reset_pico()
    j.up()
    j.set_present(2, False)  # popped just as the Pico restarts
    j.reset_pico()
    ms = j.run_until(lambda: len(j.of(LinkChanged)) == 3, 1000)
    assert ms <= 300
    assert [(e.up, e.detail.split(",")[0]) for e in j.of(LinkChanged)] == [
        (True, "firmware 0.2.0 (protocol 1)"),
        (False, "the Pico restarted"),
        (True, "firmware 0.2.0 (protocol 1)"),
    ]
    assert [(e.key, e.present) for e in j.of(SlotChanged)] == [(2, False)]


def test_a_restart_is_noticed_by_a_refused_request() -> None:
    j = Joined()
    j.up()
    j.reset_pico()
    pending = j.request("fire", k=1, ms=30)
    assert pending.error is not None and "lost the session" in pending.error
    assert j.hal.pulses_started == []
    j.up()
    assert j.request("fire", k=1, ms=30).reply["ok"] is True


def test_a_reconnect_reports_each_real_change_exactly_once() -> None:
    j = Joined()
    for key in (1, 2, 3, 4):
        j.set_present(key, True)
    j.reset_pico()
    j.up()
    j.cut("test: unplugged")
    j.set_present(2, False)  # emptied while the link was down
    j.run(100)
    j.set_present(3, False)  # emptied and refilled: no change to report
    j.run(100)
    j.set_present(3, True)
    j.run(100)
    j.reconnect()
    j.up()
    j.run(500)
    assert [(e.key, e.present) for e in j.of(SlotChanged)] == [(2, False)]
    assert j.link.slots == {1: True, 2: False, 3: True, 4: True}
    # And again: nothing changed, nothing reported.
    j.cut("test: unplugged")
    j.reconnect()
    j.up()
    j.run(300)
    assert len(j.of(SlotChanged)) == 1


def test_a_pulse_refused_by_the_pico_says_why() -> None:
    j = Joined()
    j.up()
    assert j.request("fire", k=1, ms=30).reply["ok"] is True
    j.run(100)
    reply = j.request("fire", k=1, ms=30).reply
    assert reply["ok"] is False and reply["err"] == "limit"
    assert "wait at least 250 ms" in reply["why"]
    assert j.hal.pulses_started == [1]


def test_requests_are_refused_while_down() -> None:
    link = HostLink(expected_settings(PINS, Limits()), lambda age: 0.0)
    pending = link.submit("fire", 0.0, k=1, ms=30)
    assert pending.error == "link to the Pico is down (not connected yet)"
    assert link.take_output() == b""


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"version": "0.0.9"},
            "runs firmware '0.0.9', this service ships 0.2.0: update the firmware",
        ),
        ({"version": "9.0.0"}, "update the service"),
        ({"settings": {"no": "pins"}}, "no usable pin map and limits"),
    ],
)
def test_a_handshake_that_differs_refuses_coils_and_says_what_to_update(
    change: dict[str, Any], words: str
) -> None:
    j = Joined(
        settings=change.get("settings"), **{k: v for k, v in change.items() if k == "version"}
    )
    j.run_until(lambda: j.link.phase == "mismatch", 500)
    assert j.link.mismatch is not None and words in j.link.mismatch
    refused = j.link.submit("fire", j.t, k=1, ms=30)
    assert refused.error is not None
    assert refused.error.startswith("the Pico does not match this service: ")
    assert words in refused.error
    assert [(e.name, e.active) for e in j.of(FaultChanged)] == [("pico-handshake", True)]
    assert j.of(LinkChanged) == []
    j.run(2000)  # stays connected and refusing; no flapping
    assert j.drops == []
    assert j.hal.pulses_started == []


def test_a_different_pin_map_or_limit_is_named() -> None:
    expected = expected_settings(PINS, Limits())
    other = expected_settings(PINS, Limits(min_gap_ms=300))
    other["coils"] = [10, 11, 12, 14]
    reply = {"proto": PROTOCOL, "fw": FIRMWARE_VERSION, "settings": other}
    problems = handshake_problems(reply, expected)
    assert len(problems) == 2
    assert problems[0].startswith("pin map differs: coils is [10, 11, 12, 14] on the Pico")
    assert "gap_ms is 300 on the Pico, 250 in this service's configuration" in problems[1]
    assert all(p.endswith("update the firmware (`diablotin firmware flash`)") for p in problems)


def test_protocol_versions_say_which_side_to_update() -> None:
    expected = expected_settings(PINS, Limits())
    older = handshake_problems({"proto": PROTOCOL - 1}, expected)
    newer = handshake_problems({"proto": PROTOCOL + 1}, expected)
    missing = handshake_problems({}, expected)
    assert older == [
        f"the Pico speaks protocol {PROTOCOL - 1}, this service protocol "
        f"{PROTOCOL}: update the firmware (`diablotin firmware flash`)"
    ]
    assert newer[0].endswith("update the service")
    assert "None" in missing[0]
    matching = {"proto": PROTOCOL, "fw": FIRMWARE_VERSION, "settings": expected}
    assert handshake_problems(matching, expected) == []


def test_float32_limits_from_the_pico_still_match() -> None:
    expected = expected_settings(PINS, Limits())
    pico = expected_settings(PINS, Limits())
    pico["limits"]["duty"] = 0.10000000149  # 0.1 in single precision
    reply = {"proto": PROTOCOL, "fw": FIRMWARE_VERSION, "settings": pico}
    assert handshake_problems(reply, expected) == []


def test_the_host_frames_with_the_firmwares_code() -> None:
    assert wire is sys.modules["diablotin_fw.wire"]
    assert str(wire.__file__).endswith("firmware/diablotin_fw/wire.py")


@pytest.mark.parametrize("frame", BAD_FIELD_FRAMES, ids=lambda f: repr(f)[:60])
def test_a_crc_valid_frame_with_a_bad_field_is_counted_and_never_acted_on(
    frame: dict[str, Any],
) -> None:
    j = Joined()
    j.up()
    before = (j.link.stats.bad_frames, j.link.stats.frames_in, dict(j.link.slots))
    msg = dict(frame)
    if msg.get("boot") == 0:
        msg["boot"] = j.link.firmware["boot"] if j.link.firmware else 0
    j.link.receive(wire.encode(msg), j.t)  # would raise (and kill the link thread) before
    assert j.link.stats.bad_frames == before[0] + 1
    assert (j.link.stats.frames_in, j.link.slots) == before[1:]
    assert j.link.up
    assert j.request("fire", k=1, ms=30).reply["ok"] is True
