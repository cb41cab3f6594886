"""Computer seats with a level, and the solved table's cache in the data dir."""

from __future__ import annotations

import hashlib
import json
import logging
from functools import partial

import numpy as np
import pytest

from controller.games.base import Refused
from controller.games.sauteur import SauteurRules
from controller.games.sauteur.chase_table import ChaseMoves, ChaseTables
from controller.games.sauteur.chase_table import solve as solve_chase
from controller.games.sauteur.config import SauteurSection
from controller.games.sauteur.rules import SauteurConfig
from controller.games.sauteur.solve_a import HELD, POINTS_UTILITY, ChaseSolver, Utility, utility
from controller.games.sauteur.solve_b import solve
from controller.solver_cache import (
    cache_path,
    chase_path,
    load_chase_table,
    load_race_table,
    read,
)

from .conftest import wait_for


def test_optimal_computer_plays_a_whole_match_and_caches_its_table(service, tmp_path):
    gid = service.new_game("sauteur", {"rule": "B", "circuit_length": 8})
    assert service.box_play.set_computer(gid, "p1", True, "optimal")["levels"] == {
        "p1": "optimal",
        "p2": "adaptive",  # the default level at the table
    }
    service.box_play.set_computer(gid, "p2", True, "random")
    service.box_play.set_computer(gid, "p2", True, "optimal")  # whoever pops first needs the table
    table = service.table(gid)
    wait_for(lambda: table.finished, timeout=60, what="the match to end")
    assert table.state.winner in ("p1", "p2")
    path = cache_path(service.config.data_dir, 8, [1, 2, 3, 4, 5, 6])
    assert path.exists()
    assert read(path, 8, [1, 2, 3, 4, 5, 6]).values == solve(8, [1, 2, 3, 4, 5, 6]).values
    # The computer played the level below until its tables were solved on the side
    # (tests/service/test_sauteur_solvers.py); they end up cached all the same.
    equilibrium = cache_path(service.config.data_dir, 8, [1, 2, 3, 4, 5, 6], "race-equilibrium")
    wait_for(equilibrium.exists, timeout=60, what="the equilibrium table cached")
    assert service.journal.setting(gid, "computer_levels") == {"p1": "optimal", "p2": "optimal"}


def test_a_bad_level_is_refused_and_changes_nothing(service):
    gid = service.new_game("sauteur", {"rule": "B"})
    with pytest.raises(Refused) as refusal:
        service.box_play.set_computer(gid, "p1", True, "grandmaster")
    assert refusal.value.code == "bad-level"
    assert service.box_play.computer.get(gid, set()) == set()
    assert service.box_play.set_computer(gid, "p1", True, "computer")["levels"]["p1"] == "heuristic"


def test_a_corrupt_cache_is_ignored_with_a_warning_and_rebuilt(tmp_path, caplog):
    faces = [1, 2, 3]
    solved = load_race_table(tmp_path, 8, faces, solve)
    path = cache_path(tmp_path, 8, faces)
    good = path.read_bytes()
    assert good.startswith(b'{"format": "diablotin-race-table/1"')
    for damage in (good[:-8], good[:-8] + b"\0" * 8, b"garbage", b""):
        path.write_bytes(damage)
        with caplog.at_level(logging.WARNING, logger="controller.solver_cache"):
            caplog.clear()
            table = load_race_table(tmp_path, 8, faces, solve)
        assert "ignored" in caplog.text
        assert table.values == solved.values
        assert path.read_bytes() == good  # rebuilt
    # Another circuit is another file: the key is a hash of the options.
    assert cache_path(tmp_path, 9, faces) != path
    assert cache_path(tmp_path, 8, [1, 2, 3, "devil"]) != path


def test_play_in_the_terminal_with_the_optimal_computer(tmp_path, caplog):
    import io

    from controller.config import Config
    from controller.terminal_sauteur import play_sauteur

    config = Config(data_dir=tmp_path)
    config.section("sauteur", SauteurSection).rule = "B"
    # The table in the cache first: while it solves the computer plays heuristic, and a
    # match without delays can end before it is ready (then stopping cancels the solve).
    # The box's test (test_optimal_computer_plays_a_whole_match_...) covers the solving.
    load_race_table(tmp_path, 40, [1, 2, 3, 4, 5, 6], solve)
    cached = cache_path(tmp_path, 40, [1, 2, 3, 4, 5, 6]).read_bytes()
    out = io.StringIO()
    with caplog.at_level(logging.WARNING, logger="controller.service"):
        code = play_sauteur(config, computer=True, level="optimal", out=out, delays=(0, 0, 0))
    assert code == 0
    assert "wins!" in out.getvalue()
    assert "game 1 is on the box now" in caplog.text  # the service's notices are heard
    assert "meanwhile" not in caplog.text  # its own level from the first move
    assert cache_path(tmp_path, 40, [1, 2, 3, 4, 5, 6]).read_bytes() == cached


def _chase_config(track: int = 20) -> SauteurConfig:
    return SauteurRules().setup({"rule": "A", "track_length": track}).config


def test_rule_a_tables_are_cached_per_utility_and_read_back(tmp_path):
    config = _chase_config()
    solves: list[Utility] = []

    def make(goal: Utility) -> ChaseTables:
        solves.append(goal)
        return solve_chase(ChaseMoves(config), goal)

    first = ChaseSolver(config, partial(load_chase_table, tmp_path))
    first.prepare()
    written = sorted((tmp_path / "solver").glob("chase-*.bin"))
    assert len(written) == 6  # round 1, the four targets of round 2, and the points
    for goal in (utility(0), utility(5), POINTS_UTILITY):
        assert chase_path(tmp_path, config, goal) in written
    # A second solver (a restart) reads them all instead of solving.
    again = ChaseSolver(
        config, lambda c, g, solve: load_chase_table(tmp_path, c, g, lambda: make(g))
    )
    again.prepare()
    assert solves == []
    start = tuple(sorted(config.figure_starts))
    for goal in (utility(5), POINTS_UTILITY):
        assert again.values(goal).start(0, start, 0) == first.values(goal).start(0, start, 0)
    # Only the tables used last stay in memory; another is read back, never solved again.
    table_bytes = again.values(utility(0)).size() * 4
    assert again.held() == HELD * table_bytes
    for goal in (utility(0), utility(2), utility(5), utility(10), POINTS_UTILITY):
        again.values(goal)
        assert again.held() <= HELD * table_bytes
    assert solves == []


def test_a_damaged_rule_a_cache_is_ignored_with_a_warning_and_rebuilt(tmp_path, caplog):
    config, goal = _chase_config(), utility(2)
    solved = load_chase_table(tmp_path, config, goal, lambda: solve_chase(ChaseMoves(config), goal))
    path = chase_path(tmp_path, config, goal)
    good = path.read_bytes()
    assert good.startswith(b'{"format": "diablotin-chase-table/1"')
    header, _, payload = good.partition(b"\n")
    out_of_range = np.frombuffer(payload, dtype="<f4").copy()
    out_of_range[7] = 3.0  # a chance above 1, with a checksum that matches it
    forged = json.loads(header) | {"sha256": hashlib.sha256(out_of_range.tobytes()).hexdigest()}
    damages = (
        good[:-8],
        good[:-8] + b"\0" * 8,
        json.dumps(forged).encode() + b"\n" + out_of_range.tobytes(),
        b"garbage",
        b"",
    )
    for damage in damages:
        path.write_bytes(damage)
        with caplog.at_level(logging.WARNING, logger="controller.solver_cache"):
            caplog.clear()
            tables = load_chase_table(
                tmp_path, config, goal, lambda: solve_chase(ChaseMoves(config), goal)
            )
        assert "ignored" in caplog.text
        assert all((tables[mask] == solved[mask]).all() for mask in solved)
        assert path.read_bytes() == good  # rebuilt
    # Another utility or track is another file.
    assert chase_path(tmp_path, config, utility(5)) != path
    assert chase_path(tmp_path, _chase_config(21), goal) != path


def test_a_game_journals_its_seed_and_a_roster_players_read_carries_over(service):
    from controller.sauteur_memory import computer_action

    ana = service.save_player({"name": "Ana", "mark": "#ff0000"})["id"]
    gid = service.new_game(
        "sauteur", {"rule": "B", "first_hider": "p1"}, seats=[{"player": ana}, {"guest": "Bo"}]
    )
    seed = service.journal.setting(gid, "seed")
    assert isinstance(seed, int) and service.journal.setting(gid, "adaptive_belief") == {}
    table = service.table(gid)
    for action in (
        {"type": "hidden"},
        {"type": "pop", "key": 4, "by": "p2"},
        {"type": "face", "face": "devil"},  # Ana hid under key 4
        {"type": "hidden"},
    ):
        table.submit(action)
    # The popper's plan comes from the game's journaled seed: the same every time.
    state = table.state
    moves = {
        str(
            computer_action(
                service.journal, gid, "optimal", state, service.box_play.solvers.tables, None
            )
        )
        for _ in range(3)
    }
    assert len(moves) == 1
    # Ana's next game of rule B starts with what the first one revealed, in her new seat.
    again = service.new_game("sauteur", {"rule": "B"}, seats=[{"guest": "Cy"}, {"player": ana}])
    assert service.journal.setting(again, "adaptive_belief") == {"p2": [1.0, 1.0, 1.0, 2.0]}
    other_rule = service.new_game("sauteur", {"rule": "A"}, seats=[{"player": ana}, None])
    assert service.journal.setting(other_rule, "adaptive_belief") == {}


def test_an_imported_game_gets_its_own_seed_journaled_at_the_computers_first_move(service):
    from controller.sauteur_memory import computer_action

    gid = service.new_game("sauteur", {"rule": "B", "first_hider": "p1"})
    service.table(gid).submit({"type": "hidden"})
    export = service.journal.export(gid)
    assert "seed" not in str(export)  # an export does not carry the seed
    first, second = service.import_game(export), service.import_game(export)
    assert service.journal.setting(first, "seed") is None
    tables = service.box_play.solvers.tables
    state = service.table(first).state
    moves = {
        str(computer_action(service.journal, first, "optimal", state, tables, None))
        for _ in range(3)
    }
    seed = service.journal.setting(first, "seed")
    assert isinstance(seed, int)  # drawn once, journaled: every later move draws from it
    assert len(moves) == 1
    computer_action(service.journal, second, "adaptive", service.table(second).state, tables, None)
    assert service.journal.setting(first, "seed") == seed
    assert isinstance(service.journal.setting(second, "seed"), int)
    assert service.journal.setting(second, "seed") != seed  # 1 in 2**32 to collide
