"""CoilGuard: pulse cap, spacing, duty, one coil at a time; a refusal books nothing."""

from __future__ import annotations

import math

import pytest

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
    with pytest.raises(LimitRefused, match=r"outside \(0, 100\] ms"):
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
