"""What phones see: the board, the players, the decision, reach and odds.

Nothing here is secret: the product never knows a face-down card's face (only
odds), and a peek is recorded without what was seen.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from ..base import Said, Viewer
from . import flow
from . import knowledge as kn
from .actions import FIELDS, legal_actions, prompt, unavailable
from .board import DEVIL_FACE, NEIGHBOURS, SIZE, name, names
from .cards import DEVIL, LETTERS, TOWER, letter_card, split_letter
from .state import FACE_DOWN, State

Reach = dict[str, str]


def reachable(state: State) -> Reach:
    """Squares the mover can still reach this move: ``{square: "free"|"flip"|"stop"}``.

    ``free``: the mover may go on from there or end the move there (for a
    devil-holder this includes face-down cards, which they may pass over);
    ``flip``: a face-down card they must stop on and flip (the move goes on
    only if it shows a letter they hold); ``stop``: the move ends there.
    Empty unless the player whose turn it is may take a step now.
    """
    if not flow.can_continue(state) or state.turn is None:
        return {}
    start = state.players[state.turn].square
    assert start is not None
    seen = {start, *state.path}
    result: Reach = {}
    frontier = deque([start])
    while frontier:
        here = frontier.popleft()
        for target in NEIGHBOURS[here]:
            if target in seen:
                continue
            outcome, _ = flow.entry(state, state.turn, target)
            if outcome == "blocked":
                continue
            seen.add(target)
            label = (
                "free" if outcome in ("free", "choose") else "flip" if outcome == "flip" else "stop"
            )
            result[name(target)] = label
            if label == "free":
                frontier.append(target)
    return result


def blocked_steps(state: State) -> dict[str, str]:
    """Each neighbour the mover may not step onto now, with the reason."""
    if not flow.can_continue(state):
        return {}
    return {
        name(square): reason
        for square, (outcome, reason) in sorted(flow.step_targets(state).items())
        if outcome == "blocked"
    }


def exact_odds(state: State, colour: str) -> dict[str, dict[str, Fraction]]:
    """For each face-down card: the chance it is a devil, a tower, or one of
    ``colour``'s missing letters (exact fractions). Raises ``KeyError`` for a
    colour that is not playing."""
    return _odds(state, _chances(state), colour)


def odds(state: State, colour: str) -> dict[str, dict[str, float]]:
    """:func:`exact_odds` as floats (for JSON); ``KeyError`` for a colour not playing."""
    return _floats(exact_odds(state, colour))


def _chances(state: State) -> dict[int, dict[str, Fraction]]:
    down = [s for s, card in enumerate(state.cards) if card == FACE_DOWN]
    return kn.chances(state.knowledge, down)


def _odds(
    state: State, chances: dict[int, dict[str, Fraction]], colour: str
) -> dict[str, dict[str, Fraction]]:
    held = [p.letters for p in state.players if p.colour == colour]
    if not held:
        raise KeyError(f"{colour!r} is not playing")
    missing = {letter_card(colour, letter) for letter in LETTERS if letter not in held[0]}
    return {
        name(square): {
            "devil": faces.get(DEVIL, Fraction(0)),
            "tower": faces.get(TOWER, Fraction(0)),
            "letters": sum((p for card, p in faces.items() if card in missing), Fraction(0)),
        }
        for square, faces in chances.items()
    }


def _floats(table: dict[str, dict[str, Fraction]]) -> dict[str, dict[str, float]]:
    return {square: {what: float(p) for what, p in row.items()} for square, row in table.items()}


def choices(actions: list[dict[str, object]]) -> dict[str, object]:
    """Legal actions folded per type for highlighting: the squares, cards, colours or
    letters each type accepts (``true`` for types without arguments)."""
    folded: dict[str, object] = {}
    for action in actions:
        kind = str(action["type"])
        fields = FIELDS[kind]
        if not fields:
            folded[kind] = True
            continue
        values = folded.setdefault(kind, [])
        assert isinstance(values, list)  # a type with fields folds into a list
        for field in fields:
            value = action[field]
            for item in value if isinstance(value, list) else [value]:
                if item not in values:
                    values.append(item)
    return folded


def view(state: State, viewer: Viewer) -> dict[str, object]:
    """The JSON picture of the game; the referee also gets every legal action."""
    legal = legal_actions(state)
    chances = _chances(state)
    decision = state.pending
    players = state.players
    pending: dict[str, object] = {
        "kind": decision.kind,
        "player": None if decision.player is None else players[decision.player].colour,
        "prompt": prompt(state),
        "choices": choices(legal),
        "unavailable": unavailable(state),
    }
    if decision.square is not None:
        pending["square"] = name(decision.square)
    if decision.kind in ("give_up", "flip_two"):
        pending["count"] = decision.number
    if decision.kind == "tower":
        pending["peeked"] = decision.peeked
    if decision.kind == "shuffle":
        pending["hand"] = [
            {"from": name(s), "card": None if c == FACE_DOWN else c} for s, c in decision.hand
        ]
    blocked = blocked_steps(state)
    picture: dict[str, object] = {
        "game": "teufel",
        "phase": {"place": "setup", "over": "over"}.get(decision.kind, "play"),
        "size": SIZE,
        "devil_face": name(DEVIL_FACE),
        "vines": names(state.vines),
        "devils_on_face": flow.devils_on_face(state),
        "squares": {name(s): _square(state, s) for s in range(len(state.cards))},
        "players": [
            {
                "colour": p.colour,
                "seat": seat,
                "square": None if p.square is None else name(p.square),
                "letters": sorted(p.letters),
                "devil": p.devil,
                "left": p.left,
                "exit_rank": state.exit_order.index(seat) + 1 if seat in state.exit_order else None,
            }
            for seat, p in enumerate(players)
        ],
        "exit_order": [players[i].colour for i in state.exit_order],
        "turn": None if state.turn is None else players[state.turn].colour,
        "move": {"path": [name(s) for s in state.path]} if state.path else None,
        "pending": pending,
        "reachable": reachable(state),
        "blocked": blocked,
        "blocked_said": {square: _said(why) for square, why in blocked.items()},
        "odds": {p.colour: _floats(_odds(state, chances, p.colour)) for p in players if not p.left},
        "face_down": sum(card == FACE_DOWN for card in state.cards),
        "peeks": [{"player": players[p].colour, "square": name(s)} for p, s in state.peeks],
        "events": list(state.events),
        "unavailable_said": {kind: said.as_dict() for kind, said in unavailable(state).items()},
        "events_said": events_said(state),
        "result": None
        if decision.kind != "over"
        else {"ending": state.ending, "losers": [players[i].colour for i in state.losers]},
    }
    if viewer == "referee":
        picture["legal"] = legal
    return picture


def events_said(state: State) -> list[dict[str, object]]:
    """What the last action did, as sentences for a page to make in its language (the
    same for every viewer: events name no hidden card)."""
    return [_said(event) for event in state.events]


def _said(text: str) -> dict[str, object]:
    """A sentence for a page to make in its language (``{"template", "params"}``)."""
    return text.as_dict() if isinstance(text, Said) else {"template": text, "params": {}}


def _square(state: State, square: int) -> dict[str, object]:
    card = state.cards[square]
    shown: dict[str, object] | None
    if card is None:
        shown = None
    elif card == FACE_DOWN:
        shown = {"face": "down"}
    elif card in (DEVIL, TOWER):
        shown = {"face": "up", "card": card, "kind": card}
    else:
        colour, letter = split_letter(card)
        shown = {"face": "up", "card": card, "kind": "letter", "colour": colour, "letter": letter}
    return {
        "card": shown,
        "sleds": [p.colour for p in state.players if p.square == square],
        "vine": square in state.vines,
    }
