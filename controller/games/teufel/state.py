"""The game state: plain immutable tuples, comparable with ``==``; change one with
``_replace``.

Squares and players are indexes (players in seat order, clockwise); names
appear only in actions and views.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .knowledge import Knowledge

FACE_DOWN = "?"
"""A face-down card in :attr:`State.cards` (its face lives in the knowledge)."""

Kind = Literal[
    "place",  # a player places their sled (setup)
    "turn",  # start of a player's turn: step, exchange, pick_up or pass
    "move",  # mid-move on a free square: step or end_move
    "pass_or_flip",  # a devil-holder on a face-down card: pass_over or flip
    "reveal",  # chance: the referee enters the face of a flipped card
    "take_devil",  # the mover chooses whom to take a devil from
    "give_up",  # devil, devil: a player chooses the letters they lose
    "tower",  # on a tower: peek, return_devil, done
    "shuffle",  # picking up cards (2 to 4) and laying them down
    "flip_two",  # a player who left flips a card
    "over",  # nothing more
]


class Player(NamedTuple):
    colour: str
    square: int | None = None
    """Where the sled stands; ``None`` before setup and after leaving."""
    letters: frozenset[str] = frozenset()
    """Letter pegs held (A–F, always of the player's own colour)."""
    devil: bool = False
    left: bool = False


class Decision(NamedTuple):
    """What the game waits for, and from whom."""

    kind: Kind
    player: int | None
    """Who decides; ``None`` for a chance entry (``reveal``) and at the end."""
    square: int | None = None
    """``reveal`` and ``pass_or_flip``: the card concerned."""
    number: int = 0
    """``give_up``: letters to lose; ``flip_two``: flips left; ``reveal``: flips left after it."""
    then: Literal["", "end_move", "end_turn"] = ""
    """``give_up``: what follows once the letters are chosen."""
    peeked: bool = False
    """``tower``: the peek was used."""
    hand: tuple[tuple[int, str], ...] = ()
    """``shuffle``: cards picked up so far, as (square, face or ``FACE_DOWN``)."""


class State(NamedTuple):
    colours: tuple[str, ...]
    """The six colour names (letter cards exist for all six)."""
    vines: tuple[int, ...]
    players: tuple[Player, ...]
    first: int
    cards: tuple[str | None, ...]
    """Per square: ``None`` (no card), ``FACE_DOWN`` or the face of a face-up card."""
    knowledge: Knowledge
    pending: Decision
    turn: int | None = None
    """Whose turn it is (``None`` during setup and once over)."""
    path: tuple[int, ...] = ()
    """The squares of the move under way, starting square first."""
    exit_order: tuple[int, ...] = ()
    peeks: tuple[tuple[int, int], ...] = ()
    """Every peek as (player, square); what was seen is never recorded."""
    events: tuple[str, ...] = ()
    """What the last action did, in sentences."""
    losers: tuple[int, ...] = ()
    ending: Literal["", "one-left", "all-face-up"] = ""
