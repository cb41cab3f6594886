"""Copies of the journal: taken with SQLite's online backup API, so a copy is consistent
while the service journals (it holds the data dir's lock; a backup needs none), checked
before a restore, and taken daily by the service.

A Diablotin journal says what it is: ``PRAGMA application_id`` = :data:`APPLICATION_ID`
(journals from before schema 1 have 0 and the ``games``/``entries`` tables) and
``PRAGMA user_version`` = its schema version (:data:`controller.journal.SCHEMA_VERSION`).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path

from .games.base import Said
from .journal import APPLICATION_ID, SCHEMA_VERSION, id_marks, raise_id_marks, write_versions

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
BACKUP_DIR = "backups"
"""``<data dir>/backups/``: where ``diablotin backup`` and the daily backups go."""
DAILY_S = 24 * 3600


class BackupError(ValueError):
    """A file that cannot be restored (not a Diablotin journal, damaged, too new), or a
    copy that could not be made; the message says which and what to do."""


def default_backup_path(data_dir: Path, now: float | None = None, kind: str = "diablotin") -> Path:
    """``<data dir>/backups/<kind>-<YYYYmmdd-HHMMSS>.sqlite3`` (``daily`` for the service's)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return data_dir / BACKUP_DIR / f"{kind}-{stamp}.sqlite3"


def backup(journal: Path, target: Path) -> Path:
    """Copy the journal at ``journal`` to ``target`` (written whole, then renamed into
    place: a half-written copy never has the final name). Raises :class:`BackupError`."""
    if not journal.is_file():
        raise BackupError(Said("there is no journal at {journal}", journal=journal))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        source = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=10)
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            source.close()
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(
            Said("the backup to {target} failed: {exc}", target=target, exc=exc)
        ) from None
    return target


def check(path: Path) -> int:
    """The schema version of the journal copy at ``path``; :class:`BackupError` when it is
    not a readable SQLite file, not a Diablotin journal, damaged, or from a newer
    Diablotin."""
    try:
        with open(path, "rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise BackupError(
            Said("cannot read {path}: {value}", path=path, value=exc.strerror or exc)
        ) from None
    if header != SQLITE_HEADER:
        raise BackupError(Said("{path} is not a Diablotin journal (not an SQLite file)", path=path))
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            problems = [row[0] for row in db.execute("PRAGMA quick_check")]
            app = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise BackupError(
            Said("{path} is damaged or truncated: {exc}", path=path, exc=exc)
        ) from None
    if problems != ["ok"]:
        raise BackupError(
            Said("{path} is damaged: {names}", path=path, names="; ".join(problems[:3]))
        )
    if app not in (0, APPLICATION_ID) or not {"games", "entries"} <= tables:
        raise BackupError(Said("{path} is an SQLite file but not a Diablotin journal", path=path))
    if version > SCHEMA_VERSION:
        raise BackupError(
            Said(
                "{path} comes from a newer Diablotin (journal schema {version}; this one reads "
                "up to {newest}): update diablotin first",
                path=path,
                version=version,
                newest=SCHEMA_VERSION,
            )
        )
    return int(version)


def count(path: Path) -> tuple[int, int]:
    """``(games, players)`` in the journal copy at ``path`` (checked first with
    :func:`check`; a journal from before the roster has 0 players)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        players = 0
        if "players" in tables:
            players = db.execute("SELECT COUNT(*) FROM players").fetchone()[0]
    finally:
        db.close()
    return int(games), int(players)


def restore(source: Path, journal: Path) -> Path | None:
    """Put the copy at ``source`` in place of the journal at ``journal``, once
    :func:`check` passes. The current journal is kept as ``<journal>.bak`` (returned;
    ``None`` when there was none). Run it with the service stopped (the caller holds the
    data dir's lock). Raises :class:`BackupError`; the journal is then unchanged."""
    check(source)
    kept = None
    marks: dict[str, int] = {}
    if journal.exists():
        kept = journal.with_name(journal.name + ".bak")
        backup(journal, kept)
        marks = _id_marks(kept)
    for suffix in ("-wal", "-shm"):
        journal.with_name(journal.name + suffix).unlink(missing_ok=True)
    backup(source, journal)
    if marks:
        db = sqlite3.connect(journal)
        try:
            with db:
                raise_id_marks(db, marks)  # a game made after the copy keeps its id to itself
        finally:
            db.close()
    write_versions(journal)  # the restored games' versions: an older copy on purpose
    return kept


def _id_marks(path: Path) -> dict[str, int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return id_marks(db)
    finally:
        db.close()


def daily(journal: Path, data_dir: Path, keep: int, now: float | None = None) -> Path | None:
    """Take a ``daily-…`` backup into ``<data dir>/backups/`` unless the newest is less
    than a day old, then keep the newest ``keep`` daily ones (``keep`` 0: none taken;
    copies made with ``diablotin backup`` are never removed). Returns the new copy, or None."""
    if keep <= 0 or not journal.is_file():
        return None
    now = time.time() if now is None else now
    folder = data_dir / BACKUP_DIR
    copies = sorted(folder.glob("daily-*.sqlite3")) if folder.is_dir() else []
    made = None
    if not copies or now - copies[-1].stat().st_mtime >= DAILY_S:
        made = backup(journal, default_backup_path(data_dir, now, "daily"))
        copies = sorted(folder.glob("daily-*.sqlite3"))
        log.info("daily backup: %s", made)
    for old in copies[:-keep]:
        old.unlink(missing_ok=True)
    return made
