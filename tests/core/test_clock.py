"""Clocks: the manual one steps exactly; the real one runs timers without polling."""

import threading

from controller.clock import ManualClock, RealClock


def test_manual_clock_runs_due_timers_in_order_at_their_time():
    clock = ManualClock(start=0.0)
    seen = []
    clock.call_later(0.3, lambda: seen.append(("b", clock.now())))
    clock.call_later(0.1, lambda: seen.append(("a", clock.now())))
    cancelled = clock.call_later(0.2, lambda: seen.append(("x", clock.now())))
    cancelled.cancel()
    clock.advance(0.25)
    assert seen == [("a", 0.1)]
    clock.advance(0.05)
    assert seen == [("a", 0.1), ("b", 0.3)]
    assert clock.now() == 0.3


def test_manual_clock_timer_scheduled_by_a_timer_runs_in_the_same_advance():
    clock = ManualClock(start=0.0)
    seen = []
    clock.call_later(0.1, lambda: clock.call_later(0.1, lambda: seen.append(clock.now())))
    clock.advance(1.0)
    assert seen == [0.2]


def test_real_clock_fires_and_survives_a_failing_callback():
    clock = RealClock()
    done = threading.Event()
    clock.call_later(0.01, lambda: 1 / 0)
    clock.call_later(0.02, done.set)
    assert done.wait(2)
    clock.close()
