"""What the box says aloud at the end of a tail-tile game: the winner, or that it is over
(:mod:`controller.announce` speaks it)."""

from __future__ import annotations

from collections.abc import Sequence

from controller.translation import Announcement, Voice

from .rules import TailsState, game_view


def events(before: object, after: object, names: Sequence[str]) -> list[Announcement]:
    """The announcements of one change (``names``: the seats', in seat order)."""
    if not (isinstance(before, TailsState) and isinstance(after, TailsState)):
        return []
    if not after.finished or before.finished:
        return []
    seats = game_view(after)["winning_seats"]
    if len(seats) == 1:
        return [("say.wins", {"p": names[seats[0]]})]
    return [("say.over", {})]


def seat_name(index: int) -> Announcement:
    """An unnamed seat: "Player 3"."""
    return "tails.player", {"n": index + 1}


VOICE = Voice(events, seat_name)
