"""The dashboard's backup (issue 24): the referee downloads the journal and restores one
(upload, check, confirm); the service swaps the journal safely, reopens it, and every live
page reconnects."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

from flask.testing import FlaskClient

from controller import backup
from controller.service import JOURNAL_NAME, Service

from .conftest import REFEREE


def upload(client: FlaskClient, data: bytes, name: str = "kept.sqlite3", **headers: str):
    body = {"name": name, "data": base64.b64encode(data).decode()}
    return client.post("/api/backup/check", json=body, headers=REFEREE | headers)


def test_download_then_restore_brings_the_games_and_players_back(
    client: FlaskClient, service: Service, tmp_path: Path
) -> None:
    zoe = client.post("/api/players", json={"name": "Zoé"}, headers=REFEREE).get_json()
    kept = service.new_game("tails", {"players": 2}, "Kept")
    assert client.get("/api/backup").status_code == 401  # the referee's only
    resp = client.get("/api/backup", headers=REFEREE)
    assert resp.status_code == 200
    assert resp.headers["Content-Disposition"].startswith('attachment; filename="diablotin-backup-')
    data = resp.get_data()
    assert data.startswith(b"SQLite format 3\x00")
    copy = tmp_path / "copy.sqlite3"
    copy.write_bytes(data)
    assert backup.check(copy) >= 1 and backup.count(copy) == (1, 1)
    # the evening goes on: a game more, the player gone
    later = service.new_game("tails", {"players": 2}, "Later")
    assert client.delete(f"/api/players/{zoe['id']}", headers=REFEREE).status_code == 200
    table = service.table(kept)
    moves = service.hub.subscribe(["games", table.topic])
    checked = upload(client, data)
    assert checked.status_code == 200, checked.get_json()
    assert checked.get_json()["games"] == 1 and checked.get_json()["players"] == 1
    assert {g.id for g in service.journal.games()} == {kept, later}  # a check changes nothing
    done = client.post(
        "/api/backup/restore",
        json={"upload": checked.get_json()["upload"], "confirm": True},
        headers=REFEREE,
    )
    assert done.status_code == 200, done.get_json()
    assert done.get_json()["restored"] is True and done.get_json()["games"] == 1
    # the journal is the backup's; the one before is kept beside it
    assert [g["title"] for g in client.get("/api/games").get_json()["games"]] == ["Kept"]
    assert [p["name"] for p in client.get("/api/players").get_json()["players"]] == ["Zoé"]
    journal_path = service.config.data_dir / JOURNAL_NAME
    assert done.get_json()["kept"] == JOURNAL_NAME + ".bak"
    assert backup.count(journal_path.with_name(JOURNAL_NAME + ".bak")) == (2, 0)
    # live pages were cut off, to reconnect to the restored games
    while True:
        try:
            moves.get(timeout=1)
        except EOFError:
            break
    # the restored game plays on, and a new game's id was never given before
    restored = service.table(kept)
    assert restored is not table and not restored.finished
    restored.submit(restored.legal_actions()[0])
    assert len(service.journal.actions(kept)) == 1
    again = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE).get_json()
    assert again["view"]["id"] > later
    assert not list((service.config.data_dir / "backups").glob("upload-*"))


def test_a_file_that_is_not_a_journal_is_refused_in_the_readers_language(
    client: FlaskClient, service: Service
) -> None:
    gid = service.new_game("tails", {"players": 2})
    resp = upload(client, b"not a journal at all" * 10, "holiday.jpg", **{"Accept-Language": "de"})
    assert resp.status_code == 400 and resp.get_json()["error"] == "bad-backup"
    assert "holiday.jpg" in resp.get_json()["reason"]
    assert "upload-" not in resp.get_json()["reason"]  # never the box's own path
    assert "not a Diablotin journal" not in resp.get_json()["reason"]  # said in German
    other = sqlite3.connect(":memory:")
    other.execute("CREATE TABLE notes (x)")
    foreign = service.config.data_dir / "foreign.sqlite3"
    other.execute(f"VACUUM INTO '{foreign}'")
    assert upload(client, foreign.read_bytes()).status_code == 400
    bad = client.post("/api/backup/check", json={"data": "%%%"}, headers=REFEREE)
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad-backup"
    assert [g.id for g in service.journal.games()] == [gid]


def test_back_drops_the_upload_and_changes_nothing(
    client: FlaskClient, service: Service, tmp_path: Path
) -> None:
    service.new_game("tails", {"players": 2}, "One")
    data = client.get("/api/backup", headers=REFEREE).get_data()
    service.new_game("tails", {"players": 2}, "Two")
    token = upload(client, data).get_json()["upload"]
    assert client.post(
        "/api/backup/restore", json={"upload": token, "confirm": False}, headers=REFEREE
    ).get_json() == {"restored": False}
    gone = client.post(
        "/api/backup/restore", json={"upload": token, "confirm": True}, headers=REFEREE
    )
    assert gone.status_code == 404 and gone.get_json()["error"] == "no-upload"
    assert [g.title for g in service.journal.games()] == ["One", "Two"]
    odd = client.post(
        "/api/backup/restore", json={"upload": "../diablotin", "confirm": True}, headers=REFEREE
    )
    assert odd.status_code == 404
    assert client.post("/api/backup/check", json={"data": ""}).status_code == 401
