"""``--pi-method hog``: a real-time process takes the confined core's time but ``share`` of
every millisecond (see :mod:`controller.bench.piclass`, which calibrates it).

The hog is pinned to :data:`.duty.CORE` at real-time priority 1 (``SCHED_FIFO``, timer slack
1 ns). Each period of :data:`HOG_PERIOD_US` it spins ``(1 - share) × period``, then sleeps
to the period's end: only then can the ordinary processes pinned to that core (the server
and all its threads) run. Nothing is signalled and no thread is woken, so a process with
many threads is slowed like one with one (unlike ``duty``), and the longest hold is about
one period (unlike the quota's 80-92 ms, ``cgroup``).

**Limits.** Ordinary work cannot be given less than :data:`MIN_SHARE`: the kernel's fair
server (Linux 6.12 and later; 50 ms a second, not settable here) then runs it in bursts.
Every hold also costs the confined process a switch and its caches, so it runs well under
its share (the calibration corrects for it). Other processes that land on that core share
its windows: the bench moves its own thread off it, but run it on a quiet machine. The
real-time throttle (``/proc/sys/kernel/sched_rt_runtime_us`` and the root cgroup's
``cpu.rt_runtime_us``, 95 % by default) is raised to :data:`RT_RUNTIME_US` while the hog
runs (it spins up to 94.7 %), and put back when it ends, however it ends short of
``SIGKILL``. The hog spins only while a process is confined, and stops at once when the
bench's end of its socket closes (the bench exited or was killed), on ``SIGTERM`` and on
``close()``; it sleeps every period, so it can never take the whole core.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

from .duty import (
    CORE,
    PR_SET_TIMERSLACK,
    ControllerClient,
    Holds,
    end_controller,
    pin,
    start_controller,
)

HOG_PERIOD_US = 1000
"""The hog's period (µs): the confined processes run at most ``share`` of each."""
MIN_SHARE = 0.053
"""The least share the hog leaves (of each period). Under about 5 %, the kernel's fair
server steps in: ordinary work gets 50 ms a second in bursts, held up to ~50 ms between
them (5.2 % saw a 5.6 ms hold, 5.3 % none over 1 ms). At 5.3-5.8 % the reference loop ran at
67-60 µs a step here, so the calibration lands on about 5.7 %."""
RT_RUNTIME_US = 990_000
"""Real-time work's budget a second while the hog runs (µs)."""
RT_LIMITS = (
    Path("/proc/sys/kernel/sched_rt_runtime_us"),
    Path("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"),
)
"""The kernel's real-time budgets, the system-wide one first (it bounds the other)."""


@contextlib.contextmanager
def rt_budget(runtime_us: int = RT_RUNTIME_US) -> Iterator[None]:
    """Raise the real-time budgets (:data:`RT_LIMITS`, where they exist and are lower) to
    ``runtime_us`` a second, and put each back on the way out (the cgroup's first)."""
    found: list[tuple[Path, str]] = []
    try:
        for path in RT_LIMITS:
            with contextlib.suppress(OSError, ValueError):
                old = path.read_text().strip()
                if 0 <= int(old) < runtime_us:
                    path.write_text(f"{runtime_us}\n")
                    found.append((path, old))
        yield
    finally:
        for path, old in reversed(found):
            with contextlib.suppress(OSError):
                path.write_text(f"{old}\n")


def spin(conn: Connection, run_ns: int, period_ns: int) -> Holds:
    """The hog's loop: idle until a process is confined (``("add", pid)``), then each
    period spin ``run_ns`` and sleep to its end (a late period starts afresh). Answers
    ``("holds",)`` and ``("add", pid)`` with :class:`.duty.Holds` (holds = periods spun,
    seconds spun, the longest spin in ms, the hog's CPU and wall time); returns the last
    on ``("close",)`` or when the bench's end closes (``EOFError``, ``OSError``)."""
    clock = time.monotonic_ns
    started = clock()
    cpu = time.process_time()
    holds = held = longest = 0
    confined = False

    def said() -> Holds:
        return Holds(
            holds, held / 1e9, longest / 1e6, time.process_time() - cpu, (clock() - started) / 1e9
        )

    start = clock()
    try:
        while True:
            if not confined:
                conn.poll(None)  # nothing to slow: wait for the bench
            while conn.poll(0):
                command, *_ = conn.recv()
                if command == "close":
                    conn.send(said())
                    return said()
                confined = confined or command == "add"
                conn.send(said())
                start = clock()
            if not confined:
                continue
            stop = start + run_ns
            now = clock()
            began = now
            while now < stop:
                now = clock()
            spun = now - began
            holds, held, longest = holds + 1, held + spun, max(longest, spun)
            start += period_ns
            if now < start:
                time.sleep((start - now) / 1e9)
            else:
                start = now
    except (EOFError, OSError):
        return said()


def _hog(fd: int, run_ns: int, period_ns: int) -> None:
    """The hog process, on the socket ``fd``: pinned to :data:`.duty.CORE`, timer slack 1 ns,
    ``SCHED_FIFO`` priority 1 (``PermissionError`` without root: the bench then reports no
    hog), ``SIGTERM`` an exit."""
    os.sched_setaffinity(0, {CORE})
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    conn = Connection(fd)
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except PermissionError:
        conn.send("not allowed")
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with rt_budget():
        conn.send("ready")
        spin(conn, run_ns, period_ns)


class HogConfinement(ControllerClient):
    """The confined core given to ``share`` of each :data:`HOG_PERIOD_US`: ``add(pid)`` pins
    a process there (and starts the hog), ``throttled()`` says how it was held, ``close()``
    ends the hog. The bench's thread moves to the other cores meanwhile. Without root (no real-time
    priority) it only pins, and :attr:`method` says so. Raises ``RuntimeError`` if the hog
    does not start."""

    def __init__(self, share: float, period_us: int = HOG_PERIOD_US) -> None:
        self.share = share = max(share, MIN_SHARE)
        self.period = period_us
        self.run = max(0, min(period_us, round(period_us * (1 - share))))
        self._affinity = os.sched_getaffinity(0)
        others = self._affinity - {CORE}
        if others:  # the bench (this thread) and the processes it starts keep off that core
            os.sched_setaffinity(0, others)
        self._last = Holds(0, 0.0, 0.0, 0.0, 0.0)
        self._closed = False
        try:
            self._helper, self._conn, answer = start_controller(
                "hog._hog", self.run * 1000, period_us * 1000
            )
        except RuntimeError:
            os.sched_setaffinity(0, self._affinity)
            raise
        if answer != "ready":
            self.close()
            self.method = (
                f"pinned to core {CORE} (sched_setaffinity, as taskset), no hog (not root)"
            )
        else:
            self.method = (
                f"pinned to core {CORE} (sched_setaffinity, as taskset) beside a SCHED_FIFO hog "
                f"that leaves it {period_us - self.run} µs of every {period_us} µs"
            )
        atexit.register(self.close)

    @property
    def throttles(self) -> bool:
        return not self._closed and self.run > 0

    def add(self, pid: int) -> None:
        """Confine the process ``pid`` (all its threads) and start the hog."""
        pin(pid)
        self._ask("add", pid)

    def close(self) -> None:
        """End the hog (``SIGTERM``, then ``SIGKILL``, if it does not answer) and give the
        bench its cores back."""
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, self._affinity)
        if not self._closed:
            with contextlib.suppress(OSError, EOFError):
                self._ask("close")
            self._closed = True
        end_controller(self._helper, self._conn)
        atexit.unregister(self.close)
