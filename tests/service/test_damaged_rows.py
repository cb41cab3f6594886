"""Damage inside one row of a sound journal file (issue 26, items 7 and 8): one byte that is
not UTF-8 in an entry, or options that are not JSON. Before: ``serve`` exited ("run diablotin
doctor"), ``doctor`` said "integrity ok", ``diablotin games`` and ``export --all --format csv``
printed tracebacks, ``GET /api/export.csv`` answered 500. Now the damaged row quarantines its
game only, as a board file that moved does."""

from __future__ import annotations

import csv
import io
import sqlite3
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller import cli
from controller.checks import journal_check
from controller.service import JOURNAL_NAME
from controller.web import create_app
from controller.web.security import PinThrottle

from .test_journal_faults import REFEREE, make_config, quiet_service, tails_moves


@pytest.fixture
def damaged(tmp_path: Path) -> Iterator[tuple[Path, dict[str, int]]]:
    """A data dir with three tails games: ``entry`` (a byte 0xFF in its 3rd entry),
    ``options`` (options ``[[[``) and ``fine``."""
    config = make_config(tmp_path)
    svc = quiet_service(config)
    svc.start()
    try:
        ids = {}
        for name in ("entry", "options", "fine"):
            ids[name] = svc.new_game("tails", {"players": 2}, title=name)
            for move in tails_moves(4):
                svc.table(ids[name]).submit(move)
    finally:
        svc.stop()
    db = sqlite3.connect(config.data_dir / JOURNAL_NAME)
    with db:
        (action,) = db.execute(
            "SELECT action FROM entries WHERE game_id = ? AND seq = 3", (ids["entry"],)
        ).fetchone()
        broken = action.encode().replace(b'"type"', b'"ty\xffpe"')
        db.execute(
            "UPDATE entries SET action = CAST(? AS TEXT) WHERE game_id = ? AND seq = 3",
            (broken, ids["entry"]),
        )
        db.execute("UPDATE games SET options = '[[[' WHERE id = ?", (ids["options"],))
    db.close()
    yield config.data_dir, ids


def test_the_service_starts_and_quarantines_only_the_damaged_games(damaged) -> None:
    data_dir, ids = damaged
    svc = quiet_service(make_config(data_dir.parent))
    svc.start()  # before: JournalError "reading game 1 from the journal failed"
    try:
        client = create_app(svc, throttle=PinThrottle()).test_client()
        games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
        assert games[ids["entry"]]["damaged"] == "entry 3 cannot be read (not UTF-8 text)"
        assert games[ids["options"]]["damaged"] == "its setup cannot be read (not JSON)"
        assert games[ids["options"]]["damaged_said"]["template"] == (
            "its setup cannot be read ({why})"
        )
        assert "damaged" not in games[ids["fine"]]
        for name in ("entry", "options"):
            resp = client.get(f"/api/games/{ids[name]}")
            assert resp.status_code == 409 and resp.get_json()["error"] == "damaged"
            resp = client.get(f"/api/games/{ids[name]}/export", headers=REFEREE)
            assert resp.status_code == 409 and resp.get_json()["error"] == "damaged"
            page = client.get(f"/history/{ids[name]}")
            assert page.status_code == 200 and "cannot be read" in page.get_data(as_text=True)
        move = tails_moves(5)[4]
        resp = client.post(f"/api/games/{ids['fine']}/actions", json=move, headers=REFEREE)
        assert resp.status_code == 200
        resp = client.get("/api/export.csv", headers=REFEREE)  # before: 500
        assert resp.status_code == 200
        rows = list(csv.reader(io.StringIO(resp.get_data(as_text=True))))
        assert [row[0] for row in rows[1:]] == [str(ids["fine"])]
        assert resp.headers["X-Skipped-Games"] == f"{ids['entry']} {ids['options']}"
        resp = client.get("/api/export.zip", headers=REFEREE)
        assert resp.status_code == 200
        with zipfile.ZipFile(io.BytesIO(resp.data)) as archive:
            assert sorted(archive.namelist()) == [f"game-{ids['fine']}.json", "skipped.txt"]
            note = archive.read("skipped.txt").decode()
        assert f"game {ids['entry']} is left out: entry 3 cannot be read" in note
        stats = client.get("/api/stats").get_json()
        assert stats is not None
    finally:
        svc.stop()


def test_the_cli_lists_exports_and_doctor_finds_the_damaged_rows(
    damaged, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir, ids = damaged
    args = ["--data-dir", str(data_dir)]
    assert cli.main([*args, "games"]) == 0  # before: a traceback
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "(damaged: entry 3 cannot be read (not UTF-8 text))" in lines[str(ids["entry"])]
    assert "its setup cannot be read (not JSON)" in lines[str(ids["options"])]
    assert "damaged" not in lines[str(ids["fine"])]

    assert cli.main([*args, "export", "--all", "--format", "csv"]) == 0  # before: a traceback
    captured = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(captured.out)))
    assert [row[0] for row in rows[1:]] == [str(ids["fine"])]
    assert f"game {ids['entry']} is left out: entry 3 cannot be read" in captured.err
    assert f"game {ids['options']} is left out: its setup cannot be read" in captured.err
    assert "Traceback" not in captured.err

    check = journal_check(data_dir)  # before: "integrity ok"
    assert not check.ok
    assert "integrity ok, but 2 row(s) cannot be read" in check.message
    assert f"game {ids['entry']}: entry 3 cannot be read (not UTF-8 text)" in check.message
    assert f"game {ids['options']}: its setup cannot be read (not JSON)" in check.message
    assert "export --raw" in (check.fix or "")

    target = data_dir.parent / "raw"
    assert cli.main([*args, "export", "--raw", "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"game {ids['entry']}: entry 3 cannot be read" in err
    assert sorted(p.name for p in target.iterdir()) == [
        f"game-{ids['entry']}.json",
        f"game-{ids['fine']}.json",
    ]


def test_a_setting_that_cannot_be_read_sets_its_game_aside(tmp_path: Path) -> None:
    """A sauteur game's computer seats (a setting read when its table opens) as ``[[[``."""
    config = make_config(tmp_path)
    svc = quiet_service(config)
    svc.start()
    try:
        gid = svc.new_game("sauteur", {"rule": "A"})
        assert svc.journal is not None
        svc.journal.set_setting(gid, "computer", ["p2"])
    finally:
        svc.stop()
    db = sqlite3.connect(config.data_dir / JOURNAL_NAME)
    with db:
        db.execute("UPDATE settings SET value = '[[[' WHERE name = 'computer'")
    db.close()
    again = quiet_service(config)
    again.start()  # before: JSONDecodeError, the service stopped
    try:
        (summary,) = again.games()
        assert summary["damaged"] == "its setting computer cannot be read (not JSON)"
        assert gid not in again.tables
    finally:
        again.stop()
    assert not journal_check(config.data_dir).ok
