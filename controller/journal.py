"""The durable action log: SQLite in WAL mode, one row per accepted entry.

A game is its kind, its setup options and its entries. An entry is either an
action (``{"type": ...}``) or an undo marker; the game's *effective* actions
are what remains after each undo removes the latest action still standing.
``append`` returns only after the row is committed with ``synchronous=FULL``:
an acknowledged action survives a power cut or ``kill -9``.

Thread-safe: one connection guarded by a lock (SQLite serialises writers anyway).
WAL checkpoints (copying the log back into the database, two more fsyncs) run on
a background thread with their own connection, never inside an ``append``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXPORT_FORMAT = "diablotin-game/1"
CHECKPOINT_EVERY = 200
"""Appends between two WAL checkpoints."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    options TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    finished REAL
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
"""


class JournalError(Exception):
    """A journal request that cannot be met (unknown game, bad export file)."""


class GameNotFound(JournalError, KeyError):
    pass


class BadExport(JournalError, ValueError):
    pass


@dataclass(frozen=True)
class GameRecord:
    id: int
    kind: str
    options: dict[str, Any]
    title: str
    created: float
    finished: float | None


@dataclass(frozen=True)
class Entry:
    seq: int
    at: float
    undo: bool
    action: dict[str, Any]


class Journal:
    """Open (or create) the journal at ``path`` (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()
        self._checkpoint_due = threading.Event()
        self._closing = False
        self._since_checkpoint = 0
        self._checkpointer: threading.Thread | None = None
        if self.path != ":memory:":
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, name="journal-checkpoint", daemon=True
            )
            self._checkpointer.start()

    def close(self) -> None:
        self._closing = True
        self._checkpoint_due.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
        with self._lock:
            self._db.close()

    def _checkpoint_loop(self, every: int = CHECKPOINT_EVERY) -> None:
        """Checkpoint the WAL after ``every`` appends (and once more at close)."""
        db = sqlite3.connect(self.path, check_same_thread=False)
        try:
            while not self._closing:
                self._checkpoint_due.wait()
                self._checkpoint_due.clear()
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass  # a busy or closed database: the next start checkpoints anyway
        finally:
            db.close()

    # -- games ---------------------------------------------------------------
    def create_game(self, kind: str, options: Mapping[str, Any], title: str = "") -> int:
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO games (kind, options, title, created) VALUES (?, ?, ?, ?)",
                (kind, json.dumps(dict(options), sort_keys=True), title, time.time()),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def game(self, game_id: int) -> GameRecord:
        row = self._one("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise GameNotFound(f"no game {game_id}")
        return _record(row)

    def games(self, *, finished: bool | None = None) -> list[GameRecord]:
        sql = "SELECT * FROM games"
        if finished is not None:
            sql += " WHERE finished IS " + ("NOT NULL" if finished else "NULL")
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id").fetchall()
        return [_record(r) for r in rows]

    def mark_finished(self, game_id: int, finished: bool = True) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE games SET finished = ? WHERE id = ?",
                (time.time() if finished else None, game_id),
            )

    def set_setting(self, game_id: int, name: str, value: Any) -> None:
        """Keep a per-game setting that is not a game action (e.g. computer seats)."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO settings (game_id, name, value) VALUES (?, ?, ?)",
                (game_id, name, json.dumps(value)),
            )

    def setting(self, game_id: int, name: str, default: Any = None) -> Any:
        row = self._one(
            "SELECT value FROM settings WHERE game_id = ? AND name = ?", (game_id, name)
        )
        return default if row is None else json.loads(row[0])

    # -- entries -------------------------------------------------------------
    def append(self, game_id: int, action: Mapping[str, Any], *, undo: bool = False) -> int:
        """Commit one entry durably; returns its sequence number (1, 2, ...)."""
        payload = json.dumps(dict(action), sort_keys=True, separators=(",", ":"))
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO entries (game_id, seq, at, undo, action) VALUES (?, ?, ?, ?, ?)",
                    (game_id, last + 1, time.time(), int(undo), payload),
                )
                self._db.execute("COMMIT")
                self._since_checkpoint += 1
                if self._since_checkpoint >= CHECKPOINT_EVERY:
                    self._since_checkpoint = 0
                    self._checkpoint_due.set()
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                raise GameNotFound(f"no game {game_id}") from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(last) + 1

    def entries(self, game_id: int) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, undo, action FROM entries WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
        return [Entry(seq, at, bool(undo), json.loads(action)) for seq, at, undo, action in rows]

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The effective action list: every action not taken back by an undo."""
        return effective_actions(self.entries(game_id))

    # -- export / import -------------------------------------------------------
    def export(self, game_id: int) -> dict[str, Any]:
        """A self-contained record of the game (setup, every entry), as JSON data."""
        game = self.game(game_id)
        return {
            "format": EXPORT_FORMAT,
            "kind": game.kind,
            "title": game.title,
            "options": game.options,
            "created": game.created,
            "finished": game.finished,
            "entries": [
                {"seq": e.seq, "at": e.at, "undo": e.undo, "action": e.action}
                for e in self.entries(game_id)
            ],
        }

    def import_game(self, data: Mapping[str, Any]) -> int:
        """Store an exported game as a new game; returns its id. Raises :class:`BadExport`."""
        check_export(data)
        game_id = self.create_game(data["kind"], data["options"], data.get("title", ""))
        with self._lock, self._db:
            self._db.executemany(
                "INSERT INTO entries (game_id, seq, at, undo, action) VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        game_id,
                        i + 1,
                        float(e.get("at", 0.0)),
                        int(bool(e.get("undo"))),
                        json.dumps(e["action"], sort_keys=True, separators=(",", ":")),
                    )
                    for i, e in enumerate(data["entries"])
                ],
            )
            if data.get("finished"):
                self._db.execute(
                    "UPDATE games SET finished = ? WHERE id = ?", (data["finished"], game_id)
                )
        return game_id

    def _one(self, sql: str, params: tuple[Any, ...]) -> Any:
        with self._lock:
            return self._db.execute(sql, params).fetchone()


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


def check_export(data: Any) -> None:
    """Raise :class:`BadExport` naming the first thing wrong with an export file."""
    if not isinstance(data, Mapping):
        raise BadExport("an export file is a JSON object")
    if data.get("format") != EXPORT_FORMAT:
        raise BadExport(f"format must be {EXPORT_FORMAT!r}, got {data.get('format')!r}")
    if not isinstance(data.get("kind"), str):
        raise BadExport("kind must be a game name")
    if not isinstance(data.get("options"), Mapping):
        raise BadExport("options must be an object")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise BadExport("entries must be a list")
    for i, e in enumerate(entries, 1):
        if not isinstance(e, Mapping) or not isinstance(e.get("action"), Mapping):
            raise BadExport(f"entry {i}: needs an 'action' object")
        if not e.get("undo") and not isinstance(e["action"].get("type"), str):
            raise BadExport(f"entry {i}: an action needs a 'type'")


def _record(row: tuple[Any, ...]) -> GameRecord:
    gid, kind, options, title, created, finished = row
    return GameRecord(gid, kind, json.loads(options), title, created, finished)
