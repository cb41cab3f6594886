"""A journal file looked at read-only (``diablotin doctor``), and set aside for a new one."""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..games.base import Said
from .errors import JournalError
from .files import is_damage, marker_path, versions_path
from .records import GAME_COLUMNS, json_of, record_of, text_of
from .schema import has_tables

log = logging.getLogger("controller.journal")


@dataclass(frozen=True)
class FileState:
    """What :func:`inspect_file` found: ``state`` is ``"missing"``, ``"empty"`` (no tables),
    ``"damaged"``, ``"unreadable"`` (permissions, locks) or ``"ok"``."""

    state: str
    detail: str = ""
    games: int = 0
    unreadable: tuple[str, ...] = ()
    """With ``full``: the rows that cannot be decoded (:func:`unreadable_rows`)."""


def inspect_file(path: str | Path, *, full: bool = False) -> FileState:
    """Look at a journal file read-only (never creates or changes it): ``PRAGMA
    quick_check``, or the full ``integrity_check`` and a decode of every row when ``full``
    (``diablotin doctor``)."""
    path = Path(path)
    if not path.exists():
        return FileState("missing")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error as exc:
        return FileState("unreadable", str(exc))
    try:
        check = "integrity_check(20)" if full else "quick_check(20)"
        rows = [row[0] for row in db.execute(f"PRAGMA {check}")]
        if rows != ["ok"]:
            return FileState("damaged", "; ".join(rows[:3]))
        if not has_tables(db):
            return FileState("empty", "no games table")
        (games,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        unreadable = tuple(unreadable_rows(db)) if full else ()
        return FileState("ok", "", int(games), unreadable)
    except sqlite3.DatabaseError as exc:
        return FileState("damaged" if is_damage(exc) else "unreadable", str(exc))
    finally:
        db.close()


def unreadable_rows(db: sqlite3.Connection, limit: int = 20) -> list[str]:
    """Decode every game's row, entries and settings; one line per row that cannot be read
    (``game 3: entry 5 cannot be read (not UTF-8 text)``), at most ``limit``. SQLite's own
    checks pass such a row: its bytes are sound, their meaning is not."""
    db.text_factory = text_of
    found: list[str] = []
    for row in db.execute(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id"):
        damaged = record_of(row).damaged
        if damaged is not None:
            found.append(f"game {row[0]}: {damaged}")
    for gid, seq, action in db.execute("SELECT game_id, seq, action FROM entries ORDER BY rowid"):
        try:
            json_of(action, dict)
        except ValueError as exc:
            found.append(f"game {gid}: entry {seq} cannot be read ({exc})")
    for gid, name, value in db.execute("SELECT game_id, name, value FROM settings"):
        try:
            json_of(value, object)
        except ValueError as exc:
            found.append(f"game {gid}: its setting {name} cannot be read ({exc})")
    return found[:limit]


def make_room(path: Path) -> None:
    """For ``new=True``: set a missing, empty or damaged journal aside (renamed, with its
    WAL) and drop the marker. Raises :class:`JournalError` for a journal with games."""
    found = inspect_file(path)
    if found.state == "ok" and found.games:
        raise JournalError(
            Said(
                "--new-journal: {path} holds {games} game(s) and is not damaged, so it is "
                "kept; move it away yourself first if you really want a new journal",
                path=path,
                games=found.games,
            )
        )
    if found.state == "unreadable":
        raise JournalError(
            Said("cannot read the journal {path}: {detail}", path=path, detail=found.detail)
        )
    if not path.exists():
        Path(f"{path}-shm").unlink(missing_ok=True)  # a lone -shm would refuse the new one
    if path.exists():
        label = "damaged" if found.state == "damaged" else "old"
        aside = f"{path}.{label}-{time.strftime('%Y%m%dT%H%M%S')}"
        for suffix in ("", "-wal", "-shm"):
            source = Path(str(path) + suffix)
            if source.exists():
                source.rename(aside + suffix)
        log.warning("new journal: the old one is kept as %s", aside)
    marker_path(path).unlink(missing_ok=True)
    versions_path(path).unlink(missing_ok=True)
