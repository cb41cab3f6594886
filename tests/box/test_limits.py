"""One limits type: every bound of hardware/README.md (Safety), the same on the host and in
the firmware.

(a) for any limits the config accepts, no request sequence gets a coil past 10 % duty
over any 10 s window or a pulse past 100 ms; (b) the host's ``Limits`` and the firmware's
own ``check_settings`` accept exactly the same limits.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.box.base import LimitRefused, Limits, LimitsError
from controller.box.pins import load_pin_map
from controller.box.protocol import SILENCE_S, core, expected_settings
from controller.box.safety import CoilGuard
from controller.clock import ManualClock

PINS = load_pin_map(None, "pico")


def accepted_limits() -> st.SearchStrategy[Limits]:
    """Every set of limits the host accepts (ints and floats, bounds included)."""

    def within(low: float, high: float, open_low: bool = False) -> st.SearchStrategy[float]:
        floats = st.floats(low, high, exclude_min=open_low)
        ints = st.integers(math.floor(low) + (1 if open_low else 0), math.floor(high))
        return st.one_of(floats, ints.map(float), st.sampled_from([high]))

    return st.just(Limits()) | st.builds(
        Limits,
        pulse_ms=within(0, Limits.MAX_PULSE_MS, open_low=True),
        min_gap_ms=within(Limits.MIN_GAP_MS, Limits.MAX_GAP_MS),
        max_duty=st.one_of(st.floats(0, Limits.MAX_DUTY, exclude_min=True), st.just(0.1)),
        debounce_ms=within(Limits.MIN_DEBOUNCE_MS, Limits.MAX_DEBOUNCE_MS),
    )


requests = st.lists(
    st.tuples(
        st.integers(0, 5),  # keys 0 and 5 do not exist
        st.one_of(
            st.none(),
            st.floats(allow_nan=True, allow_infinity=True),
            st.sampled_from([10.0, 30.0, 60.0, 100.0, 150.0]),
        ),
        st.floats(0.0, 0.6),
    ),
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(accepted_limits(), requests)
def test_any_accepted_limits_keep_every_coil_within_hardware_md(
    limits: Limits, reqs: list[tuple[int, float | None, float]]
) -> None:
    clock = ManualClock(start=0.0)
    guard = CoilGuard(limits, clock)
    booked: list[tuple[int, float, float]] = []  # key, start s, end s
    for key, pulse, dt in reqs:
        clock.advance(dt)
        try:
            length = guard.admit(key, pulse)
        except LimitRefused:
            continue
        assert 0 < length <= 100.0
        booked.append((key, clock.now(), clock.now() + length / 1000))
    eps = 1e-9
    for (_, _, end), (_, start, _) in itertools.pairwise(booked):
        assert start >= end - eps  # one coil at a time
    for key in range(1, 5):
        mine = [(s, e) for k, s, e in booked if k == key]
        for (_, end), (start, _) in itertools.pairwise(mine):
            assert (start - end) * 1000 >= max(250.0, limits.min_gap_ms) - 1e-6
        # The on-time in a sliding window peaks when the window ends as a pulse ends.
        for window_end in [e for _, e in mine]:
            window_start = window_end - 10.0
            on = sum(max(0.0, min(e, window_end) - max(s, window_start)) for s, e in mine)
            assert on <= min(0.10, limits.max_duty) * 10.0 + eps


@settings(max_examples=200, deadline=None)
@given(accepted_limits())
def test_every_accepted_limits_pass_the_firmware_check(limits: Limits) -> None:
    assert core.check_settings(expected_settings(PINS, limits)) == []


any_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10, 100_000),
    st.sampled_from([0, 0.0, 0.5, 1, 10, 10.0, 100, 100.5, 250, 249.9, 500, 501, 60000, 60001]),
    st.sampled_from([0.1, 0.10000001, 1e-9, 5, 20, 3600, 1e6, True, "10", None]),
)


def host_accepts(values: dict[str, Any]) -> bool:
    try:
        Limits.from_settings(values)
    except LimitsError:
        return False
    return True


def firmware_accepts(limits: dict[str, Any]) -> bool:
    settings = expected_settings(PINS, Limits())
    settings["limits"] = limits
    return core.check_settings(settings) == []


@settings(max_examples=400, deadline=None)
@given(any_number, any_number, any_number, any_number, any_number)
def test_host_and_firmware_accept_exactly_the_same_limits(
    pulse: Any, gap: Any, window: Any, duty: Any, debounce: Any
) -> None:
    host = {
        "pulse_ms": pulse,
        "min_gap_ms": gap,
        "duty_window_s": window,
        "max_duty": duty,
        "debounce_ms": debounce,
    }
    firmware = {
        "max_ms": pulse,  # the same bound: (0, 100] ms
        "gap_ms": gap,
        "window_s": window,
        "duty": duty,
        "debounce_ms": debounce,
        "silence_ms": int(SILENCE_S * 1000),
    }
    assert host_accepts(host) == firmware_accepts(firmware), (host, firmware)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e6, 3600, 20, 5])
def test_the_duty_window_is_not_a_setting(value: float) -> None:
    with pytest.raises(LimitsError, match="fixed at 10 s") as info:
        Limits.from_settings({"duty_window_s": value})
    assert info.value.key == "duty_window_s"
    assert Limits.from_settings({"duty_window_s": 10}).duty_window_s == 10


def test_limits_cannot_be_changed_after_the_check() -> None:
    limits = Limits()
    with pytest.raises(AttributeError):
        limits.min_gap_ms = math.nan  # type: ignore[misc]
