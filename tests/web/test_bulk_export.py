"""Issue 26: ``export.zip`` and ``export.csv`` are made on the costly-work queue (its worker
thread, the referee's priority), not on the request thread, and are what ``diablotin export
--all`` writes."""

from __future__ import annotations

import io
import random
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller import exports
from controller.service import Service
from controller.web.costly import Costly

from .conftest import REFEREE


@pytest.fixture
def games(service: Service) -> None:
    for players in (2, 3):
        gid = service.new_game("tails", {"players": players})
        table, rng = service.table(gid), random.Random(players)
        for _ in range(6):
            table.submit(rng.choice(table.legal_actions()))


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """Record the thread each call of ``exports.<name>`` runs on."""
    threads: list[str] = []
    real = getattr(exports, name)

    def spied(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(exports, name, spied)
    return threads


def test_the_zip_is_made_on_the_worker_and_holds_every_game(
    app: Flask,
    client: FlaskClient,
    service: Service,
    games: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    costly: Costly = app.extensions["diablotin.costly"]
    assert service.journal is not None
    exports.write_zip(service.journal, tmp_path / "cli.zip")  # as the CLI writes it
    threads = _spy(monkeypatch, "write_zip")
    resp = client.get("/api/export.zip", headers=REFEREE)
    assert resp.status_code == 200
    assert resp.mimetype == "application/zip"
    assert threads == ["diablotin-costly"]
    assert costly.computed == 1
    with (
        zipfile.ZipFile(io.BytesIO(resp.data)) as got,
        zipfile.ZipFile(tmp_path / "cli.zip") as cli,
    ):
        assert got.namelist() == cli.namelist() == ["game-1.json", "game-2.json"]
        for name in cli.namelist():
            assert got.read(name) == cli.read(name)
    again = client.get("/api/export.zip", headers=REFEREE)  # never a cached answer
    assert threads == ["diablotin-costly"] * 2
    assert again.status_code == 200


def test_the_csv_is_made_on_the_worker_and_is_the_clis(
    app: Flask,
    client: FlaskClient,
    service: Service,
    games: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.StringIO()
    assert service.journal is not None
    exports.write_csv(service.journal, out)  # as the CLI writes it
    threads = _spy(monkeypatch, "write_csv")
    resp = client.get("/api/export.csv", headers=REFEREE)
    assert resp.status_code == 200
    assert resp.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert threads == ["diablotin-costly"]
    assert resp.data.decode() == out.getvalue()
    assert len(out.getvalue().splitlines()) == 3
    assert client.get("/api/export.csv").status_code == 401  # the referee's only
