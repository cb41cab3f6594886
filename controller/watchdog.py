"""systemd's watchdog: ``READY=1`` once serving, ``WATCHDOG=1`` only while the worker loop
and the coils are well.

The unit sets ``WatchdogSec=2``; systemd then passes ``WATCHDOG_USEC`` and ``NOTIFY_SOCKET``.
:class:`Watchdog` posts a heartbeat job to the service's worker loop (the thread that turns
box facts into game actions and fires coils) and pings systemd only if that job ran
recently and the box says its coils are well (:meth:`~controller.box.base.Box.check_coils`:
the coil thread runs and no coil is past its deadline). A stuck worker or a stalled coil
thread stops the pings (a stalled coil thread also gets every coil switched off at once);
systemd then kills the service (SIGABRT) and runs ``ExecStopPost`` (``controller.coils_off``).

No dependency: a datagram on an ``AF_UNIX`` socket is the whole sd_notify protocol.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .box.base import Box

log = logging.getLogger(__name__)


def notify(message: str, path: str | None = None) -> bool:
    """Send ``message`` (e.g. ``"READY=1"``) to systemd; False if not under systemd or it failed.

    ``path`` defaults to ``$NOTIFY_SOCKET``; a leading ``@`` is Linux's abstract namespace.
    """
    path = path if path is not None else os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    address = "\0" + path[1:] if path.startswith("@") else path
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message.encode(), address)
    except OSError as exc:
        log.warning("sd_notify %s failed: %s", message, exc)
        return False
    return True


def systemd_ready(server: object = None) -> None:
    """Tell systemd the service is up (``Type=notify``); ``server`` is ignored (serve's hook)."""
    notify("READY=1")


def watchdog_interval_s() -> float | None:
    """systemd's watchdog timeout for this process (s), or None when it has none."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1_000_000


class Watchdog:
    """Pings systemd every ``timeout_s / 4`` while a heartbeat job posted with ``post`` has
    run within the last ``timeout_s / 2`` and ``box`` (if any) passes ``check_coils()``;
    stops pinging as soon as either fails, and switches every coil off when the coils fail.

    ``post(job)`` queues ``job`` on the worker loop (``Service.post``). Only one heartbeat
    is in the queue at a time, so a stalled worker does not pile them up.
    """

    def __init__(
        self,
        post: Callable[[Callable[[], None]], None],
        timeout_s: float,
        send: Callable[[str], bool] = notify,
        box: Box | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self._post = post
        self._send = send
        self._box = box
        self._coils_failing = False
        self._beat_at = time.monotonic()
        self._waiting = False  # a heartbeat job is queued and has not run yet
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self.pings = 0

    @classmethod
    def from_environment(
        cls, post: Callable[[Callable[[], None]], None], box: Box | None = None
    ) -> Watchdog | None:
        """A watchdog when systemd asked for one (``WATCHDOG_USEC``), else None."""
        timeout_s = watchdog_interval_s()
        return None if timeout_s is None else cls(post, timeout_s, box=box)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1)

    def _beat(self) -> None:
        """Runs on the worker loop: proof that it is alive."""
        with self._lock:
            self._beat_at = time.monotonic()
            self._waiting = False

    def _run(self) -> None:
        while not self._stop.wait(self.timeout_s / 4):
            with self._lock:
                alive = time.monotonic() - self._beat_at <= self.timeout_s / 2
                post = not self._waiting
                self._waiting = True
            if post:
                self._post(self._beat)
            coils_ok = self._coils_ok()
            if alive and coils_ok and self._send("WATCHDOG=1"):
                self.pings += 1
            elif not alive:
                log.error("the service's worker loop is stuck: no watchdog ping")

    def _coils_ok(self) -> bool:
        """The box's ``check_coils()``; while it fails, every coil is switched off."""
        if self._box is None or self._box.check_coils():
            if self._coils_failing:
                log.warning("the coil thread is back: watchdog pings again")
            self._coils_failing = False
            return True
        if not self._coils_failing:
            log.error("the coil thread is stalled or a coil is past its deadline: no ping")
        self._coils_failing = True
        self._box.all_off()
        return False
