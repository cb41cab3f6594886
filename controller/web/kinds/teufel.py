"""Dashboard helpers for Teufel, Teufel: the odds a player asks for, square by square."""

from __future__ import annotations

from collections.abc import Mapping

from controller.games.base import Refused
from controller.games.teufel import odds as teufel_odds
from controller.games.teufel.cards import LETTERS
from controller.games.teufel.state import FACE_DOWN, State
from controller.games.teufel.view import events_said

LEGAL_IN_EXTRAS = False
"""The page reads what is legal from the view itself: no long ``legal`` list per frame."""


ODDS = (
    "per face-down square the chance of a devil, a tower or one of the player's missing "
    "letters (query `player=<colour>`, default: whose turn it is)"
)
"""What ``GET /api/games/<id>/odds`` says for this game (the OpenAPI summary)."""


def odds(state: State, args: Mapping[str, str]) -> dict[str, object]:
    """For each face-down card, the chance (0–1) it is a devil, a tower or one of the
    player's missing letters: ``{"player", "missing", "face_down", "squares": {square:
    {"devil", "tower", "letters"}}}``.

    ``args["player"]`` is a colour playing this game; without it, the player whose turn
    it is. Raises :class:`Refused` (``bad-player``) for a colour not playing, or when no
    player is given and it is nobody's turn (setup, game over).
    """
    colours = [p.colour for p in state.players]
    colour = args.get("player")
    if colour is None and state.turn is not None:
        colour = colours[state.turn]
    if colour not in colours:
        asked = "no player given and it is nobody's turn" if colour is None else repr(colour)
        raise Refused(
            "whose odds? {asked}: use ?player= one of {colours}",
            "bad-player",
            asked=asked,
            colours=", ".join(colours),
        )
    held = state.players[colours.index(colour)].letters
    return {
        "player": colour,
        "missing": [letter for letter in LETTERS if letter not in held],
        "face_down": sum(card == FACE_DOWN for card in state.cards),
        "squares": teufel_odds(state, colour),
    }


def said(state: State) -> list[dict[str, object]]:
    """What the last action did, in sentences (the view's ``events_said``)."""
    return events_said(state)
