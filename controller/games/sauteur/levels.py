"""The computer's levels, and the solved tables they read.

Levels: ``random`` (a uniformly random legal move), ``heuristic`` (the popper of
:func:`.odds.choose`; ``computer`` is its old name, kept as an alias), ``optimal``
(the popper's equilibrium mixture at every hiding, :func:`equilibrium_action`) and
``adaptive`` (reads the hider, :mod:`.adaptive`). ``oracle`` (sees the hiding) is for
the simulator only. The hider's side: :meth:`Tables.placement` (the equilibrium
placement of :mod:`.hider`) and :func:`counter_action` (the popper's best reply to that
placement).

:class:`Tables` makes each solved table once per configuration. Pure: solving is
in memory; the service passes ``load_race`` to read and write its cache file.
"""

from __future__ import annotations

import random
import sys
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import partial
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from controller.games.base import Refused, Said, words
from controller.games.sauteur import hider
from controller.games.sauteur.cancel import Flag, check
from controller.games.sauteur.odds import choose
from controller.games.sauteur.rules import (
    ADVANCE,
    HIDING,
    IN_PLAY,
    POP,
    SauteurConfig,
    SauteurRules,
    SauteurState,
)
from controller.games.sauteur.solve_a import POINTS_UTILITY, ChaseHiding, ChaseSolver, Load
from controller.games.sauteur.solve_b import (
    RaceHiding,
    RaceTable,
    best_action,
    option_values,
    remaining,
    solve,
    solve_equilibrium,
)

if TYPE_CHECKING:  # numpy comes with rule A's first table, not with the levels
    from controller.games.sauteur.chase_tree import ChaseTree
    from controller.games.sauteur.state import History

LEVELS = ("random", "heuristic", "optimal", "adaptive")
"""The levels offered at the table (``oracle`` is the simulator's measuring stick)."""
DEFAULT_LEVEL = "adaptive"
"""The computer's level at the table when nobody chose one."""
FALLBACK = "heuristic"
"""The level an ``optimal`` or ``adaptive`` computer plays while its tables for a new
circuit are solved on the side (:class:`controller.solver_cache.Solvers`)."""
ALIASES = {"computer": "heuristic"}
"""Old names still accepted (``computer`` was the only level before)."""

RaceKey = tuple[int, tuple[int | str, ...]]
"""What a rule-B table depends on: (circuit length, number faces)."""

_RULES = SauteurRules()


def level_in_words(level: str) -> Said:
    """The level as players read it (``heuristic``: "clever"), made in the reader's
    language; ``KeyError`` for an unknown level."""
    return Said(_IN_WORDS[level])


_IN_WORDS = {
    "random": words("gentle"),
    "heuristic": words("clever"),
    "optimal": words("unbeatable"),
    "adaptive": words("reads the hider"),
}


def level_name(level: str) -> str:
    """The level's own name (aliases resolved); raises ``ValueError`` for an unknown one."""
    name = ALIASES.get(level, level)
    if name not in LEVELS:
        known = ", ".join((*LEVELS, *ALIASES))
        raise ValueError(Said("unknown level {level!r}; known: {known}", level=level, known=known))
    return name


def race_key(config: SauteurConfig) -> RaceKey:
    return config.circuit_length, tuple(config.number_faces)


ChaseKey = tuple[int, int, tuple[int, ...], int, int, tuple[int | str, ...]]
"""What a rule-A table depends on: rounds, track, figure starts, devil start, devil
multiplier, number faces."""
HidingKey = tuple[Hashable, ...]
"""Names one hiding's start (:meth:`Tables.hiding_game`)."""
Plan = dict[tuple[int, Hashable], str]
"""The option a popper's plan takes at each ``(keys popped mask, inner position)``."""


def chase_key(config: SauteurConfig) -> ChaseKey:
    """What a rule-A solver depends on (not who hides first)."""
    return (
        config.rounds,
        config.track_length,
        config.figure_starts,
        config.devil_start,
        config.devil_multiplier,
        tuple(config.number_faces),
    )


class Tables:
    """Solved tables, made on first use and kept.

    ``load_race(circuit, faces, solve)`` and ``load_chase(config, goal, solve)`` may
    provide rule-B and rule-A tables (the service's data-dir cache); by default they are
    solved in memory. Once ``cancel`` is set, every solve still to do raises
    :class:`.cancel.Cancelled` (the service stopping); ``progress(percent)`` hears how far
    a rule-B equilibrium table's solve is (the slow one: minutes).
    """

    def __init__(
        self,
        load_race: Callable[..., RaceTable] | None = None,
        load_chase: Load | None = None,
        cancel: Flag | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self._load_race = load_race
        self._progress = progress
        self._load_chase = load_chase
        self._cancel = cancel
        self._race: dict[RaceKey, RaceTable] = {}
        self._race_equilibrium: dict[RaceKey, RaceTable] = {}
        self._chase: dict[ChaseKey, ChaseSolver] = {}
        self._equilibria: dict[HidingKey, hider.Equilibrium] = {}
        self._lock = threading.Lock()
        self._games: OrderedDict[HidingKey, hider.Memo] = OrderedDict()
        self._trees: OrderedDict[HidingKey, ChaseTree] = OrderedDict()
        self._asked: tuple[SauteurState, tuple[hider.HidingGame, Hashable, HidingKey]] | None
        self._asked = None
        """The last state :meth:`hiding_game` answered, and its answer: one decision
        asks about one state several times."""
        self._plans: OrderedDict[tuple[HidingKey, hider.Vector], tuple[hider.Vector, Plan]] = (
            OrderedDict()
        )

    def race(self, config: SauteurConfig) -> RaceTable:
        key = race_key(config)
        table = self._race.get(key)
        if table is None:
            circuit, faces = key
            made = partial(solve, cancel=self._cancel)
            table = self._load_race(circuit, faces, made) if self._load_race else made(*key)
            self._race[key] = table
        return table

    def race_equilibrium(self, config: SauteurConfig) -> RaceTable:
        """Rule B's ``W`` with both sides at equilibrium in every turn
        (:func:`.solve_b.solve_equilibrium`; the default circuit's ships with the code)."""
        key = race_key(config)
        table = self._race_equilibrium.get(key)
        if table is None:
            circuit, faces = key
            table = shipped_race_equilibrium(circuit, faces)
            if table is None:
                made = partial(solve_equilibrium, cancel=self._cancel, progress=self._progress)
                table = (
                    self._load_race(circuit, faces, made, kind="race-equilibrium")
                    if self._load_race
                    else made(*key)
                )
            self._race_equilibrium[key] = table
        return table

    def chase(self, config: SauteurConfig) -> ChaseSolver:
        key = chase_key(config)
        solver = self._chase.get(key)
        if solver is None:
            solver = self._chase[key] = ChaseSolver(config, self._load_chase, self._cancel)
        return solver

    # -- the hider's equilibrium --------------------------------------------------
    def hiding_game(self, state: SauteurState) -> tuple[hider.HidingGame, Hashable, HidingKey]:
        """(this hiding's game, its start position, a key naming that position).

        In rule A, mid-hiding, the start is rebuilt from this hiding's moves.
        The game is a :class:`.hider.Memo`, kept for the last :data:`GAMES_HELD` hidings
        asked about: the decisions of one hiding share its answers."""
        asked = self._asked
        if asked is not None and asked[0] is state:
            return asked[1]
        config = state.config
        if config.rule == "B":
            a, b = remaining(state)
            key: HidingKey = ("B", race_key(config), a, b)
            start: Hashable = 0
        else:
            solver = self.chase(config)
            goal = solver.goal(state)
            figures, arrived = _hiding_start_figures(state)
            key = ("A", chase_key(config), goal, state.devil, figures, arrived)
            start = (figures, arrived)
        game = self._games.get(key)
        if game is None:
            if config.rule == "B":
                made: hider.HidingGame = RaceHiding(self.race_equilibrium(config), a, b)
            else:
                made = ChaseHiding(solver.values(goal), state.devil)
            game = hider.Memo(made)
        with self._lock:  # the service asks from its worker and its solver threads
            self._games[key] = game
            self._games.move_to_end(key)
            while len(self._games) > GAMES_HELD:
                self._games.popitem(last=False)
        self._asked = (state, (game, start, key))
        return game, start, key

    def chase_tree(self, state: SauteurState) -> ChaseTree:
        """Rule A: this hiding's tree (:class:`.chase_tree.ChaseTree`: best replies by
        numpy), kept for the last :data:`GAMES_HELD` hidings asked about."""
        from controller.games.sauteur.chase_tree import ChaseTree

        game, start, key = self.hiding_game(state)
        tree = self._trees.get(key)
        if tree is None:
            assert isinstance(game, hider.Memo) and isinstance(game.game, ChaseHiding)
            assert isinstance(start, tuple)
            tree = ChaseTree(game.game.values, game.game.d, start)
        with self._lock:
            self._trees[key] = tree
            self._trees.move_to_end(key)
            while len(self._trees) > GAMES_HELD:
                self._trees.popitem(last=False)
        return tree

    def equilibrium(self, state: SauteurState) -> hider.Equilibrium:
        """This hiding solved on both sides (memoised per hiding position; rule A's best
        replies by its tree, :meth:`chase_tree`)."""
        game, start, key = self.hiding_game(state)
        found = self._equilibria.get(key)
        if found is None:
            # Rule B: the mixture's plans were found as best replies; keep their moves, so
            # following one (:meth:`reply`, :func:`reply_action`) costs nothing more.
            rule_b = state.config.rule == "B"
            moves: dict[hider.Vector, Plan] | None = {} if rule_b else None
            tree = None if rule_b else self.chase_tree(state)
            check(self._cancel)
            found = None if tree is None else tree.equilibrium()  # compiled, or None
            if found is None:
                replier = None if tree is None else tree.reply
                found = hider.solve_hiding(
                    game, start, cancel=self._cancel, moves=moves, replier=replier
                )
            for y, payoff in zip(found.plans, found.payoffs, strict=True):
                if moves is not None:
                    self._keep_plan((key, y), (payoff, moves[y]))
            self._equilibria[key] = found
        return found

    def has_equilibrium(self, state: SauteurState) -> bool:
        """Whether this hiding is already solved (:meth:`equilibrium` answers at once)."""
        return self.hiding_game(state)[2] in self._equilibria

    def placement(self, state: SauteurState) -> tuple[hider.Vector, float]:
        """The hider's equilibrium chance for each slot (1-4) at this hiding, and the
        popper's chance to win (B) or match value (A) when both play best."""
        found = self.equilibrium(state)
        return found.y, found.value

    def reply(self, state: SauteurState, y: hider.Vector) -> tuple[hider.Vector, Plan]:
        """The best reply to ``y`` over this whole hiding: (its payoff per devil slot,
        the option it takes at each ``(mask, inner)``). Memoised, at most
        :data:`PLANS_HELD` kept (the least recently used goes first)."""
        if state.config.rule == "A":  # the tree keeps its replies' values
            return self.chase_tree(state).reply(y), {}
        game, start, key = self.hiding_game(state)
        found = self._plans.get((key, y))
        if found is not None:
            self._keep_plan((key, y), found)  # used last: kept longest
        else:
            plan: Plan = {}
            vector, _ = hider.best_reply(game, y, start, plan=plan)
            found = (vector, plan)
            self._keep_plan((key, y), found)
        return found

    def _keep_plan(
        self, name: tuple[HidingKey, hider.Vector], found: tuple[hider.Vector, Plan]
    ) -> None:
        with self._lock:
            self._plans[name] = found
            self._plans.move_to_end(name)
            while len(self._plans) > PLANS_HELD:
                self._plans.popitem(last=False)


GAMES_HELD = 4
"""Hiding games kept with their answers (a rule-A one holds a 14 MB table)."""
PLANS_HELD = 20_000
"""Rule-B plans kept in memory (a few hundred options each)."""


def shipped_race_equilibrium(circuit: int, faces: tuple[int | str, ...]) -> RaceTable | None:
    """The rule-B equilibrium table that ships with the code (40 squares, faces 1-6),
    or ``None`` for other options (solved on first use instead)."""
    if (circuit, faces) != SHIPPED:
        return None
    data = (files(__package__) / "race-equilibrium-40.bin").read_bytes()
    values = array("d")
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return RaceTable(circuit, faces, values)


SHIPPED = (40, (1, 2, 3, 4, 5, 6))


def _hiding_start_figures(state: SauteurState) -> tuple[tuple[int, ...], int]:
    """Rule A: (figures in play, arrived) when this hiding began (numbers undone)."""
    positions = list(state.figures)
    status = list(state.status)
    if state.phase in (POP, ADVANCE) and state.popped:
        names = state.config.figure_names
        link = state.history
        while link is not None:
            entry = link[0]
            if entry[0] != state.round or entry[1] != state.hidings:
                break
            if entry[4] == "move":
                name, squares, position, arrived = entry[5]
                index = names.index(name)
                # A move home keeps the track's end, not where the count would go.
                positions[index] = (
                    _square_before(state, link[1], index) if arrived else (position - squares)
                )
                status[index] = IN_PLAY
            link = link[1]
    figures = tuple(sorted(x for x, mark in zip(positions, status, strict=True) if mark == IN_PLAY))
    return figures, status.count("arrived")


def _square_before(state: SauteurState, link: History, index: int) -> int:
    """Where the figure ``index`` stood after its last move of this round in the history
    ``link`` (newest first), or where the round started it."""
    name = state.config.figure_names[index]
    while link is not None:
        entry = link[0]
        if entry[0] != state.round:
            break
        if entry[4] == "move" and entry[5][0] == name:
            square: int = entry[5][2]
            return square
        link = link[1]
    return state.config.figure_starts[index]


def uniform_action(tables: Tables, state: SauteurState) -> dict[str, Any]:
    """The best reply to a uniform hider (the solved tables; the coach's ranking)."""
    _popper_turn(state)
    if state.config.rule == "B":
        return best_action(tables.race(state.config), state)
    return tables.chase(state.config).best_action(state)


def plan_draw(seed: int, state: SauteurState) -> float:
    """The uniform draw in [0, 1) that picks this hiding's plan: a generator seeded by
    the game's ``seed``, the round and the hiding, so a replay draws the same."""
    return random.Random(f"{seed}/{state.round}/{state.hidings}").random()


def equilibrium_action(tables: Tables, state: SauteurState, seed: int) -> dict[str, Any]:
    """The ``optimal`` popper: at each hiding one plan of the popper's equilibrium
    mixture (:meth:`Tables.equilibrium`), drawn by :func:`plan_draw`, then followed. Its
    expected value per hiding is at least the hiding's game value whatever the hider
    does. Rule B after the box's new hiding (numbers carried): the uniform table."""
    _popper_turn(state)
    if state.carried:
        return uniform_action(tables, state)
    found = tables.equilibrium(state)
    return reply_action(tables, state, found.plan(plan_draw(seed, state)))


def reply_action(tables: Tables, state: SauteurState, y: hider.Vector) -> dict[str, Any]:
    """The move of the popper's best reply to a hider who placed the devil die by ``y``
    (rule B from the memoised whole-turn plan; rule A searched from here)."""
    _popper_turn(state)
    popper = state.popper
    best: str | None = None
    if state.config.rule == "B" and not state.carried:
        mask = 0
        for key in state.popped:
            mask |= 1 << (key - 1)
        best = tables.reply(state, y)[1].get((mask, state.pot))
    if best is None:
        options = counter_values(tables, state, y)
        order = list(options)
        best = max(order, key=lambda name: (options[name], -order.index(name)))
    if best.startswith("advance "):
        return {"type": "advance", "figure": best.split(" ", 1)[1], "by": popper}
    if best == "stop":
        return {"type": "rehide" if state.config.rule == "A" else "stop", "by": popper}
    return {"type": "pop", "key": int(best.split()[1]), "by": popper}


def counter_action(tables: Tables, state: SauteurState) -> dict[str, Any]:
    """The popper's best reply to the hider's equilibrium placement (phase ``pop`` or
    ``advance``)."""
    _popper_turn(state)
    y, _ = tables.placement(state)
    return reply_action(tables, state, y)


def counter_values(tables: Tables, state: SauteurState, y: hider.Vector) -> dict[str, float]:
    """Each option's value now against a hider who placed the devil die by ``y``."""
    game, _, _ = tables.hiding_game(state)
    mask = 0
    for key in state.popped if state.phase != HIDING else ():
        mask |= 1 << (key - 1)
    if state.config.rule == "B":
        inner: Any = state.pot if state.phase == POP else 0
    else:
        figs = tuple(
            sorted(
                x for x, mark in zip(state.figures, state.status, strict=True) if mark == IN_PLAY
            )
        )
        inner = (figs, state.status.count("arrived"))
    tree = tables.chase_tree(state) if state.config.rule == "A" else None
    if state.phase == ADVANCE:
        # The number is in: value each figure's move by the position it leads to.
        figs, arrived = inner
        out = {}
        for name, x, mark in zip(
            state.config.figure_names, state.figures, state.status, strict=True
        ):
            if mark != IN_PLAY:
                continue
            rest = list(figs)
            rest.remove(x)
            target = x + state.pending
            if target >= state.config.track_length:
                moved = (tuple(rest), arrived + 1)
            else:
                moved = (tuple(sorted((*rest, target))), arrived)
            end = game.terminal(moved)
            if end is None:
                row = None if tree is None else tree.row(mask, moved)
                vector = (
                    hider.best_reply(game, y, moved, mask)[0]
                    if tree is None or row is None
                    else tree.node(y, mask, row)
                )
                end = hider.value(y, vector, mask)
            out[f"advance {name}"] = end
        return out
    row = None if tree is None else tree.row(mask, inner)
    if tree is not None and row is not None:
        options = tree.options(y, mask, row)[1]
    else:
        options = hider.best_reply(game, y, inner, mask)[1]
    return {name: hider.value(y, vector, mask) for name, vector in options.items()}


def _popper_turn(state: SauteurState) -> None:
    if state.phase not in (POP, ADVANCE):
        raise Refused(
            "the computer only plays the popper; it is not the popper's turn", "not-popper-turn"
        )


def level_action(
    level: str, state: SauteurState, tables: Tables, rng: random.Random, seed: int = 0
) -> dict[str, Any]:
    """The move of a computer popper of ``level`` (phase ``pop`` or ``advance``) in the
    game whose seed is ``seed``; ``rng`` is the game's generator (``random``, the
    heuristic's ties). ``adaptive`` here plays ``optimal``: its belief lives with the
    caller (:func:`.adaptive.adaptive_action`)."""
    name = level_name(level)
    if name == "heuristic":
        return choose(state, rng)
    if name == "random":
        _popper_turn(state)
        return rng.choice(_RULES.legal_actions(state))
    return equilibrium_action(tables, state, seed)


def coach_popper(tables: Tables, state: SauteurState) -> dict[str, Any]:
    """Each option of the popper now, from the solved tables (uniform hider), best first.

    Rule B: ``{"measure": "win", "options": [{"option": "pop 4", "win": 0.61}, ...]}``.
    Rule A: ``measure`` ``points``: each option's expected round score and ``win``, the
    match's win chance (a draw ½). Empty options when it is not the popper's move."""
    config = state.config
    if state.phase not in (HIDING, POP, ADVANCE):
        return {"measure": "win" if config.rule == "B" else "points", "options": []}
    if config.rule == "B":
        values = option_values(tables.race(config), state)
        rows = [{"option": name, "win": round(value, 4)} for name, value in values.items()]
        # why the ignore below: "win" is a float in every row
        rows.sort(key=lambda row: -float(row["win"]))  # type: ignore[arg-type]
        return {"measure": "win", "options": rows}
    solver = tables.chase(config)
    wins = solver.option_values(state)
    points = solver.option_values(state, POINTS_UTILITY)
    rows = [
        {"option": name, "points": round(points[name], 3), "win": round(wins[name], 4)}
        for name in wins
    ]
    # why the ignore below: "win" is a float in every row
    rows.sort(key=lambda row: -float(row["win"]))  # type: ignore[arg-type]
    return {"measure": "points", "options": rows}


def coach_hider(tables: Tables, state: SauteurState) -> dict[str, Any]:
    """The hider's equilibrium placement for this hiding (the referee's eyes only):
    ``{"placement": {"1": chance, ...}, "popper_chance": value with both playing
    best, "popper_chance_uniform": the same against a uniform hider}``."""
    if state.phase not in (HIDING, POP, ADVANCE):
        return {"placement": None}
    y, worth = tables.placement(state)
    if state.config.rule == "A":
        vector = tables.chase_tree(state).reply(hider.UNIFORM)
    else:
        game, start, _ = tables.hiding_game(state)
        vector, _ = hider.best_reply(game, hider.UNIFORM, start)
    return {
        "placement": {
            str(key): round(share, 4) for key, share in zip((1, 2, 3, 4), y, strict=True)
        },
        "popper_chance": round(worth, 4),
        "popper_chance_uniform": round(sum(vector) / 4, 4),
    }
