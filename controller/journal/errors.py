"""The journal's exceptions: each says what cannot be done and, for a damaged file, what to do."""

from __future__ import annotations

import errno

from ..games.base import Refused, Said


class JournalError(Exception):
    """A journal request that cannot be met (unknown game, bad export file)."""


class GameNotFound(JournalError, KeyError):
    pass


class BadExport(JournalError, ValueError):
    pass


class JournalDamaged(JournalError):
    """The journal file cannot be used: SQLite finds it damaged, or it is missing or
    empty while its marker says a journal existed. The message names the file and says
    what to do."""


class RowDamaged(JournalError, Refused):
    """A row of one game cannot be read (bytes that are not UTF-8, JSON that does not parse)
    although SQLite finds the file sound: that game is set aside as damaged (code
    ``damaged``), the others play on."""

    def __init__(self, game_id: int, what: Said) -> None:
        Refused.__init__(
            self,
            Said("game {game_id} is damaged: {reason}", game_id=game_id, reason=what),
            "damaged",
        )
        self.game_id = game_id
        self.what = what


class DiskFull(JournalError, OSError):
    """SQLite could not write: the disk (or the journal's size limit) is full. Nothing was
    written; the journal works again once there is room."""

    def __init__(self, message: str) -> None:
        OSError.__init__(self, errno.ENOSPC, message)

    def __str__(self) -> str:
        return str(self.strerror)


class DuplicateName(JournalError, ValueError):
    """Another roster player has this name (names are unique, case aside)."""
