"""Game and player ids are never reused: not after a delete, not after a restart, a restore
or a migration (issue 24, point 1: a deleted game's id came back, and with it the computer
seats the service still held for it)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from controller import backup
from controller.journal import Journal

DATA = Path(__file__).resolve().parent.parent / "data"


def test_a_deleted_game_id_is_never_given_again(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    first = [journal.create_game("tails", {}) for _ in range(3)]
    journal.delete_game(first[-1])
    assert journal.create_game("tails", {}) == first[-1] + 1
    journal.close()


def test_the_high_water_mark_survives_a_restart(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    gid = journal.create_game("tails", {})
    journal.delete_game(gid)
    journal.close()
    journal = Journal(path)
    assert journal.create_game("tails", {}) == gid + 1
    journal.close()


def test_an_imported_game_takes_a_new_id_too(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    gid = journal.create_game("tails", {})
    exported = journal.export(gid)
    journal.delete_game(gid)
    assert journal.import_game(exported) == gid + 1
    journal.close()


def test_restoring_an_older_backup_keeps_the_ids_given_since(tmp_path):
    """A backup taken before games 2 and 3 were made: after restoring it, the next game is
    4, not 2 (a phone that still shows game 2 must not find another game there)."""
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.create_game("tails", {})
    copy = backup.backup(path, tmp_path / "copy.sqlite3")
    journal.create_game("tails", {})
    journal.create_game("tails", {})
    journal.close()
    backup.restore(copy, path)
    journal = Journal(path)
    assert [g.id for g in journal.games()] == [1]
    assert journal.create_game("tails", {}) == 4
    journal.close()


def test_a_migrated_journal_continues_after_its_highest_id(tmp_path):
    """A schema-1 journal (commit afb35ad) migrates; new ids continue after its games."""
    path = tmp_path / "old.sqlite3"
    shutil.copy(DATA / "journal-v1-afb35ad.sqlite3", path)
    with sqlite3.connect(path) as db:
        highest = db.execute("SELECT max(id) FROM games").fetchone()[0]
        db.execute("DELETE FROM entries WHERE game_id = ?", (highest,))
        db.execute("DELETE FROM settings WHERE game_id = ?", (highest,))
        db.execute("DELETE FROM games WHERE id = ?", (highest,))
    db.close()
    journal = Journal(path)
    assert journal.create_game("tails", {}) == highest  # given before schema 3: unknowable
    gid = journal.create_game("tails", {})
    journal.delete_game(gid)
    assert journal.create_game("tails", {}) == gid + 1
    journal.close()


def test_player_ids_are_never_reused(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    zoe = journal.save_player("Zoé", "#ff0000")
    omer = journal.save_player("Ömer", "#00ff00")
    journal.delete_player(omer)
    assert journal.player(omer) is None
    assert journal.save_player("Ana", "#0000ff") == omer + 1
    assert journal.player(zoe) is not None
    journal.close()
