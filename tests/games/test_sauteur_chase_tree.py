"""Rule A's fast best replies (``chase_tree.ChaseTree``, numpy over a hiding's whole
tree, or its compiled kernels when numba is installed) give exactly what the reference
(``hider.best_reply``, a memoised recursion) gives: the same equilibrium, options and
payoffs, on random positions of a reduced track. Every test runs on both paths."""

from __future__ import annotations

import random

import numpy as np
import pytest

from controller.games.sauteur import DEVIL, SauteurRules, chase_tree, compiled, hider
from controller.games.sauteur.chase_tree import ChaseTree
from controller.games.sauteur.levels import Tables, counter_values
from controller.games.sauteur.rules import ADVANCE, IN_PLAY, MAX_NUMBERS, POP
from controller.games.sauteur.solve_a import POINTS_UTILITY, ChaseHiding, ChaseSolver, utility

RULES = SauteurRules()
TRACK = 24
OPTIONS = {"rule": "A", "track_length": TRACK, "figures": {"a": 2, "b": 4, "c": 6}}


@pytest.fixture(autouse=True, params=["numpy", "compiled"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The tree's numpy code, or its compiled kernels (numba: the ``fast`` extra, in the
    dev tools)."""
    if request.param == "numpy":
        monkeypatch.setattr(compiled, "kernels", lambda: None)
    else:
        pytest.importorskip("numba")
        assert compiled.kernels() is not None
    return str(request.param)


@pytest.fixture(scope="module")
def solver() -> ChaseSolver:
    return ChaseSolver(RULES.setup(OPTIONS).config)


def random_starts(rng: random.Random, count: int) -> list[tuple[int, tuple[tuple[int, ...], int]]]:
    """(devil square, (figures in play, arrived)) for ``count`` random hiding starts."""
    starts = []
    for _ in range(count):
        d = rng.randrange(0, TRACK - 6)
        k = rng.randint(1, 3)
        figs = tuple(sorted(rng.randrange(d + 1, TRACK) for _ in range(k)))
        starts.append((d, (figs, rng.randint(0, 3 - k))))
    return starts


def random_y(rng: random.Random) -> hider.Vector:
    raw = [rng.random() for _ in range(4)]
    raw[rng.randrange(4)] = 0.0  # a slot never used: the posterior's edge case
    total = sum(raw)
    return (raw[0] / total, raw[1] / total, raw[2] / total, raw[3] / total)


@pytest.mark.parametrize("goal", [utility(2), utility(0), (0.0, 1.0, 2.0, 4.0)])
def test_the_fast_hiding_equilibrium_is_the_references(
    solver: ChaseSolver, goal, path: str
) -> None:
    values = solver.values(goal)
    rng = random.Random(21)
    mixed = 0
    for d, start in random_starts(rng, 8):
        reference = hider.solve_hiding(ChaseHiding(values, d), start)
        tree = ChaseTree(values, d, start)
        fast = hider.solve_hiding(ChaseHiding(values, d), start, replier=tree.reply)
        assert fast == reference  # value, placement, plans, weights, payoffs: bit for bit
        whole = tree.equilibrium()  # the compiled double oracle, None on numpy's path
        assert whole == (reference if path == "compiled" else None)
        mixed += len(reference.plans) >= 2
    assert mixed >= 3  # real mixtures among them, not only decided positions


def test_the_trees_options_everywhere_are_the_references(solver: ChaseSolver) -> None:
    values = solver.values(utility(2))
    rng = random.Random(7)
    compared = 0
    for d, start in random_starts(rng, 4):
        tree = ChaseTree(values, d, start)
        game = hider.Memo(ChaseHiding(values, d))
        for _ in range(3):
            y = random_y(rng)
            vector, options = hider.best_reply(game, y, start)
            assert tree.reply(y) == vector
            assert tree.options(y, 0, 0)[1] == options
            for mask, group in tree.groups.items():
                live = [r for r in range(len(group.ids)) if not group.terminal[r]]
                for row in rng.sample(live, min(3, len(live))):
                    inner = (tuple(int(x) for x in group.figs[row] if x < TRACK),)
                    inner += (int(group.arrived[row]),)
                    assert tree.row(mask, inner) == row
                    vector, options = hider.best_reply(game, y, inner, mask)
                    assert tree.node(y, mask, row) == vector
                    assert tree.options(y, mask, row)[1] == options
                    compared += 1
    assert compared > 100


def test_a_rule_a_poppers_options_in_play_are_the_references() -> None:
    """Through :func:`levels.counter_values` in played games: every decision's options,
    mid-hiding and when a figure is to move, found in the tree and equal to the reference."""
    tables = Tables()
    rng = random.Random(5)
    state = RULES.setup({**OPTIONS, "first_hider": "p1"})
    decisions = 0
    while state.phase != "over" and decisions < 60:
        if state.phase in (POP, ADVANCE):
            y = random_y(rng)
            fast = counter_values(tables, state, y)
            assert fast == reference_values(tables, state, y)
            decisions += 1
            state = RULES.apply(state, rng.choice(RULES.legal_actions(state)))
        elif state.phase == "face":
            devil = rng.random() < 0.15
            face = DEVIL if devil else rng.choice(state.config.number_faces)
            state = RULES.apply(state, {"type": "face", "face": face})
        else:
            state = RULES.apply(state, {"type": "hidden"})
    assert decisions >= 30


def reference_values(tables: Tables, state, y: hider.Vector) -> dict[str, float]:
    """The options' values by ``hider.best_reply`` alone (no tree)."""
    game, _, _ = tables.hiding_game(state)
    mask = sum(1 << (key - 1) for key in state.popped)
    figs = tuple(
        sorted(x for x, m in zip(state.figures, state.status, strict=True) if m == IN_PLAY)
    )
    arrived = state.status.count("arrived")
    if state.phase == POP:
        assert in_tree(tables, state, mask, (figs, arrived))
        _, options = hider.best_reply(game, y, (figs, arrived), mask)
        return {name: hider.value(y, vector, mask) for name, vector in options.items()}
    out = {}
    for name, x, mark in zip(state.config.figure_names, state.figures, state.status, strict=True):
        if mark != IN_PLAY:
            continue
        rest = list(figs)
        rest.remove(x)
        target = x + state.pending
        moved = (
            (tuple(rest), arrived + 1)
            if target >= TRACK
            else (tuple(sorted((*rest, target))), arrived)
        )
        end = game.terminal(moved)
        if end is None:
            assert in_tree(tables, state, mask, moved)
            end = hider.value(y, hider.best_reply(game, y, moved, mask)[0], mask)
        out[f"advance {name}"] = end
    return out


def in_tree(tables: Tables, state, mask: int, inner) -> bool:
    """Whether the tree holds the position (after a third number it holds none: stop is
    the only option there, and ``counter_values`` asks the reference)."""
    found = tables.chase_tree(state).row(mask, inner) is not None
    return found != (bin(mask).count("1") == MAX_NUMBERS)


def test_the_trees_posteriors_are_the_references() -> None:
    """The tree's (16, 4) posterior array holds ``hider.posteriors``' numbers, also when
    the placement leaves nothing on the slots not popped."""
    rng = random.Random(3)
    placements = [random_y(rng) for _ in range(30)]
    placements += [(1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.5, 0.5), hider.UNIFORM]
    for y in placements:
        assert chase_tree.posteriors(y).tolist() == [list(w) for w in hider.posteriors(y)]


def test_the_stop_values_are_float32_numbers(solver: ChaseSolver) -> None:
    """Why the tree's last pops take the reference's figure (``ChaseTree._last_pops``):
    every stop value is a float32 number, the table's or a goal's."""
    for goal in (utility(2), utility(0), POINTS_UTILITY):
        values = solver.values(goal)
        assert values.tables[0].dtype == np.float32
        assert all(float(np.float32(g)) == g for g in values.goal)


@pytest.mark.parametrize(
    "d, start",
    [
        (3, ((-14, 12), 1)),
        (3, ((3, 12), 0)),
        (3, ((5, TRACK), 0)),
        (0, ((5,), 3)),
        (0, ((9, 3, 6), 0)),  # not sorted
        (0, ((4, 7, 9), -1)),  # fewer than no figures home
        (0, ((), 2)),  # no figure in play: the round is over, no hiding
    ],
)
def test_a_start_that_is_no_position_is_refused(solver: ChaseSolver, d, start) -> None:
    """A figure off the track (behind the devil, at or past the end), too many figures,
    figures out of order, a negative count home or no figure at all: a clear error, not a
    tree of numbers read from elsewhere in the table (which the compiled trees would keep
    in the table's memo for every later tree: review of session 23)."""
    with pytest.raises(ValueError, match="no such rule-A hiding start"):
        ChaseTree(solver.values(utility(2)), d, start)
