"""The journal's games, roster, per-game settings and entries (:class:`Journal`)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from ..games.base import Said, said_of
from ..text import name_order
from .connection import JournalConnection
from .errors import DuplicateName, GameNotFound, JournalError, RowDamaged
from .export import EXPORT_FORMAT, GameExport, check_export
from .records import GAME_COLUMNS, Entry, GameRecord, Player, effective_actions, json_of, record_of
from .schema import keep_mark, next_id


class Journal(JournalConnection):
    """Open (or create) the journal at ``path`` (``":memory:"`` for tests).

    Raises :class:`JournalDamaged` for a damaged file, or one that is missing or empty
    while its marker says it existed. ``new``: start a new journal deliberately when the
    file is missing, empty or damaged (a damaged file is renamed ``<name>.damaged-<time>``,
    never deleted); a journal holding games is never replaced.
    """

    # -- games ---------------------------------------------------------------
    def create_game(
        self,
        kind: str,
        options: Mapping[str, object],
        title: str = "",
        settings: Mapping[str, object] | None = None,
    ) -> int:
        """Store a new game with its first per-game ``settings`` (seats, computer seats),
        in one transaction; returns its id."""
        options_json = json.dumps(dict(options), sort_keys=True)

        def insert(db: sqlite3.Connection) -> int:
            game_id = next_id(db, "games")
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
        row = self._one(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise GameNotFound(Said("no game {game_id}", game_id=game_id))
        return record_of(row)

    def games(self, *, finished: bool | None = None) -> list[GameRecord]:
        sql = f"SELECT {GAME_COLUMNS} FROM games"
        if finished is not None:
            sql += " WHERE finished IS " + ("NOT NULL" if finished else "NULL")
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id").fetchall()
        return [record_of(r) for r in rows]

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
            keep_mark(db, "games")
            db.execute("DELETE FROM entries WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM settings WHERE game_id = ?", (game_id,))
            db.execute("UPDATE box SET game_id = NULL WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))

        self._write(delete)

    # -- the box's owner -------------------------------------------------------
    def box_game(self) -> int | None:
        """The id of the game the referee put on the box, if any."""
        row = self._one("SELECT game_id FROM box WHERE one = 1", ())
        return row[0] if row is not None and isinstance(row[0], int) else None

    def set_box_game(self, game_id: int | None) -> None:
        self._write(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO box (one, game_id) VALUES (1, ?)", (game_id,)
            )
        )

    # -- the roster ---------------------------------------------------------------
    def players(self) -> list[Player]:
        with self._lock:
            rows = self._db.execute("SELECT id, name, mark, created FROM players").fetchall()
        return sorted((Player(*row) for row in rows), key=lambda p: name_order(p.name))

    def player(self, player_id: int) -> Player | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, mark, created FROM players WHERE id = ?", (player_id,)
            ).fetchone()
        return None if row is None else Player(*row)

    def save_player(self, name: str, mark: str, player_id: int | None = None) -> int:
        """Add a player (``player_id`` None) or change one; returns the id. Raises
        :class:`DuplicateName` when another player has that name (case aside)."""

        def write(db: sqlite3.Connection) -> int:
            if player_id is None:
                new_id = next_id(db, "players")
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
            keep_mark(db, "players")
            if db.execute("DELETE FROM players WHERE id = ?", (player_id,)).rowcount == 0:
                raise JournalError(Said("no player {player_id}", player_id=player_id))

        self._write(delete)

    def set_setting(self, game_id: int, name: str, value: object) -> None:
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
            return json_of(row[0], object)
        except ValueError as exc:
            raise RowDamaged(
                game_id,
                Said("its setting {name} cannot be read ({why})", name=name, why=said_of(exc)),
            ) from None

    # -- entries -------------------------------------------------------------
    def append(
        self,
        game_id: int,
        action: Mapping[str, object],
        *,
        undo: bool = False,
        finished: bool | None = None,
    ) -> int:
        """Commit one entry durably; returns its sequence number (1, 2, ...). ``finished``
        (``True``: the game ended with it, ``False``: it reopened) is written in the same
        transaction; ``None`` leaves the flag alone.

        Raises :class:`GameNotFound` or :class:`DiskFull`; either way nothing is written."""
        payload = json.dumps(dict(action), sort_keys=True, separators=(",", ":"))
        now = time.time()

        def insert(db: sqlite3.Connection) -> int:
            (last,) = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO entries (game_id, seq, at, undo, action) VALUES (?, ?, ?, ?, ?)",
                (game_id, last + 1, now, int(undo), payload),
            )
            if finished is not None:
                db.execute(
                    "UPDATE games SET finished = ? WHERE id = ?",
                    (now if finished else None, game_id),
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
                entries.append(Entry(seq, at, bool(undo), json_of(action, dict)))
            except ValueError as exc:
                raise RowDamaged(
                    game_id, Said("entry {seq} cannot be read ({why})", seq=seq, why=said_of(exc))
                ) from None
        return entries

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        """The effective action list: every action not taken back by an undo."""
        return effective_actions(self.entries(game_id))

    # -- export / import -------------------------------------------------------
    def export(self, game_id: int) -> GameExport:
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

    def import_game(self, data: Mapping[str, object]) -> int:
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
            game_id = next_id(db, "games")
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
