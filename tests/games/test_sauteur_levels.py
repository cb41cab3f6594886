"""Levels in the simulator and the CLI: the JSON contract, hiders, optimal beats the rest."""

from __future__ import annotations

import json
import math

import pytest

from controller.cli import main as cli_main
from controller.games.sauteur import SauteurRules
from controller.games.sauteur.levels import LEVELS, Tables, counter_action, level_name
from controller.sim import HIDERS, STRATEGIES, report_json, simulate

RULES = SauteurRules()


def z_score(wins: float, games: int) -> float:
    """Standard deviations of a score (wins, draws ½) above an even split."""
    return (wins - games / 2) / math.sqrt(games / 4)


def test_cli_prints_the_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sim", "sauteur", "--rule", "B", "--games", "40", "--seed", "3"]
    argv += ["--p1", "optimal", "--p2", "random", "--hider", "devil-on-2", "--json"]
    assert cli_main([*argv, "--workers", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"games", "wins", "draws", "mean_scores"}
    assert out["games"] == 40 and set(out["wins"]) == {"p1", "p2"}
    assert out["wins"]["p1"] + out["wins"]["p2"] + out["draws"] == 40
    assert set(out["mean_scores"]) == {"p1", "p2"}


def test_cli_choices_are_the_simulators(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import build_parser
    from controller.sim_tails import ADVISORS

    sim = build_parser()._subparsers._group_actions[0].choices["sim"]  # type: ignore[union-attr]
    options = {action.dest: action for action in sim._actions}
    assert set(options["hider"].choices) == set(HIDERS)
    assert {"uniform", "equilibrium", "devil-on-1", "devil-on-4"} <= set(HIDERS)
    assert set(LEVELS) | {"computer"} <= set(STRATEGIES)
    # The seats' levels depend on the game: each game refuses the other's names.
    assert cli_main(["sim", "sauteur", "--games", "1", "--p1", "greedy"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in STRATEGIES), err
    assert cli_main(["sim", "tails", "--games", "1", "--p2", "optimal"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in ADVISORS), err


def test_cli_sim_tails_prints_the_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sim", "tails", "--games", "3", "--seed", "4", "--rollouts", "1", "--json"]
    assert cli_main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"games", "wins", "draws", "mean_scores", "seconds_per_move"}
    assert out["wins"]["p1"] + out["wins"]["p2"] + out["draws"] == 3
    assert out["mean_scores"]["p1"] == -out["mean_scores"]["p2"]  # one side's margin
    assert cli_main([*argv[:-1], "--rollouts", "0"]) == 2


def test_levels_and_the_alias() -> None:
    assert level_name("computer") == "heuristic"
    with pytest.raises(ValueError, match="unknown level"):
        level_name("grandmaster")


def test_optimal_beats_random_and_heuristic_in_rule_b() -> None:
    # Seats swapped; the first hider drawn per game. Optimal vs random is no contest.
    crushed = simulate("B", 200, 1, {"p1": "optimal", "p2": "random"})
    assert z_score(crushed.wins["p1"], 200) > 6
    # Optimal vs heuristic: 55.7 % over 40,000 games (docs/strategy.md); here 1,200.
    a = simulate("B", 600, 7, {"p1": "optimal", "p2": "heuristic"})
    b = simulate("B", 600, 8, {"p1": "heuristic", "p2": "optimal"})
    optimal = a.wins["p1"] + b.wins["p2"]
    assert z_score(optimal, 1200) > 2, optimal


def test_a_hider_who_always_uses_key_1_beats_the_heuristic_not_the_counter() -> None:
    # The heuristic always pops key 1 first: the devil-on-1 hider catches it every time.
    options = {"first_hider": "p2"}
    heuristic = simulate("A", 30, 2, {"p1": "heuristic", "p2": "heuristic"}, "devil-on-1", options)
    assert heuristic.mean_points["p1"] == 0.0
    state = RULES.apply(RULES.setup({"rule": "B"}), {"type": "hidden"})
    assert counter_action(Tables(), state)["type"] == "pop"


def test_the_equilibrium_hider_plays_whole_matches_fairly_by_seat() -> None:
    options = {"circuit_length": 12}
    uniform = simulate("B", 400, 5, {"p1": "optimal", "p2": "optimal"}, "uniform", options)
    hidden_well = simulate("B", 400, 5, {"p1": "optimal", "p2": "optimal"}, "equilibrium", options)
    assert sum(report_json(hidden_well)["wins"].values()) == 400
    # Same seed, same poppers: only the hiding differs. Both stay a fair 50/50 by seat.
    assert abs(z_score(uniform.wins["p1"], 400)) < 4
    assert abs(z_score(hidden_well.wins["p1"], 400)) < 4


def test_report_json_is_the_contract() -> None:
    report = simulate("A", 20, 4, {"p1": "random", "p2": "heuristic"}, "devil-on-3")
    out = report_json(report)
    assert out["wins"]["p1"] + out["wins"]["p2"] + out["draws"] == 20
    assert out["mean_scores"]["p1"] == pytest.approx(report.mean_points["p1"], abs=1e-4)


SMALL_A = {"track_length": 16, "figures": {"blue": 2, "orange": 4, "green": 6}}


def test_rule_a_equilibrium_and_counter_play_whole_matches_on_a_small_track() -> None:
    tiny = {"track_length": 10, "figures": {"blue": 2, "orange": 3, "green": 4}}
    report = simulate("A", 2, 1, {"p1": "counter", "p2": "optimal"}, "equilibrium", tiny)
    assert sum(report_json(report)["wins"].values()) + report.wins["draw"] == 2


def test_mid_hiding_the_hider_advice_is_that_of_the_hidings_start() -> None:
    tables = Tables()
    state = RULES.apply(RULES.setup({"rule": "A", **SMALL_A}), {"type": "hidden"})
    before = tables.hiding_game(state)[2]
    state = RULES.apply(state, {"type": "pop", "key": 2, "by": state.popper})
    state = RULES.apply(state, {"type": "face", "face": 3})
    state = RULES.apply(state, {"type": "advance", "figure": "orange", "by": state.popper})
    assert state.phase == "pop" and state.figures[1] == 10
    assert tables.hiding_game(state)[2] == before
    assert tables.placement(state) == tables.placement(
        RULES.apply(RULES.setup({"rule": "A", **SMALL_A}), {"type": "hidden"})
    )
