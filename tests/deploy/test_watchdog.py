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
from gpiozero.pins.mock import MockFactory

from controller.box.base import Limits
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.clock import ManualClock
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


class Pings:
    """``send`` for the watchdog: when each ping went out (monotonic s)."""

    def __init__(self) -> None:
        self.at: list[float] = []

    def __call__(self, message: str) -> bool:
        assert message == "WATCHDOG=1"
        self.at.append(time.monotonic())
        return True

    def between(self, start: float, end: float) -> int:
        return sum(start <= t < end for t in self.at)


def test_a_stalled_coil_thread_stops_the_pings_and_its_coil_goes_off() -> None:
    """Issue 26: with the coil thread's lock held mid-pulse, coil 1 stayed on for 6 s while
    12 pings went out. Now the coil goes off by its deadline and no ping goes out until the
    coil thread is back."""
    factory = MockFactory()
    pins = PinMap(coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19))
    pings = Pings()
    with GpioBox(pins, Limits(pulse_ms=30), ManualClock(), factory=factory) as box:
        watchdog = Watchdog(lambda job: job(), 0.4, send=pings, box=box)  # a ping per 0.1 s
        watchdog.start()
        try:
            time.sleep(0.3)
            assert pings.between(0, time.monotonic()) >= 1  # pinging while all is well
            box.fire(1)
            with box._coil_cond:  # the coil thread waits on this to end its pulse: stalled
                stalled = time.monotonic()
                time.sleep(1.0)
                coil_during_stall = factory.pin(17).state
                released = time.monotonic()
            assert coil_during_stall is False
            # Loose: the 100 ms deadline, then a ping already under way may still go out.
            assert pings.between(stalled + 0.4, released) == 0
            time.sleep(0.5)
            assert pings.between(released, time.monotonic()) >= 1  # back once it is back
        finally:
            watchdog.stop()


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
