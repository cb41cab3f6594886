"""The firmware's logic (core.py) on a fake board with a hand-moved clock."""

from diablotin_fw import VERSION, core, wire
from fwtest_fakes import Bench, settings

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass


def test_coils_are_switched_off_at_boot() -> None:
    bench = Bench()
    assert bench.hal.all_off_calls == 1
    assert bench.hal.energised() == []


def test_requests_before_the_handshake_are_refused() -> None:
    bench = Bench()
    reply = bench.fire(1)
    assert reply["ok"] is False
    assert reply["err"] == "hello"
    assert bench.hal.pulses_started == []


def test_handshake_reports_versions_settings_and_state() -> None:
    bench = Bench()
    bench.hal.levels[2] = 0  # a die in slot 2 ("low" = present)
    bench = Bench()
    bench.hal.levels[2] = 0
    bench.fw = core.Firmware(bench.hal, settings(), bench.now, 4242)
    bench.advance(30)
    reply = bench.hello()
    assert reply["proto"] == wire.PROTOCOL
    assert reply["fw"] == VERSION
    assert reply["boot"] == 4242
    assert reply["settings"] == settings()
    assert reply["problems"] == []
    state = reply["state"]
    assert state["slots"] == [False, True, False, False]
    assert state["lid"] is None
    assert state["faults"] == {}
    assert state["coil"] == 0
    assert bench.hal.watchdog is True


def test_watchdog_starts_only_with_the_handshake_and_is_fed_every_turn() -> None:
    bench = Bench()
    bench.advance(5)
    assert bench.hal.watchdog is False
    feeds = bench.hal.feeds
    bench.hello()
    bench.advance(10, beat_every=5)
    assert bench.hal.watchdog is True
    assert bench.hal.feeds == feeds + 11


def test_fire_energises_the_coil_for_the_pulse_then_switches_it_off() -> None:
    bench = Bench()
    bench.hello()
    reply = bench.fire(3, 30)
    assert reply["ok"] is True
    assert reply["k"] == 3
    assert bench.hal.energised() == [3]
    bench.advance(29, beat_every=10)
    assert bench.hal.energised() == [3]
    bench.advance(1)
    assert bench.hal.energised() == []
    assert bench.hal.pulses_started == [3]


def test_a_retried_request_is_answered_again_but_not_repeated() -> None:
    bench = Bench()
    bench.hello()
    first = bench.fire(1)
    again = [m for m in bench.send({"t": "fire", "s": bench.seq, "k": 1, "ms": 30})]
    assert [m["s"] for m in again] == [first["s"]]
    assert again[0]["ok"] is True
    assert bench.hal.pulses_started == [1]


def test_pulse_over_the_cap_is_refused_not_clipped() -> None:
    bench = Bench()
    bench.hello()
    for ms in (101, 0, -5, 100.5):
        reply = bench.fire(1, ms)
        assert reply["ok"] is False
        assert reply["err"] == "limit"
        assert "pulse" in reply["why"]
    assert bench.hal.pulses_started == []


def test_unknown_key_is_refused() -> None:
    bench = Bench()
    bench.hello()
    for key in (0, 5, -1):
        reply = bench.fire(key)
        assert reply["err"] == "limit"
        assert "no key" in reply["why"]
    assert bench.hal.pulses_started == []


def test_one_coil_at_a_time() -> None:
    bench = Bench()
    bench.hello()
    assert bench.fire(1)["ok"] is True
    bench.advance(10)
    reply = bench.fire(2)
    assert reply["ok"] is False
    assert "one coil at a time" in reply["why"]
    bench.advance(20)
    assert bench.fire(2)["ok"] is True
    assert bench.hal.pulses_started == [1, 2]


def test_spacing_between_pulses_of_one_coil() -> None:
    bench = Bench()
    bench.hello()
    assert bench.fire(1, 30)["ok"] is True
    bench.advance(30 + 249, beat_every=100)
    reply = bench.fire(1, 30)
    assert reply["ok"] is False
    assert "wait at least 250 ms" in reply["why"]
    bench.advance(1)
    assert bench.fire(1, 30)["ok"] is True
    assert bench.hal.pulses_started == [1, 1]


def test_duty_limit_over_ten_seconds() -> None:
    bench = Bench()
    bench.hello()
    # 10 pulses of 100 ms use the whole 1000 ms budget of the 10 s window.
    for _ in range(10):
        assert bench.fire(4, 100)["ok"] is True
        bench.advance(350, beat_every=100)
    reply = bench.fire(4, 10)
    assert reply["ok"] is False
    assert "duty" in reply["why"]
    # Other coils have their own budget.
    assert bench.fire(3, 10)["ok"] is True
    # Once the first pulse left the window, there is room again.
    bench.advance(10000 - 10 * 350 + 100, beat_every=100)
    assert bench.fire(4, 100)["ok"] is True
    assert bench.hal.pulses_started.count(4) == 11


def test_host_silence_switches_coils_off_and_latches_a_fault() -> None:
    bench = Bench()
    bench.hello()
    bench.advance(1000)
    assert bench.fw.faults == {}
    assert bench.fw.session is True
    bench.advance(1)
    assert "host-silent" in bench.fw.faults
    assert bench.fw.session is False
    assert bench.hal.energised() == []
    # The fault survives a new handshake and blocks pulses until the host clears it.
    reply = bench.hello()
    assert "host-silent" in reply["state"]["faults"]
    refused = bench.fire(1)
    assert refused["err"] == "fault"
    assert "host-silent" in refused["why"]
    cleared = bench.request("clear")
    assert cleared["faults"] == {}
    assert bench.fire(1)["ok"] is True


def test_silence_stops_a_coil_even_mid_pulse() -> None:
    # A coil can only be on for a pulse (<= 100 ms), but the silence check must still
    # switch it off: simulate a pulse whose end was missed.
    bench = Bench()
    bench.hello()
    bench.fire(2, 100)
    bench.fw._coil_ms = 10**6  # as if the pulse end were lost
    bench.advance(1001)
    assert bench.hal.energised() == []
    assert "host-silent" in bench.fw.faults


def test_session_start_and_end_are_told_to_the_board() -> None:
    bench = Bench()
    bench.hello()
    bench.hello()  # a repeated handshake is the same session
    bench.advance(1001)
    assert bench.hal.sessions == [True, False]


def test_heartbeats_keep_the_session() -> None:
    bench = Bench()
    bench.hello()
    bench.advance(5000, beat_every=300)
    assert bench.fw.faults == {}
    assert bench.fw.session is True


def test_without_a_session_a_host_heartbeat_is_answered_so_a_restart_shows() -> None:
    bench = Bench()
    bench.advance(1000)
    assert bench.take() == []  # quiet on its own (the REPL stays clean for mpremote)
    (beat,) = bench.send({"t": "hb"})
    assert beat == {"t": "hb", "boot": 4242, "up": 1000, "f": []}


def test_firmware_heartbeat_every_250_ms_while_in_session() -> None:
    bench = Bench()
    bench.advance(1000)
    assert bench.take() == []  # quiet without a host
    bench.hello()
    bench.take()
    bench.advance(1000, beat_every=100)
    beats = [m for m in bench.take() if m["t"] == "hb"]
    assert len(beats) == 4
    assert beats[0]["boot"] == 4242
    assert beats[0]["f"] == []


def test_debounced_slot_change_is_reported_with_its_age_and_retried_until_acked() -> None:
    bench = Bench()
    bench.hello()
    bench.take()
    bench.hal.levels[1] = 0  # a die arrives
    bench.advance(5)
    bench.hal.levels[1] = 1  # bounce
    bench.advance(3)
    bench.hal.levels[1] = 0  # steady from the next loop turn on
    bench.advance(20)
    assert [m for m in bench.take() if m["t"] == "ev"] == []
    bench.advance(1)
    events = [m for m in bench.take() if m["t"] == "ev"]
    assert len(events) == 1
    event = events[0]
    assert (event["e"], event["k"], event["p"]) == ("slot", 1, True)
    assert event["age"] == 20
    bench.advance(260, beat_every=100)
    again = [m for m in bench.take() if m["t"] == "ev"]
    assert [m["s"] for m in again] == [event["s"]]
    assert again[0]["age"] == 20 + core.RESEND_MS
    bench.send({"t": "ack", "s": event["s"]})
    bench.advance(600, beat_every=100)
    assert [m for m in bench.take() if m["t"] == "ev"] == []


def test_a_glitch_shorter_than_the_debounce_is_not_reported() -> None:
    bench = Bench()
    bench.hello()
    bench.hal.levels[4] = 0
    bench.advance(19)
    bench.hal.levels[4] = 1
    bench.advance(100, beat_every=50)
    assert [m for m in bench.take() if m["t"] == "ev"] == []
    assert bench.fw.state(bench.now)["slots"] == [False, False, False, False]


def test_events_are_sent_one_at_a_time_in_order() -> None:
    bench = Bench()
    bench.hello()
    bench.take()
    bench.hal.levels[1] = 0
    bench.hal.levels[2] = 0
    bench.advance(25)
    first = [m for m in bench.take() if m["t"] == "ev"]
    assert [(m["k"], m["p"]) for m in first] == [(1, True)]
    second = [m for m in bench.send({"t": "ack", "s": first[0]["s"]}) if m["t"] == "ev"]
    assert [(m["k"], m["p"]) for m in second] == [(2, True)]
    assert second[0]["s"] == (first[0]["s"] + 1) % wire.SEQ_MOD


def test_a_stale_ack_does_not_drop_the_event_in_flight() -> None:
    bench = Bench()
    bench.hello()
    bench.take()
    bench.hal.levels[3] = 0
    bench.advance(25)
    event = next(m for m in bench.take() if m["t"] == "ev")
    bench.send({"t": "ack", "s": (event["s"] + 7) % wire.SEQ_MOD})
    bench.advance(300, beat_every=100)
    assert [m["s"] for m in bench.take() if m["t"] == "ev"] == [event["s"]]


def _ack_everything(bench: Bench, rounds: int = 60) -> list[dict[str, Any]]:
    """Ack every event as it comes; returns the distinct events in order."""
    seen: list[dict[str, Any]] = []
    pending = bench.take()
    for _ in range(rounds):
        fresh = []
        for msg in pending:
            if msg["t"] == "ev" and msg["s"] not in [m["s"] for m in seen]:
                seen.append(msg)
                fresh.extend(bench.send({"t": "ack", "s": msg["s"]}))
        bench.advance(5)
        pending = fresh + bench.take()
    return seen


def test_too_many_unacked_events_collapse_into_one_state_event() -> None:
    bench = Bench()
    bench.hello()
    for _ in range(core.MAX_EVENTS + 4):
        bench.hal.levels[1] = 1 - bench.hal.levels[1]
        bench.advance(25, beat_every=10)
    queued = [msg["e"] for _seq, msg, _at in bench.fw._events]
    assert queued == ["slot", "state"]  # the one in flight, then a snapshot to come
    bench.hal.levels[1] = 1 - bench.hal.levels[1]  # changes later than the snapshot...
    bench.advance(25, beat_every=10)
    seen = _ack_everything(bench)
    kinds = [m["e"] for m in seen]
    assert kinds == ["slot", "state"]  # ... are in the snapshot, not repeated after it
    present = bench.hal.levels[1] == 0
    assert seen[1]["state"]["slots"] == [present, False, False, False]
    bench.hal.levels[1] = 1 - bench.hal.levels[1]
    bench.advance(25, beat_every=10)
    after = _ack_everything(bench)
    assert [(m["e"], m["k"], m["p"]) for m in after] == [("slot", 1, not present)]
    assert bench.fw._events == []


def test_a_bad_frame_is_counted_and_re_asked_once_per_50_ms() -> None:
    bench = Bench()
    bench.hello()
    bench.take()
    sent = bench.push(b"garbage\n" * 5)
    assert [m["t"] for m in sent] == ["nak"]
    assert bench.fw.bad_frames == 5
    bench.advance(49)
    assert [m for m in bench.push(b"junk\n") if m["t"] == "nak"] == []
    bench.advance(1)
    assert [m["t"] for m in bench.push(b"junk\n") if m["t"] == "nak"] == ["nak"]


def test_nak_from_the_host_resends_the_last_reply_and_the_event_in_flight() -> None:
    bench = Bench()
    bench.hello()
    reply = bench.fire(2)
    bench.hal.levels[1] = 0
    bench.advance(25)
    event = next(m for m in bench.take() if m["t"] == "ev")
    again = bench.send({"t": "nak"})
    assert [(m["t"], m["s"]) for m in again] == [("r", reply["s"]), ("ev", event["s"])]
    assert bench.hal.pulses_started == [2]


def test_off_switches_every_coil_off() -> None:
    bench = Bench()
    bench.hello()
    bench.fire(1, 100)
    assert bench.request("off")["ok"] is True
    assert bench.hal.energised() == []


def test_lid_changes_are_debounced_and_reported() -> None:
    bench = Bench(settings(lid=6))
    bench.hello()
    bench.take()
    bench.hal.lid_level = 0  # closed
    bench.advance(25)
    events = [m for m in bench.take() if m["t"] == "ev"]
    assert [(m["e"], m["c"]) for m in events] == [("lid", True)]
    assert bench.fw.state(bench.now)["lid"] is True


def test_sensor_polarity_high() -> None:
    bench = Bench(settings(present="high"))
    bench.hal.levels = {1: 1, 2: 0, 3: 0, 4: 0}
    bench.fw = core.Firmware(bench.hal, settings(present="high"), bench.now, 1)
    assert bench.hello()["state"]["slots"] == [True, False, False, False]


def test_ticks_wrap_around() -> None:
    start = core.TICKS_PERIOD - 10
    bench = Bench(start=start)
    bench.hello()
    assert bench.fire(1, 30)["ok"] is True
    bench.advance(29, beat_every=10)
    assert bench.hal.energised() == [1]
    bench.advance(1)
    assert bench.now < start  # wrapped
    assert bench.hal.energised() == []
    bench.advance(250, beat_every=100)
    assert bench.fire(1, 30)["ok"] is True


def test_ticks_helpers() -> None:
    assert core.ticks_diff(5, 3) == 2
    assert core.ticks_diff(3, 5) == -2
    assert core.ticks_diff(2, core.TICKS_PERIOD - 3) == 5
    assert core.ticks_add(core.TICKS_PERIOD - 1, 2) == 1


def test_good_settings_have_no_problems() -> None:
    assert core.check_settings(settings()) == []
    assert core.check_settings(settings(lid=6, led=None, present="high")) == []


def test_bad_settings_are_explained() -> None:
    cases = [
        (None, "no settings"),
        (settings(coils=[10, 11, 12]), "coils must list 4"),
        (settings(sensors=[2, 3, 4, 40]), "not a GP pin"),
        (settings(sensors=[10, 3, 4, 5]), "used twice"),
        (settings(present="sideways"), "present"),
        (settings(limits=None), "limits missing"),
    ]
    for conf, words in cases:
        problems = core.check_settings(conf)
        assert len(problems) >= 1, conf
        assert words in " ".join(problems), (words, problems)
    looser = [
        ("max_ms", 150),
        ("gap_ms", 200),
        ("duty", 0.2),
        ("window_s", 20),
        ("silence_ms", 5000),
        ("max_ms", 0),
        ("duty", True),
        ("window_s", 5),  # a shorter window lets a coil pass 10 % over some 10 s
        ("window_s", float("nan")),
        ("gap_ms", float("nan")),
        ("gap_ms", float("inf")),
        ("gap_ms", 1e6),
        ("duty", float("nan")),
        ("debounce_ms", 0),
        ("debounce_ms", 501),
        ("max_ms", float("inf")),
    ]
    for name, value in looser:
        conf = settings()
        conf["limits"][name] = value
        problems = core.check_settings(conf)
        assert len(problems) == 1, (name, problems)
        assert name in problems[0]


def test_firmware_with_bad_settings_answers_but_never_fires() -> None:
    bench = Bench(settings(coils=[1, 2]))
    reply = bench.hello()
    assert reply["settings"] is None
    assert "coils must list 4" in reply["problems"][0]
    refused = bench.fire(1)
    assert refused["err"] == "settings"
    assert bench.request("clear")["faults"] == {"settings": reply["problems"][0]}
    assert bench.fire(1)["err"] == "settings"
    assert bench.hal.pulses_started == []


def test_a_watchdog_reset_is_latched_until_cleared() -> None:
    bench = Bench(reset_cause="watchdog")
    reply = bench.hello()
    assert "watchdog-reset" in reply["state"]["faults"]
    assert bench.fire(1)["err"] == "fault"
    bench.request("clear")
    assert bench.fire(1)["ok"] is True


def test_led_shows_a_healthy_session() -> None:
    bench = Bench()
    bench.poll()
    assert bench.hal.led is False
    bench.hello()
    assert bench.hal.led is True
    bench.advance(1001)
    assert bench.hal.led is False
