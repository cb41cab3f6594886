"""The simulator: the computer popper against a random one, reports, the CLI entry."""

from __future__ import annotations

import math

import pytest

from controller.games.base import Refused
from controller.sim import SimReport, format_report, main, simulate


def sign_test_z(wins: int, losses: int) -> float:
    """How many standard deviations ``wins`` is above half of the decided games."""
    decided = wins + losses
    return (wins - losses) / math.sqrt(decided)


@pytest.mark.parametrize(("rule", "games"), [("A", 600), ("B", 1500)])
def test_computer_beats_a_random_popper(rule: str, games: int) -> None:
    report = simulate(rule, games, seed=11, popper_strategy={"p1": "computer", "p2": "random"})
    computer, random_ = report.wins["p1"], report.wins["p2"]
    # More than 6 standard deviations from an even split: not luck.
    assert sign_test_z(computer, random_) > 6, format_report(report)
    assert report.strategy_win_rate["computer"] > report.strategy_win_rate["random"] + 0.25
    swapped = simulate(rule, games, seed=12, popper_strategy={"p1": "random", "p2": "computer"})
    assert sign_test_z(swapped.wins["p2"], swapped.wins["p1"]) > 6, format_report(swapped)


def test_computer_scores_more_points_per_round_in_rule_a() -> None:
    report = simulate("A", 600, seed=5, popper_strategy={"p1": "computer", "p2": "random"})
    assert report.mean_points["p1"] > report.mean_points["p2"] + 2.5, format_report(report)


def test_mirror_matches_are_even() -> None:
    report = simulate("B", 2000, seed=3, popper_strategy="computer")
    assert abs(sign_test_z(report.wins["p1"], report.wins["p2"])) < 4, format_report(report)
    assert report.strategy_win_rate == {"computer": pytest.approx(0.5, abs=0.05)}


def test_report_adds_up_and_is_reproducible() -> None:
    report = simulate("A", 300, seed=9, popper_strategy={"p1": "computer", "p2": "random"})
    assert isinstance(report, SimReport)
    assert sum(report.wins.values()) == 300 and report.games == 300
    assert report.mean_rounds == 2.0
    assert report.mean_actions >= 3 * report.mean_hidings > 0  # hidden, pop, face at least
    assert report.games_per_s > 0
    for player in ("p1", "p2"):
        assert report.win_rate(player) == report.wins[player] / 300
    again = simulate("A", 300, seed=9, popper_strategy={"p1": "computer", "p2": "random"})
    assert (again.wins, again.mean_points, again.mean_actions) == (
        report.wins,
        report.mean_points,
        report.mean_actions,
    )
    other = simulate("A", 300, seed=10, popper_strategy={"p1": "computer", "p2": "random"})
    assert (other.wins, other.mean_actions) != (report.wins, report.mean_actions)


def test_a_predictable_hider_is_beaten_by_the_key_1_popper() -> None:
    # The computer pops key 1 first; a hider who always puts the devil under key 4
    # never catches anything, so every round is worth 10 and every match a draw.
    report = simulate("A", 50, seed=1, popper_strategy="computer", hider="devil-on-4")
    assert report.wins == {"p1": 0, "p2": 0, "draw": 50}
    assert report.mean_points == {"p1": 10.0, "p2": 10.0}


def test_options_reach_the_engine() -> None:
    report = simulate(
        "B", 200, seed=2, popper_strategy="random", options={"rounds": 3, "circuit_length": 12}
    )
    assert report.mean_rounds == 3.0
    assert sum(report.mean_points.values()) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"games": 0}, "games"),
        ({"popper_strategy": "genius"}, "unknown strategy"),
        ({"popper_strategy": {"p1": "random"}}, "p1 and p2"),
        ({"hider": "sneaky"}, "unknown hider"),
        ({"options": {"rounds": 3}}, "rounds"),
    ],
)
def test_bad_simulation_requests(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"rule": "A", "games": 5, "seed": 1, **kwargs}
    with pytest.raises(ValueError, match=message):
        simulate(**arguments)  # type: ignore[arg-type]
    with pytest.raises(Refused):
        simulate("C", 5, 1)


def test_format_report_and_cli(capsys: pytest.CaptureFixture[str]) -> None:
    report = simulate("B", 40, seed=4, popper_strategy={"p1": "computer", "p2": "random"})
    text = format_report(report)
    assert f"{report.wins['p1']:>8}" in text.splitlines()[2]
    assert "games/s" in text and "rule B" in text
    assert main(["--rule", "A", "--games", "20", "--seed", "3", "--p2", "computer"]) == 0
    printed = capsys.readouterr().out
    assert "rule A: 20 games, seed 3" in printed and "computer" in printed
    with pytest.raises(SystemExit):
        main(["--rule", "A", "--games", "0"])


def test_simulate_parallel_splits_and_merges_exactly() -> None:
    from controller.sim import simulate, simulate_parallel

    two = simulate_parallel("A", 201, 7, {"p1": "computer", "p2": "random"}, workers=2)
    again = simulate_parallel("A", 201, 7, {"p1": "computer", "p2": "random"}, workers=2)
    parts = [
        simulate("A", n, 7000 + i, {"p1": "computer", "p2": "random"})
        for i, n in enumerate((101, 100))
    ]
    assert (two.games, two.workers) == (201, 2)
    assert (
        two.wins
        == again.wins
        == {key: parts[0].wins[key] + parts[1].wins[key] for key in ("p1", "p2", "draw")}
    )
    assert sum(two.wins.values()) == 201
    expected = (parts[0].mean_actions * 101 + parts[1].mean_actions * 100) / 201
    assert abs(two.mean_actions - expected) < 1e-9
    one = simulate_parallel("A", 50, 3, "computer", workers=1)
    assert (one.wins, one.workers) == (simulate("A", 50, 3, "computer").wins, 1)
