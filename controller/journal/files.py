"""The files beside a journal and the refusals they cause.

``<journal>.marker`` says a journal existed (a missing or empty one is then refused);
``<journal>.versions`` says what it last held (a journal holding less, its write-ahead log lost,
is refused). Each refusal names the file and says what to do.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TypedDict

from ..games.base import Said
from .errors import JournalDamaged
from .schema import has_tables, id_marks

log = logging.getLogger("controller.journal")

MARKER_SUFFIX = ".marker"
"""``diablotin.sqlite3.marker``: a journal existed here (see the module's doc)."""
VERSIONS_SUFFIX = ".versions"
"""``diablotin.sqlite3.versions``: each game's last entry and the highest ids given, as the
journal last held them (see :func:`write_versions`)."""
VERSIONS_DELAY_S = 0.5
"""The versions file is written at most this long after a write (off the request path,
without fsync: it needs to survive a killed process, not a power cut)."""
NEW_JOURNAL_HINT = "`diablotin serve --new-journal`"


def marker_path(path: str | Path) -> Path:
    """The marker file beside the journal at ``path``."""
    return Path(str(path) + MARKER_SUFFIX)


def is_full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", 0) == 13


def is_damage(exc: sqlite3.Error) -> bool:
    """SQLITE_CORRUPT or SQLITE_NOTADB (not a busy, locked or unreadable file)."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in (11, 26)


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


def marker_text(path: Path) -> str:
    return (
        f"A Diablotin journal ({path.name}) was created here on "
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}.\n"
        "While this file exists, diablotin refuses to start when the journal is missing or\n"
        "empty (restore a copy of it). To start a new, empty journal on purpose, delete this\n"
        "file or run `diablotin serve --new-journal`.\n"
    )


def refuse_if_lost(path: Path, *, before_open: bool) -> None:
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


class Versions(TypedDict):
    """What a journal holds, in short: each game's last entry (by id, as text) and
    :func:`~.schema.id_marks`."""

    games: dict[str, int]
    ids: dict[str, int]


def _versions(db: sqlite3.Connection) -> Versions:
    """``{"games": {id: last entry}, "ids": id_marks}``: what the journal holds now."""
    rows = db.execute("SELECT game_id, MAX(seq) FROM entries GROUP BY game_id")
    return {"games": {str(gid): int(seq) for gid, seq in rows}, "ids": id_marks(db)}


def write_versions(path: Path, db: sqlite3.Connection | None = None) -> None:
    """Write ``<journal>.versions`` from what the journal at ``path`` holds (its committed
    state, read with ``db`` or a connection of its own): each game's last entry and the
    highest ids given. Written lazily by the journal, and again by a restore and a
    migration; :func:`versions_lost` compares a journal with it at the next start."""
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


def refuse_if_wal_lost(path: Path) -> None:
    """Raise :class:`JournalDamaged` when the write-ahead log was lost (:func:`_shm_alone`)."""
    lost = _shm_alone(path)
    if lost is not None:
        raise JournalDamaged(lost)


def versions_lost(path: Path, db: sqlite3.Connection) -> Said | None:
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
    (its write-ahead log lost, see :func:`refuse_if_wal_lost` and :func:`versions_lost`),
    or ``None``."""
    lost = _shm_alone(path)
    if lost is not None:
        return lost
    if not path.exists() or not versions_path(path).exists():
        return None
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2.0)
    try:
        return versions_lost(path, db) if has_tables(db) else None
    except sqlite3.Error:
        return None  # a damaged file: inspect_file says so
    finally:
        db.close()
