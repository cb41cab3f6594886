"""What every part of the reliability suite uses: a real ``diablotin serve`` process on
127.0.0.1, a JSON client for its API, a spectator's live stream, ``/proc`` readings."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..games import registry
from ..journal import Journal

PIN = "97531"
KINDS = registry.names()
"""The game kinds the suite plays, in the order the kill -9 part takes them in turn."""

Log = Callable[[str], None]
Op = dict[str, object] | None
"""A scripted entry: an action, or ``None`` for an undo."""


# --- the server process --------------------------------------------------------------------


class HttpError(Exception):
    """A non-2xx answer: ``status``, the API's error ``code`` and ``reason``."""

    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(f"HTTP {status} {code}: {reason}")
        self.status = status
        self.code = code
        self.reason = reason


class Api:
    """JSON over HTTP to 127.0.0.1:``port``, as a script would (PIN in a header).

    ``call`` raises :class:`HttpError` for an error answer, ``OSError`` or
    ``http.client.HTTPException`` when the connection fails (a killed server).
    ``keep_alive``: one connection for every call (reopened after a failure, never
    retried); otherwise a new connection per call. ``minimal``: POSTs ask for the short
    answer (``Prefer: return=minimal``: an action's or undo's is ``{"game", "version"}``).
    """

    def __init__(
        self, port: int, pin: str = PIN, *, keep_alive: bool = False, minimal: bool = False
    ) -> None:
        self.port = port
        self.pin = pin
        self.keep_alive = keep_alive
        self.minimal = minimal
        self._conn: http.client.HTTPConnection | None = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        referee: bool = True,
        timeout: float = 10.0,
    ) -> Any:
        headers = {"X-Referee-Pin": self.pin} if referee else {}
        if self.minimal and method == "POST":  # as a page with its stream live asks
            headers["Prefer"] = "return=minimal"
        payload = None
        if body is not None or method in ("POST", "PUT"):
            payload = json.dumps({} if body is None else body)
            headers["Content-Type"] = "application/json"
        conn = self._conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        self._conn = None
        try:
            conn.request(method, path, body=payload, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except BaseException:
            conn.close()
            raise
        if self.keep_alive and not resp.will_close:
            self._conn = conn
        else:
            conn.close()
        if resp.status >= 400:
            try:
                error = json.loads(data)
            except ValueError:
                error = {}
            raise HttpError(resp.status, error.get("error", "?"), error.get("reason", ""))
        return json.loads(data)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` (MB, from ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (s, from ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServeProcess:
    """A real ``diablotin serve`` on 127.0.0.1 with the simulated box, its data in ``workdir``.

    Output goes to ``workdir/serve.log``. :meth:`start` again after :meth:`kill9` or
    :meth:`stop` is a restart on the same journal.
    """

    def __init__(self, workdir: Path, *, seed: int = 5, installed: bool = False) -> None:
        """``installed``: run it as ``scripts/install-pi`` leaves it, its own modules
        compiled to bytecode beforehand (``compileall``: the package's ``__pycache__``), so
        a start-up does not include compiling them (``PYTHONDONTWRITEBYTECODE`` is
        dropped for it)."""
        self.workdir = workdir
        self.port = free_port()
        self.data = workdir / "data"
        self.config = workdir / "diablotin.toml"
        workdir.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f'[server]\nhost = "127.0.0.1"\nport = {self.port}\nreferee_pin = "{PIN}"\n'
            f'[data]\ndir = "{self.data}"\n[box]\nbackend = "simulated"\nseed = {seed}\n'
        )
        self.api = Api(self.port)
        self.proc: subprocess.Popen[bytes] | None = None
        self.confine: Callable[[int], None] | None = None
        """Called with the new process's pid at each start (``bench all --pi-class``)."""
        self.journal_path = self.data / "diablotin.sqlite3"
        self.env: dict[str, str] | None = None
        if installed:
            self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            package = Path(__file__).resolve().parents[1]
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(package)], env=self.env, check=True
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 30.0) -> float:
        """Start and wait for the first 200 from ``/api/games``; returns the seconds that took.

        Raises ``RuntimeError`` if the process exits or does not answer within ``timeout``.
        """
        with (self.workdir / "serve.log").open("ab") as log:
            started = time.monotonic()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "controller.cli", "--config", str(self.config), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
            )
        if self.confine is not None:
            self.confine(self.proc.pid)
        while time.monotonic() - started < timeout:
            try:
                self.api.call("GET", "/api/games", referee=False, timeout=2)
                return time.monotonic() - started
            except (OSError, http.client.HTTPException, HttpError):
                if self.proc.poll() is not None:
                    where = self.workdir / "serve.log"
                    raise RuntimeError(f"diablotin serve exited: see {where}") from None
                time.sleep(0.005)
        self.kill9()
        raise RuntimeError(f"diablotin serve did not answer within {timeout} s")

    def kill9(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM (coils off, clean exit); returns the exit status (SIGKILL after 15 s)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill9()
        return int(self.proc.returncode)

    def read_journal(self) -> Journal:
        """The journal file, opened by this process (only while the server is down)."""
        return Journal(self.journal_path)


def send_op(api: Api, gid: int, op: Op) -> dict[str, Any]:
    """Enter one scripted entry (``None``: an undo); returns the answer."""
    if op is None:
        answer: dict[str, Any] = api.call("POST", f"/api/games/{gid}/undo")
    else:
        answer = api.call("POST", f"/api/games/{gid}/actions", op)
    return answer


def answer_version(answer: Mapping[str, object]) -> int:
    """The game's version in an action's answer, whole (``view.version``) or short;
    ``ValueError`` when it has none."""
    view = answer.get("view")
    version = answer.get("version", view.get("version") if isinstance(view, dict) else None)
    if not isinstance(version, int):
        raise ValueError(f"no version in the answer: {answer!r:.200}")
    return version


class StreamWatcher(threading.Thread):
    """Reads ``/stream?topics=<topic>`` as a spectator's phone; keeps the topic's events.

    ``events`` are the decoded ``data`` of each ``<topic>`` event, snapshot first;
    ``ready`` is set once the snapshot is in. Ends when the connection ends.
    """

    def __init__(self, port: int, topic: str) -> None:
        super().__init__(name=f"watch-{topic}", daemon=True)
        self.port = port
        self.topic = topic
        self.events: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("GET", f"/stream?topics={self.topic}")
            resp = conn.getresponse()
            if resp.status != 200:
                self.error = f"stream answered {resp.status}"
                return
            event = None
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == self.topic:
                    self.events.append(json.loads(line[6:]))
                    self.ready.set()
                elif not line:
                    event = None
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the server was killed: what arrived is what the phone saw
        finally:
            conn.close()
            self.ready.set()
