"""What the journal hands out (a game, a roster player, an entry) and how its rows are decoded.

A row that cannot be read (bytes that are not UTF-8, JSON that does not parse) becomes a game
with ``damaged`` set, or a ``ValueError`` saying what is wrong, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..games.base import Said, said_of

T = TypeVar("T")


@dataclass(frozen=True)
class GameRecord:
    id: int
    kind: str
    options: dict[str, Any]
    title: str
    created: float
    finished: float | None
    abandoned: float | None = None
    seats: list[dict[str, Any]] | None = None
    """Who sits where (``controller.players``), or ``None``: nobody was named."""
    damaged: Said | None = None
    """Why the game's row cannot be read (then ``options`` is empty), or ``None``."""


@dataclass(frozen=True)
class Player:
    """One of the referee's roster: a name (1-24 characters) and a mark (a colour
    ``#rrggbb`` or an emoji)."""

    id: int
    name: str
    mark: str
    created: float


@dataclass(frozen=True)
class Entry:
    seq: int
    at: float
    undo: bool
    action: dict[str, Any]


def effective_actions(entries: list[Entry]) -> list[dict[str, Any]]:
    """Fold undo markers: each removes the latest action still standing."""
    stack: list[dict[str, Any]] = []
    for entry in entries:
        if entry.undo:
            if stack:
                stack.pop()
        else:
            stack.append(entry.action)
    return stack


GAME_COLUMNS = (
    "id, kind, options, title, created, finished, abandoned, (SELECT value FROM settings"
    " WHERE settings.game_id = games.id AND settings.name = 'seats')"
)


def record_of(row: Sequence[object]) -> GameRecord:
    """A ``games`` row (``abandoned`` absent: a salvaged older journal's row). A row that
    cannot be read gives a record with ``damaged`` set (and empty options, and a time that is
    not a number as ``None``), never an exception."""
    gid, kind, options, title, created, finished, *rest = row
    assert isinstance(gid, int)  # INTEGER PRIMARY KEY: SQLite's rowid, always an integer
    abandoned = rest[0] if rest else None
    seats_json = rest[1] if len(rest) > 1 else None
    made, ended, left = _seconds(created), _seconds(finished), _seconds(abandoned)
    try:
        if not isinstance(kind, str) or isinstance(kind, Undecodable):
            raise ValueError(Said("its kind is not UTF-8 text"))
        if not isinstance(title, str) or isinstance(title, Undecodable):
            raise ValueError(Said("its title is not UTF-8 text"))
        if (
            made is None
            or (ended is None) != (finished is None)
            or (left is None) != (abandoned is None)
        ):
            raise ValueError(Said("a time is not a number"))
        setup = json_of(options, dict)
        seats = None if seats_json is None else json_of(seats_json, list)
    except ValueError as exc:
        why = Said("its setup cannot be read ({why})", why=said_of(exc))
        shown = title if isinstance(title, str) else ""
        return GameRecord(gid, str(kind), {}, shown, made or 0.0, ended, left, None, why)
    return GameRecord(gid, kind, setup, title, made, ended, left, seats)


def _seconds(value: object) -> float | None:
    """A stored time (seconds since 1970), or ``None`` when it is not a number."""
    return value if isinstance(value, int | float) else None


class Undecodable(str):
    """A TEXT value whose bytes are not UTF-8, as read with :func:`text_of` (the bad bytes
    replaced by U+FFFD): the row it is in counts as damaged."""


def text_of(raw: bytes) -> str:
    """The journal connection's ``text_factory``: UTF-8, or :class:`Undecodable` (a row with
    a bad byte is then one damaged game, not an exception that stops everything)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


def json_of(value: object, kind: type[T]) -> T:
    """A stored JSON text decoded, of type ``kind``; ``ValueError`` saying what is wrong
    (not UTF-8, not JSON, nested too deeply, another type)."""
    if isinstance(value, Undecodable):
        raise ValueError(Said("not UTF-8 text"))
    if not isinstance(value, str):
        raise ValueError(Said("not text"))
    try:
        decoded = json.loads(value)
    except RecursionError:
        raise ValueError(Said("nested too deeply")) from None
    except json.JSONDecodeError:
        raise ValueError(Said("not JSON")) from None
    if not isinstance(decoded, kind):
        raise ValueError(Said("not a JSON object") if kind is dict else Said("not a JSON list"))
    return decoded
