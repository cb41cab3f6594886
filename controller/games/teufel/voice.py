"""What the box says aloud in a Teufel Teufel game: a player possessed, the end
(:mod:`controller.announce` speaks it)."""

from __future__ import annotations

from collections.abc import Sequence

from controller.translation import Announcement, Voice

from .state import State


def events(before: object, after: object, names: Sequence[str]) -> list[Announcement]:
    """The announcements of one change (seats are named by their colours)."""
    if not (isinstance(before, State) and isinstance(after, State)):
        return []
    said: list[Announcement] = [
        ("say.possessed", {"colour": ("teufel.colour", player.colour)})
        for old, player in zip(before.players, after.players, strict=True)
        if player.devil and not old.devil
    ]
    if after.pending.kind == "over" and before.pending.kind != "over":
        said.append(("say.over", {}))
    return said


VOICE = Voice(events)
