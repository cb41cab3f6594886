"""Computer seats with a level, and the solved table's cache in the data dir."""

from __future__ import annotations

import logging

import pytest

from controller.games.base import Refused
from controller.games.sauteur.solve_b import solve
from controller.solver_cache import cache_path, load_race_table, read

from .conftest import wait_for


def test_optimal_computer_plays_a_whole_match_and_caches_its_table(service, tmp_path):
    gid = service.new_game("sauteur", {"rule": "B", "circuit_length": 12})
    assert service.box_play.set_computer(gid, "p1", True, "optimal")["levels"] == {
        "p1": "optimal",
        "p2": "heuristic",
    }
    service.box_play.set_computer(gid, "p2", True, "random")
    service.box_play.set_computer(gid, "p2", True, "optimal")  # whoever pops first needs the table
    table = service.table(gid)
    wait_for(lambda: table.finished, timeout=60, what="the match to end")
    assert table.state.winner in ("p1", "p2")
    path = cache_path(service.config.data_dir, 12, [1, 2, 3, 4, 5, 6])
    assert path.exists()
    assert read(path, 12, [1, 2, 3, 4, 5, 6]).values == solve(12, [1, 2, 3, 4, 5, 6]).values
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


def test_play_in_the_terminal_with_the_optimal_computer(tmp_path):
    import io

    from controller.config import Config
    from controller.terminal import play_sauteur

    config = Config(data_dir=tmp_path)
    config.sauteur.rule = "B"
    out = io.StringIO()
    code = play_sauteur(config, computer=True, level="optimal", out=out, delays=(0.0, 0.0, 0.0))
    assert code == 0
    assert "wins!" in out.getvalue()
    assert cache_path(tmp_path, 40, [1, 2, 3, 4, 5, 6]).exists()
