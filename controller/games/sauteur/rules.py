"""Le Diable sauteur, rules A (the chase) and B (the race), as a pure engine.

Four keys (1-4) each pop the die hidden in their slot; three number dice and one
die that shows only devils. The hider hides, the popper pops. A number ``v`` from
key ``k`` is worth ``k * v`` squares; a devil from key ``k`` moves the devil
figure ``devil_multiplier * k`` squares (rule A) or loses the turn's pot (rule B).

The state is an immutable :class:`SauteurState` (a named tuple of ints, strings
and tuples, so it is cheap to build and compares by value). ``apply`` returns a
new state or raises :class:`~controller.games.base.Refused`; it never mutates.
See ``docs/rules-sauteur.md`` for every choice the rule text leaves open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from controller.games.base import Action, Refused, Said, Viewer
from controller.games.shape import action_type

from .options import parse_options, round_start
from .state import (
    ADVANCE,
    ARRIVED,
    CAPTURED,
    DEVIL,
    FACE,
    HIDING,
    IDLE_LIMIT,
    IN_PLAY,
    KEYS,
    MAX_NUMBERS,
    OVER,
    PLAYERS,
    POP,
    ROUND_POINTS,
    Face,
    History,
    Pop,
    RoundResult,
    SauteurConfig,
    SauteurState,
    history,
    other,
)

__all__ = [  # the engine, and the state's names re-exported for older imports
    "ACTIONS",
    "ACTION_TYPES",
    "ADVANCE",
    "ARRIVED",
    "CAPTURED",
    "DEVIL",
    "FACE",
    "HIDING",
    "IDLE_LIMIT",
    "IN_PLAY",
    "KEYS",
    "MAX_NUMBERS",
    "OVER",
    "PLAYERS",
    "POP",
    "ROUND_POINTS",
    "Pop",
    "RoundResult",
    "SauteurConfig",
    "SauteurRules",
    "SauteurState",
    "history",
    "other",
    "parse_options",
    "view",
]

# --- refusals ----------------------------------------------------------------------------


def _out_of_turn(state: SauteurState, kind: str) -> Refused:
    """Why an action of type ``kind`` cannot come now, from what the game waits for."""
    if state.phase == OVER:
        return Refused("the match is over ({result})", "game-over", result=_result_text(state))
    if state.phase == HIDING:
        return Refused(
            "the dice are not hidden yet: wait until all four are hidden and the lid is closed",
            "not-hidden",
        )
    if state.phase == FACE:
        return Refused(
            "key {key} was popped: say what its die shows first",
            "face-pending",
            key=state.popped[-1],
        )
    if state.phase == ADVANCE:
        return Refused(
            "choose which figure moves {pending} squares first",
            "advance-pending",
            pending=state.pending,
        )
    if kind == "hidden":
        return Refused("the dice are already hidden", "already-hidden")
    if kind == "face":
        return Refused("no die is waiting for its face: pop a key first", "no-pop")
    return Refused("no number is waiting to be moved", "no-advance")


def _not_popper(state: SauteurState, action: Action) -> Refused:
    """The refusal for an action whose ``by`` is not the popper."""
    by = action.get("by")
    if by not in PLAYERS:
        return Refused('"by" must be "p1" or "p2", got {by!r}', "bad-action", by=by)
    return Refused(
        "{by} is the hider now; only {popper} pops and decides",
        "wrong-role",
        by=by,
        popper=state.popper,
    )


def _wrong_rule(kind: str, rule: str) -> Refused:
    uses = ACTIONS[kind].rules
    return Refused(
        '"{kind}" belongs to rule {uses}; this match plays rule {rule}',
        "wrong-rule",
        kind=kind,
        uses=uses,
        rule=rule,
    )


# --- transitions -------------------------------------------------------------------------
# A transition copies the state's fields into a list, sets the ones that change by
# index and freezes the list again: about three times faster than ``_replace``,
# which matters for the simulator (thousands of matches a second).

_FIELD = {name: index for index, name in enumerate(SauteurState._fields)}
_HIDER, _POPPER, _PHASE, _FIGURES, _STATUS, _DEVIL, _LAPS, _WINNER = (
    _FIELD[name]
    for name in ("hider", "popper", "phase", "figures", "status", "devil", "laps", "winner")
)
_POPPED, _PENDING, _POT, _HIDINGS, _HISTORY, _CARRIED, _IDLE = (
    _FIELD[name] for name in ("popped", "pending", "pot", "hidings", "history", "carried", "idle")
)
_freeze: Callable[[list[Any]], SauteurState] = partial(tuple.__new__, SauteurState)


def _hidden(state: SauteurState, action: Action) -> SauteurState:
    values = list(state)
    values[_PHASE] = POP
    values[_POPPED] = ()
    values[_HIDINGS] = state.hidings + 1
    return _freeze(values)


def _pop(state: SauteurState, action: Action) -> SauteurState:
    key = action.get("key")
    if type(key) is not int or key not in KEYS:
        raise Refused("keys are numbered 1 to 4, got {key!r}", "bad-key", key=key)
    if key in state.popped:
        raise Refused(
            "slot {key} is empty: its die already came out this hiding", "slot-empty", key=key
        )
    if state.carried + len(state.popped) >= MAX_NUMBERS:
        raise Refused(
            "three numbers came out: only the devil die is left, ask for a new hiding",
            "three-numbers",
        )
    values = list(state)
    values[_PHASE] = FACE
    values[_POPPED] = (*state.popped, key)
    return _freeze(values)


def _face(state: SauteurState, action: Action) -> SauteurState:
    face = action.get("face")
    config = state.config
    if face == DEVIL:
        return _devil_a(state) if config.rule == "A" else _devil_b(state)
    if type(face) is not int:
        raise Refused('a face is a number or "devil", got {face!r}', "bad-face", face=face)
    if face not in config.number_values:
        shown = ", ".join(str(value) for value in sorted(config.number_values))
        raise Refused(
            "a die cannot show {face}: the number dice show {shown}",
            "bad-face",
            face=face,
            shown=shown,
        )
    points = state.popped[-1] * face
    if config.rule == "B":
        return _number_b(state, face, points)
    status = state.status
    if status.count(IN_PLAY) == 1:
        return _move_figure(state, status.index(IN_PLAY), face, points)
    values = list(state)
    values[_PHASE] = ADVANCE
    values[_PENDING] = points
    return _freeze(values)


def _advance(state: SauteurState, action: Action) -> SauteurState:
    name = action.get("figure")
    names = state.config.figure_names
    if not isinstance(name, str) or name not in names:
        raise Refused(
            "no figure called {name!r}; figures: {names}",
            "bad-figure",
            name=name,
            names=", ".join(names),
        )
    index = names.index(name)
    if state.status[index] != IN_PLAY:
        fate = "has arrived" if state.status[index] == ARRIVED else "was captured by the devil"
        raise Refused(
            "the {name} figure {fate}: it cannot move", "figure-out", name=name, fate=fate
        )
    face = state.pending // state.popped[-1]  # pending = key x face
    return _move_figure(state, index, face, state.pending)


def _rehide(state: SauteurState, action: Action) -> SauteurState:
    if not state.popped:
        raise Refused("pop at least one die before asking for a new hiding", "must-pop")
    values = list(state)
    values[_PHASE] = HIDING
    values[_POPPED] = ()
    return _freeze(values)


def _new_hiding(state: SauteurState, action: Action) -> SauteurState:
    """The box hides again because its sensors disagree with the game (a game that takes
    the box, see ``controller/boxplay.py``). Rule A: as if the popper asked for it. Rule
    B: the pot and the count of numbers are kept, and all four keys are offered again."""
    values = list(state)
    values[_PHASE] = HIDING
    values[_POPPED] = ()
    if state.config.rule == "B":
        values[_CARRIED] = state.carried + len(state.popped)
    detail = (state.pot if state.config.rule == "B" else 0,)
    values[_HISTORY] = (
        (state.round, state.hidings, None, None, "new-hiding", detail),
        state.history,
    )
    return _freeze(values)


def _stop(state: SauteurState, action: Action) -> SauteurState:
    if not state.popped and not state.carried:
        raise Refused("pop at least one die before stopping: the pot is empty", "must-pop")
    return _bank(state, state.pot, None, None, "stop")


# Rule A ---------------------------------------------------------------------------------


def _move_figure(state: SauteurState, index: int, face: int, squares: int) -> SauteurState:
    config = state.config
    position = min(state.figures[index] + squares, config.track_length)
    arrived = position >= config.track_length
    values = list(state)
    values[_PHASE] = POP
    values[_PENDING] = 0
    values[_FIGURES] = (*state.figures[:index], position, *state.figures[index + 1 :])
    detail = (config.figure_names[index], squares, position, arrived)
    values[_HISTORY] = (
        (state.round, state.hidings, state.popped[-1], face, "move", detail),
        state.history,
    )
    if not arrived:
        return _freeze(values)
    status = (*state.status[:index], ARRIVED, *state.status[index + 1 :])
    values[_STATUS] = status
    moved = _freeze(values)
    return moved if IN_PLAY in status else _end_round_a(moved)


def _devil_a(state: SauteurState) -> SauteurState:
    config = state.config
    key = state.popped[-1]
    squares = config.devil_multiplier * key
    devil = min(state.devil + squares, config.track_length)
    status = tuple(
        CAPTURED if mark == IN_PLAY and position <= devil else mark
        for mark, position in zip(state.status, state.figures, strict=True)
    )
    caught = tuple(
        name
        for name, before, after in zip(config.figure_names, state.status, status, strict=True)
        if before != after
    )
    values = list(state)
    values[_PHASE] = HIDING
    values[_DEVIL] = devil
    values[_STATUS] = status
    values[_POPPED] = ()
    detail = (squares, devil, caught)
    values[_HISTORY] = ((state.round, state.hidings, key, DEVIL, "devil", detail), state.history)
    moved = _freeze(values)
    return moved if IN_PLAY in status else _end_round_a(moved)


def _end_round_a(state: SauteurState) -> SauteurState:
    arrived = state.status.count(ARRIVED)
    points = ROUND_POINTS[arrived]
    scores = _add(state.scores, state.popper, points)
    return _next_round(state, scores, RoundResult(state.round, state.popper, arrived, points))


def _add(scores: tuple[int, int], player: str, points: int) -> tuple[int, int]:
    return (scores[0] + points, scores[1]) if player == "p1" else (scores[0], scores[1] + points)


def _next_round(state: SauteurState, scores: tuple[int, int], result: RoundResult) -> SauteurState:
    """The next round (or race) after ``result``, or the end of the match."""
    results = (*state.results, result)
    config = state.config
    if state.round < config.rounds:
        return state._replace(results=results, **round_start(config, state.round + 1, scores))
    winner = "draw" if scores[0] == scores[1] else ("p1" if scores[0] > scores[1] else "p2")
    return state._replace(
        phase=OVER, popped=(), pending=0, pot=0, scores=scores, results=results, winner=winner
    )


# Rule B ---------------------------------------------------------------------------------


def _number_b(state: SauteurState, face: int, points: int) -> SauteurState:
    pot = state.pot + points
    key = state.popped[-1]
    if state.carried + len(state.popped) >= MAX_NUMBERS:
        return _bank(state, pot, key, face, "third")
    values = list(state)
    values[_PHASE] = POP
    values[_POT] = pot
    values[_HISTORY] = ((state.round, state.hidings, key, face, "pot", (pot,)), state.history)
    return _freeze(values)


def _devil_b(state: SauteurState) -> SauteurState:
    values = list(state)
    values[_PHASE] = HIDING
    values[_HIDER] = state.popper
    values[_POPPER] = state.hider
    values[_POPPED] = ()
    values[_POT] = 0
    values[_CARRIED] = 0
    lost: History = (
        (state.round, state.hidings, state.popped[-1], DEVIL, "lost", (state.pot,)),
        state.history,
    )
    values[_HISTORY] = lost
    idle = values[_IDLE] = state.idle + 1
    if idle < IDLE_LIMIT:
        return _freeze(values)
    values[_PHASE] = OVER
    values[_WINNER] = "draw"
    values[_HISTORY] = ((state.round, state.hidings, None, None, "idle", (idle,)), lost)
    return _freeze(values)


def _bank(
    state: SauteurState, pot: int, key: int | None, face: Face | None, why: str
) -> SauteurState:
    """The popper's figure moves by ``pot``; roles swap, or the race ends."""
    config = state.config
    popper = state.popper
    index = PLAYERS.index(popper)
    lap = min(state.laps[index] + pot, config.circuit_length)
    done = lap >= config.circuit_length
    values = list(state)
    values[_PHASE] = HIDING
    values[_HIDER] = popper
    values[_POPPER] = state.hider
    values[_LAPS] = (lap, state.laps[1]) if index == 0 else (state.laps[0], lap)
    values[_POPPED] = ()
    values[_POT] = 0
    values[_CARRIED] = 0
    values[_IDLE] = 0
    detail = (why, popper, pot, done)
    values[_HISTORY] = ((state.round, state.hidings, key, face, "bank", detail), state.history)
    banked = _freeze(values)
    if not done:
        return banked
    scores = _add(state.scores, popper, 1)
    return _next_round(banked, scores, RoundResult(state.round, popper, 1, 1))


@dataclass(frozen=True)
class ActionRule:
    """One row of the action table: which rules have the action, the phase it belongs
    to, who may take it (``popper``: the popper's choice, carrying ``"by"``; ``box``: a fact
    the box or the referee reports) and the handler that applies it once those hold."""

    rules: str
    phase: str
    who: str
    handler: Callable[[SauteurState, Action], SauteurState]


ACTIONS: dict[str, ActionRule] = {
    "hidden": ActionRule("AB", HIDING, "box", _hidden),
    "pop": ActionRule("AB", POP, "popper", _pop),
    "face": ActionRule("AB", FACE, "box", _face),
    "advance": ActionRule("A", ADVANCE, "popper", _advance),
    "rehide": ActionRule("A", POP, "popper", _rehide),
    "stop": ActionRule("B", POP, "popper", _stop),
    "new-hiding": ActionRule("AB", POP, "box", _new_hiding),
}
"""Every action of the Diable sauteur: rule, phase, who may act, handler."""
ACTION_TYPES = tuple(ACTIONS)


def _table_refusal(state: SauteurState, action: Action) -> Refused | None:
    """Why ``action`` cannot come now by the action table: an unknown type, another
    rule's action, another phase's, or not the popper's; ``None`` when the row allows it
    (the handler then checks the key, the face, the figure)."""
    try:
        kind = action_type(action, ACTIONS)
    except Refused as refused:
        return refused
    row = ACTIONS[kind]
    if state.config.rule not in row.rules:
        return _wrong_rule(kind, state.config.rule)
    if state.phase != row.phase:
        return _out_of_turn(state, kind)
    if row.who == "popper" and action.get("by") != state.popper:
        return _not_popper(state, action)
    return None


# --- the engine --------------------------------------------------------------------------


class SauteurRules:
    """The :class:`~controller.games.base.Rules` of Le Diable sauteur (rules A and B)."""

    name = "sauteur"

    def setup(self, options: Mapping[str, object]) -> SauteurState:
        """The first state; raises :class:`Refused` (``bad-option``) naming a bad option."""
        config = parse_options(options)
        return SauteurState(
            config=config, history=None, results=(), winner=None, **round_start(config, 1, (0, 0))
        )

    def apply(self, state: SauteurState, action: Action) -> SauteurState:
        """The state after ``action``; raises :class:`Refused` and changes nothing."""
        refused = _table_refusal(state, action)
        if refused is not None:
            raise refused
        return ACTIONS[action["type"]].handler(state, action)

    def refusal(self, state: SauteurState, action: Action) -> Refused | None:
        """Why ``action`` is refused now (the action table's checks, then the handler's),
        or ``None`` when :meth:`apply` would take it."""
        try:
            self.apply(state, action)
        except Refused as refused:
            return refused
        return None

    def legal_actions(self, state: SauteurState) -> list[dict[str, object]]:
        """Every action ``apply`` accepts now, chance ones (``hidden``, ``face``) included."""
        phase = state.phase
        if phase == POP:
            popper = state.popper
            actions: list[dict[str, object]] = []
            if state.carried + len(state.popped) < MAX_NUMBERS:
                actions = [
                    {"type": "pop", "key": key, "by": popper}
                    for key in KEYS
                    if key not in state.popped
                ]
            if state.popped or state.carried:
                end = "rehide" if state.config.rule == "A" else "stop"
                actions.append({"type": end, "by": popper})
            return actions
        if phase == HIDING:
            return [{"type": "hidden"}]
        if phase == FACE:
            return [{"type": "face", "face": face} for face in state.config.face_choices]
        if phase == ADVANCE:
            popper = state.popper
            return [
                {"type": "advance", "figure": name, "by": popper}
                for name, status in zip(state.config.figure_names, state.status, strict=True)
                if status == IN_PLAY
            ]
        return []

    def is_over(self, state: SauteurState) -> bool:
        return state.phase == OVER

    def explain(self, state: SauteurState) -> list[dict[str, object]]:
        """The popper's moves the phone shows but refuses now, each with why.

        ``[{"action": {...}, "error": code, "reason": sentence}]`` for the four keys,
        rehide (rule A) or stop (rule B), and in rule A the figures that cannot move.
        Empty once the match is over. Reasons come from :meth:`apply` itself.
        """
        if state.phase == OVER:
            return []
        popper = state.popper
        candidates: list[dict[str, object]] = [
            {"type": "pop", "key": key, "by": popper} for key in KEYS
        ]
        candidates.append({"type": "rehide" if state.config.rule == "A" else "stop", "by": popper})
        if state.phase == ADVANCE:
            candidates += [
                {"type": "advance", "figure": name, "by": popper}
                for name in state.config.figure_names
            ]
        refused = []
        for action in candidates:
            try:
                self.apply(state, action)
            except Refused as refusal:
                refused.append({"action": action, **refusal.as_dict()})
        return refused

    def view(self, state: SauteurState, viewer: Viewer) -> dict[str, object]:
        """Everything the dashboard draws, JSON-ready. The engine holds no secret (it
        never knows where the hider put the devil die), so both viewers see the same."""
        if viewer not in ("public", "referee"):
            raise Refused(
                'viewer must be "public" or "referee", got {viewer!r}', "bad-viewer", viewer=viewer
            )
        return view(state) | {"to_act": self.to_act(state)}

    def to_act(self, state: SauteurState) -> str | None:
        """The hider while the dice are hidden, the popper while popping or moving a
        figure; ``None`` while a die's face is awaited (a fact) and at the end."""
        return {HIDING: state.hider, POP: state.popper, ADVANCE: state.popper}.get(state.phase)


def _result_text(state: SauteurState) -> str:
    if state.winner == "draw":
        return "a draw"
    return f"{state.winner} won"


def _waiting_for(state: SauteurState) -> Said:
    """What the game waits for, as a sentence that keeps its template (``player``: a seat)."""
    popper = state.popper
    if state.phase == HIDING:
        return Said("{player} hides the dice", player=state.hider)
    if state.phase == FACE:
        return Said("what the die from key {key} shows", key=state.popped[-1])
    if state.phase == ADVANCE:
        return Said("{player} chooses a figure to move {n} squares", player=popper, n=state.pending)
    if state.phase == POP:
        if state.counted >= MAX_NUMBERS:
            return Said("{player} asks for a new hiding", player=popper)
        if not state.popped and not state.carried:
            return Said("{player} pops a key", player=popper)
        if state.config.rule == "A":
            return Said("{player} pops another key or asks for a new hiding", player=popper)
        return Said("{player} pops another key or stops with {pot}", player=popper, pot=state.pot)
    if state.winner == "draw":
        return Said("nothing: a draw")
    return Said("nothing: {player} won", player=state.winner)


def view(state: SauteurState) -> dict[str, object]:
    """The public picture of ``state`` (see :meth:`SauteurRules.view`)."""
    config = state.config
    picture: dict[str, object] = {
        "game": "sauteur",
        "rule": config.rule,
        "round": state.round,
        "rounds": config.rounds,
        "roles": {"hider": state.hider, "popper": state.popper},
        "phase": state.phase,
        "waiting_for": _waiting_for(state),
        "waiting_for_said": _waiting_for(state).as_dict(),
        "hiding": state.hidings,
        "popped": list(state.popped),
        "face_pending_key": state.popped[-1] if state.phase == FACE else None,
        "numbers_this_hiding": state.numbers,
        "numbers_counted": state.counted,
        "scores": {"p1": state.scores[0], "p2": state.scores[1]},
        "results": [result._asdict() for result in state.results],
        "history": [record._asdict() for record in history(state)],
        "winner": state.winner,
        "over": state.phase == OVER,
        "options": config.options(),
    }
    if config.rule == "A":
        picture["track_length"] = config.track_length
        picture["devil"] = state.devil
        picture["figures"] = [
            {"name": name, "position": position, "status": status}
            for name, position, status in zip(
                config.figure_names, state.figures, state.status, strict=True
            )
        ]
        picture["pending_squares"] = state.pending if state.phase == ADVANCE else None
    else:
        picture["circuit_length"] = config.circuit_length
        picture["pot"] = state.pot
        picture["players"] = [
            {
                "player": player,
                "start": start,
                "progress": lap,
                "position": (start + lap) % config.circuit_length,
            }
            for player, start, lap in zip(PLAYERS, config.starts, state.laps, strict=True)
        ]
    return picture
