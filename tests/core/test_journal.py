"""The journal: durable appends, undo markers, export/import round trips."""

import json
import sqlite3

import pytest

from controller.journal import BadExport, GameNotFound, Journal, check_export


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "j.sqlite3")
    yield j
    j.close()


def test_wal_and_full_sync(journal):
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_append_numbers_entries_and_survives_reopen(tmp_path):
    path = tmp_path / "j.sqlite3"
    j = Journal(path)
    gid = j.create_game("sauteur", {"rule": "A"}, "t")
    assert [j.append(gid, {"type": "hidden"}), j.append(gid, {"type": "pop", "key": 2})] == [1, 2]
    j.close()
    again = Journal(path)
    assert again.actions(gid) == [{"type": "hidden"}, {"type": "pop", "key": 2}]
    assert again.game(gid).options == {"rule": "A"}
    again.close()


def test_undo_markers_remove_latest_standing_action(journal):
    gid = journal.create_game("tails", {"players": 2})
    for n in range(3):
        journal.append(gid, {"type": "a", "n": n})
    journal.append(gid, {"type": "undo"}, undo=True)
    journal.append(gid, {"type": "undo"}, undo=True)
    journal.append(gid, {"type": "a", "n": 9})
    assert journal.actions(gid) == [{"type": "a", "n": 0}, {"type": "a", "n": 9}]
    assert len(journal.entries(gid)) == 6  # the history keeps the undos


def test_append_to_unknown_game_is_refused_and_writes_nothing(journal):
    with pytest.raises(GameNotFound):
        journal.append(999, {"type": "x"})
    assert journal._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0


def test_export_import_round_trip(journal):
    gid = journal.create_game("teufel", {"players": ["blue", "green"]}, "evening")
    journal.append(gid, {"type": "x", "v": 1})
    journal.append(gid, {"type": "undo"}, undo=True)
    journal.append(gid, {"type": "x", "v": 2})
    data = json.loads(json.dumps(journal.export(gid)))
    new = journal.import_game(data)
    assert new != gid
    assert journal.actions(new) == journal.actions(gid) == [{"type": "x", "v": 2}]
    assert journal.game(new).title == "evening"


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "JSON object"),
        ({"format": "other"}, "format"),
        ({"format": "diablotin-game/1", "kind": 3}, "kind"),
        ({"format": "diablotin-game/1", "kind": "tails", "options": []}, "options"),
        ({"format": "diablotin-game/1", "kind": "tails", "options": {}, "entries": {}}, "list"),
        (
            {"format": "diablotin-game/1", "kind": "tails", "options": {}, "entries": [{"x": 1}]},
            "entry 1",
        ),
    ],
)
def test_bad_exports_are_refused_with_reason(journal, data, message):
    with pytest.raises(BadExport, match=message):
        check_export(data)
    with pytest.raises(BadExport):
        journal.import_game(data)
    assert journal.games() == []


def test_finished_flag(journal):
    gid = journal.create_game("tails", {})
    assert journal.games(finished=False)[0].id == gid
    journal.mark_finished(gid)
    assert journal.games(finished=False) == []
    assert journal.games(finished=True)[0].finished is not None


def test_committed_rows_visible_to_another_connection(tmp_path):
    path = tmp_path / "j.sqlite3"
    j = Journal(path)
    gid = j.create_game("tails", {})
    j.append(gid, {"type": "pass"})
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
    other.close()
    j.close()


def test_checkpoints_run_off_the_append_path_and_close_truncates_the_wal(tmp_path):
    path = tmp_path / "j.sqlite3"
    j = Journal(path)
    assert j._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    gid = j.create_game("tails", {})
    for n in range(450):
        j.append(gid, {"type": "a", "n": n})
    j.close()
    wal = tmp_path / "j.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    again = Journal(path)
    assert [a["n"] for a in again.actions(gid)] == list(range(450))
    again.close()
