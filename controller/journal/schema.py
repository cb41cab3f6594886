"""The journal's tables, their version, migrations, and ids that are never given twice."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of a journal this code writes. 0: before versions (commit
3786bd4 and earlier); 1: the same tables, stamped (commit afb35ad); 2: adds the roster
(``players``), ``games.abandoned`` and ``box`` (which game holds the toy); 3: adds
``id_high``, the highest game and player id ever given, so that no id is given twice. Opening an
older journal backs it up beside itself (``<name>.schema<N>-<time>.bak``), then
migrates it in place."""
APPLICATION_ID = 0x44424C54
"""``PRAGMA application_id`` of a Diablotin journal ("DBLT")."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    options TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    finished REAL,
    abandoned REAL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    undo INTEGER NOT NULL DEFAULT 0,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (
    game_id INTEGER NOT NULL REFERENCES games(id),
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    mark TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS id_high (
    tbl TEXT PRIMARY KEY,
    last INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS box (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    game_id INTEGER REFERENCES games(id) ON DELETE SET NULL
);
"""

ID_TABLES = ("games", "players")
"""The tables whose ids are never given twice (``id_high`` keeps each one's highest)."""


def keep_mark(db: sqlite3.Connection, table: str) -> None:
    """Raise ``table``'s mark in ``id_high`` to its highest present id (before a delete, and
    for a journal from before schema 3). Call inside a write transaction."""
    assert table in ID_TABLES
    db.execute("INSERT OR IGNORE INTO id_high (tbl, last) VALUES (?, 0)", (table,))
    db.execute(
        f"UPDATE id_high SET last = max(last, (SELECT coalesce(max(id), 0) FROM {table}))"
        " WHERE tbl = ?",
        (table,),
    )


def next_id(db: sqlite3.Connection, table: str) -> int:
    """The id for a new row of ``table``: one past the highest ever given. Call inside the
    inserting transaction."""
    keep_mark(db, table)
    db.execute("UPDATE id_high SET last = last + 1 WHERE tbl = ?", (table,))
    return int(db.execute("SELECT last FROM id_high WHERE tbl = ?", (table,)).fetchone()[0])


def id_marks(db: sqlite3.Connection) -> dict[str, int]:
    """The highest id ever given per table of :data:`ID_TABLES` (0: none), from ``id_high``
    where the journal has it (schema 3) and from the rows themselves."""
    has_high = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'id_high'"
    ).fetchone()
    marks = {}
    for table in ID_TABLES:
        present = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        high = (
            db.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0] if present else 0
        )
        if has_high:
            row = db.execute("SELECT last FROM id_high WHERE tbl = ?", (table,)).fetchone()
            high = max(high, row[0] if row else 0)
        marks[table] = int(high)
    return marks


def raise_id_marks(db: sqlite3.Connection, marks: Mapping[str, int]) -> None:
    """Make sure no id up to ``marks[table]`` is given again (a restore keeps the marks of
    the journal it replaces: a game made after the backup keeps its id to itself)."""
    db.execute("CREATE TABLE IF NOT EXISTS id_high (tbl TEXT PRIMARY KEY, last INTEGER NOT NULL)")
    for table, last in marks.items():
        db.execute("INSERT OR IGNORE INTO id_high (tbl, last) VALUES (?, 0)", (table,))
        db.execute("UPDATE id_high SET last = max(last, ?) WHERE tbl = ?", (last, table))


def add_column(db: sqlite3.Connection, table: str, column: str, decl: str) -> None:
    """``ALTER TABLE table ADD COLUMN`` unless the column is there (a migration step)."""
    if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")


def has_tables(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'")
    return bool(row.fetchone()[0])


def create_or_migrate(db: sqlite3.Connection) -> None:
    """Set the connection's pragmas, create what is missing (tables, columns) and stamp
    :data:`SCHEMA_VERSION`: this migrates a journal of any older schema in place (back it up
    first)."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.executescript(SCHEMA)  # schema 0 -> 1: the same tables, now stamped
    add_column(db, "games", "abandoned", "REAL")  # schema 1 -> 2
    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
