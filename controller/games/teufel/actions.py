"""Checking and applying actions; listing the legal ones.

Every action is a JSON object with a ``"type"``; the vocabulary is in the
package docstring and docs/rules-teufel.md. ``"player"`` (a colour) may be
added to any action but ``reveal``: it is then checked against whoever must
decide, so a tap on the wrong phone cannot play for someone else.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping
from typing import Any

from ..base import Refused, Said, said_of
from ..shape import action_type
from . import flow
from . import knowledge as kn
from .board import DEVIL_FACE, NEIGHBOURS, name, names, parse
from .cards import describe, is_letter, parse_card
from .setup import place, placement_problem
from .state import FACE_DOWN, Decision, State

FIELDS: dict[str, tuple[str, ...]] = {
    "place_sled": ("square",),
    "step": ("to",),
    "end_move": (),
    "pass_over": (),
    "flip": (),
    "reveal": ("card",),
    "take_devil_from": ("from",),
    "give_up_letters": ("letters",),
    "peek": ("square",),
    "return_devil": (),
    "done": (),
    "exchange": ("a", "b"),
    "pick_up": ("square",),
    "lay_down": ("squares",),
    "flip_card": ("square",),
    "pass": (),
}
"""Each action type and its fields (besides ``type`` and the optional ``player``)."""

ALLOWED: dict[str, tuple[str, ...]] = {
    "place": ("place_sled",),
    "turn": ("step", "exchange", "pick_up", "pass"),
    "move": ("step", "end_move"),
    "pass_or_flip": ("pass_over", "flip"),
    "reveal": ("reveal",),
    "take_devil": ("take_devil_from",),
    "give_up": ("give_up_letters",),
    "tower": ("peek", "return_devil", "done"),
    "shuffle": ("pick_up", "lay_down"),
    "flip_two": ("flip_card",),
    "over": (),
}
"""Which action types answer each kind of pending decision."""

TURN_WORDS = {
    "step": Said("move"),
    "exchange": Said("exchange two cards"),
    "pick_up": Said("shuffle"),
    "pass": Said("pass (nothing else is possible)"),
}

TOWER_WORDS = {
    "peek": Said("peek at a face-down card"),
    "return_devil": Said("put the devil back on the face"),
    "done": Said("done"),
}

MAX_PICK = 4
MIN_PICK = 2
PEEK_USED = Said("the tower allows one peek, and it was used")
HAND_FULL = Said("a shuffle takes at most {n} cards: lay them down", n=MAX_PICK)
TOO_FEW_PICKED = Said("a shuffle takes at least {n} cards: pick up another", n=MIN_PICK)
TOO_FEW_FREE = Said("fewer than two cards are free of sleds: no shuffle")


def _no_devil(who: str) -> Said:
    return Said("{who} holds no devil", who=who)


def _no_devil_to_shuffle(who: str) -> Said:
    return Said("only a player holding a devil may shuffle; {who} holds none", who=who)


def _cannot_pass(who: str) -> Said:
    return Said(
        "{who} can still move, exchange or shuffle: passing is only for a player "
        "who can do none of these",
        who=who,
    )


def prompt(state: State) -> Said:
    """One sentence: what the game waits for."""
    d = state.pending
    who = state.players[d.player].colour if d.player is not None else ""
    where = name(d.square) if d.square is not None else ""
    if d.kind in ("turn", "tower"):
        words = TURN_WORDS if d.kind == "turn" else TOWER_WORDS
        choices = [words[kind] for kind in legal_types(state)]
        template = (
            "{who}'s turn: {choices}" if d.kind == "turn" else "{who} is on a tower: {choices}"
        )
        english = template.format(who=who, choices=flow.listing(choices, "or"))
        return Said(template, english, who=who, choices=choices)
    if d.kind == "place":
        return Said("{who} places their sled", who=who)
    if d.kind == "move":
        return Said("{who} is moving: step on or end the move", who=who)
    if d.kind == "pass_or_flip":
        return Said(
            "{who} is on the face-down card on {square}: pass over it or flip it",
            who=who,
            square=where,
        )
    if d.kind == "reveal":
        return Said("enter the card flipped on {square}", square=where)
    if d.kind == "take_devil":
        return Said("{who} takes a devil from another player: choose whom", who=who)
    if d.kind == "give_up":
        return Said("devil, devil: {who} chooses {n} letters to give up", who=who, n=d.number)
    if d.kind == "shuffle":
        return Said(
            "{who} is shuffling ({n} cards in hand): pick up more or lay them down",
            who=who,
            n=len(d.hand),
        )
    if d.kind == "flip_two":
        return Said(
            "{who} has left the board: flip a face-down card ({n} to go)", who=who, n=d.number
        )
    return Said("the game is over")


# ----------------------------------------------------------------- apply


def apply(state: State, action: Mapping[str, object]) -> State:
    """The state after ``action``; raises :class:`Refused` and changes nothing."""
    kind = _check_shape(action)
    decision = state.pending
    if decision.kind == "over":
        raise Refused("the game is over", "game-over")
    if kind not in ALLOWED[decision.kind]:
        raise Refused("no {kind} now: {prompt}", "not-now", kind=kind, prompt=prompt(state))
    if "player" in action:
        if kind == "reveal":
            raise Refused("a reveal is the referee's entry: it has no player", "bad-action")
        if decision.player is None or action["player"] != state.players[decision.player].colour:
            raise Refused(
                "it is not {player!r} who decides now: {prompt}",
                "wrong-player",
                player=action["player"],
                prompt=prompt(state),
            )
    log: list[str] = []
    state = _HANDLERS[kind](state, action, log)
    return state._replace(events=tuple(log))


def _check_shape(action: object) -> str:
    kind = action_type(action, FIELDS)
    assert isinstance(action, Mapping)
    expected = set(FIELDS[kind])
    missing = expected - set(action)
    extra = set(action) - expected - {"type", "player"}
    if missing:
        raise Refused(
            "{kind} needs {missing}", "bad-action", kind=kind, missing=", ".join(sorted(missing))
        )
    if extra:
        raise Refused(
            "{kind} has unexpected field(s): {extra}",
            "bad-action",
            kind=kind,
            extra=", ".join(sorted(extra)),
        )
    return kind


def _square(value: object) -> int:
    try:
        return parse(value)
    except ValueError as error:
        raise Refused(said_of(error), "bad-square") from None


def _mover(state: State) -> int:
    assert state.pending.player is not None
    return state.pending.player


def _place_sled(state: State, action: Mapping[str, object], log: list[str]) -> State:
    square = _square(action["square"])
    player = _mover(state)
    problem = placement_problem(state, player, square)
    if problem:
        raise Refused(problem, "bad-placement")
    return place(state, player, square, log)


def _step(state: State, action: Mapping[str, object], log: list[str]) -> State:
    target = _square(action["to"])
    mover = _mover(state)
    here = state.players[mover].square
    assert here is not None
    if target not in NEIGHBOURS[here]:
        raise Refused(
            "{target} is not next to {here}: a move goes one orthogonal step at a time",
            "not-adjacent",
            target=name(target),
            here=name(here),
        )
    outcome, reason = flow.step_targets(state)[target]
    if outcome == "blocked":
        code = "revisit" if target in state.path else "blocked"
        raise Refused(reason, code)
    return flow.step(state, target, log)


def _end_move(state: State, action: Mapping[str, object], log: list[str]) -> State:
    return flow.end_move(state, log)


def _pass_over(state: State, action: Mapping[str, object], log: list[str]) -> State:
    return flow.wait(state, Decision("move", _mover(state)))


def _flip(state: State, action: Mapping[str, object], log: list[str]) -> State:
    log.append(Said("{who} flips the card", who=state.players[_mover(state)].colour))
    return flow.wait(state, Decision("reveal", None, square=state.pending.square))


def _reveal(state: State, action: Mapping[str, object], log: list[str]) -> State:
    square = state.pending.square
    assert square is not None
    try:
        card = parse_card(action["card"], state.colours)
    except ValueError as error:
        raise Refused(said_of(error), "bad-card") from None
    try:
        knowledge = kn.reveal(state.knowledge, square, card)
    except kn.Impossible:
        raise Refused(_why_impossible(state, square, card), "impossible-card") from None
    cards = list(state.cards)
    cards[square] = card
    state = state._replace(cards=tuple(cards), knowledge=knowledge)
    return flow.revealed(state, card, log)


def _why_impossible(state: State, square: int, card: str) -> Said:
    """A sentence for a flip that contradicts what has been seen."""
    what, where = describe(card), name(square)
    if kn.unknown_cards(state.knowledge)[card] == 0:
        up = [s for s, c in enumerate(state.cards) if c == card]
        if is_letter(card):
            return Said(
                "there is no second {card}: it is face up on {square}",
                f"there is no second {what}: it is face up on {name(up[0])}",
                card=card,
                square=name(up[0]),
            )
        return Said(
            "all {n} {card} cards are already face up ({squares})",
            n=len(up),
            card=card,
            squares=", ".join(names(up)),
        )
    here = [group for group in state.knowledge.groups if square in group]
    if here:
        options = sorted(kn.possible(state.knowledge, square), key=describe)
        if len(options) > 6:
            return Said(
                "{card} cannot be on {square}: that card was shuffled face down onto "
                "{squares} and is something else",
                f"{what} cannot be on {where}: that card was shuffled face down onto "
                f"{', '.join(names(here[0]))} and is something else",
                card=card,
                square=where,
                squares=", ".join(names(here[0])),
            )
        return Said(
            "{card} cannot be on {square}: that card was shuffled face down onto "
            "{squares} and is one of {cards}",
            f"{what} cannot be on {where}: that card was shuffled face down onto "
            f"{', '.join(names(here[0]))} and is "
            + flow.listing(sorted(map(describe, options)), "or"),
            card=card,
            square=where,
            squares=", ".join(names(here[0])),
            cards=options,
        )
    laid = "; ".join(", ".join(names(g)) for g in kn.groups_with(state.knowledge, card))
    return Said(
        "{card} cannot be on {square}: every such card not face up was shuffled face down "
        "onto {squares}",
        f"{what} cannot be on {where}: "
        + (
            f"it was shuffled face down onto {laid}"
            if is_letter(card)
            else f"every {card} not face up was shuffled face down onto {laid}"
        ),
        card=card,
        square=where,
        squares=laid,
    )


def _take_devil_from(state: State, action: Mapping[str, object], log: list[str]) -> State:
    mover = _mover(state)
    holders = [i for i, p in enumerate(state.players) if p.devil and i != mover]
    chosen = [i for i in holders if state.players[i].colour == action["from"]]
    if not chosen:
        raise Refused(
            "{source!r} holds no devil to take: choose {colours}",
            "bad-choice",
            source=action["from"],
            colours=flow.colours(state, holders, "or"),
        )
    return flow.take_devil_from(state, chosen[0], log)


def _give_up_letters(state: State, action: Mapping[str, object], log: list[str]) -> State:
    decision = state.pending
    player = state.players[_mover(state)]
    letters = action["letters"]
    held = ", ".join(sorted(player.letters))
    if (
        not isinstance(letters, list)
        or not all(isinstance(letter, str) for letter in letters)
        or len(letters) != decision.number
        or len(set(letters)) != len(letters)
        or not set(letters) <= player.letters
    ):
        raise Refused(
            "{colour} must give up exactly {number} different letters they hold ({held})",
            "bad-choice",
            colour=player.colour,
            number=decision.number,
            held=held,
        )
    return flow.give_up(state, frozenset(letters), log)


def _peek(state: State, action: Mapping[str, object], log: list[str]) -> State:
    square = _square(action["square"])
    mover = _mover(state)
    if state.pending.peeked:
        raise Refused(PEEK_USED, "already-peeked")
    if state.cards[square] != FACE_DOWN:
        raise Refused(
            "there is no face-down card on {square} to peek at",
            "not-face-down",
            square=name(square),
        )
    log.append(
        Said(
            "{who} peeks at the card on {square}",
            who=state.players[mover].colour,
            square=name(square),
        )
    )
    state = state._replace(
        peeks=(*state.peeks, (mover, square)),
        pending=state.pending._replace(peeked=True),
    )
    return flow.tower_or_finish(state, log)


def _return_devil(state: State, action: Mapping[str, object], log: list[str]) -> State:
    mover = _mover(state)
    if not state.players[mover].devil:
        raise Refused(_no_devil(state.players[mover].colour), "no-devil")
    log.append(Said("{who} puts their devil back on the face", who=state.players[mover].colour))
    return flow.tower_or_finish(flow.set_player(state, mover, devil=False), log)


def _done(state: State, action: Mapping[str, object], log: list[str]) -> State:
    return flow.end_move(state, log)


def _exchange(state: State, action: Mapping[str, object], log: list[str]) -> State:
    a, b = _square(action["a"]), _square(action["b"])
    mover = _mover(state)
    if a == b:
        raise Refused("an exchange needs two different cards", "bad-exchange")
    allowed = flow.exchangeable(state, mover)
    for square in (a, b):
        if square not in allowed:
            raise Refused(_why_not_exchangeable(state, mover, square), "bad-exchange")
    cards = list(state.cards)
    cards[a], cards[b] = cards[b], cards[a]
    log.append(
        Said(
            "{who} exchanges the cards on {a} and {b}",
            who=state.players[mover].colour,
            a=name(a),
            b=name(b),
        )
    )
    state = state._replace(cards=tuple(cards), knowledge=kn.swap(state.knowledge, a, b))
    return flow.end_turn(state, log)


def _why_not_exchangeable(state: State, mover: int, square: int) -> Said:
    card = state.cards[square]
    where = name(square)
    if card is None:
        return Said("there is no card on {square}", square=where)
    sleds = flow.sleds_on(state, square)
    if sleds:
        return Said(
            "{colours}'s sled stands on the card on {square}",
            f"{flow.colours(state, sleds)}'s sled stands on the card on {where}",
            colours=[flow.colour(state, s) for s in sleds],
            square=where,
        )
    who = state.players[mover].colour
    return Said(
        "the card on {square} is {card}, face up: only face-down cards and {who}'s own "
        "face-up letters may be exchanged",
        f"the card on {where} is {describe(card)}, face up: only face-down cards and "
        f"{who}'s own face-up letters may be exchanged",
        square=where,
        card=card,
        who=who,
    )


def _pick_up(state: State, action: Mapping[str, object], log: list[str]) -> State:
    square = _square(action["square"])
    mover = _mover(state)
    decision = state.pending
    who = state.players[mover].colour
    if decision.kind == "turn":
        if not state.players[mover].devil:
            raise Refused(_no_devil_to_shuffle(who), "no-devil")
        if len(flow.pickable(state)) < MIN_PICK:
            raise Refused(TOO_FEW_FREE, "too-few")
        decision = Decision("shuffle", mover)
    elif len(decision.hand) >= MAX_PICK:
        raise Refused(HAND_FULL, "hand-full")
    card = state.cards[square]
    if card is None:
        raise Refused("there is no card on {square}", "no-card", square=name(square))
    sleds = flow.sleds_on(state, square)
    if sleds:
        raise Refused(
            "{colours}'s sled stands on the card on {square}",
            "under-sled",
            colours=flow.colours(state, sleds),
            square=name(square),
        )
    cards = list(state.cards)
    cards[square] = None
    shown = "a face-down card" if card == FACE_DOWN else describe(card)
    log.append(
        Said(
            "{who} picks up {card} from {square}",
            f"{who} picks up {shown} from {name(square)}",
            who=who,
            card=card,
            square=name(square),
        )
    )
    return state._replace(
        cards=tuple(cards),
        pending=decision._replace(hand=(*decision.hand, (square, card))),
    )


def _lay_down(state: State, action: Mapping[str, object], log: list[str]) -> State:
    hand = state.pending.hand
    if len(hand) < MIN_PICK:
        raise Refused(TOO_FEW_PICKED, "too-few")
    raw = action["squares"]
    if not isinstance(raw, list):
        raise Refused("squares: a list of squares", "bad-action")
    squares = [_square(text) for text in raw]
    if len(squares) != len(hand) or len(set(squares)) != len(squares):
        raise Refused(
            "lay the {n_hand} cards on {n_hand} different squares", "bad-lay", n_hand=len(hand)
        )
    allowed = set(flow.layable(state))
    for square in squares:
        if square not in allowed:
            raise Refused(_why_not_layable(state, square), "bad-lay")
    cards = list(state.cards)
    for square in squares:
        cards[square] = FACE_DOWN
    knowledge = kn.shuffle(
        state.knowledge,
        [s for s, card in hand if card == FACE_DOWN],
        [card for _, card in hand if card != FACE_DOWN],
        squares,
    )
    log.append(
        Said(
            "{who} shuffles {n} cards and lays them face down on {squares}",
            who=state.players[_mover(state)].colour,
            n=len(hand),
            squares=", ".join(names(squares)),
        )
    )
    return flow.end_turn(state._replace(cards=tuple(cards), knowledge=knowledge), log)


def _why_not_layable(state: State, square: int) -> Said:
    if square == DEVIL_FACE:
        return Said("d4 is the devil face: no card may lie there")
    return Said("{square} already holds a card", square=name(square))


def _flip_card(state: State, action: Mapping[str, object], log: list[str]) -> State:
    square = _square(action["square"])
    if state.cards[square] != FACE_DOWN:
        raise Refused(
            "there is no face-down card on {square}", "not-face-down", square=name(square)
        )
    mover = _mover(state)
    log.append(
        Said(
            "{who} flips the card on {square}", who=state.players[mover].colour, square=name(square)
        )
    )
    return flow.wait(
        state, Decision("reveal", None, square=square, number=state.pending.number - 1)
    )


def _pass(state: State, action: Mapping[str, object], log: list[str]) -> State:
    who = state.players[_mover(state)].colour
    if not flow.must_pass(state):
        raise Refused(_cannot_pass(who), "can-act")
    log.append(Said("{who} can do nothing and passes", who=who))
    return flow.end_turn(state, log)


_HANDLERS = {
    "place_sled": _place_sled,
    "step": _step,
    "end_move": _end_move,
    "pass_over": _pass_over,
    "flip": _flip,
    "reveal": _reveal,
    "take_devil_from": _take_devil_from,
    "give_up_letters": _give_up_letters,
    "peek": _peek,
    "return_devil": _return_devil,
    "done": _done,
    "exchange": _exchange,
    "pick_up": _pick_up,
    "lay_down": _lay_down,
    "flip_card": _flip_card,
    "pass": _pass,
}


# ----------------------------------------------------------------- legal actions


def legal_types(state: State) -> list[str]:
    """The action types with at least one legal action now (cheap; for buttons)."""
    d = state.pending
    if d.kind in ("turn", "move"):
        assert d.player is not None
        steps = any(outcome != "blocked" for outcome, _ in flow.step_targets(state).values())
        kinds = ["step"] if steps else []
        if d.kind == "move":
            return [*kinds, "end_move"]
        if len(flow.exchangeable(state, d.player)) >= 2:
            kinds.append("exchange")
        if flow.can_shuffle(state, d.player):
            kinds.append("pick_up")
        return kinds or ["pass"]
    if d.kind == "tower":
        assert d.player is not None
        kinds = [] if d.peeked or not flow.face_down_count(state) else ["peek"]
        if state.players[d.player].devil:
            kinds.append("return_devil")
        return [*kinds, "done"]
    if d.kind == "shuffle":
        kinds = ["pick_up"] if len(d.hand) < MAX_PICK and flow.pickable(state) else []
        return kinds + (["lay_down"] if len(d.hand) >= MIN_PICK else [])
    return list(ALLOWED[d.kind])


def legal_actions(state: State, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Every action :func:`apply` accepts now (of the types in ``only``, if given).

    The order is stable. Exchanges are listed once per pair (``a`` before
    ``b`` in board order); ``apply`` accepts either order. ``lay_down``
    squares are in board order (any order is accepted).
    """
    d = state.pending
    kinds = [kind for kind in legal_types(state) if only is None or kind in only]
    if d.kind == "reveal":
        assert d.square is not None
        if not kinds:
            return []
        cards = sorted(kn.possible(state.knowledge, d.square))
        return [{"type": "reveal", "card": card} for card in cards]
    if d.player is None:
        return []
    player = d.player
    who = state.players[player].colour
    result: list[dict[str, Any]] = []
    for kind in kinds:
        if kind == "place_sled":
            result += [
                {"type": kind, "player": who, "square": name(s)}
                for s in range(len(state.cards))
                if placement_problem(state, player, s) is None
            ]
        elif kind == "step":
            result += [
                {"type": kind, "player": who, "to": name(target)}
                for target, (outcome, _) in sorted(flow.step_targets(state).items())
                if outcome != "blocked"
            ]
        elif kind == "exchange":
            cards = [name(s) for s in flow.exchangeable(state, player)]
            result += [
                {"type": kind, "player": who, "a": a, "b": b}
                for a, b in itertools.combinations(cards, 2)
            ]
        elif kind == "pick_up":
            result += [
                {"type": kind, "player": who, "square": name(s)} for s in flow.pickable(state)
            ]
        elif kind == "take_devil_from":
            result += [
                {"type": kind, "player": who, "from": p.colour}
                for i, p in enumerate(state.players)
                if p.devil and i != player
            ]
        elif kind == "give_up_letters":
            held = sorted(state.players[player].letters)
            result += [
                {"type": kind, "player": who, "letters": list(letters)}
                for letters in itertools.combinations(held, d.number)
            ]
        elif kind in ("peek", "flip_card"):
            result += [
                {"type": kind, "player": who, "square": name(s)}
                for s, card in enumerate(state.cards)
                if card == FACE_DOWN
            ]
        elif kind == "lay_down":
            result += [
                {"type": kind, "player": who, "squares": names(squares)}
                for squares in itertools.combinations(flow.layable(state), len(d.hand))
            ]
        else:
            result.append({"type": kind, "player": who})
    return result


def unavailable(state: State) -> dict[str, Said]:
    """Action types that would answer the pending decision but are not legal now,
    each with the reason (for greyed-out buttons)."""
    d = state.pending
    if d.player is None:
        return {}
    who = state.players[d.player].colour
    legal = set(legal_types(state))
    reasons: dict[str, Said] = {}
    for kind in ALLOWED[d.kind]:
        if kind in legal:
            continue
        if kind == "step":
            reason = Said("{who} cannot step onto any neighbouring square (see blocked)", who=who)
        elif kind == "exchange":
            reason = Said(
                "fewer than two cards may be exchanged (face-down cards and "
                "{who}'s own face-up letters, with no sled on them)",
                who=who,
            )
        elif kind == "pick_up" and d.kind == "turn":
            devil = state.players[d.player].devil
            reason = TOO_FEW_FREE if devil else _no_devil_to_shuffle(who)
        elif kind == "pick_up":
            reason = HAND_FULL
        elif kind == "lay_down":
            reason = TOO_FEW_PICKED
        elif kind == "pass":
            reason = _cannot_pass(who)
        elif kind == "peek":
            reason = PEEK_USED if d.peeked else Said("no face-down card is left to peek at")
        else:
            assert kind == "return_devil", kind
            reason = _no_devil(who)
        reasons[kind] = reason
    return reasons
