"""CoilGuard: pulse cap, spacing, duty, one coil at a time; a refusal books nothing."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.box.base import LimitRefused, Limits
from controller.box.safety import CoilGuard
from controller.clock import ManualClock


def guard(**limits: float) -> tuple[CoilGuard, ManualClock]:
    clock = ManualClock(start=0.0)
    return CoilGuard(Limits(**limits), clock), clock


def test_default_pulse_is_the_configured_length() -> None:
    g, _ = guard(pulse_ms=45)
    assert g.admit(1) == 45.0


@pytest.mark.parametrize("pulse", [100.0001, 101, 1000, 0, -5, math.nan, math.inf])
def test_pulses_outside_the_cap_are_refused_never_clipped(pulse: float) -> None:
    g, _ = guard()
    with pytest.raises(LimitRefused, match=r"more than 0 ms and at most 100 ms"):
        g.admit(1, pulse)
    assert g.admit(1, 100) == 100.0  # nothing was booked by the refusal


@pytest.mark.parametrize("key", [0, 5, -1, True, 1.0, "1", None])
def test_unknown_keys_are_refused(key: object) -> None:
    g, _ = guard()
    with pytest.raises(LimitRefused, match="keys are 1-4"):
        g.admit(key)  # type: ignore[arg-type]
    assert g.admit(1) == 30.0


@pytest.mark.parametrize("pulse", ["30", True, [30]])
def test_a_pulse_length_that_is_not_a_number_is_refused(pulse: object) -> None:
    g, _ = guard()
    with pytest.raises(LimitRefused, match="pulse_ms must be a number of milliseconds"):
        g.admit(1, pulse)  # type: ignore[arg-type]


def test_one_coil_at_a_time() -> None:
    g, clock = guard()
    g.admit(1, 50)
    clock.advance(0.049)
    with pytest.raises(LimitRefused, match="one coil at a time"):
        g.admit(2)
    clock.advance(0.001)
    assert g.admit(2) == 30.0


def test_spacing_counts_from_the_end_of_the_last_pulse() -> None:
    g, clock = guard()
    g.admit(3, 30)
    clock.advance(0.030 + 0.249)
    with pytest.raises(LimitRefused, match=r"key 3 fired 249 ms ago: wait at least 250 ms"):
        g.admit(3)
    assert g.cooldown_s(3) == pytest.approx(0.001)
    assert g.cooldown_s(4) == 0.0
    clock.advance(0.001)
    assert g.cooldown_s(3) == 0.0
    assert g.admit(3) == 30.0


def test_duty_over_the_window_is_refused_then_allowed_once_it_slides() -> None:
    g, clock = guard(pulse_ms=100)  # 10 % of 10 s = 1000 ms: ten 100 ms pulses
    for _ in range(10):
        g.admit(1)
        clock.advance(0.36)
    with pytest.raises(LimitRefused, match=r"key 1 would be on 1100 ms in 10 s: over its 10% duty"):
        g.admit(1)
    assert g.admit(2) == 100.0  # the limit is per coil
    clock.advance(10.1 - clock.now() + 0.001)  # the first pulse (0-0.1 s) has left the window
    assert g.admit(1) == 100.0


def test_a_refused_request_books_nothing() -> None:
    g, clock = guard()
    g.admit(1)
    clock.advance(0.1)
    for _ in range(50):
        with pytest.raises(LimitRefused):
            g.admit(1)
    clock.advance(0.18)  # 30 ms pulse + 250 ms gap since the only real pulse
    assert g.admit(1) == 30.0


# -- measured pulses (GpioBox): what the pin did, not what was asked ---------------------


def test_a_measured_pulse_holds_every_coil_until_its_off_write() -> None:
    g, clock = guard()
    booking = g.admit_measured(1, 30, reserve_ms=100)
    g.switched_on(booking, clock.now())
    clock.advance(0.5)  # far past the requested 30 ms: the pin is still high
    with pytest.raises(LimitRefused, match="one coil at a time"):
        g.admit_measured(2)
    assert g.switched_off(booking, clock.now()) == pytest.approx(500)
    clock.advance(0.249)
    with pytest.raises(LimitRefused, match=r"key 1 fired 249 ms ago"):  # from the real off
        g.admit_measured(1)
    assert g.admit_measured(2).length_ms == 30.0


def test_duty_counts_measured_high_times_and_the_deadline_of_the_next_pulse() -> None:
    g, clock = guard()
    for _ in range(9):  # nine 30 ms requests that each really lasted 100 ms: 900 ms
        booking = g.admit_measured(1, 30, reserve_ms=100)
        g.switched_on(booking, clock.now())
        clock.advance(0.1)
        g.switched_off(booking, clock.now())
        clock.advance(0.26)
    booking = g.admit_measured(1, 30, reserve_ms=100)  # 900 + up to 100 ms: allowed
    g.switched_on(booking, clock.now())
    clock.advance(0.001)
    g.switched_off(booking, clock.now())
    clock.advance(0.26)
    with pytest.raises(LimitRefused, match=r"key 1 would be on 1001 ms in 10 s"):
        g.admit_measured(1, 1, reserve_ms=100)


def test_after_a_pulse_that_outlived_its_deadline_the_next_one_counts_as_long() -> None:
    g, clock = guard()
    booking = g.admit_measured(1, 30, reserve_ms=100)
    g.switched_on(booking, clock.now())
    clock.advance(0.3)  # its timer woke up 270 ms late
    g.switched_off(booking, clock.now())
    clock.advance(0.3)
    assert g.admit_measured(1, 30, reserve_ms=100).length_ms == 30.0  # 300 + up to 300 ms
    g2, clock2 = guard(max_duty=0.05)  # 500 ms per 10 s
    booking = g2.admit_measured(2, 30, reserve_ms=100)
    g2.switched_on(booking, clock2.now())
    clock2.advance(0.3)
    g2.switched_off(booking, clock2.now())
    clock2.advance(0.3)
    with pytest.raises(LimitRefused, match=r"key 2 would be on 600 ms in 10 s"):
        g2.admit_measured(2, 30, reserve_ms=100)  # 300 + 100 would pass; 300 + 300 does not


def test_a_pulse_that_never_switched_on_is_forgotten() -> None:
    g, _ = guard()
    booking = g.admit_measured(3)
    g.cancel(booking)
    assert g.admit_measured(3).length_ms == 30.0


measured_requests = st.lists(
    st.tuples(
        st.integers(1, 4),
        st.one_of(st.none(), st.floats(1.0, 100.0)),
        st.floats(0.0, 0.4),  # wait before the request (s)
        st.floats(0.0, 0.02),  # from the booking to the write that set the pin high (s)
        st.floats(0.0001, 0.1),  # the pin's real high time (s): within the 100 ms deadline
    ),
    max_size=80,
)


@settings(max_examples=200, deadline=None)
@given(measured_requests)
def test_measured_pulses_keep_every_coil_within_the_limits(
    reqs: list[tuple[int, float | None, float, float, float]],
) -> None:
    """However long each pulse really lasts (up to its deadline), and however late it
    starts, the measured high times never break spacing, duty or one-at-a-time."""
    limits = Limits()
    g, clock = guard()
    high: list[tuple[int, float, float]] = []  # key, on, off
    for key, pulse, wait, delay, length in reqs:
        clock.advance(wait)
        try:
            booking = g.admit_measured(key, pulse, reserve_ms=limits.MAX_PULSE_MS)
        except LimitRefused:
            continue
        clock.advance(delay)
        g.switched_on(booking, clock.now())
        on = clock.now()
        with pytest.raises(LimitRefused):  # nothing else while the pin is high
            g.admit_measured(key % 4 + 1)
        clock.advance(length)
        g.switched_off(booking, clock.now())
        high.append((key, on, clock.now()))
    eps = 1e-9
    for (_, _, off), (_, on, _) in itertools.pairwise(high):
        assert on >= off - eps
    for key in range(1, 5):
        mine = [(on, off) for k, on, off in high if k == key]
        for (_, off), (on, _) in itertools.pairwise(mine):
            assert (on - off) * 1000 >= limits.min_gap_ms - 1e-6
        for window_end in [off for _, off in mine]:
            start = window_end - 10.0
            on_s = sum(max(0.0, min(b, window_end) - max(a, start)) for a, b in mine)
            assert on_s <= limits.max_duty * 10.0 + eps
