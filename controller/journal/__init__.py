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

The package's modules: :mod:`.schema` (tables, version, migrations, ids), :mod:`.records`
(games, players, entries, decoding rows), :mod:`.connection` (opening, writing, checkpoints),
:mod:`.store` (:class:`Journal`), :mod:`.export` (export files), :mod:`.files` (the marker and
versions files, lost journals), :mod:`.filestate` (read-only checks) and :mod:`.salvage`.
The checkpoint thread reads ``CHECKPOINT_EVERY`` and ``CHECKPOINT_RETRY_S`` from
:mod:`.connection`: change them there (a test's ``monkeypatch``), not here.
"""

from __future__ import annotations

from .connection import CHECKPOINT_EVERY, CHECKPOINT_RETRY_S, VERSIONS_DELAY_S
from .errors import (
    BadExport,
    DiskFull,
    DuplicateName,
    GameNotFound,
    JournalDamaged,
    JournalError,
    RowDamaged,
)
from .export import (
    EXPORT_FORMAT,
    MAX_DEPTH,
    MAX_ENTRIES,
    MAX_EXPORT_BYTES,
    VALUE_MAX,
    ExportedEntry,
    GameExport,
    check_export,
    parse_export,
)
from .files import (
    MARKER_SUFFIX,
    NEW_JOURNAL_HINT,
    VERSIONS_SUFFIX,
    damaged_message,
    marker_path,
    versions_path,
    wal_lost,
    write_versions,
)
from .filestate import FileState, inspect_file, unreadable_rows
from .records import Entry, GameRecord, Player, effective_actions
from .salvage import Salvage, salvage
from .schema import APPLICATION_ID, ID_TABLES, SCHEMA_VERSION, id_marks, raise_id_marks
from .store import Journal

__all__ = [
    "APPLICATION_ID",
    "CHECKPOINT_EVERY",
    "CHECKPOINT_RETRY_S",
    "EXPORT_FORMAT",
    "ID_TABLES",
    "MARKER_SUFFIX",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_EXPORT_BYTES",
    "NEW_JOURNAL_HINT",
    "SCHEMA_VERSION",
    "VALUE_MAX",
    "VERSIONS_DELAY_S",
    "VERSIONS_SUFFIX",
    "BadExport",
    "DiskFull",
    "DuplicateName",
    "Entry",
    "ExportedEntry",
    "FileState",
    "GameExport",
    "GameNotFound",
    "GameRecord",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "Player",
    "RowDamaged",
    "Salvage",
    "check_export",
    "damaged_message",
    "effective_actions",
    "id_marks",
    "inspect_file",
    "marker_path",
    "parse_export",
    "raise_id_marks",
    "salvage",
    "unreadable_rows",
    "versions_path",
    "wal_lost",
    "write_versions",
]
