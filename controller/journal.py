"""The durable action log: SQLite in WAL mode, one row per accepted entry.

A game is its kind, its setup options and its entries. An entry is either an
action (``{"type": ...}``) or an undo marker; the game's *effective* actions
are what remains after each undo removes the latest action still standing.
``append`` returns only after the row is committed with ``synchronous=FULL``:
an acknowledged action survives a power cut or ``kill -9``.

Thread-safe: one connection guarded by a lock (SQLite serialises writers anyway).
WAL checkpoints (copying the log back into the database, two more fsyncs) run on
a background thread with their own connection, never inside an ``append``; a
failed checkpoint is retried with backoff and reported by :meth:`Journal.health`.

Opening a journal file checks it (``PRAGMA quick_check``) and refuses a damaged one
(:class:`JournalDamaged`, naming the file and what to do). A marker file beside the
journal (``<journal>.marker``) records that a journal existed: a journal that is then
missing, empty or without its tables is refused too, instead of starting empty. A journal
whose write-ahead log was lost after an unclean stop (the ``-shm`` file without its ``-wal``,
or less than ``<journal>.versions`` says it held) is refused as well (:func:`write_versions`).
A row that cannot be read although the file is sound (not UTF-8, not JSON) makes only its game
damaged (:class:`RowDamaged`, :attr:`GameRecord.damaged`).
:func:`salvage` reads what it can from a damaged file (``diablotin export --raw``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import math
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .games.base import Refused, Said, said_of
from .text import NAME_MAX, NOTE_MAX, TITLE_MAX, TextRefused, clean_text

log = logging.getLogger(__name__)
T = TypeVar("T")

EXPORT_FORMAT = "diablotin-game/1"
CHECKPOINT_EVERY = 200
"""Writes (actions, renames, settings, roster changes, ...) between two WAL checkpoints."""
CHECKPOINT_RETRY_S = (1.0, 60.0)
"""A failed checkpoint is retried after 1 s, then twice as long each time, at most 60 s
(or sooner, after the next ``CHECKPOINT_EVERY`` writes)."""
MAX_EXPORT_BYTES = 1024 * 1024
"""The largest export file read (as the API's largest request body)."""
MAX_ENTRIES = 20_000
"""The most entries an imported game may have (a long Diable sauteur game has ~1,000)."""
MAX_DEPTH = 8
"""How deeply an imported game's options or actions may nest lists and objects."""
VALUE_MAX = NOTE_MAX
"""The longest string in an imported game's options or actions (characters)."""
MARKER_SUFFIX = ".marker"
"""``diablotin.sqlite3.marker``: a journal existed here (see the module's doc)."""
VERSIONS_SUFFIX = ".versions"
"""``diablotin.sqlite3.versions``: each game's last entry and the highest ids given, as the
journal last held them (see :func:`write_versions`)."""
VERSIONS_DELAY_S = 0.5
"""The versions file is written at most this long after a write (off the request path,
without fsync: it needs to survive a killed process, not a power cut)."""
NEW_JOURNAL_HINT = "`diablotin serve --new-journal`"

SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of a journal this code writes. 0: before versions (commit
3786bd4 and earlier); 1: the same tables, stamped (commit afb35ad); 2: adds the roster
(``players``), ``games.abandoned`` and ``box`` (which game holds the toy); 3: adds
``id_high``, the highest game and player id ever given, so that no id is given twice. Opening an
older journal backs it up beside itself (``<name>.schema<N>-<time>.bak``), then
migrates it in place."""
APPLICATION_ID = 0x44424C54
"""``PRAGMA application_id`` of a Diablotin journal ("DBLT")."""

_SCHEMA = """
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


class DuplicateName(JournalError, ValueError):
    """Another roster player has this name (names are unique, case aside)."""


@dataclass(frozen=True)
class Entry:
    seq: int
    at: float
    undo: bool
    action: dict[str, Any]


ID_TABLES = ("games", "players")
"""The tables whose ids are never given twice (``id_high`` keeps each one's highest)."""


def _keep_mark(db: sqlite3.Connection, table: str) -> None:
    """Raise ``table``'s mark in ``id_high`` to its highest present id (before a delete, and
    for a journal from before schema 3). Call inside a write transaction."""
    assert table in ID_TABLES
    db.execute("INSERT OR IGNORE INTO id_high (tbl, last) VALUES (?, 0)", (table,))
    db.execute(
        f"UPDATE id_high SET last = max(last, (SELECT coalesce(max(id), 0) FROM {table}))"
        " WHERE tbl = ?",
        (table,),
    )


def _next_id(db: sqlite3.Connection, table: str) -> int:
    """The id for a new row of ``table``: one past the highest ever given. Call inside the
    inserting transaction."""
    _keep_mark(db, table)
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


def marker_path(path: str | Path) -> Path:
    """The marker file beside the journal at ``path``."""
    return Path(str(path) + MARKER_SUFFIX)


def _is_full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", 0) == 13


def _damage(exc: sqlite3.Error) -> bool:
    """SQLITE_CORRUPT or SQLITE_NOTADB (not a busy, locked or unreadable file)."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in (11, 26)


class Journal:
    """Open (or create) the journal at ``path`` (``":memory:"`` for tests).

    Raises :class:`JournalDamaged` for a damaged file, or one that is missing or empty
    while its marker says it existed. ``new``: start a new journal deliberately when the
    file is missing, empty or damaged (a damaged file is renamed ``<name>.damaged-<time>``,
    never deleted); a journal holding games is never replaced.
    """

    def __init__(self, path: str | Path, *, new: bool = False) -> None:
        self.path = str(path)
        self._file = None if self.path == ":memory:" else Path(path)
        if self._file is not None:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            if new:
                _make_room(self._file)
            _refuse_if_lost(self._file, before_open=True)
            _refuse_if_wal_lost(self._file)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.text_factory = _text_of
        try:
            self._setup()
        except BaseException:
            self._db.close()
            raise
        self._lock = threading.Lock()
        self._checkpoint_due = threading.Event()
        self._closing = False
        self._since_checkpoint = 0
        self._checkpoint_failures = 0
        self._checkpoint_problem: str | None = None
        self._checkpoints = 0
        self._disk_full_since: float | None = None
        self._checkpointer: threading.Thread | None = None
        self._versions_due = threading.Event()
        self._stopping = threading.Event()
        self._versions_writer: threading.Thread | None = None
        if self._file is not None:
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, name="journal-checkpoint", daemon=True
            )
            self._checkpointer.start()
            self._versions_writer = threading.Thread(
                target=self._versions_loop, name="journal-versions", daemon=True
            )
            self._versions_writer.start()

    def _setup(self) -> None:
        """Check the file, set the pragmas, create the tables, leave the marker."""
        db = self._db
        try:
            if self._file is not None:
                problems = [row[0] for row in db.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise JournalDamaged(damaged_message(self._file, "; ".join(problems[:3])))
                if not _has_tables(db):
                    _refuse_if_lost(self._file, before_open=False)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise JournalError(
                    Said(
                        "the journal {path} was written by a newer diablotin (schema {version}; "
                        "this one reads up to {newest}): update diablotin",
                        path=self.path,
                        version=version,
                        newest=SCHEMA_VERSION,
                    )
                )
            if version < SCHEMA_VERSION and self._file is not None and _has_tables(db):
                self._back_up_before_migrating(version)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)  # schema 0 -> 1: the same tables, now stamped
            _add_column(db, "games", "abandoned", "REAL")  # schema 1 -> 2
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            if self._file is not None:
                db.execute("PRAGMA wal_autocheckpoint=0")
        except sqlite3.DatabaseError as exc:
            if self._file is not None and _damage(exc):
                raise JournalDamaged(damaged_message(self._file, str(exc))) from None
            if _is_full(exc):
                raise DiskFull(
                    Said("cannot open the journal {path}: the disk is full", path=self.path)
                ) from None
            raise JournalError(
                Said("cannot open the journal {path}: {exc}", path=self.path, exc=exc)
            ) from None
        if self._file is not None:
            marker = marker_path(self._file)
            if not marker.exists():
                marker.write_text(_marker_text(self._file), encoding="utf-8")
            lost = _versions_lost(self._file, db)
            if lost is not None:
                raise JournalDamaged(lost)
            try:
                write_versions(self._file, db)  # after a migration too
            except OSError as exc:  # a full disk: the old file stays, a lower bound
                log.warning("cannot write %s (%s)", versions_path(self._file), exc)

    def _back_up_before_migrating(self, version: int) -> None:
        """Copy the journal (online backup API) before it is migrated from ``version``."""
        assert self._file is not None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = self._file.with_name(f"{self._file.name}.schema{version}-{stamp}.bak")
        copy = sqlite3.connect(kept)
        try:
            self._db.backup(copy)
        finally:
            copy.close()
        log.warning(
            "journal %s: schema %d migrated to %d; the old file is kept as %s",
            self.path,
            version,
            SCHEMA_VERSION,
            kept,
        )

    def close(self) -> None:
        self._closing = True
        self._checkpoint_due.set()
        self._stopping.set()
        self._versions_due.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
        if self._versions_writer is not None:
            self._versions_writer.join(timeout=5)
        with self._lock:
            if self._file is not None:
                with contextlib.suppress(sqlite3.Error, OSError):
                    write_versions(self._file, self._db)
            self._db.close()

    def _versions_loop(self) -> None:
        """Write the versions file (:func:`write_versions`) :data:`VERSIONS_DELAY_S` after a
        write, from this thread's own connection; a failure is logged, never raised."""
        assert self._file is not None
        db: sqlite3.Connection | None = None
        warned = False
        while not self._stopping.is_set():
            self._versions_due.wait()
            if self._stopping.wait(VERSIONS_DELAY_S):  # a burst of writes: one file
                break
            self._versions_due.clear()
            try:
                if db is None:
                    db = sqlite3.connect(self.path, check_same_thread=False, timeout=1.0)
                write_versions(self._file, db)
                warned = False
            except (sqlite3.Error, OSError) as exc:
                if not warned:
                    log.warning("cannot write %s (%s)", versions_path(self._file), exc)
                warned = True
        if db is not None:
            db.close()

    # -- checkpoints -----------------------------------------------------------
    def _checkpoint_connection(self) -> sqlite3.Connection:
        """The checkpoint thread's own connection (tests wrap it to inject failures)."""
        return sqlite3.connect(self.path, check_same_thread=False, timeout=1.0)

    def _checkpoint_loop(self) -> None:
        """Checkpoint the WAL after ``CHECKPOINT_EVERY`` writes, and once more at close.

        A failure (disk full, I/O error, a lock) never ends the thread: it is logged,
        reported by :meth:`health`, and retried after ``CHECKPOINT_RETRY_S`` backoff.
        """
        db: sqlite3.Connection | None = None
        while True:
            retry_s = None
            if self._checkpoint_failures:
                first, most = CHECKPOINT_RETRY_S
                retry_s = min(most, first * 2 ** (self._checkpoint_failures - 1))
            self._checkpoint_due.wait(retry_s)
            self._checkpoint_due.clear()
            closing = self._closing
            try:
                if db is None:
                    db = self._checkpoint_connection()
                mode = "TRUNCATE" if closing else "PASSIVE"
                db.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
            except sqlite3.Error as exc:
                self._checkpoint_failures += 1
                self._checkpoint_problem = (
                    f"the journal's WAL checkpoint failed {self._checkpoint_failures} time(s) "
                    f"in a row ({exc}); retrying"
                )
                log.warning("%s", self._checkpoint_problem)
                if db is not None:
                    db.close()
                    db = None
            else:
                self._checkpoints += 1
                if self._checkpoint_failures:
                    log.info("the journal's WAL checkpoint works again")
                self._checkpoint_failures = 0
                self._checkpoint_problem = None
            if closing:
                break
        if db is not None:
            db.close()

    def health(self) -> dict[str, Any]:
        """``{"ok", "warnings": [sentences], "wal_bytes", "checkpoints",
        "checkpoint_failures"}``: what ``GET /api/box`` shows under ``journal``."""
        warnings = []
        if self._checkpoint_problem:
            warnings.append(self._checkpoint_problem)
        if self._disk_full_since is not None:
            warnings.append(
                "the box's disk is full: actions are refused until there is room "
                f"(since {time.strftime('%H:%M:%S', time.localtime(self._disk_full_since))})"
            )
        wal = 0
        if self._file is not None:
            try:
                wal = os.stat(self.path + "-wal").st_size
            except OSError:
                wal = 0
        return {
            "ok": not warnings,
            "warnings": warnings,
            "wal_bytes": wal,
            "checkpoints": self._checkpoints,
            "checkpoint_failures": self._checkpoint_failures,
        }

    # -- writing ---------------------------------------------------------------
    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction: committed whole or not at
        all. SQLITE_FULL becomes :class:`DiskFull` (SQLite has rolled back by itself then)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                result = work(self._db)
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if _is_full(exc):
                    if self._disk_full_since is None:
                        self._disk_full_since = time.time()
                    log.warning("journal write refused: the disk is full (%s)", exc)
                    raise DiskFull(
                        Said(
                            "the box's disk is full: nothing was recorded; free some space (see "
                            "docs/install-pi.md, Troubleshooting) and try again"
                        )
                    ) from None
                raise
            if self._disk_full_since is not None:
                log.info("the journal can write again")
                self._disk_full_since = None
            self._versions_due.set()
            self._since_checkpoint += 1
            if self._since_checkpoint >= CHECKPOINT_EVERY:
                self._since_checkpoint = 0
                self._checkpoint_due.set()
        return result

    # -- games ---------------------------------------------------------------
    def create_game(
        self,
        kind: str,
        options: Mapping[str, Any],
        title: str = "",
        settings: Mapping[str, Any] | None = None,
    ) -> int:
        """Store a new game with its first per-game ``settings`` (seats, computer seats),
        in one transaction; returns its id."""
        options_json = json.dumps(dict(options), sort_keys=True)

        def insert(db: sqlite3.Connection) -> int:
            game_id = _next_id(db, "games")
            db.execute(
                "INSERT INTO games (id, kind, options, title, created) VALUES (?, ?, ?, ?, ?)",
                (game_id, kind, options_json, title, time.time()),
            )
            db.executemany(
                "INSERT INTO settings (game_id, name, value) VALUES (?, ?, ?)",
                [(game_id, k, json.dumps(v)) for k, v in (settings or {}).items()],
            )
            return game_id

        return self._write(insert)

    def game(self, game_id: int) -> GameRecord:
        row = self._one(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise GameNotFound(Said("no game {game_id}", game_id=game_id))
        return _record(row)

    def games(self, *, finished: bool | None = None) -> list[GameRecord]:
        sql = f"SELECT {_GAME_COLUMNS} FROM games"
        if finished is not None:
            sql += " WHERE finished IS " + ("NOT NULL" if finished else "NULL")
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id").fetchall()
        return [_record(r) for r in rows]

    def mark_finished(self, game_id: int, finished: bool = True) -> None:
        self._write(
            lambda db: db.execute(
                "UPDATE games SET finished = ? WHERE id = ?",
                (time.time() if finished else None, game_id),
            )
        )

    def abandon(self, game_id: int) -> None:
        """Mark a game abandoned (kept, out of play and out of the stats); raises
        :class:`GameNotFound`."""
        self.game(game_id)
        now = time.time()
        self._write(
            lambda db: db.execute(
                "UPDATE games SET abandoned = ?, finished = COALESCE(finished, ?) WHERE id = ?",
                (now, now, game_id),
            )
        )

    def rename(self, game_id: int, title: str) -> None:
        """Give a game a new title (already checked by ``controller.text``)."""
        self.game(game_id)
        self._write(
            lambda db: db.execute("UPDATE games SET title = ? WHERE id = ?", (title, game_id))
        )

    def delete_game(self, game_id: int) -> None:
        """Remove a game with its entries and settings, in one transaction (a backup
        taken before still holds it); raises :class:`GameNotFound`."""
        self.game(game_id)

        def delete(db: sqlite3.Connection) -> None:
            _keep_mark(db, "games")
            db.execute("DELETE FROM entries WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM settings WHERE game_id = ?", (game_id,))
            db.execute("UPDATE box SET game_id = NULL WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))

        self._write(delete)

    # -- the box's owner -------------------------------------------------------
    def box_game(self) -> int | None:
        """The id of the game the referee put on the box, if any."""
        row = self._one("SELECT game_id FROM box WHERE one = 1", ())
        return None if row is None else row[0]

    def set_box_game(self, game_id: int | None) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO box (one, game_id) VALUES (1, ?)", (game_id,)
            )
        )

    # -- the roster ---------------------------------------------------------------
    def players(self) -> list[Player]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, mark, created FROM players ORDER BY name COLLATE NOCASE"
            ).fetchall()
        return [Player(*row) for row in rows]

    def player(self, player_id: int) -> Player | None:
        row = self._one("SELECT id, name, mark, created FROM players WHERE id = ?", (player_id,))
        return None if row is None else Player(*row)

    def save_player(self, name: str, mark: str, player_id: int | None = None) -> int:
        """Add a player (``player_id`` None) or change one; returns the id. Raises
        :class:`DuplicateName` when another player has that name (case aside)."""

        def write(db: sqlite3.Connection) -> int:
            if player_id is None:
                new_id = _next_id(db, "players")
                db.execute(
                    "INSERT INTO players (id, name, mark, created) VALUES (?, ?, ?, ?)",
                    (new_id, name, mark, time.time()),
                )
                return new_id
            db.execute(
                "UPDATE players SET name = ?, mark = ? WHERE id = ?", (name, mark, player_id)
            )
            return player_id

        try:
            return self._write(write)
        except sqlite3.IntegrityError:
            raise DuplicateName(name) from None

    def delete_player(self, player_id: int) -> None:
        """Remove a roster player; past games keep the name they were played under (their
        seats hold it). The id is never given again. Raises :class:`JournalError` when there
        is no such player."""

        def delete(db: sqlite3.Connection) -> None:
            _keep_mark(db, "players")
            if db.execute("DELETE FROM players WHERE id = ?", (player_id,)).rowcount == 0:
                raise JournalError(Said("no player {player_id}", player_id=player_id))

        self._write(delete)

    def set_setting(self, game_id: int, name: str, value: Any) -> None:
        """Keep a per-game setting that is not a game action (e.g. computer seats)."""
        self._write(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO settings (game_id, name, value) VALUES (?, ?, ?)",
                (game_id, name, json.dumps(value)),
            )
        )

    def setting(self, game_id: int, name: str, default: Any = None) -> Any:
        row = self._one(
            "SELECT value FROM settings WHERE game_id = ? AND name = ?", (game_id, name)
        )
        if row is None:
            return default
        try:
            return _json_of(row[0], object)
        except ValueError as exc:
            raise RowDamaged(
                game_id,
                Said("its setting {name} cannot be read ({why})", name=name, why=said_of(exc)),
            ) from None

    # -- entries -------------------------------------------------------------
    def append(self, game_id: int, action: Mapping[str, Any], *, undo: bool = False) -> int:
        """Commit one entry durably; returns its sequence number (1, 2, ...).

        Raises :class:`GameNotFound` or :class:`DiskFull`; either way nothing is written."""
        payload = json.dumps(dict(action), sort_keys=True, separators=(",", ":"))

        def insert(db: sqlite3.Connection) -> int:
            (last,) = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO entries (game_id, seq, at, undo, action) VALUES (?, ?, ?, ?, ?)",
                (game_id, last + 1, time.time(), int(undo), payload),
            )
            return int(last) + 1

        try:
            return self._write(insert)
        except sqlite3.IntegrityError:
            raise GameNotFound(Said("no game {game_id}", game_id=game_id)) from None

    def entries(self, game_id: int) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, undo, action FROM entries WHERE game_id = ? ORDER BY seq",
                (game_id,),
            ).fetchall()
        entries = []
        for seq, at, undo, action in rows:
            try:
                entries.append(Entry(seq, at, bool(undo), _json_of(action, dict)))
            except ValueError as exc:
                raise RowDamaged(
                    game_id, Said("entry {seq} cannot be read ({why})", seq=seq, why=said_of(exc))
                ) from None
        return entries

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The effective action list: every action not taken back by an undo."""
        return effective_actions(self.entries(game_id))

    # -- export / import -------------------------------------------------------
    def export(self, game_id: int) -> dict[str, Any]:
        """A self-contained record of the game (setup, every entry), as JSON data. Raises
        :class:`GameNotFound`, or :class:`RowDamaged` when one of its rows cannot be read
        (``diablotin export --raw`` saves what can be)."""
        game = self.game(game_id)
        if game.damaged is not None:
            raise RowDamaged(game_id, game.damaged)
        return {
            "format": EXPORT_FORMAT,
            "kind": game.kind,
            "title": game.title,
            "options": game.options,
            "created": game.created,
            "finished": game.finished,
            "abandoned": game.abandoned,
            "seats": game.seats,
            "entries": [
                {"seq": e.seq, "at": e.at, "undo": e.undo, "action": e.action}
                for e in self.entries(game_id)
            ],
        }

    def import_game(self, data: Mapping[str, Any]) -> int:
        """Store an exported game as a new game, all or nothing; returns its id.

        Raises :class:`BadExport` (see :func:`check_export`; nothing is stored) or
        :class:`DiskFull`. The rules are not consulted: replay it first (the service and
        the CLI do, with :mod:`controller.importing`)."""
        game = check_export(data)
        rows = [
            (
                i,
                e["at"],
                int(e["undo"]),
                json.dumps(e["action"], sort_keys=True, separators=(",", ":")),
            )
            for i, e in enumerate(game["entries"], 1)
        ]
        options = json.dumps(game["options"], sort_keys=True)

        def insert(db: sqlite3.Connection) -> int:
            game_id = _next_id(db, "games")
            db.execute(
                "INSERT INTO games (id, kind, options, title, created, finished, abandoned)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    game["kind"],
                    options,
                    game["title"],
                    time.time(),
                    game["finished"],
                    game["abandoned"],
                ),
            )
            if game["seats"] is not None:
                db.execute(
                    "INSERT INTO settings (game_id, name, value) VALUES (?, 'seats', ?)",
                    (game_id, json.dumps(game["seats"])),
                )
            db.executemany(
                "INSERT INTO entries (game_id, seq, at, undo, action) VALUES (?, ?, ?, ?, ?)",
                [(game_id, *row) for row in rows],
            )
            return game_id

        return self._write(insert)

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


def parse_export(raw: bytes) -> dict[str, Any]:
    """An export file's bytes as checked export data (see :func:`check_export`).

    Raises :class:`BadExport` with a one-line reason: too large, not UTF-8, not JSON,
    nested too deeply, a number JSON cannot hold (NaN, infinity, 5000 digits), or any
    problem :func:`check_export` finds."""
    if len(raw) > MAX_EXPORT_BYTES:
        raise BadExport(
            Said(
                "the file is larger than {limit} bytes",
                limit=MAX_EXPORT_BYTES,
            )
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadExport(
            Said("the file is not UTF-8 text (byte {start})", start=exc.start)
        ) from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise BadExport(Said("the file is nested too deeply to be an export")) from None
    except json.JSONDecodeError as exc:
        raise BadExport(
            Said("the file is not JSON ({msg}, line {lineno})", msg=exc.msg, lineno=exc.lineno)
        ) from None
    except ValueError as exc:  # NaN/Infinity, an integer of thousands of digits
        raise BadExport(
            Said("the file holds a number JSON cannot carry ({exc})", exc=said_of(exc))
        ) from None
    return check_export(data)


def _refuse_constant(name: str) -> Any:
    raise ValueError(Said("{name} is not a finite number", name=name))


def check_export(data: Any) -> dict[str, Any]:
    """The export ``data`` checked and normalised; raises :class:`BadExport` naming the
    first thing wrong. Every text (title, and each string in the options and actions)
    passes :func:`controller.text.clean_text`; values are plain JSON, finite numbers,
    at most ``MAX_DEPTH`` deep; at most ``MAX_ENTRIES`` entries. The rules are not
    consulted: replaying is the caller's check."""
    if not isinstance(data, Mapping):
        raise BadExport(Said("an export file is a JSON object"))
    if data.get("format") != EXPORT_FORMAT:
        shown = data.get("format")
        shown = shown if isinstance(shown, str | int | None) and len(str(shown)) < 40 else "?"
        raise BadExport(
            Said(
                "format must be {form!r}, got {shown!r}",
                form=EXPORT_FORMAT,
                shown=shown,
            )
        )
    kind = _text(data.get("kind"), "kind", 32)
    title = _text(data.get("title", ""), "title", TITLE_MAX, allow_empty=True)
    options = data.get("options")
    if not isinstance(options, Mapping):
        raise BadExport(Said("options must be an object"))
    _plain_json(options, "options")
    created = _number(data.get("created", 0.0), "created")
    finished = data.get("finished")
    finished = None if finished is None else _number(finished, "finished")
    abandoned = data.get("abandoned")
    abandoned = None if abandoned is None else _number(abandoned, "abandoned")
    seats = _seats(data.get("seats"))
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise BadExport(Said("entries must be a list"))
    if len(entries) > MAX_ENTRIES:
        raise BadExport(
            Said(
                "a game has at most {limit} entries, this one {count}",
                limit=MAX_ENTRIES,
                count=len(entries),
            )
        )
    checked = []
    for i, e in enumerate(entries, 1):
        if not isinstance(e, Mapping) or not isinstance(e.get("action"), Mapping):
            raise BadExport(Said("entry {i}: needs an 'action' object", i=i))
        undo = e.get("undo", False)
        if not isinstance(undo, bool):
            raise BadExport(Said("entry {i}: undo must be true or false", i=i))
        action = e["action"]
        _plain_json(action, f"entry {i}: action")
        if not undo and not isinstance(action.get("type"), str):
            raise BadExport(Said("entry {i}: an action needs a 'type'", i=i))
        at = _number(e.get("at", 0.0), f"entry {i}: at")
        checked.append({"at": at, "undo": undo, "action": dict(action)})
    return {
        "format": EXPORT_FORMAT,
        "kind": kind,
        "title": title,
        "options": dict(options),
        "created": created,
        "finished": finished,
        "abandoned": abandoned,
        "seats": seats,
        "entries": checked,
    }


def _seats(value: Any) -> list[dict[str, Any]] | None:
    """An export's seats, checked: names by the free-text policy; a roster player's id is
    dropped (the importing box has its own roster), the name kept."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 8:
        raise BadExport(Said("seats must be a list of at most 8 seats"))
    seats = []
    for i, seat in enumerate(value, 1):
        if not isinstance(seat, Mapping):
            raise BadExport(Said("seat {i}: must be an object", i=i))
        name, mark, computer = seat.get("name"), seat.get("mark"), seat.get("computer")
        seats.append(
            {
                "key": _text(seat.get("key"), f"seat {i}: key", 32),
                "name": None if name is None else _text(name, f"seat {i}: name", NAME_MAX),
                "mark": None if mark is None else _text(mark, f"seat {i}: mark", 8),
                "player": None,
                "computer": None
                if computer is None
                else _text(computer, f"seat {i}: computer", 16),
            }
        )
    return seats


def _text(value: Any, field: str, max_len: int, allow_empty: bool = False) -> str:
    try:
        return clean_text(value, field=field, max_len=max_len, allow_empty=allow_empty)
    except TextRefused as exc:
        raise BadExport(said_of(exc)) from None


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadExport(Said("{field} must be a number (seconds since 1970)", field=field))
    if not math.isfinite(value) or abs(value) > 1e12:
        raise BadExport(Said("{field} is not a finite number of seconds", field=field))
    return float(value)


def _plain_json(value: Any, where: str) -> None:
    """Refuse anything but JSON values (finite numbers, clean strings of at most
    ``VALUE_MAX`` characters) nested at most ``MAX_DEPTH`` deep. Iterative: a hostile
    nesting cannot exhaust the stack."""
    stack: list[tuple[Any, str, int]] = [(value, where, 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadExport(
                Said("{where} is nested more than {limit} deep", where=where, limit=MAX_DEPTH)
            )
        if isinstance(item, str):
            _text(item, path, VALUE_MAX, allow_empty=True)
        elif isinstance(item, bool) or item is None or isinstance(item, int):
            pass
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise BadExport(Said("{path} is not a finite number", path=path))
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                _text(key, f"{path} key", VALUE_MAX)
                stack.append((sub, f"{path}.{key}"[:80], depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{n}]"[:80], depth + 1) for n, sub in enumerate(item))
        else:
            raise BadExport(
                Said(
                    "{path} holds a value that is not JSON ({kind})",
                    path=path,
                    kind=type(item).__name__,
                )
            )


def _record(row: tuple[Any, ...]) -> GameRecord:
    """A ``games`` row (``abandoned`` absent: a salvaged older journal's row). A row that
    cannot be read gives a record with ``damaged`` set (and empty options), never an
    exception."""
    gid, kind, options, title, created, finished, *rest = row
    abandoned = rest[0] if rest else None
    seats_json = rest[1] if len(rest) > 1 else None
    try:
        if not isinstance(kind, str) or isinstance(kind, Undecodable):
            raise ValueError(Said("its kind is not UTF-8 text"))
        if not isinstance(title, str) or isinstance(title, Undecodable):
            raise ValueError(Said("its title is not UTF-8 text"))
        if not all(isinstance(n, int | float) for n in (created, finished or 0, abandoned or 0)):
            raise ValueError(Said("a time is not a number"))
        setup = _json_of(options, dict)
        seats = None if seats_json is None else _json_of(seats_json, list)
    except ValueError as exc:
        why = Said("its setup cannot be read ({why})", why=said_of(exc))
        shown = title if isinstance(title, str) else ""
        when = created if isinstance(created, int | float) else 0.0
        return GameRecord(gid, str(kind), {}, shown, when, finished, abandoned, None, why)
    return GameRecord(gid, kind, setup, title, created, finished, abandoned, seats)


class Undecodable(str):
    """A TEXT value whose bytes are not UTF-8, as read with :func:`_text_of` (the bad bytes
    replaced by U+FFFD): the row it is in counts as damaged."""


def _text_of(raw: bytes) -> str:
    """The journal connection's ``text_factory``: UTF-8, or :class:`Undecodable` (a row with
    a bad byte is then one damaged game, not an exception that stops everything)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "replace"))


def _json_of(value: Any, kind: type) -> Any:
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


_GAME_COLUMNS = (
    "id, kind, options, title, created, finished, abandoned, (SELECT value FROM settings"
    " WHERE settings.game_id = games.id AND settings.name = 'seats')"
)


def _add_column(db: sqlite3.Connection, table: str, column: str, decl: str) -> None:
    """``ALTER TABLE table ADD COLUMN`` unless the column is there (a migration step)."""
    if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")


# -- a journal file's health: damaged, missing, set aside, salvaged ----------------------------


def damaged_message(path: Path, detail: str) -> Said:
    """What to tell a person whose journal is damaged (one paragraph)."""
    return Said(
        "the journal {path} is damaged ({detail}). Restore a copy of the file to {path}; "
        "or save what can still be read with `diablotin export --raw -o FOLDER` (one file per "
        "game, each for `diablotin replay FILE --import`), then start a new journal with "
        "{command} (the damaged file is kept beside it)",
        path=path,
        detail=detail[:200],
        command=NEW_JOURNAL_HINT,
    )


def _lost_message(path: Path, what: Said) -> Said:
    marker = marker_path(path)
    return Said(
        "the journal {path} {what}, but {marker} says a journal existed there: starting "
        "now would lose its games. Restore a copy of the file to {path}; or, to start a new "
        "empty journal on purpose, run {command} (or delete {marker_path})",
        path=path,
        what=what,
        marker=marker.name,
        command=NEW_JOURNAL_HINT,
        marker_path=marker,
    )


def _marker_text(path: Path) -> str:
    return (
        f"A Diablotin journal ({path.name}) was created here on "
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}.\n"
        "While this file exists, diablotin refuses to start when the journal is missing or\n"
        "empty (restore a copy of it). To start a new, empty journal on purpose, delete this\n"
        "file or run `diablotin serve --new-journal`.\n"
    )


def _has_tables(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'")
    return bool(row.fetchone()[0])


def _refuse_if_lost(path: Path, *, before_open: bool) -> None:
    """Raise :class:`JournalDamaged` if the marker says a journal existed but ``path`` is
    missing (``before_open``) or, once opened, empty or without its tables."""
    if not marker_path(path).exists():
        return
    if before_open:
        if not path.exists():
            raise JournalDamaged(_lost_message(path, Said("is missing")))
        return
    size = path.stat().st_size if path.exists() else 0
    raise JournalDamaged(
        _lost_message(path, Said("is empty (0 bytes)") if size == 0 else Said("has no games table"))
    )


def versions_path(path: str | Path) -> Path:
    """The versions file beside the journal at ``path``."""
    return Path(str(path) + VERSIONS_SUFFIX)


def _versions(db: sqlite3.Connection) -> dict[str, Any]:
    """``{"games": {id: last entry}, "ids": id_marks}``: what the journal holds now."""
    rows = db.execute("SELECT game_id, MAX(seq) FROM entries GROUP BY game_id")
    return {"games": {str(gid): int(seq) for gid, seq in rows}, "ids": id_marks(db)}


def write_versions(path: Path, db: sqlite3.Connection | None = None) -> None:
    """Write ``<journal>.versions`` from what the journal at ``path`` holds (its committed
    state, read with ``db`` or a connection of its own): each game's last entry and the
    highest ids given. Written lazily by the journal, and again by a restore and a
    migration; :func:`_versions_lost` compares a journal with it at the next start."""
    own = db is None
    conn = sqlite3.connect(path, timeout=2.0) if db is None else db
    try:
        text = json.dumps(_versions(conn) | {"written": time.time()})
    finally:
        if own:
            conn.close()
    target = versions_path(path)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _wal_lost_message(path: Path, what: Said, way_out: Path) -> Said:
    return Said(
        "the journal {path} holds less than it did: {what}. Its write-ahead log ({wal}) was "
        "probably lost after an unclean stop. Put {wal} back beside it if you have it; or "
        "restore a backup with `diablotin restore FILE`; or, to start from what the file "
        "holds and lose the rest, delete {way_out}",
        path=path,
        what=what,
        wal=Path(f"{path}-wal").name,
        way_out=way_out,
    )


def _shm_alone(path: Path) -> Said | None:
    """Why ``<journal>-shm`` is there without its ``-wal`` (else ``None``): SQLite removes
    both at a clean close, and a killed process leaves both; one alone means the write-ahead
    log, with the latest actions, was deleted."""
    shm = Path(f"{path}-shm")
    if shm.exists() and not Path(f"{path}-wal").exists():
        what = Said("{shm} is there but not {wal}", shm=shm.name, wal=Path(f"{path}-wal").name)
        return _wal_lost_message(path, what, shm)
    return None


def _refuse_if_wal_lost(path: Path) -> None:
    """Raise :class:`JournalDamaged` when the write-ahead log was lost (:func:`_shm_alone`)."""
    lost = _shm_alone(path)
    if lost is not None:
        raise JournalDamaged(lost)


def _versions_lost(path: Path, db: sqlite3.Connection) -> Said | None:
    """Why the journal holds less than its versions file says it held (a game with fewer
    entries, a game or player made last that is missing), or ``None``. A missing or
    unreadable versions file says nothing."""
    marker = versions_path(path)
    try:
        seen = json.loads(marker.read_text(encoding="utf-8"))
        games = {int(gid): int(seq) for gid, seq in seen["games"].items()}
        ids = {str(table): int(high) for table, high in seen["ids"].items()}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("%s cannot be read (%s); it is written anew", marker, exc)
        return None
    now = _versions(db)
    held = {int(gid): seq for gid, seq in now["games"].items()}
    for gid, seq in sorted(games.items()):
        have = held.get(gid)
        if have is None and gid > now["ids"].get("games", 0):
            return _wal_lost_message(path, Said("game {game_id} is missing", game_id=gid), marker)
        if have is not None and have < seq:
            what = Said(
                "game {game_id} had {had} entries, the file holds {holds}",
                game_id=gid,
                had=seq,
                holds=have,
            )
            return _wal_lost_message(path, what, marker)
    for table, high in sorted(ids.items()):
        if now["ids"].get(table, 0) < high:
            what = (
                Said("the newest games (up to id {had}) are missing", had=high)
                if table == "games"
                else Said("the newest roster players (up to id {had}) are missing", had=high)
            )
            return _wal_lost_message(path, what, marker)
    return None


def wal_lost(path: Path) -> Said | None:
    """Read-only (``diablotin doctor``): why the journal at ``path`` holds less than it did
    (its write-ahead log lost, see :func:`_refuse_if_wal_lost` and :func:`_versions_lost`),
    or ``None``."""
    lost = _shm_alone(path)
    if lost is not None:
        return lost
    if not path.exists() or not versions_path(path).exists():
        return None
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
    try:
        return _versions_lost(path, db) if _has_tables(db) else None
    except sqlite3.Error:
        return None  # a damaged file: inspect_file says so
    finally:
        db.close()


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
        if not _has_tables(db):
            return FileState("empty", "no games table")
        (games,) = db.execute("SELECT COUNT(*) FROM games").fetchone()
        unreadable = tuple(unreadable_rows(db)) if full else ()
        return FileState("ok", "", int(games), unreadable)
    except sqlite3.DatabaseError as exc:
        return FileState("damaged" if _damage(exc) else "unreadable", str(exc))
    finally:
        db.close()


def unreadable_rows(db: sqlite3.Connection, limit: int = 20) -> list[str]:
    """Decode every game's row, entries and settings; one line per row that cannot be read
    (``game 3: entry 5 cannot be read (not UTF-8 text)``), at most ``limit``. SQLite's own
    checks pass such a row: its bytes are sound, their meaning is not."""
    db.text_factory = _text_of
    found: list[str] = []
    for row in db.execute(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY id"):
        damaged = _record(row).damaged
        if damaged is not None:
            found.append(f"game {row[0]}: {damaged}")
    for gid, seq, action in db.execute("SELECT game_id, seq, action FROM entries ORDER BY rowid"):
        try:
            _json_of(action, dict)
        except ValueError as exc:
            found.append(f"game {gid}: entry {seq} cannot be read ({exc})")
    for gid, name, value in db.execute("SELECT game_id, name, value FROM settings"):
        try:
            _json_of(value, object)
        except ValueError as exc:
            found.append(f"game {gid}: its setting {name} cannot be read ({exc})")
    return found[:limit]


def _make_room(path: Path) -> None:
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
        db.text_factory = _text_of
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
        record = _record(row)
        if record.damaged is not None:
            result.problems.append(f"game {row[0]}: {record.damaged}")
            by_game.pop(record.id, None)
            continue
        kept = []
        for _gid, seq, at, undo, action in sorted(by_game.pop(record.id, []), key=lambda r: r[1]):
            try:
                kept.append(
                    {"seq": seq, "at": at, "undo": bool(undo), "action": _json_of(action, dict)}
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
