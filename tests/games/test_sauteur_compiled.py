"""The compiled kernels (``games/sauteur/compiled.py``, numba: the ``fast`` extra) play
exactly as the numpy code does: rule-A matches of ``adaptive`` against ``optimal``, both
hiding at equilibrium, give the same report move for move (docs/strategy.md, *Rule A's
speed*). The kernels' own answers are compared in ``test_sauteur_chase_tree.py``."""

from __future__ import annotations

import random

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


def test_the_kernels_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """``DIABLOTIN_COMPILED=0``: the numpy code (for comparisons, or to save numba's
    memory and compile time); with numba missing, the same."""
    monkeypatch.setenv("DIABLOTIN_COMPILED", "0")
    assert compiled._compile() is None
    monkeypatch.setenv("DIABLOTIN_COMPILED", "1")
    monkeypatch.setitem(__import__("sys").modules, "numba", None)  # import fails
    assert compiled._compile() is None


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
