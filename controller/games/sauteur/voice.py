"""What the box says aloud in a Diable sauteur match: the devil moving, a figure caught or
home, the winner (:mod:`controller.announce` speaks it)."""

from __future__ import annotations

from collections.abc import Sequence

from controller.translation import Announcement, Voice

from .rules import OVER, SauteurState
from .state import Entry, History


def _entries(history: History) -> list[Entry]:
    """The stored history lines, newest first."""
    entries = []
    while history is not None:
        entries.append(history[0])
        history = history[1]
    return entries


def events(before: object, after: object, names: Sequence[str]) -> list[Announcement]:
    """The announcements of one change (``names``: p1's, p2's)."""
    if not (isinstance(before, SauteurState) and isinstance(after, SauteurState)):
        return []
    said: list[Announcement] = []
    entries, older = _entries(after.history), _entries(before.history)
    for entry in reversed(entries[: len(entries) - len(older)]):  # the new ones, in order
        kind, detail = entry[4], entry[5]
        if kind == "devil":
            squares, _, caught = detail
            said.append(("say.devil", {"n": squares}))
            said += [("say.capture", {"figure": ("figure", name)}) for name in caught]
        elif kind == "move" and detail[3]:
            said.append(("say.arrived", {"figure": ("figure", detail[0])}))
    if after.phase == OVER and before.phase != OVER:
        if after.winner in ("p1", "p2"):
            said.append(("say.wins", {"p": names[0 if after.winner == "p1" else 1]}))
        else:
            said.append(("say.over", {}))
    return said


VOICE = Voice(events)
