"""The compiled kernels (``games/sauteur/compiled.py``, numba: the ``fast`` extra) play
exactly as the numpy code does: rule-A matches of ``adaptive`` against ``optimal``, both
hiding at equilibrium, give the same report move for move (docs/strategy.md, *Rule A's
speed*). The kernels' own answers are compared in ``test_sauteur_chase_tree.py``."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from controller import sim
from controller.games.sauteur import compiled
from controller.games.sauteur.chase_table import ChaseIndex
from controller.games.sauteur.levels import Tables

OPTIONS = {"track_length": 30, "figures": {"a": 2, "b": 5, "c": 8}}


def play(monkeypatch: pytest.MonkeyPatch, path: str) -> sim.SimReport:
    """Four matches on a short track, on ``path``, with nothing solved beforehand."""
    monkeypatch.setattr(sim, "TABLES", Tables())
    if path == "numpy":
        monkeypatch.setattr(compiled, "kernels", lambda: None)
    seats = {"p1": "adaptive", "p2": "optimal"}
    return sim.simulate("A", 4, 2107, seats, "equilibrium", options=OPTIONS)


def test_compiled_matches_are_the_numpy_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numba")
    fast = play(monkeypatch, "compiled")
    monkeypatch.undo()
    slow = play(monkeypatch, "numpy")
    assert fast.mean_actions == slow.mean_actions and fast.mean_hidings == slow.mean_hidings
    assert (fast.wins, fast.mean_points) == (slow.wins, slow.mean_points)
    assert fast.mean_actions > 20  # matches were played, not refused at the start


def test_the_tests_check_the_kernels_indices() -> None:
    """tests/conftest.py compiles them with every index checked (numba checks none by
    default); a read past an array's end raises here instead of giving wrong numbers."""
    pytest.importorskip("numba")
    if "DIABLOTIN_COMPILED" in os.environ:
        pytest.skip("DIABLOTIN_COMPILED chooses the kernels")
    found = compiled.kernels()
    assert found is not None and found.mode == "checked"
    pad = np.zeros(0)
    with pytest.raises(IndexError):  # children pointing past the next level's rows
        found.tree_solve(
            np.full(4, 0.25),
            (np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64)),
            (np.zeros(1, bool), np.zeros(1, bool), np.zeros(0, bool)),
            (np.zeros(1), np.zeros(1), pad),
            (np.array([[1, 2, 3, 4]]), np.zeros((1, 3), np.int64), np.zeros((0, 2), np.int64)),
            (np.zeros((1, 4)), np.zeros((1, 3)), np.zeros((0, 2))),
            (
                np.full((1, 4, 6, 3), 99),
                np.zeros((1, 3, 6, 3), np.int64),
                np.zeros((0, 0, 0, 0), np.int64),
            ),
            np.zeros((0, 3, 4)),
            np.full(6, 1 / 6),
            0.1,
        )


def test_the_kernels_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """``DIABLOTIN_COMPILED=0``: the numpy code (for comparisons, or to save numba's
    memory and compile time); with numba missing, the same."""
    assert compiled.compile_kernels("0") is None
    pytest.importorskip("numba")
    assert compiled.compile_kernels("1") is not None
    monkeypatch.setitem(__import__("sys").modules, "numba", None)  # import fails
    assert compiled.compile_kernels("1") is None


def test_the_kernels_number_positions_on_any_legal_track() -> None:
    """The kernels' position numbers are :class:`ChaseIndex`'s on a long track too (up
    to 1,000 squares are legal): numba does not check bounds, so a lookup table sized
    for short tracks read past its end there (a table of 256 binomials, now arithmetic)."""
    track = 1000
    index = ChaseIndex(track)
    rng = random.Random(4)
    for _ in range(300):
        d = rng.randrange(0, track - 4)
        k = rng.randint(0, 3)
        figs = tuple(sorted(rng.randrange(d + 1, track) for _ in range(k)))
        arrived = rng.randint(0, 3 - k)
        padded = (*figs, *(track,) * (3 - k))
        assert compiled._index(index.base, track, d, *padded, arrived) == index.index(
            d, figs, arrived
        )
