"""Backups, restore and schema versions of the journal, on real SQLite files."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from controller import backup, cli
from controller.journal import APPLICATION_ID, SCHEMA_VERSION, Journal, JournalError
from controller.service import JOURNAL_NAME, Service
from tests.service.conftest import make_config

V0 = Path(__file__).resolve().parents[1] / "data" / "journal-v0-3786bd4.sqlite3"
V1 = Path(__file__).resolve().parents[1] / "data" / "journal-v1-afb35ad.sqlite3"


def _journaling(journal: Journal, game_id: int, stop: threading.Event) -> threading.Thread:
    """Append an action every 50 ms (20 a second) until ``stop``."""

    def run() -> None:
        n = 0
        while not stop.is_set():
            journal.append(game_id, {"type": "note", "n": n})
            n += 1
            time.sleep(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_backup_taken_while_the_service_journals_restores_to_that_point(tmp_path, capsys):
    config = make_config(tmp_path)
    svc = Service(config, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()  # holds the data dir's lock, as in play
    assert svc.journal is not None
    gid = svc.journal.create_game("teufel", {"players": ["blue", "green"]}, "busy")
    stop = threading.Event()
    writer = _journaling(svc.journal, gid, stop)
    try:
        time.sleep(0.4)
        copy = tmp_path / "copy.sqlite3"
        assert cli.main(["--data-dir", str(config.data_dir), "backup", str(copy)]) == 0
        assert f"backup written to {copy}" in capsys.readouterr().out
        time.sleep(0.3)  # journaling goes on after the copy
    finally:
        stop.set()
        writer.join()
    live = svc.journal.export(gid)
    svc.stop()
    restored_dir = tmp_path / "restored"
    assert cli.main(["--data-dir", str(restored_dir), "restore", str(copy)]) == 0
    restored = Journal(restored_dir / JOURNAL_NAME)
    try:
        exported = restored.export(gid)
    finally:
        restored.close()
    n = len(exported["entries"])
    assert 0 < n < len(live["entries"])  # a consistent point in the middle of journaling
    assert exported == live | {"entries": live["entries"][:n], "finished": exported["finished"]}


def test_restore_refuses_while_the_service_runs_and_keeps_the_journal_as_bak(tmp_path, capsys):
    config = make_config(tmp_path)
    svc = Service(config, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()
    assert svc.journal is not None
    svc.journal.create_game("tails", {"players": 2}, "kept")
    copy = backup.backup(config.data_dir / JOURNAL_NAME, tmp_path / "copy.sqlite3")
    data = ["--data-dir", str(config.data_dir)]
    try:
        assert cli.main([*data, "restore", str(copy)]) == 1
        assert "stop it first" in capsys.readouterr().err
    finally:
        svc.stop()
    assert cli.main([*data, "restore", str(copy)]) == 0
    assert "the journal before is kept as" in capsys.readouterr().out
    assert (config.data_dir / f"{JOURNAL_NAME}.bak").is_file()
    journal = Journal(config.data_dir / JOURNAL_NAME)
    try:
        assert [g.title for g in journal.games()] == ["kept"]
    finally:
        journal.close()


def _bad_copies(tmp_path: Path, good: Path) -> dict[str, tuple[Path, str]]:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    truncated = tmp_path / "truncated.sqlite3"
    truncated.write_bytes(good.read_bytes()[:1500])
    newer = tmp_path / "newer.sqlite3"
    shutil.copy(good, newer)
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version=99")
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE photos (id INTEGER)")
    return {
        "text": (text, "not an SQLite file"),
        "truncated": (truncated, "damaged"),
        "newer": (newer, "comes from a newer Diablotin (journal schema 99"),
        "other": (other, "not a Diablotin journal"),
        "missing": (tmp_path / "absent.sqlite3", "cannot read"),
    }


@pytest.mark.parametrize("case", ["text", "truncated", "newer", "other", "missing"])
def test_restore_refuses_what_is_not_a_good_journal_and_changes_nothing(tmp_path, capsys, case):
    data_dir = tmp_path / "data"
    journal = Journal(data_dir / JOURNAL_NAME)
    journal.create_game("sauteur", {"rule": "A"}, "mine")
    journal.close()
    good = backup.backup(data_dir / JOURNAL_NAME, tmp_path / "good.sqlite3")
    before = (data_dir / JOURNAL_NAME).read_bytes()
    path, why = _bad_copies(tmp_path, good)[case]
    assert cli.main(["--data-dir", str(data_dir), "restore", str(path)]) == 2
    err = capsys.readouterr().err
    assert why in err and "nothing was changed" in err
    assert (data_dir / JOURNAL_NAME).read_bytes() == before
    assert not (data_dir / f"{JOURNAL_NAME}.bak").exists()


@pytest.mark.parametrize(("fixture", "version"), [(V0, 0), (V1, 1)])
def test_an_older_journal_is_backed_up_then_migrated_in_place(tmp_path, fixture, version):
    """Journals made by the code at commit 3786bd4 (schema 0) and afb35ad (schema 1),
    committed as test data: backed up as they were, then migrated to the roster, the
    abandoned mark and the box holder, every game still there and still playable."""
    path = tmp_path / JOURNAL_NAME
    shutil.copy(fixture, path)
    journal = Journal(path)
    try:
        games = journal.games()
        assert len(games) == 6
        # the migration wrote the versions file (issue 26, item 10): each game's last entry
        versions = json.loads(path.with_name(f"{JOURNAL_NAME}.versions").read_text())
        assert versions["games"] == {str(g.id): len(journal.entries(g.id)) for g in games}
        assert all(g.abandoned is None and g.seats is None for g in games)
        assert journal.players() == [] and journal.box_game() is None
        journal.abandon(games[2].id)  # the new column works
        zoe = journal.save_player("Zoé", "🦊")
        assert journal.player(zoe) is not None
        assert journal.game(games[2].id).abandoned is not None
    finally:
        journal.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    (kept,) = tmp_path.glob(f"{JOURNAL_NAME}.schema{version}-*.bak")
    assert backup.check(kept) == version  # the old file, as it was, and still restorable
    with sqlite3.connect(kept) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 6
        assert db.execute("PRAGMA user_version").fetchone()[0] == version


def test_a_journal_from_a_newer_diablotin_is_refused(tmp_path):
    path = tmp_path / JOURNAL_NAME
    Journal(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(JournalError, match="newer diablotin"):
        Journal(path)


def test_daily_backups_keep_the_newest_and_never_touch_manual_ones(tmp_path):
    data_dir = tmp_path / "data"
    journal = Journal(data_dir / JOURNAL_NAME)
    journal.create_game("sauteur", {"rule": "B"}, "daily")
    journal.close()
    manual = backup.backup(data_dir / JOURNAL_NAME, backup.default_backup_path(data_dir))
    now = time.time()
    assert backup.daily(data_dir / JOURNAL_NAME, data_dir, keep=2, now=now) is not None
    assert backup.daily(data_dir / JOURNAL_NAME, data_dir, keep=2, now=now + 60) is None
    for day in (1, 2, 3):
        made = backup.daily(data_dir / JOURNAL_NAME, data_dir, keep=2, now=now + day * 86400 + 5)
        assert made is not None and backup.check(made) == SCHEMA_VERSION
    kept = sorted(p.name for p in (data_dir / "backups").glob("daily-*.sqlite3"))
    assert len(kept) == 2 and manual.exists()
    assert backup.daily(data_dir / JOURNAL_NAME, data_dir, keep=0, now=now + 9 * 86400) is None


def test_the_service_takes_its_daily_backup_at_start(tmp_path):
    config = make_config(tmp_path)
    config.daily_backups = 3
    journal = Journal(config.data_dir / JOURNAL_NAME)
    journal.create_game("tails", {"players": 2}, "t")
    journal.close()
    svc = Service(config, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()
    svc.stop()
    (copy,) = (config.data_dir / "backups").glob("daily-*.sqlite3")
    assert backup.check(copy) == SCHEMA_VERSION
