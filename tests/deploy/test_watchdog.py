"""The systemd watchdog: READY=1 once serving, WATCHDOG=1 only while the worker loop runs.

Datagrams are read from a real AF_UNIX socket bound as NOTIFY_SOCKET, as systemd does.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.service import Service
from controller.watchdog import Watchdog

from .helpers import make_config

REPO = Path(__file__).resolve().parents[2]


class NotifySocket:
    """A bound AF_UNIX datagram socket standing in for systemd's notify socket."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def messages(self, within_s: float, until: str | None = None) -> list[str]:
        """Datagrams received within ``within_s`` (stops early once ``until`` arrived)."""
        got: list[str] = []
        deadline = time.monotonic() + within_s
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                got.append(self.sock.recv(4096).decode())
            except TimeoutError:
                break
            if until is not None and until in got:
                break
        return got

    def drain(self) -> None:
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(4096)
        except BlockingIOError:
            pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[NotifySocket]:
    sock = NotifySocket(tmp_path / "notify")
    try:
        yield sock
    finally:
        sock.close()


def test_pings_stop_while_the_worker_loop_is_stuck_and_resume_after(
    tmp_path: Path, notify_socket: NotifySocket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket.path)
    monkeypatch.setenv("WATCHDOG_USEC", "400000")  # 0.4 s: pings every 0.1 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    service = Service(make_config(tmp_path, "simulated"))
    service.start()
    watchdog = Watchdog.from_environment(service.post)
    assert watchdog is not None and watchdog.timeout_s == 0.4
    watchdog.start()
    release = threading.Event()
    try:
        assert "WATCHDOG=1" in notify_socket.messages(1.0, until="WATCHDOG=1")
        service.post(lambda: release.wait(10))  # the worker loop hangs in a job
        time.sleep(0.4)  # the last beat ages past timeout / 2 (0.2 s) within this
        notify_socket.drain()
        assert notify_socket.messages(1.0) == []  # no ping while stuck
        release.set()
        assert "WATCHDOG=1" in notify_socket.messages(1.0, until="WATCHDOG=1")
    finally:
        release.set()
        watchdog.stop()
        service.stop()


def test_no_watchdog_without_systemd_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert Watchdog.from_environment(lambda job: None) is None
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))  # meant for another process
    assert Watchdog.from_environment(lambda job: None) is None


def test_serve_tells_systemd_ready_then_pings(tmp_path: Path, notify_socket: NotifySocket) -> None:
    config = tmp_path / "diablotin.toml"
    config.write_text(
        f'[box]\nbackend = "simulated"\n[server]\nhost = "127.0.0.1"\nport = 0\n'
        f'referee_pin = "2468"\n[data]\ndir = "{tmp_path / "data"}"\n'
    )
    env = dict(os.environ, NOTIFY_SOCKET=notify_socket.path, WATCHDOG_USEC="1000000")
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "--config", str(config), "serve"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        got = notify_socket.messages(30.0, until="READY=1")
        assert "READY=1" in got, got
        assert "WATCHDOG=1" in notify_socket.messages(3.0, until="WATCHDOG=1")
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err.decode()[-2000:]
