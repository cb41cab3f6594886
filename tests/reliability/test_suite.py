"""The short reliability suite (``diablotin reliability --short``), part by part: real
``diablotin serve`` processes killed with SIGKILL, live streams under load, box faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import reliability as rel


def test_kill_9_loses_no_acknowledged_entry(tmp_path: Path) -> None:
    # Seed 4 kills its tail-tile games mid-game (entries 49 of 68 and 27 of 66); a kill on a
    # game's last entry (before its finished mark) is reproduced in test_checks.py.
    lines: list[str] = []
    results = rel.run_crash(rel.SHORT.games, seed=4, workdir=tmp_path, log=lines.append)
    assert [r.kind for r in results] == ["sauteur", "teufel", "tails"] * 2
    assert [r.problems for r in results] == [[]] * len(results), "\n".join(lines)
    for result in results:
        assert result.journaled >= result.acked
        assert result.journaled <= result.acked + 1 or result.kind == "sauteur"
        assert 0 < result.restart_s < 30
    assert sum(r.acked for r in results if r.kind != "sauteur") > 20  # the kills were mid-game
    report = rel.crash_report(results)
    assert report[0] == "kill -9: 6/6 games with no acknowledged action lost"


def test_live_clients_get_every_event_in_order(tmp_path: Path) -> None:
    plan = rel.SHORT
    run = rel.run_live(plan.clients, plan.rate, plan.duration_s, seed=1, workdir=tmp_path)
    assert run.problems == []
    assert run.actions == run.accepted == plan.rate * plan.duration_s
    assert run.complete_clients == plan.clients
    assert (run.first_version, run.last_version) == (1, run.actions)
    assert len(run.latencies_ms) == plan.clients * run.actions
    assert len(run.rss_mb) >= plan.duration_s  # sampled twice a second
    assert run.rss_mb[-1] - run.rss_mb[0] <= rel.RSS_GROWTH_LIMIT_MB


@pytest.fixture(scope="module")
def fault_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], rel.FaultCase]:
    workdir = tmp_path_factory.mktemp("faults")
    cases = rel.run_faults(rel.SHORT.fault_rounds, seed=1, workdir=workdir, log=lambda _: None)
    return {(case.backend, case.name): case for case in cases}


def test_box_faults_neither_lose_nor_invent_a_pop(fault_cases) -> None:
    expected = [(backend, name) for backend, cases in rel.FAULTS.items() for name, _ in cases]
    assert list(fault_cases) == expected
    failed = {key: case.problems for key, case in fault_cases.items()}
    assert failed == {key: [] for key in failed}
    for key, case in fault_cases.items():
        assert case.pops >= 1 and case.seen, key


def test_two_dice_out_at_once_are_both_journaled(fault_cases) -> None:
    # A second die out before the first one's face is in (a key pressed by hand, or two dice
    # out while the Pico's link was down) is journaled right after, in order.
    two = [("simulated", "two keys at once"), ("virtual", "2 dice unseen")]
    assert {key: fault_cases[key].problems for key in two} == {key: [] for key in two}
