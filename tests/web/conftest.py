"""Fixtures for the dashboard tests: a started service on a temp data dir, its app."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.config import Config
from controller.service import Service
from controller.web import create_app
from controller.web.security import PinThrottle

PIN = "4321"
REFEREE = {"X-Referee-Pin": PIN}


class FakeClock:
    """Seconds that move only when told (for the PIN throttle)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_service(data_dir: Path, **delays: float) -> Service:
    config = Config(data_dir=data_dir)
    config.server.referee_pin = PIN
    config.box.seed = 7
    service = Service(config, **delays)
    service.start()
    return service


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    """A service whose simulated toy never acts by itself (hours of delay)."""
    svc = make_service(tmp_path, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    try:
        yield svc
    finally:
        svc.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(service: Service, clock: FakeClock) -> Flask:
    return create_app(service, throttle=PinThrottle(clock=clock))


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def login(client: FlaskClient) -> str:
    """Log the test client in as the referee; returns the CSRF token."""
    resp = client.post("/api/session", json={"pin": PIN})
    assert resp.status_code == 200, resp.get_json()
    token = resp.get_json()["csrf"]
    assert isinstance(token, str) and len(token) >= 20
    return token


def snapshot(service: Service) -> dict[str, Any]:
    """Everything a refused request must leave alone."""
    assert service.journal is not None
    return {
        "games": [(g.id, g.kind, g.title, g.finished is not None) for g in service.journal.games()],
        "entries": {
            g.id: [(e.seq, e.undo, e.action) for e in service.journal.entries(g.id)]
            for g in service.journal.games()
        },
        "computer": {k: sorted(v) for k, v in service.box_play.computer.items()},
        "toy": service.toy.status() if service.toy is not None else None,
        "slots": service.box.slots() if service.box is not None else None,
    }


@contextmanager
def live_server(tmp_path: Path, delay_s: float) -> Iterator[tuple[str, Service]]:
    """The real server (waitress, as serve runs it) on 127.0.0.1:<free port>, for a Service
    whose toy waits ``delay_s`` before hiding, showing faces and thinking (3600: never)."""
    from controller.server import bound_port, make_server

    service = make_service(tmp_path, think_s=delay_s, face_delay_s=delay_s, hide_delay_s=delay_s)
    server = make_server(create_app(service), "127.0.0.1", 0, 32)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{bound_port(server)}", service
    finally:
        service.hub.close_all()
        server.stop()
        service.stop()


def games_in_play(service: Service, seed: int = 2) -> tuple[int, int, random.Random]:
    """A Teufel Teufel game 10 actions in (random_game(4)) and a two-player tail-tile game
    10 random moves in, as the page tests show them: ``(teufel id, tails id, the random
    generator that chose the moves, to go on with)``."""
    from controller.games.teufel.random_play import random_game

    game = random_game(4)
    teufel = service.new_game("teufel", game.options)
    for action in game.actions[:10]:
        service.table(teufel).submit(action)
    tails = service.new_game("tails", {"players": 2})
    rng = random.Random(seed)
    for _ in range(10):
        service.table(tails).submit(rng.choice(service.table(tails).legal_actions()))
    return teufel, tails, rng
