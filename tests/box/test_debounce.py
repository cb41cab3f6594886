"""The debouncer: one report per settled change, on the injected clock, no polling."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.box.debounce import Debouncer
from controller.clock import ManualClock

from .helpers import near


def make(
    clock: ManualClock,
    initial: bool = False,
    debounce_ms: float = 20.0,
    read_level: Callable[[], bool] | None = None,
) -> tuple[Debouncer, list[tuple[bool, float]]]:
    reports: list[tuple[bool, float]] = []
    debouncer = Debouncer(
        clock, lambda level, at: reports.append((level, at)), initial, debounce_ms, read_level
    )
    return debouncer, reports


def test_an_edge_is_reported_once_debounce_ms_after_it() -> None:
    clock = ManualClock(start=100.0)
    debouncer, reports = make(clock)
    debouncer.edge(True)
    clock.advance(0.0199)
    assert reports == []
    assert debouncer.level is False
    clock.advance(0.0002)
    assert reports == [(True, 100.0)]
    assert debouncer.level is True
    clock.advance(1.0)
    assert reports == [(True, 100.0)]


def test_chatter_gives_exactly_one_report_after_the_last_edge() -> None:
    clock = ManualClock(start=0.0)
    debouncer, reports = make(clock)
    for level in (True, False, True, False, True):
        debouncer.edge(level)
        clock.advance(0.002)
    assert reports == []
    clock.advance(0.020)
    assert reports == [(True, near(0.008))]


def test_a_bounce_back_to_the_reported_level_reports_nothing() -> None:
    clock = ManualClock()
    debouncer, reports = make(clock, initial=True)
    debouncer.edge(False)
    clock.advance(0.005)
    debouncer.edge(True)
    clock.advance(1.0)
    assert reports == []
    assert debouncer.level is True


def test_zero_debounce_reports_at_once() -> None:
    clock = ManualClock()
    debouncer, reports = make(clock, debounce_ms=0)
    debouncer.edge(True)
    assert reports == [(True, clock.now())]
    debouncer.edge(True)
    assert len(reports) == 1


def test_negative_debounce_is_refused() -> None:
    with pytest.raises(ValueError, match="debounce_ms must be >= 0"):
        Debouncer(ManualClock(), lambda level, at: None, False, -1)


def test_read_level_wins_over_a_stale_edge_level() -> None:
    clock = ManualClock()
    line = {"level": True}
    debouncer, reports = make(clock, initial=True, read_level=lambda: line["level"])
    debouncer.edge(False)  # the driver said low, but the line is back high when read
    clock.advance(0.05)
    assert reports == []
    line["level"] = False
    debouncer.edge(True)  # a stale edge level; the line reads low
    clock.advance(0.05)
    assert reports == [(False, near(clock.now() - 0.05))]


def test_close_drops_the_pending_report() -> None:
    clock = ManualClock()
    debouncer, reports = make(clock)
    debouncer.edge(True)
    debouncer.close()
    debouncer.edge(False)
    clock.advance(1.0)
    assert reports == []


@given(
    st.lists(
        st.tuples(st.integers(0, 60).filter(lambda ms: ms != 20), st.booleans()),
        min_size=1,
        max_size=40,
    )
)
def test_reports_are_exactly_the_levels_held_for_the_debounce_time(
    edges: list[tuple[int, bool]],
) -> None:
    """Model: a level is reported iff held > 20 ms and not the last report (20 ms: not drawn)."""
    clock = ManualClock(start=0.0)
    debouncer, reports = make(clock)
    expected: list[bool] = []
    last_reported = False
    for i, (_gap_ms, level) in enumerate(edges):
        debouncer.edge(level)
        held_ms = edges[i + 1][0] if i + 1 < len(edges) else 1000
        if held_ms > 20 and level != last_reported:
            expected.append(level)
            last_reported = level
        clock.advance(held_ms / 1000 if i + 1 < len(edges) else 1.0)
    assert [level for level, _ in reports] == expected
    assert debouncer.level == edges[-1][1]
