"""How a turn unfolds: entering squares, stops, devils, leaving, the end.

Every function takes a state, returns the next one and appends what happened
to ``log`` (sentences for the referee). Callers have already checked that
the action is legal; nothing here refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..base import Said
from .board import DEVIL_FACE, NEIGHBOURS, name
from .cards import DEVIL, DEVIL_PEGS, LETTERS, TOWER, describe, split_letter
from .state import FACE_DOWN, Decision, State

Outcome = Literal["free", "flip", "choose", "letter", "stop", "devil", "tower", "blocked"]
"""What entering a square does: go on (``free``), stop and flip (``flip``), choose to
pass over or flip (``choose``, devil-holders on face-down cards), stop and take a
letter, just stop, stop and take a devil, stop on a tower, or not allowed."""

# ----------------------------------------------------------------- queries


def devils_on_face(state: State) -> int:
    """Devil pegs on the devil face (4 minus those held)."""
    return DEVIL_PEGS - sum(player.devil for player in state.players)


def sleds_on(state: State, square: int, besides: int | None = None) -> list[int]:
    """Players whose sled stands on ``square`` (other than ``besides``)."""
    return [
        index
        for index, player in enumerate(state.players)
        if player.square == square and index != besides
    ]


def face_down_count(state: State) -> int:
    return sum(card == FACE_DOWN for card in state.cards)


def colour(state: State, player: int) -> str:
    return state.players[player].colour


def listing(words: Sequence[str], last: str = "and") -> str:
    """``"green, purple and white"`` (or with ``last="or"``)."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def colours(state: State, players: list[int], last: str = "and") -> str:
    """The players' colours as a list in words."""
    return listing([colour(state, p) for p in players], last)


def card_outcome(state: State, mover: int, card: str, shared: bool) -> Outcome:
    """What a face-up card does to the mover (``shared``: another sled stands there)."""
    if card == DEVIL:
        return "devil"
    if card == TOWER:
        return "tower"
    player = state.players[mover]
    card_colour, letter = split_letter(card)
    if letter in player.letters:
        return "free"
    if card_colour == player.colour:
        return "letter"
    if shared and player.devil:
        return "free"
    return "stop"


def entry(state: State, mover: int, target: int) -> tuple[Outcome, str]:
    """What stepping onto ``target`` would do, with the reason when it is not allowed.

    Adjacency and revisiting are the caller's business.
    """
    player = state.players[mover]
    if target == DEVIL_FACE:
        on_face = devils_on_face(state)
        if on_face:
            pegs = "peg is" if on_face == 1 else "pegs are"
            return "blocked", Said(
                "d4 is the devil face: it opens only when all four devils are on players "
                "({n} devil pegs still on it)",
                "d4 is the devil face: it opens only when all four devils are on players "
                f"({on_face} {pegs} still on it)",
                n=on_face,
            )
    others = [i for i, p in enumerate(state.players) if p.square == target and i != mover]
    if others:
        where = name(target)
        if len(others) >= 2:
            return "blocked", Said(
                "{square} holds two sleds ({colours})",
                f"{where} holds two sleds ({colours(state, others)})",
                square=where,
                colours=[colour(state, other) for other in others],
            )
        if not player.devil:
            return "blocked", Said(
                "{other}'s sled is on {square}: only a player holding a devil may enter it",
                other=colour(state, others[0]),
                square=where,
            )
    card = state.cards[target]
    if card is None:
        return "free", ""
    if card == FACE_DOWN:
        return ("choose" if player.devil else "flip"), ""
    if card == TOWER and others:
        return "blocked", Said(
            "{other} stands on a tower on {square}: nobody may end a move on them, and a "
            "tower ends the move",
            other=colour(state, others[0]),
            square=name(target),
        )
    return card_outcome(state, mover, card, bool(others)), ""


def can_continue(state: State) -> bool:
    """True while the player whose turn it is may still take a step."""
    return state.pending.kind in ("turn", "move")


def step_targets(state: State) -> dict[int, tuple[Outcome, str]]:
    """Each neighbour of the mover's square, with what entering it does (or why not)."""
    assert state.turn is not None
    square = state.players[state.turn].square
    assert square is not None
    result: dict[int, tuple[Outcome, str]] = {}
    for target in NEIGHBOURS[square]:
        if target in state.path:
            result[target] = (
                "blocked",
                Said(
                    "{who} has already been on {square} during this move",
                    who=colour(state, state.turn),
                    square=name(target),
                ),
            )
        else:
            result[target] = entry(state, state.turn, target)
    return result


def occupied(state: State) -> set[int]:
    """Squares with at least one sled."""
    return {p.square for p in state.players if p.square is not None}


def exchangeable(state: State, player: int) -> list[int]:
    """Cards the player may exchange: face down or their own face-up letters, no sled on them."""
    own = state.players[player].colour + "-"
    taken = occupied(state)
    return [
        square
        for square, card in enumerate(state.cards)
        if card is not None and (card == FACE_DOWN or card.startswith(own)) and square not in taken
    ]


def pickable(state: State) -> list[int]:
    """Cards a shuffler may pick up: any card with no sled on it."""
    taken = occupied(state)
    return [
        square
        for square, card in enumerate(state.cards)
        if card is not None and square not in taken
    ]


def layable(state: State) -> list[int]:
    """Squares a shuffler may lay a card on: any card-free square but d4 (even under a sled)."""
    return [
        square for square, card in enumerate(state.cards) if card is None and square != DEVIL_FACE
    ]


def can_shuffle(state: State, player: int) -> bool:
    return state.players[player].devil and len(pickable(state)) >= 2


def must_pass(state: State) -> bool:
    """At the start of a turn: nothing else is possible (no step, exchange or shuffle)."""
    assert state.turn is not None
    steps = any(outcome != "blocked" for outcome, _ in step_targets(state).values())
    return (
        not steps
        and len(exchangeable(state, state.turn)) < 2
        and not can_shuffle(state, state.turn)
    )


# ----------------------------------------------------------------- changes


def set_player(state: State, index: int, **changes: Any) -> State:
    players = list(state.players)
    players[index] = players[index]._replace(**changes)
    return state._replace(players=tuple(players))


def wait(state: State, decision: Decision) -> State:
    return state._replace(pending=decision)


def step(state: State, target: int, log: list[str]) -> State:
    """The mover steps onto ``target`` (already checked legal)."""
    mover = state.turn
    assert mover is not None
    outcome, _ = entry(state, mover, target)
    start = state.path or (state.players[mover].square,)
    state = set_player(state, mover, square=target)._replace(path=(*start, target))
    if outcome == "free":
        return wait(state, Decision("move", mover))
    if outcome == "flip":
        log.append(
            Said(
                "{who} stops on {square} and flips the card",
                who=colour(state, mover),
                square=name(target),
            )
        )
        return wait(state, Decision("reveal", None, square=target))
    if outcome == "choose":
        return wait(state, Decision("pass_or_flip", mover, square=target))
    return stop(state, outcome, log)


def revealed(state: State, card: str, log: list[str]) -> State:
    """The flipped card (already entered in ``cards`` and knowledge) takes effect."""
    decision = state.pending
    mover = state.turn
    assert mover is not None and decision.square is not None
    log.append(
        Said(
            "the card on {square} is {card}",
            f"the card on {name(decision.square)} is {describe(card)}",
            square=name(decision.square),
            card=card,
        )
    )
    if state.players[mover].left:
        if decision.number > 0 and face_down_count(state) > 0:
            return wait(state, Decision("flip_two", mover, number=decision.number))
        return end_turn(state, log)
    shared = bool(sleds_on(state, decision.square, besides=mover))
    outcome = card_outcome(state, mover, card, shared)
    if outcome == "free":
        log.append(Said("{who} may go on", who=colour(state, mover)))
        return wait(state, Decision("move", mover))
    return stop(state, outcome, log)


def stop(state: State, outcome: Outcome, log: list[str]) -> State:
    """The move stops on a face-up card; apply what it does."""
    mover = state.turn
    assert mover is not None
    player = state.players[mover]
    assert player.square is not None
    card = state.cards[player.square]
    assert card is not None
    who = player.colour
    if outcome == "letter":
        letter = split_letter(card)[1]
        log.append(Said("{who} takes the letter {letter}", who=who, letter=letter))
        state = set_player(state, mover, letters=player.letters | {letter})
        return end_move(state, log)
    if outcome == "devil":
        return take_devil(state, log)
    if outcome == "tower":
        log.append(Said("{who} stops on a tower", who=who))
        return tower_or_finish(wait(state, Decision("tower", mover)), log)
    log.append(
        Said("{who} stops on {card}", f"{who} stops on {describe(card)}", who=who, card=card)
    )
    return end_move(state, log)


def take_devil(state: State, log: list[str]) -> State:
    """The mover takes a devil: from the face, else from another player of their choice."""
    mover = state.turn
    assert mover is not None
    if devils_on_face(state):
        log.append(Said("{who} takes a devil from the face", who=colour(state, mover)))
        return receive_devil(state, mover, "end_move", log)
    holders = [i for i, p in enumerate(state.players) if p.devil and i != mover]
    if len(holders) == 1:
        return take_devil_from(state, holders[0], log)
    return wait(state, Decision("take_devil", mover))


def take_devil_from(state: State, victim: int, log: list[str]) -> State:
    mover = state.turn
    assert mover is not None
    log.append(
        Said("{who} takes {other}'s devil", who=colour(state, mover), other=colour(state, victim))
    )
    state = set_player(state, victim, devil=False)
    return receive_devil(state, mover, "end_move", log)


def receive_devil(
    state: State, who: int, then: Literal["end_move", "end_turn"], log: list[str]
) -> State:
    """``who`` receives a devil; a second one means devil, devil."""
    player = state.players[who]
    if not player.devil:
        log.append(Said("{who} is possessed", who=player.colour))
        return proceed(set_player(state, who, devil=True), then, log)
    log.append(Said("devil, devil: both of {who}'s devils fly back to the face", who=player.colour))
    state = set_player(state, who, devil=False)
    if len(player.letters) > 2:
        return wait(state, Decision("give_up", who, number=2, then=then))
    if player.letters:
        log.append(
            Said(
                "{who} loses {letters}",
                who=player.colour,
                letters=", ".join(sorted(player.letters)),
            )
        )
    else:
        log.append(Said("{who} has no letters to lose", who=player.colour))
    return proceed(set_player(state, who, letters=frozenset()), then, log)


def give_up(state: State, letters: frozenset[str], log: list[str]) -> State:
    decision = state.pending
    assert decision.player is not None and decision.then
    player = state.players[decision.player]
    log.append(Said("{who} loses {letters}", who=player.colour, letters=", ".join(sorted(letters))))
    state = set_player(state, decision.player, letters=player.letters - letters)
    return proceed(state, decision.then, log)


def proceed(state: State, then: Literal["", "end_move", "end_turn"], log: list[str]) -> State:
    return end_move(state, log) if then == "end_move" else end_turn(state, log)


def tower_or_finish(state: State, log: list[str]) -> State:
    """Stay on the tower while a peek or a devil return is still possible."""
    mover = state.turn
    assert mover is not None
    can_peek = not state.pending.peeked and face_down_count(state) > 0
    if can_peek or state.players[mover].devil:
        return state
    return end_move(state, log)


def end_move(state: State, log: list[str]) -> State:
    """The move is over: a devil-holder ending on another sled gives the devil."""
    mover = state.turn
    assert mover is not None
    player = state.players[mover]
    assert player.square is not None
    others = sleds_on(state, player.square, besides=mover)
    if others and player.devil:
        other = others[0]
        if state.cards[player.square] == TOWER:
            log.append(
                Said("{who} stands on a tower: no devil can be given", who=colour(state, other))
            )
        else:
            log.append(
                Said(
                    "{who} gives the devil to {other}",
                    who=player.colour,
                    other=colour(state, other),
                )
            )
            state = set_player(state, mover, devil=False)
            return receive_devil(state, other, "end_turn", log)
    return end_turn(state, log)


def end_turn(state: State, log: list[str]) -> State:
    """Sleds leave, the game may end, else the next player in seat order plays."""
    turn = state.turn
    assert turn is not None
    state = settle_leaving(state, log)
    on_board = [i for i, p in enumerate(state.players) if not p.left]
    if len(on_board) <= 1:
        return game_over(state, "one-left", log)
    if face_down_count(state) == 0:
        return game_over(state, "all-face-up", log)
    return begin_turn(state, (turn + 1) % len(state.players), log)


def begin_turn(state: State, player: int, log: list[str]) -> State:
    state = state._replace(turn=player, path=())
    if state.players[player].left:
        flips = min(2, face_down_count(state))
        return wait(state, Decision("flip_two", player, number=flips))
    return wait(state, Decision("turn", player))


def settle_leaving(state: State, log: list[str]) -> State:
    """Every sled whose player holds six letters and no devil leaves the board."""
    assert state.turn is not None
    count = len(state.players)
    for offset in range(count):
        index = (state.turn + offset) % count
        player = state.players[index]
        if not player.left and len(player.letters) == len(LETTERS) and not player.devil:
            state = set_player(state, index, square=None, left=True)
            state = state._replace(exit_order=(*state.exit_order, index))
            log.append(
                Said(
                    "{who} holds all six letters and no devil: their sled leaves the board "
                    "(out #{rank})",
                    f"{player.colour} holds all six letters and no devil: "
                    f"their sled leaves the board ({_ordinal(len(state.exit_order))} out)",
                    who=player.colour,
                    rank=len(state.exit_order),
                )
            )
    return state


def game_over(state: State, ending: Literal["one-left", "all-face-up"], log: list[str]) -> State:
    losers = tuple(i for i, p in enumerate(state.players) if not p.left)
    if ending == "one-left":
        log.append(
            Said(
                "only {colours} is left on the board: the game is over",
                f"only {colours(state, list(losers)) or 'nobody'} is left on the board: "
                "the game is over",
                colours=[colour(state, p) for p in losers],
            )
        )
    else:
        log.append(Said("every card is face up: judgment day, the game is over"))
    return state._replace(
        pending=Decision("over", None),
        turn=None,
        path=(),
        losers=losers,
        ending=ending,
    )


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")
