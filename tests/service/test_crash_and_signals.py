"""Real `diablotin serve` processes: kill -9 loses no acknowledged action; SIGTERM
switches the coils off. Driven over the HTTP API like a referee's phone would."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from controller.games.base import replay
from controller.games.tails import TailsRules
from controller.journal import Journal

PIN = "13579"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`python -m controller.cli serve` on simulated pins, on a temp data dir."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.data = tmp_path / "data"
        self.config = tmp_path / "diablotin.toml"
        self.config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {self.port}\nreferee_pin = "{PIN}"\n'
            f'[data]\ndir = "{self.data}"\n[box]\nseed = 5\n'
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, extra_env: dict[str, str] | None = None, *args: str) -> None:
        env = dict(os.environ, **(extra_env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "--config", str(self.config), "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                self.call("GET", "/api/games")
                return
            except (urllib.error.URLError, ConnectionError):
                assert self.proc.poll() is None, self.proc.stdout.read().decode()
                time.sleep(0.05)
        pytest.fail("server did not start")

    def call(self, method: str, path: str, body: object = None, timeout: float = 5) -> object:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method=method
        )
        request.add_header("X-Referee-Pin", PIN)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out = self.proc.communicate(timeout=15)[0].decode()
        return out


def random_tails_game(seed: int, n: int) -> list[dict]:
    """A legal placement sequence of n actions for a 2-player tail-tile game."""
    rules, rng = TailsRules(), random.Random(seed)
    state, actions = rules.setup({"players": 2}), []
    while len(actions) < n and not rules.is_over(state):
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions.append(action)
    return actions


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_mid_game_loses_no_acknowledged_action(tmp_path, seed):
    server = Server(tmp_path)
    server.start()
    game = server.call("POST", "/api/games", {"kind": "tails", "options": {"players": 2}})
    gid = game["view"]["id"]
    plan = random_tails_game(seed, 60)
    acked: list[dict] = []
    killer = threading.Timer(random.Random(seed).uniform(0.3, 1.2), server.kill9)
    killer.start()
    try:
        for action in plan:
            server.call("POST", f"/api/games/{gid}/actions", action)
            acked.append(action)  # the server answered 200: acknowledged
    except (urllib.error.URLError, ConnectionError, OSError):
        pass  # killed mid-request
    killer.join()
    assert server.proc.returncode == -signal.SIGKILL
    journal = Journal(server.data / "diablotin.sqlite3")
    stored = journal.actions(gid)
    journal.close()
    assert stored[: len(acked)] == acked, "an acknowledged action was lost"
    assert len(stored) <= len(acked) + 1  # at most the one in flight when killed
    server.start()
    try:
        view = server.call("GET", f"/api/games/{gid}")
        state = replay(TailsRules(), {"players": 2}, stored)
        expected = TailsRules().view(state, "public")
        got = view["view"]["state"]
        assert got["totals"] == expected["totals"] and got["placed"] == expected["placed"]
        # Play on after the restart: the game resumes where it was.
        rest = plan[len(stored) : len(stored) + 3]
        for action in rest:
            server.call("POST", f"/api/games/{gid}/actions", action)
    finally:
        server.stop()
    journal = Journal(server.data / "diablotin.sqlite3")
    assert journal.actions(gid) == stored + rest
    journal.close()


def test_sauteur_resumes_after_kill_9(tmp_path):
    server = Server(tmp_path)
    server.start()
    game = server.call("POST", "/api/games", {"kind": "sauteur", "options": {"rule": "B"}})
    gid = game["view"]["id"]
    for player in ("p1", "p2"):
        server.call("PUT", f"/api/games/{gid}/computer", {"player": player, "on": True})
    deadline = time.monotonic() + 20  # the computer plays; each accepted action is journaled
    while server.call("GET", f"/api/games/{gid}")["view"]["version"] < 5:
        assert time.monotonic() < deadline, "the computer did not play"
        time.sleep(0.05)
    server.kill9()
    journal = Journal(server.data / "diablotin.sqlite3")
    stored = journal.actions(gid)
    options = journal.game(gid).options  # with the drawn first hider
    journal.close()
    assert len(stored) >= 3 and options["first_hider"] in ("p1", "p2")
    server.start()
    try:
        view = server.call("GET", f"/api/games/{gid}")
        game_view = view["view"]
        assert game_view["version"] >= len(stored)
        from controller.games.sauteur import SauteurRules

        expected = SauteurRules().view(replay(SauteurRules(), options, stored), "public")
        assert game_view["state"]["history"][: len(expected["history"])] == expected["history"]
        if game_view["state"]["phase"] == "face":  # killed between a pop and its face
            server.call("POST", f"/api/games/{gid}/actions", {"type": "face", "face": 3})
        # the computer seats were kept: it plays on by itself
        deadline = time.monotonic() + 20
        while server.call("GET", f"/api/games/{gid}")["view"]["version"] < len(stored) + 3:
            assert time.monotonic() < deadline, "the game did not go on after the restart"
            time.sleep(0.05)
    finally:
        server.stop()


def test_sigterm_switches_coils_off_and_exits_cleanly(tmp_path):
    server = Server(tmp_path)
    server.start()
    output = server.stop()
    assert server.proc.returncode == 0, output
    assert "coils off" in output
