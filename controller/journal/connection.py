"""The journal's connection: opening and checking the file, one write transaction at a time,
and the background threads (WAL checkpoints, the versions file)."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, TypeVar

from ..games.base import Said
from .errors import DiskFull, JournalDamaged, JournalError
from .files import (
    damaged_message,
    is_damage,
    is_full,
    marker_path,
    marker_text,
    refuse_if_lost,
    refuse_if_wal_lost,
    versions_lost,
    versions_path,
    write_versions,
)
from .filestate import make_room
from .records import text_of
from .schema import SCHEMA_VERSION, create_or_migrate, has_tables

log = logging.getLogger("controller.journal")
T = TypeVar("T")


class JournalHealth(TypedDict):
    """:meth:`JournalConnection.health`: ``ok`` when there is nothing to warn about; the
    write-ahead log's size (bytes); checkpoints done and failed in a row."""

    ok: bool
    warnings: list[str]
    wal_bytes: int
    checkpoints: int
    checkpoint_failures: int


CHECKPOINT_EVERY = 200
"""Writes (actions, renames, settings, roster changes, ...) between two WAL checkpoints."""
CHECKPOINT_RETRY_S = (1.0, 60.0)
"""A failed checkpoint is retried after 1 s, then twice as long each time, at most 60 s
(or sooner, after the next ``CHECKPOINT_EVERY`` writes)."""
VERSIONS_DELAY_S = 0.5
"""The versions file is written at most this long after a write (off the request path,
without fsync: it needs to survive a killed process, not a power cut)."""


class JournalConnection:
    """The open journal file under :class:`~controller.journal.Journal`: one connection
    guarded by a lock, with the checkpoint and versions threads (none for ``":memory:"``)."""

    def __init__(self, path: str | Path, *, new: bool = False) -> None:
        self.path = str(path)
        self._file = None if self.path == ":memory:" else Path(path)
        if self._file is not None:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            if new:
                make_room(self._file)
            refuse_if_lost(self._file, before_open=True)
            refuse_if_wal_lost(self._file)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.text_factory = text_of
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
                if not has_tables(db):
                    refuse_if_lost(self._file, before_open=False)
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
            if version < SCHEMA_VERSION and self._file is not None and has_tables(db):
                self._back_up_before_migrating(version)
            create_or_migrate(db)
            if self._file is not None:
                db.execute("PRAGMA wal_autocheckpoint=0")
        except sqlite3.DatabaseError as exc:
            if self._file is not None and is_damage(exc):
                raise JournalDamaged(damaged_message(self._file, str(exc))) from None
            if is_full(exc):
                raise DiskFull(
                    Said("cannot open the journal {path}: the disk is full", path=self.path)
                ) from None
            raise JournalError(
                Said("cannot open the journal {path}: {exc}", path=self.path, exc=exc)
            ) from None
        if self._file is not None:
            self._leave_marks(self._file)

    def _leave_marks(self, file: Path) -> None:
        """Leave the marker; refuse a journal holding less than its versions file says;
        write the versions file anew."""
        marker = marker_path(file)
        if not marker.exists():
            marker.write_text(marker_text(file), encoding="utf-8")
        lost = versions_lost(file, self._db)
        if lost is not None:
            raise JournalDamaged(lost)
        try:
            write_versions(file, self._db)  # after a migration too
        except OSError as exc:  # a full disk: the old file stays, a lower bound
            log.warning("cannot write %s (%s)", versions_path(file), exc)

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

    def health(self) -> JournalHealth:
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
                if is_full(exc):
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

    def _one(self, sql: str, params: tuple[object, ...]) -> tuple[object, ...] | None:
        """The first row ``sql`` selects, or ``None``."""
        with self._lock:
            row: tuple[object, ...] | None = self._db.execute(sql, params).fetchone()
        return row
