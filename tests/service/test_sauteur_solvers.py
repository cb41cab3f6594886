"""The computer's tables solved on threads: stopped with the service, and never a wait.

Issue 21: on a circuit other than the default one, the equilibrium levels solve their
tables first (minutes on a long circuit). The computer plays the level below meanwhile,
the referee is told, and the threads end when the service stops.
"""

from __future__ import annotations

import threading

import pytest

from controller import sauteur_memory
from controller.games.sauteur import SauteurRules
from controller.games.sauteur.cancel import Cancelled
from controller.games.sauteur.levels import FALLBACK, Tables
from controller.games.sauteur.solve_b import solve_equilibrium
from controller.sentences import Said
from controller.service import Service
from controller.solver_cache import Solvers
from controller.translation import sentence

from .conftest import make_config, wait_for

SOLVER_THREADS = ("solver", "hiding")


def _solver_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name in SOLVER_THREADS]


def _service(tmp_path) -> Service:
    svc = Service(
        make_config(tmp_path, "simulated"), think_s=0.01, face_delay_s=0.01, hide_delay_s=0.01
    )
    svc.start()
    return svc


def _made(params: dict[str, object]) -> dict[str, object]:
    """A notice's params as the page gets them, a sentence among them made again."""
    return {
        k: Said(v["template"], **v["params"]) if isinstance(v, dict) else v
        for k, v in params.items()
    }


def _notices(svc: Service) -> list[str]:
    return [entry["template"] for entry in svc.box_status()["notices"]]


def test_stopping_the_service_stops_the_solves_it_started(tmp_path):
    before = set(_solver_threads())  # (none, unless another test leaked one)
    svc = _service(tmp_path)
    try:
        # 30 squares: not the shipped circuit, its equilibrium table takes minutes.
        gid = svc.new_game("sauteur", {"rule": "B", "circuit_length": 30, "first_hider": "p1"})
        svc.box_play.set_computer(gid, "p2", True, "optimal")
        running = wait_for(
            lambda: set(_solver_threads()) - before, timeout=10, what="a solver thread"
        )
    finally:
        svc.stop()
    assert [t.name for t in running if t.is_alive()] == []
    assert set(_solver_threads()) - before == set()
    # Nothing half solved was cached.
    assert not list((svc.config.data_dir / "solver").glob("race-equilibrium-*.bin"))


def test_a_long_solve_tells_its_progress_by_tenths():
    heard: list[int] = []
    solve_equilibrium(4, [1, 2, 3, 4, 5, 6], progress=heard.append)  # 10 turn-start pairs
    assert heard == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]


def test_a_cancelled_solve_raises_and_a_closed_solvers_starts_nothing(tmp_path):
    flag = threading.Event()
    flag.set()
    with pytest.raises(Cancelled):
        solve_equilibrium(6, [1, 2, 3, 4, 5, 6], cancel=flag)
    rule_a = SauteurRules().setup({"rule": "A", "track_length": 20}).config
    with pytest.raises(Cancelled):
        Tables(cancel=flag).chase(rule_a).prepare()
    before = set(_solver_threads())
    solvers = Solvers(tmp_path)
    solvers.close()
    state = SauteurRules().setup({"rule": "B", "circuit_length": 8})
    assert solvers.when_ready(state, lambda: None) is False
    assert set(_solver_threads()) - before == set()


def test_the_computer_moves_at_once_while_its_tables_solve_then_switches(tmp_path, monkeypatch):
    gate = threading.Event()
    warm = Solvers.warm

    def slow_warm(self, state):  # a long circuit's solve, held until the test lets go
        gate.wait(20)
        warm(self, state)

    played: list[str] = []
    ready_after: list[bool] = []
    action = sauteur_memory.computer_action

    def spy(journal, game_id, level, state, tables, rng):
        played.append(level)
        if len(played) == 1:  # the first move: let the solve end before the next one
            solvers = svc.box_play.solvers
            assert not solvers.is_ready(state)
            gate.set()
            ready_after.append(bool(wait_for(lambda: solvers.is_ready(state), timeout=20)))
        return action(journal, game_id, level, state, tables, rng)

    monkeypatch.setattr(Solvers, "warm", slow_warm)
    monkeypatch.setattr(sauteur_memory, "computer_action", spy)
    svc = _service(tmp_path)
    try:
        gid = svc.new_game("sauteur", {"rule": "B", "circuit_length": 8, "first_hider": "p1"})
        svc.box_play.set_computer(gid, "p1", True, "optimal")  # pops if a devil ends p2's turn
        svc.box_play.set_computer(gid, "p2", True, "optimal")
        table = svc.table(gid)
        wait_for(lambda: len(played) >= 2 or table.finished, timeout=20, what="two moves")
        # The tables were not solved, yet the computer played: the level below, the
        # referee told; its next move, once they were, at its own level.
        assert played[:2] == [FALLBACK, "optimal"]
        assert ready_after == [True]
        notices = _notices(svc)
        assert any("solves its tables" in text for text in notices)
        # the level it plays at meanwhile, in the page's words (the walkthrough read
        # "auf Stufe heuristic", the level's id)
        told = next(n for n in svc.box_status()["notices"] if "solves" in n["template"])
        german = sentence("de", told["template"], **_made(told["params"]))
        assert "schlau" in german and "heuristic" not in german, german
        wait_for(lambda: any("% solved" in t for t in _notices(svc)), what="the solve's progress")
        wait_for(
            lambda: any("tables for this game are solved" in t for t in _notices(svc)),
            what="the referee told the tables are ready",
        )
    finally:
        gate.set()
        svc.stop()
