"""``--pi-method duty``: a confined process continued and stopped by signals every
:data:`DUTY_PERIOD_US` (see :mod:`controller.bench.piclass`, which calibrates it and says
what it reproduces and what not), and the pieces both methods share: :class:`Holds`,
:func:`pin`. A confined process is never left stopped: ``SIGCONT`` on remove, on close,
from the controller's ``finally``, on ``SIGTERM`` and when the bench's end of the pipe
closes."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import NamedTuple

DUTY_PERIOD_US = 1000
"""The duty cycle's period (µs): a confined process is held at most about this less its run."""
CORE = 0
"""The core a confined process is pinned to."""
PR_SET_TIMERSLACK = 29


class Holds(NamedTuple):
    """How a confinement held its processes: ``times`` holds, ``seconds`` held in all, the
    longest hold seen (ms; ``None`` where the kernel does not say), and the controller's
    own CPU and wall time (s; ``None`` for a cgroup, whose controller is the kernel)."""

    times: int
    seconds: float
    longest_ms: float | None = None
    controller_cpu_s: float | None = None
    wall_s: float | None = None

    def said(self) -> str:
        text = f"held {self.times} times, {self.seconds:.2f} s in all"
        if self.longest_ms is not None:
            text += f", the longest {self.longest_ms:.2f} ms"
        if self.controller_cpu_s is not None and self.wall_s:
            share = self.controller_cpu_s / self.wall_s * 100
            text += (
                f"; the controller used {self.controller_cpu_s:.2f} s of CPU in "
                f"{self.wall_s:.1f} s ({share:.1f} % of a core)"
            )
        return text


def start_controller(
    function: str, *args: object
) -> tuple[subprocess.Popen[bytes], Connection, object]:
    """Start ``controller.bench.<function>(fd, *args)`` in a process of its own, ``fd`` its
    end of a socket pair: (the process, our end, its first message, waited for up to 60 s).
    Raises ``RuntimeError`` (the process killed) if it sends none."""
    module, name = function.rsplit(".", 1)
    ours, theirs = socket.socketpair()
    listed = "".join(f", {arg!r}" for arg in args)
    code = f"from controller.bench.{module} import {name}; {name}({theirs.fileno()}{listed})"
    helper = subprocess.Popen(
        [sys.executable, "-c", code], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL
    )
    theirs.close()
    conn = Connection(ours.detach())
    try:
        if not conn.poll(60):
            raise EOFError
        return helper, conn, conn.recv()
    except EOFError:
        conn.close()
        helper.kill()
        helper.wait()
        raise RuntimeError(f"the pi-class controller {function} did not start") from None


def end_controller(helper: subprocess.Popen[bytes], conn: Connection) -> None:
    """Close our end (the controller ends on it) and wait: ``SIGTERM`` after 5 s, then
    ``SIGKILL``."""
    conn.close()
    try:
        helper.wait(5)
    except subprocess.TimeoutExpired:
        helper.terminate()
        try:
            helper.wait(5)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()


class ControllerClient:
    """The bench's side of a controller process (:func:`start_controller`): each command
    is answered with :class:`Holds`; once closed, the last answer stands."""

    _conn: Connection
    _closed: bool
    _last: Holds

    def _ask(self, *command: object) -> Holds:
        if not self._closed:
            self._conn.send(command)
            self._last = self._conn.recv()
        return self._last

    def throttled(self) -> Holds:
        """How the confined processes were held so far (the last figures once closed)."""
        return self._ask("holds")


def pin(pid: int) -> None:
    """Pin the process ``pid`` and each of its threads to :data:`CORE`."""
    os.sched_setaffinity(pid, {CORE})
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            os.sched_setaffinity(int(task.name), {CORE})


class DutyCycle:
    """The duty cycle's bookkeeping, its clock and signals given (fakes in tests).

    :meth:`go` continues every process, :meth:`hold` stops them; each hold is timed on
    ``clock`` (ns) from the stop sent to the continue sent. Processes are reached by pidfd
    (``opener``, ``send``, ``closer``), so a pid reused after an exit is never signalled; a
    process that has exited is dropped quietly (``ProcessLookupError``)."""

    def __init__(
        self,
        clock: Callable[[], int] = time.monotonic_ns,
        opener: Callable[[int], int] = os.pidfd_open,
        send: Callable[[int, int], None] = signal.pidfd_send_signal,
        closer: Callable[[int], None] = os.close,
    ) -> None:
        self.clock, self.opener, self.send, self.closer = clock, opener, send, closer
        self.handles: dict[int, int] = {}
        self.holds = 0
        self.held_ns = 0
        self.longest_ns = 0
        self.stopped_at: int | None = None

    def add(self, pid: int) -> None:
        """Take ``pid`` in (stopped at once if the others are); one that is gone is ignored."""
        if pid in self.handles:
            return
        with contextlib.suppress(ProcessLookupError):
            self.handles[pid] = self.opener(pid)
            if self.stopped_at is not None:
                self._signal(pid, signal.SIGSTOP)

    def remove(self, pid: int) -> None:
        """Let ``pid`` go, continued."""
        if pid in self.handles:
            self._signal(pid, signal.SIGCONT)
            self._drop(pid)

    def go(self) -> None:
        """End the hold (timing it) and continue every process."""
        now = self.clock()
        if self.stopped_at is not None:
            held = now - self.stopped_at
            self.holds += 1
            self.held_ns += held
            self.longest_ns = max(self.longest_ns, held)
            self.stopped_at = None
        for pid in list(self.handles):
            self._signal(pid, signal.SIGCONT)

    def hold(self) -> None:
        """Stop every process."""
        for pid in list(self.handles):
            self._signal(pid, signal.SIGSTOP)
        self.stopped_at = self.clock()

    def release(self) -> None:
        """Continue every process and let them all go (the controller's exit)."""
        self.go()
        for pid in list(self.handles):
            self._drop(pid)

    def _signal(self, pid: int, signum: int) -> None:
        try:
            self.send(self.handles[pid], signum)
        except ProcessLookupError:
            self._drop(pid)

    def _drop(self, pid: int) -> None:
        handle = self.handles.pop(pid)
        with contextlib.suppress(OSError):
            self.closer(handle)


class Waiter:
    """Waits until a deadline on ``time.monotonic_ns``: sleeps to just before it (leaving
    the sleeps' usual lateness, learned as it goes), then spins the rest."""

    def __init__(self) -> None:
        self.late_ns = 80_000

    def __call__(self, deadline_ns: int) -> None:
        asked = deadline_ns - time.monotonic_ns() - self.late_ns
        if asked > 0:
            started = time.monotonic_ns()
            time.sleep(asked / 1e9)
            late = max(0, time.monotonic_ns() - started - asked)
            self.late_ns = (7 * self.late_ns + min(late, 1_000_000)) // 8 + 1000
        while time.monotonic_ns() < deadline_ns:
            pass


def serve(
    conn: Connection,
    duty: DutyCycle,
    run_ns: int,
    period_ns: int,
    wait_until: Callable[[int], None],
) -> None:
    """The controller's loop: while it has processes, each period continues them, waits
    ``run_ns``, stops them, answers the bench's commands and waits for the period's end (a
    late period starts afresh, not caught up). Commands: ``("add", pid)``, ``("remove",
    pid)``, ``("holds",)``, ``("close",)``; each is answered with :class:`Holds`. Returns
    on ``close`` or when the bench has gone (its pipe's end); every process is continued
    on the way out, whatever the way."""
    started = duty.clock()
    cpu = time.process_time()

    def holds() -> Holds:
        return Holds(
            duty.holds,
            duty.held_ns / 1e9,
            duty.longest_ns / 1e6,
            time.process_time() - cpu,
            (duty.clock() - started) / 1e9,
        )

    try:
        start: int | None = None
        while True:
            if not duty.handles:
                duty.go()  # ends the timing of a hold its last process left
                start = None
                conn.poll(None)  # nothing to hold: wait for the bench
            while conn.poll(0):
                command, *args = conn.recv()
                if command == "add":
                    duty.add(*args)
                elif command == "remove":
                    duty.remove(*args)
                elif command == "close":
                    duty.release()
                    conn.send(holds())
                    return
                conn.send(holds())
            if not duty.handles:
                continue
            now = duty.clock()
            if start is None or now > start + period_ns:
                start = now
            duty.go()
            if run_ns >= period_ns:
                start += period_ns
                wait_until(start)
                continue
            wait_until(start + run_ns)
            duty.hold()
            start += period_ns
            wait_until(start)
    except (EOFError, OSError):
        return
    finally:
        duty.release()


def _controller(fd: int, run_ns: int, period_ns: int, cores: set[int]) -> None:
    """The controller process, on the socket ``fd``: on ``cores``, timer slack of 1 ns,
    real-time priority 1 where allowed (``SCHED_FIFO``: it wakes ahead of ordinary work on
    its core; it sleeps most of each period), ``SIGTERM`` an exit (through :func:`serve`'s
    ``finally``)."""
    os.sched_setaffinity(0, cores)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    with contextlib.suppress(PermissionError):  # root: ahead of other work on its core
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    conn = Connection(fd)
    duty = DutyCycle()
    conn.send("ready")
    serve(conn, duty, run_ns, period_ns, Waiter())


class DutyConfinement(ControllerClient):
    """One pinned core and a duty cycle: a controller process (:func:`serve`) runs each
    confined process ``share`` of every ``period_us`` and holds it for the rest. ``add(pid)``
    confines a process, ``remove(pid)`` lets it go; ``close()`` continues every process and
    ends the controller. Raises ``RuntimeError`` if the controller does not start."""

    def __init__(self, share: float, period_us: int = DUTY_PERIOD_US) -> None:
        self.share = share
        self.period = period_us
        self.run = min(period_us, max(1, round(period_us * share)))
        cores = (os.sched_getaffinity(0) - {CORE}) or {CORE}
        self._helper, self._conn, _ = start_controller(
            "duty._controller", self.run * 1000, period_us * 1000, cores
        )
        self._pids: set[int] = set()
        self._last = Holds(0, 0.0, 0.0, 0.0, 0.0)
        self._closed = False
        on = ",".join(str(core) for core in sorted(cores))
        self.method = (
            f"pinned to core {CORE} (sched_setaffinity, as taskset) and stopped/continued by "
            f"SIGSTOP/SIGCONT: run {self.run} µs every {period_us} µs (controller on core {on})"
        )
        atexit.register(self.close)

    @property
    def throttles(self) -> bool:
        return self.run < self.period

    def add(self, pid: int) -> None:
        """Confine the process ``pid`` (all its threads)."""
        pin(pid)
        self._pids.add(pid)
        self._ask("add", pid)

    def remove(self, pid: int) -> None:
        """Let the process ``pid`` go, continued."""
        self._ask("remove", pid)
        self._pids.discard(pid)

    def close(self) -> None:
        """Continue every process and end the controller (``SIGTERM`` if it does not answer);
        every process added is sent ``SIGCONT`` from here too."""
        if self._closed:
            return
        with contextlib.suppress(OSError, EOFError):
            self._ask("close")
        self._closed = True
        end_controller(self._helper, self._conn)
        for pid in self._pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        atexit.unregister(self.close)
