"""Teufel Teufel's messages (games/teufel.html, teufel-*.js, the box's voice), and how a
sentence names its colours and cards in the reader's language.

Declared as data (:class:`controller.translation.Strings`); the game registry hands them to
the lookups when it registers the kind (docs/translations.md)."""

from __future__ import annotations

from controller.translation import Strings

from .state import FACE_DOWN

ENGLISH: dict[str, str] = {
    "teufel.players_title": "Players",
    "teufel.players": "Players, in seat order",
    "teufel.players_hint": (
        "Tap the colours in the order the players sit, clockwise. Tap again to remove."
    ),
    "teufel.first": "Who places first and starts",
    "teufel.need_players": "Choose {min} to {max} colours.",
    "teufel.seat_count": "{n} player, clockwise: {list}",
    "teufel.colour.yellow": "yellow",
    "teufel.colour.green": "green",
    "teufel.colour.blue": "blue",
    "teufel.colour.purple": "purple",
    "teufel.colour.white": "white",
    "teufel.colour.black": "black",
    "teufel.card.devil": "a devil",
    "teufel.card.tower": "a tower",
    "teufel.card.letter": "{colour} {letter}",
    "teufel.card.devil_short": "Devil",
    "teufel.card.tower_short": "Tower",
    "teufel.face_title": "the devil face, {n} peg on it",
    "teufel.vine": "vine, no card",
    "teufel.no_card": "no card",
    "teufel.face_down": "a face-down card",
    "teufel.sleds_on": "sled: {who}",
    "teufel.meta_players": "{n} player",
    "teufel.meta_down": "{n} card face down",
    "teufel.meta_pegs": "{n} devil on the face",
    "teufel.p.place": "{p} places their sled",
    "teufel.p.turn": "{p}'s turn",
    "teufel.p.move": "{p} is moving",
    "teufel.p.pass_or_flip": "{p} is on the face-down card on {sq}: pass over it or flip it?",
    "teufel.p.reveal": "{p} flips the card on {sq}: what is it?",
    "teufel.p.take_devil": "{p} takes a devil from another player",
    "teufel.p.give_up": "Devil, devil! {p} gives up {n} letter",
    "teufel.p.tower": "{p} is on a tower",
    "teufel.p.shuffle": "{p} is shuffling ({n} card in hand)",
    "teufel.p.flip_two": "{p} has left the board and flips a card ({n} to go)",
    "teufel.p.over": "The game is over",
    "teufel.legend": "Outlined: where {p} can still go —",
    "teufel.reach.free": "free",
    "teufel.reach.flip": "flip",
    "teufel.reach.stop": "stop",
    "teufel.reach.tap": "tap here",
    "teufel.end.one_left": "Game over: {p} is the last sled on the board and loses",
    "teufel.end.all_up": "Game over: every card is face up — {ps} lose",
    "teufel.rank": "out #{n}",
    "teufel.lost": "loses",
    "teufel.h.place": "Tap an outlined square for {p}'s sled.",
    "teufel.h.step": ("Tap the square {p} steps onto (outlined), or choose another kind of turn."),
    "teufel.h.step_on": "Tap the next square for {p}, or end the move here.",
    "teufel.h.reveal": "The card on {sq} is…",
    "teufel.h.take_devil": "No devil is left on the face: whose devil does {p} take?",
    "teufel.h.give_up": "Which {n} letter does {p} give up?",
    "teufel.h.tower": "{p} may peek at a face-down card and put their devil back.",
    "teufel.h.peek": "Tap the face-down card {p} looks at (nobody records what it is).",
    "teufel.h.exchange": (
        "Tap two cards to swap: face-down cards or {p}'s own letters ({n} of 2)."
    ),
    "teufel.h.pick_first": "Tap the first card {p} picks up (2 to 4 cards, none under a sled).",
    "teufel.h.pick": "Tap another card {p} picks up, or lay them down.",
    "teufel.h.hand_full": "Four cards in hand: lay them down.",
    "teufel.h.lay": "Tap {n} squares without a card to lay the cards face down ({k} of {n}).",
    "teufel.h.flip_two": "Tap a face-down card to flip ({n} to go).",
    "teufel.h.not_exchangeable": "The card on {sq} cannot be exchanged (only outlined cards).",
    "teufel.h.not_layable": "No card can be laid on {sq} (only outlined squares).",
    "teufel.mode.move": "Move",
    "teufel.mode.exchange": "Exchange",
    "teufel.mode.shuffle": "Shuffle",
    "teufel.mode.pass": "Pass",
    "teufel.end_move": "End the move here",
    "teufel.pass_over": "Pass over it",
    "teufel.flip": "Flip it",
    "teufel.take_from": "Take {p}'s devil",
    "teufel.give_up": "Give up {letters}",
    "teufel.give_up_n": "Choose {n} more",
    "teufel.cancel": "Cancel",
    "teufel.did.step": "{who} steps to {sq}",
    "teufel.did.end_move": "{who} ends the move",
    "teufel.did.pass_over": "{who} passes over the card",
    "teufel.did.done": "{who} leaves the tower",
    "teufel.other_colour": "Another colour",
    "teufel.peek": "Peek at a card",
    "teufel.peeked": "The peek was used.",
    "teufel.return_devil": "Put the devil back on the face",
    "teufel.done": "Done",
    "teufel.hand": "In hand ({n})",
    "teufel.from": "from {sq}",
    "teufel.lay": "Lay the {n} cards down",
    "teufel.out": "out #{n}",
    "teufel.on": "on {sq}",
    "teufel.not_placed": "not placed",
    "teufel.letters_of": "{p}'s letters: {l}",
    "teufel.possessed": "holds a devil",
    "teufel.exit_order": "Left the board: {list}",
    "teufel.odds.for": "Chances for the face-down cards, for:",
    "teufel.odds.letters": "Letters",
    "teufel.odds.devil": "Devil",
    "teufel.odds.tower": "Tower",
    "teufel.odds.none": "No card is face down.",
    "teufel.odds.best": "Best: {sq} ({pct})",
    "teufel.odds.even": "Every face-down card: {pct}",
    "teufel.odds.missing": "Missing letters: {l}",
    "say.possessed": "{colour} is possessed",
}

PLURALS: dict[str, str] = {
    "teufel.seat_count": "{n} players, clockwise: {list}",
    "teufel.face_title": "the devil face, {n} pegs on it",
    "teufel.meta_players": "{n} players",
    "teufel.meta_down": "{n} cards face down",
    "teufel.meta_pegs": "{n} devils on the face",
    "teufel.p.give_up": "Devil, devil! {p} gives up {n} letters",
    "teufel.p.shuffle": "{p} is shuffling ({n} cards in hand)",
    "teufel.h.give_up": "Which {n} letters does {p} give up?",
}


def _colour(value: str) -> tuple[str, dict[str, str]] | None:
    """A sled's colour (``blue``) in words."""
    return (f"teufel.colour.{value}", {})


def _card(value: str) -> tuple[str, dict[str, str]] | None:
    """A card (``?`` face down, ``devil``, ``tower``, ``blue-T``) in words."""
    if value == FACE_DOWN:
        return ("teufel.face_down", {})
    if value in ("devil", "tower"):
        return (f"teufel.card.{value}", {})
    colour, _, letter = value.rpartition("-")
    if colour and len(letter) == 1:
        return ("teufel.card.letter", {"colour": colour, "letter": letter})
    return None


STRINGS = Strings(
    ENGLISH,
    PLURALS,
    words={
        "who": _colour,
        "other": _colour,
        "colour": _colour,
        "colours": _colour,
        "card": _card,
        "cards": _card,
    },
)
