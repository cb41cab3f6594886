"""Reading what can still be read from a damaged journal (``diablotin export --raw``)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..games.base import Said
from .errors import JournalError
from .export import EXPORT_FORMAT
from .records import json_of, record_of, text_of


@dataclass
class Salvage:
    """What :func:`salvage` read: ``games`` as ``diablotin-game/1`` exports by game id,
    and ``problems``, one sentence each (rows lost, entries missing)."""

    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def salvage(path: str | Path) -> Salvage:
    """Read every game that can still be read from the journal at ``path``, even a damaged
    one (a copy is read; the file is not touched). Rows SQLite cannot read are skipped
    one by one and reported. Raises :class:`JournalError` if there is no such file."""
    path = Path(path)
    if not path.is_file():
        raise JournalError(Said("there is no journal at {path}", path=path))
    result = Salvage()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "journal.sqlite3"
        shutil.copyfile(path, copy)
        wal = Path(f"{path}-wal")
        if wal.exists():
            shutil.copyfile(wal, f"{copy}-wal")
        db = sqlite3.connect(copy)
        db.text_factory = text_of
        try:
            games = _salvage_rows(
                db, "games", "id, kind, options, title, created, finished", result
            )
            before = len(result.problems)
            entries = _salvage_rows(db, "entries", "game_id, seq, at, undo, action", result)
            entries_damaged = len(result.problems) > before
            last_seq = _last_seqs(db) if entries_damaged else {}
        finally:
            db.close()
    by_game: dict[int, list[tuple[Any, ...]]] = {}
    for row in entries:
        by_game.setdefault(row[0], []).append(row)
    for row in sorted(games, key=lambda r: r[0]):
        record = record_of(row)
        if record.damaged is not None:
            result.problems.append(f"game {row[0]}: {record.damaged}")
            by_game.pop(record.id, None)
            continue
        kept = []
        for _gid, seq, at, undo, action in sorted(by_game.pop(record.id, []), key=lambda r: r[1]):
            try:
                kept.append(
                    {"seq": seq, "at": at, "undo": bool(undo), "action": json_of(action, dict)}
                )
            except ValueError:
                result.problems.append(f"game {record.id}: entry {seq} cannot be read")
        seqs = {e["seq"] for e in kept}
        last = last_seq.get(record.id, max(seqs, default=0))
        missing = [n for n in range(1, last + 1) if n not in seqs]
        if entries_damaged and record.id not in last_seq:
            result.problems.append(
                f"game {record.id}: {len(kept)} entries read; later ones may be lost "
                "(the entries' index is damaged too)"
            )
        elif missing:
            result.problems.append(
                f"game {record.id}: {len(missing)} of {last} entries lost (the first lost is "
                f"entry {missing[0]}); the rest is saved"
            )
        result.games[record.id] = {
            "format": EXPORT_FORMAT,
            "kind": record.kind,
            "title": record.title,
            "options": record.options,
            "created": record.created,
            "finished": record.finished,
            "entries": kept,
        }
    for gid, rows in sorted(by_game.items()):
        result.problems.append(f"game {gid}: its setup is lost; {len(rows)} entries not saved")
    return result


def _last_seqs(db: sqlite3.Connection) -> dict[int, int]:
    """Each game's last entry number from the entries' index (``{}`` if it is damaged too)."""
    try:
        rows = db.execute(
            "SELECT game_id, MAX(seq) FROM entries"
            " INDEXED BY sqlite_autoindex_entries_1 GROUP BY game_id"
        )
        return {int(gid): int(last) for gid, last in rows}
    except sqlite3.Error:
        return {}


def _salvage_rows(
    db: sqlite3.Connection, table: str, columns: str, result: Salvage
) -> list[tuple[Any, ...]]:
    """Every readable row of ``table``: all at once, or else row by row (by rowid)."""
    try:
        return db.execute(f"SELECT {columns} FROM {table}").fetchall()
    except sqlite3.Error as exc:
        first_error = str(exc)
    try:
        (limit,) = db.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()
    except sqlite3.Error:
        try:
            (pages,) = db.execute("PRAGMA page_count").fetchone()
            (size,) = db.execute("PRAGMA page_size").fetchone()
        except sqlite3.Error as exc:
            result.problems.append(f"{table}: nothing can be read ({exc})")
            return []
        limit = pages * size // 16
    rows, lost = [], 0
    for rowid in range(1, (limit or 0) + 1):
        try:
            row = db.execute(f"SELECT {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            lost += 1
            continue
        if row is not None:
            rows.append(row)
    result.problems.append(
        f"{table}: damaged ({first_error}); read row by row, {len(rows)} read, {lost} unreadable"
    )
    return rows
