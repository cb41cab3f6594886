"""The service when the journal misbehaves (issue 10): imports over the API, a full disk,
a failing WAL checkpoint, games that no longer replay, two services on one data dir."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.config import Config
from controller.games.tails import TailsRules
from controller.journal import EXPORT_FORMAT, DiskFull, Journal
from controller.service import Service
from controller.table import Table
from controller.web import create_app
from controller.web.security import PinThrottle

from .conftest import wait_for

PIN = "2468"
REFEREE = {"X-Referee-Pin": PIN}


def make_config(tmp_path: Path) -> Config:
    config = Config(data_dir=tmp_path / "data")
    config.server.referee_pin = PIN
    config.box.seed = 3
    return config


def quiet_service(config: Config) -> Service:
    return Service(config, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    svc = quiet_service(make_config(tmp_path))
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture
def client(service: Service) -> FlaskClient:
    return create_app(service, throttle=PinThrottle()).test_client()


def tails_moves(n: int) -> list[dict[str, Any]]:
    rules = TailsRules()
    state, moves = rules.setup({"players": 2}), []
    for _ in range(n):
        move = rules.legal_actions(state)[0]
        state = rules.apply(state, move)
        moves.append(move)
    return moves


def sauteur_export(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "kind": "sauteur",
        "title": "imported",
        "options": {"rule": "A"},
        "created": 1.0,
        "finished": None,
        "entries": entries,
    }


# -- 4: imports over the API are all or nothing ---------------------------------------------


def test_api_import_with_a_bad_entry_is_400_and_stores_nothing(
    client: FlaskClient, service: Service
) -> None:
    """Found by the adversarial run: an empty game row and a 500."""
    bad = sauteur_export([{"at": "noon", "action": {"type": "hidden"}}])
    resp = client.post("/api/import", json=bad, headers=REFEREE)
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json() == {
        "error": "bad-export",
        "code": "bad-export",
        "params": {"field": "entry 1: at"},
        "reason": "entry 1: at must be a number (seconds since 1970)",
    }
    illegal = sauteur_export([{"action": {"type": "face", "face": 3}}])
    resp = client.post("/api/import", json=illegal, headers=REFEREE)
    assert resp.status_code == 400
    assert resp.get_json()["reason"].startswith("action 1: ")
    long_title = dict(sauteur_export([]), title="x" * 81)
    resp = client.post("/api/import", json=long_title, headers=REFEREE)
    assert resp.get_json() == {
        "error": "bad-export",
        "code": "bad-export",
        "params": {"field": "title", "max": 80},
        "reason": "title must be at most 80 characters",
    }
    deep = b'{"a":' * 50_000 + b"1" + b"}" * 50_000  # found by this work: a 500
    resp = client.post(
        "/api/import", data=deep, headers={**REFEREE, "Content-Type": "application/json"}
    )
    assert resp.status_code == 400 and resp.get_json()["error"] == "bad-body"
    nested = dict(sauteur_export([]), options={"rule": "A", "x": [[[[[[[[[1]]]]]]]]]})
    resp = client.post("/api/import", json=nested, headers=REFEREE)
    assert resp.get_json() == {
        "error": "bad-export",
        "code": "bad-export",
        "params": {"where": "options", "limit": 8},
        "reason": "options is nested more than 8 deep",
    }
    assert service.journal is not None and service.journal.games() == []


def test_a_failed_sauteur_import_never_becomes_the_box_game(tmp_path: Path) -> None:
    """Found by the adversarial run: the empty row of a failed import was the newest
    unfinished sauteur game, so after a restart the box played it."""
    config = make_config(tmp_path)
    svc = quiet_service(config)
    svc.start()
    try:
        real = svc.new_game("sauteur", {"rule": "A"})
        client = create_app(svc, throttle=PinThrottle()).test_client()
        bad = sauteur_export([{"action": {"type": "hidden"}}, {"action": {"type": "nonsense"}}])
        assert client.post("/api/import", json=bad, headers=REFEREE).status_code == 400
    finally:
        svc.stop()
    again = quiet_service(config)
    again.start()
    try:
        box = again.box_play.box_game()
        assert box is not None and box.game_id == real
        assert [g["id"] for g in again.games()] == [real]
    finally:
        again.stop()


# -- 6: a full disk, a failing checkpoint -------------------------------------------------


def fill_the_disk(service: Service) -> None:
    """SQLite's own size limit: the next page it needs fails with SQLITE_FULL, for real."""
    assert service.journal is not None
    db = service.journal._db
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")


def make_room(service: Service) -> None:
    assert service.journal is not None
    service.journal._db.execute("PRAGMA max_page_count = 1073741823")


def test_a_full_disk_gives_507_changes_nothing_and_recovers(
    client: FlaskClient, service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    """Found by the adversarial run: a bare 500 and "cannot rollback" in the log."""
    gid = service.new_game("teufel", {"players": ["blue", "green"]})
    table = service.table(gid)
    fill_the_disk(service)
    resp = None
    for _ in range(500):  # each entry takes room on the last page; then the disk is full
        before = client.get(f"/api/games/{gid}").get_json()
        move = table.legal_actions()[0]
        resp = client.post(f"/api/games/{gid}/actions", json=move, headers=REFEREE)
        if resp.status_code != 200:
            break
        before = client.get(f"/api/games/{gid}").get_json()
        resp = client.post(f"/api/games/{gid}/undo", headers=REFEREE)
        if resp.status_code != 200:
            break
    assert resp is not None and resp.status_code == 507, "the disk never filled"
    assert resp.get_json()["error"] == "disk-full"
    assert resp.get_json()["reason"].startswith("the box's disk is full")
    api_doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    example = re.search(r'```json\n(\{"error": "disk-full".*?\})\n```', api_doc)
    assert example and json.loads(example.group(1)) == resp.get_json()  # as documented
    after = client.get(f"/api/games/{gid}").get_json()
    assert after == before  # not acknowledged, the state is unchanged
    assert service.journal is not None
    assert len(service.journal.entries(gid)) == table.version == before["view"]["version"]
    box = client.get("/api/box").get_json()
    assert box["journal"]["ok"] is False
    assert "the box's disk is full" in box["journal"]["warnings"][0]
    made = 0
    for _ in range(500):  # new games are refused the same way once their page is full
        resp = client.post("/api/games", json={"kind": "tails"}, headers=REFEREE)
        if resp.status_code != 201:
            break
        made += 1
    assert resp.status_code == 507 and resp.get_json()["error"] == "disk-full"
    assert len(client.get("/api/games").get_json()["games"]) == 1 + made
    make_room(service)
    move = table.legal_actions()[0]
    resp = client.post(f"/api/games/{gid}/actions", json=move, headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["view"]["version"] == before["view"]["version"] + 1
    assert client.get("/api/box").get_json()["journal"]["ok"] is True
    assert service.journal.actions(gid)[-1] == move
    assert "cannot rollback" not in caplog.text
    assert "journal write refused: the disk is full" in caplog.text


def test_submit_and_undo_on_a_full_disk_change_nothing(service: Service) -> None:
    gid = service.new_game("teufel", {"players": ["blue", "green"]})
    table = service.table(gid)
    fill_the_disk(service)
    view = table.view("referee")
    with pytest.raises(DiskFull):
        for _ in range(500):
            table.submit(table.legal_actions()[0])
            view = table.view("referee")
            table.undo()
            view = table.view("referee")
    assert table.view("referee") == view
    assert service.journal is not None
    assert len(service.journal.entries(gid)) == table.version


class FlakyConnection:
    """A checkpoint connection whose first ``fail`` checkpoints fail like a disk error."""

    def __init__(self, real: sqlite3.Connection, failures: list[int]) -> None:
        self.real, self.failures = real, failures

    def execute(self, sql: str, *args: Any) -> Any:
        if "wal_checkpoint" in sql and self.failures[0] > 0:
            self.failures[0] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return self.real.execute(sql, *args)

    def close(self) -> None:
        self.real.close()


def test_the_checkpoint_thread_survives_failures_and_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the adversarial run: one failure ended the thread; the WAL then grew without
    bound (10 MB after 1,000 actions)."""
    import controller.journal.connection as journal_module  # where the thread reads them

    monkeypatch.setattr(journal_module, "CHECKPOINT_RETRY_S", (0.05, 0.2))
    monkeypatch.setattr(journal_module, "CHECKPOINT_EVERY", 20)
    failures = [10**6]  # failing until the warning was seen (no race with a loaded machine)

    class FlakyJournal(Journal):
        def _checkpoint_connection(self) -> Any:
            return FlakyConnection(super()._checkpoint_connection(), failures)

    journal = FlakyJournal(tmp_path / "data" / "diablotin.sqlite3")
    config = make_config(tmp_path)
    svc = Service(config, journal=journal, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    svc.start()
    try:
        client = create_app(svc, throttle=PinThrottle()).test_client()
        gid = svc.new_game("teufel", {"players": ["blue", "green"]})
        table = svc.table(gid)
        for _ in range(20):  # 20 appends: a checkpoint is due, and fails
            table.submit(table.legal_actions()[0])
            table.undo()
        warned = wait_for(
            lambda: client.get("/api/box").get_json()["journal"]["warnings"],
            timeout=5,
            what="a checkpoint warning in /api/box",
        )
        assert "WAL checkpoint failed" in warned[0] and "disk I/O error" in warned[0]
        assert journal._checkpointer is not None and journal._checkpointer.is_alive()
        failures[0] = 2  # two more failures, then it works
        wait_for(lambda: failures[0] == 0, timeout=5, what="two more retries")
        wait_for(lambda: client.get("/api/box").get_json()["journal"]["ok"], what="recovery")
        assert journal._checkpointer is not None and journal._checkpointer.is_alive()
        health = client.get("/api/box").get_json()["journal"]
        assert health["checkpoints"] >= 1 and health["checkpoint_failures"] == 0
        # it keeps checkpointing: 400 more appends leave a small WAL
        for _ in range(200):
            table.submit(table.legal_actions()[0])
            table.undo()
        wait_for(lambda: journal.health()["checkpoints"] >= 10, what="later checkpoints")
    finally:
        svc.stop()
    wal = tmp_path / "data" / "diablotin.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0  # the closing TRUNCATE worked too


# -- 3: a game that no longer replays is quarantined; one service per data dir -------------


def test_a_tails_game_whose_board_file_moved_is_quarantined(tmp_path: Path) -> None:
    """Found by the adversarial run: the service did not start at all."""
    board = tmp_path / "myboard.json"
    from controller.games.tails.board import board_file

    shutil.copyfile(board_file("default"), board)
    config = make_config(tmp_path)
    svc = quiet_service(config)
    svc.start()
    try:
        moved = svc.new_game("tails", {"players": 2, "board": str(board)})
        for move in tails_moves(3):
            svc.table(moved).submit(move)
        fine = svc.new_game("tails", {"players": 2})
    finally:
        svc.stop()
    board.rename(tmp_path / "elsewhere.json")
    again = quiet_service(config)
    again.start()  # starts anyway
    try:
        client = create_app(again, throttle=PinThrottle()).test_client()
        games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
        assert games[moved]["damaged"].startswith("no board named")
        api_doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
        example = re.search(r"`(\{\"id\": 4, \"kind\": \"tails\".*?\})`", api_doc)
        assert example  # the documented summary, with this game's values
        documented = example.group(1).replace("/home/pi/board.json", str(board))
        summary = json.loads(documented.replace("…", "0"))  # title "0", created 0
        assert set(summary) == set(games[moved])
        assert summary["damaged"] == games[moved]["damaged"]
        assert summary["damaged_said"] == games[moved]["damaged_said"]
        assert "damaged" not in games[fine]
        resp = client.get(f"/api/games/{moved}")
        assert resp.status_code == 409
        assert resp.get_json()["error"] == "damaged"
        assert resp.get_json()["reason"].startswith(f"game {moved} is damaged: no board named")
        move = tails_moves(4)[3]
        resp = client.post(f"/api/games/{moved}/actions", json=move, headers=REFEREE)
        assert resp.status_code == 409  # not playable
        assert client.get(f"/api/games/{moved}/export").status_code == 401
        resp = client.get(f"/api/games/{moved}/export", headers=REFEREE)
        assert resp.status_code == 200
        raw = json.loads(resp.data)
        assert [e["action"] for e in raw["entries"]] == tails_moves(3)
        assert raw["options"]["board"] == str(board)
        page = client.get(f"/history/{moved}").get_data(as_text=True)
        assert "damaged: no board named" in page
        csv = client.get("/api/export.csv", headers=REFEREE)  # issue 26, item 7: was 500
        assert csv.status_code == 200 and csv.headers["X-Skipped-Games"] == str(moved)
        assert client.get("/api/export.zip", headers=REFEREE).status_code == 200
        assert client.get(f"/games/{moved}").status_code == 200
        assert client.get(f"/api/games/{fine}").status_code == 200
    finally:
        again.stop()


def test_conflicting_moves_from_two_services_quarantine_the_game(tmp_path: Path) -> None:
    """Two services on one data dir (before the lock) each acknowledged a move from the same
    position; the journal holds both and no longer replays."""
    path = tmp_path / "data" / "diablotin.sqlite3"
    first, second = Journal(path), Journal(path)
    gid = first.create_game("tails", {"players": 2}, "two boxes")
    rules = TailsRules()
    state = rules.setup({"players": 2})
    one, other = rules.legal_actions(state)[:2]
    from controller.hub import Hub

    Table(rules, first, gid, Hub()).submit(one)
    Table(rules, second, gid, Hub())  # opened before the first move reached it? no:
    second.append(gid, other)  # the second box acknowledged its own move at seq 2
    first.close()
    second.close()
    svc = quiet_service(make_config(tmp_path))
    svc.start()
    try:
        (summary,) = svc.games()
        assert summary["damaged"].startswith("action 2: ")
        with pytest.raises(Exception, match="is damaged"):
            svc.table(gid)
        exported = svc.journal.export(gid) if svc.journal else {}
        assert [e["action"] for e in exported["entries"]] == [one, other]
    finally:
        svc.stop()


def test_a_second_service_on_the_same_data_dir_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)
    first = quiet_service(config)
    first.start()
    try:
        second = quiet_service(make_config(tmp_path))
        from controller.datadir import DataDirBusy

        with pytest.raises(DataDirBusy) as refused:
            second.start()
        second.stop()
        message = str(refused.value)
        assert str(config.data_dir) in message
        import os

        assert f"pid {os.getpid()}" in message
        from controller import cli

        assert cli.main(["--data-dir", str(config.data_dir), "play", "sauteur"]) == 1
        assert capsys.readouterr().err.startswith("diablotin: another diablotin (pid ")
    finally:
        first.stop()
    third = quiet_service(config)  # the lock went with the first service
    third.start()
    third.stop()


def test_a_pop_the_box_cannot_record_on_a_full_disk_is_a_notice(tmp_path: Path) -> None:
    """The pop is journaled on the worker thread when the slot empties: on a full disk the
    referee is told, the game is unchanged, the worker goes on."""
    config = make_config(tmp_path)
    svc = Service(config, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=0.01)
    svc.start()
    try:
        gid = svc.new_game("sauteur", {"rule": "A"})
        table = svc.table(gid)
        wait_for(lambda: table.state.phase == "pop", what="hiding done")
        assert svc.journal is not None
        pad = svc.journal.create_game("teufel", {}, "padding")  # finished: never opened
        svc.journal.mark_finished(pad)
        fill_the_disk(svc)
        with pytest.raises(DiskFull):
            for n in range(1000):  # take every byte left on the entries' last page
                svc.journal.append(pad, {"type": "pad", "n": n})
        version = table.version
        svc.box_play.press(gid, 2)
        wait_for(
            lambda: any("disk is full" in n["text"] for n in svc.box_status()["notices"]),
            what="a disk-full notice",
        )
        assert table.version == version and table.state.phase == "pop"
        assert svc.call(lambda: "worker alive") == "worker alive"
    finally:
        svc.stop()


def test_every_write_counts_towards_a_checkpoint(tmp_path: Path) -> None:
    """Issue 26, item 9: only game actions counted; 3,000 renames left a 12.4 MB WAL and
    0 checkpoints. Renames, settings and roster changes count too."""
    from controller.journal import CHECKPOINT_EVERY

    journal = Journal(tmp_path / "data" / "diablotin.sqlite3")
    try:
        gid = journal.create_game("tails", {"players": 2}, "first")
        for n in range(CHECKPOINT_EVERY):
            journal.rename(gid, f"title {n}")
        wait_for(lambda: journal.health()["checkpoints"] >= 1, what="a checkpoint after renames")
        for n in range(CHECKPOINT_EVERY):
            journal.set_setting(gid, "note", n)
        wait_for(lambda: journal.health()["checkpoints"] >= 2, what="one after settings")
        player = journal.save_player("Zoé", "#ff0000")
        for n in range(CHECKPOINT_EVERY):
            journal.save_player(f"Zoé {n}", "#00ff00", player)
        wait_for(lambda: journal.health()["checkpoints"] >= 3, what="one after roster changes")
    finally:
        journal.close()
