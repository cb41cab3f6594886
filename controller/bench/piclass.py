"""``--pi-class``: run the server as slowly as on a Raspberry Pi Zero 2 W, on this machine.

**How.** The server's process is pinned to one core (``sched_setaffinity``, the call
``taskset`` makes) and given a CPU quota in a cgroup of its own: cgroup v2 ``cpu.max`` or
v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us``, with a short period: **5 ms** where the share
allows (a 100 ms period would let the server run flat out for a burst, then stall it for
tens of ms, and the p99 would measure the throttle). The kernel's smallest quota is 1 ms,
so a share below 20 % takes a period of 1 ms / share (12-13 ms for the Zero 2 W on a fast
core): the server can then be held for up to period - 1 ms, and the report gives how often
it was (``cpu.stat``'s ``nr_throttled`` and ``throttled_time``). Where no cgroup can be
made (not root, no cpu controller) it is pinned only, and :attr:`Confinement.method` says
so.

**Calibrated** so that a pure-Python reference loop runs as fast as on a Pi Zero 2 W: the
loop is the n-body simulation's ``advance`` step (five bodies, float arithmetic and
attribute-free list indexing: the interpreter's own speed, no C library, no memory
bandwidth). :data:`PI_ZERO_2W_US_PER_STEP` is its time per step on a Pi Zero 2 W,
estimated (no Pi here): a Raspberry Pi 4 (Cortex-A72, 1.5 GHz) runs 5,000,000 steps of
the same program in 158 s under CPython 3 (a published measurement from 2020, performance
governor: chaitanyamehta.github.io, "Performance Analysis of Languages on Raspberry Pi"),
31.6 µs a step; the Zero 2 W's Cortex-A53 at 1.0 GHz has two thirds of the clock and about
0.6 of the A72's work per clock on interpreter code (in-order against out-of-order), so
79 µs under that CPython; Pi OS's CPython 3.11 runs this loop about 1.25 times as fast as
the 3.7 of 2020, so **63 µs**. The quota is ``this machine's µs per step / 63`` of one
core, checked once in the confined process and corrected.

**Limits.** A quota slows the CPU, not memory or the disk: the Pi's memory bandwidth (a
few GB/s) and its SD card's ``fsync`` (milliseconds to tens of ms, see ``--fsync-delay``
in ``bench stages``) are not reproduced; nor are its 512 MB (measured as RSS instead).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

PI_ZERO_2W_US_PER_STEP = 63.0
"""The reference loop's time per step on a Raspberry Pi Zero 2 W (µs; see the module doc)."""
PERIOD_US = 5000
"""The quota's period where the share allows: short, so the server is slowed evenly, not
stalled in bursts."""
MIN_QUOTA_US = 1000
"""The kernel's smallest CFS quota (and period)."""
CORE = 0
RT_RUNTIME_US = 10_000
"""cgroup v1 with real-time group scheduling: the group's budget for ``SCHED_FIFO`` threads
(µs a second; the box's coil watcher is one). Without one, moving the server in fails
with EINVAL."""


def _bodies() -> list[list[float]]:
    """Sun, Jupiter, Saturn, Uranus, Neptune: position, velocity (AU, AU/day) and mass."""
    pi, days = 3.141592653589793, 365.24
    solar = 4 * pi * pi
    raw = [
        (0, 0, 0, 0, 0, 0, 1.0),
        (4.841, -1.160, -0.1036, 1.660e-3, 7.699e-3, -6.905e-5, 9.547e-4),
        (8.343, 4.125, -0.4035, -2.767e-3, 4.998e-3, 2.304e-5, 2.858e-4),
        (12.894, -15.111, -0.2233, 2.964e-3, 2.378e-3, -2.965e-5, 4.366e-5),
        (15.380, -25.919, 0.1792, 2.680e-3, 1.628e-3, -9.515e-5, 5.151e-5),
    ]
    return [[x, y, z, vx * days, vy * days, vz * days, m * solar] for x, y, z, vx, vy, vz, m in raw]


def reference_us_per_step(steps: int = 20000) -> float:
    """The reference loop's time per step in this process (µs)."""
    bodies = _bodies()
    pairs = [(bodies[i], bodies[j]) for i in range(5) for j in range(i + 1, 5)]
    dt = 0.01
    started = time.perf_counter()
    for _ in range(steps):
        for b1, b2 in pairs:
            dx, dy, dz = b1[0] - b2[0], b1[1] - b2[1], b1[2] - b2[2]
            mag = dt * (dx * dx + dy * dy + dz * dz) ** -1.5
            m1, m2 = b1[6] * mag, b2[6] * mag
            b1[3] -= dx * m2
            b1[4] -= dy * m2
            b1[5] -= dz * m2
            b2[3] += dx * m1
            b2[4] += dy * m1
            b2[5] += dz * m1
        for b in bodies:
            b[0] += dt * b[3]
            b[1] += dt * b[4]
            b[2] += dt * b[5]
    return (time.perf_counter() - started) / steps * 1e6


def _measure_in(pipe: Connection) -> None:
    pipe.send(min(reference_us_per_step() for _ in range(3)))


class Confinement:
    """A cgroup with a CPU quota (when one can be made) plus one pinned core. ``add(pid)``
    confines a process; ``close()`` removes the cgroup (its processes must be gone)."""

    def __init__(self, share: float) -> None:
        self.share = share
        self.group: Path | None = None
        self.method = f"pinned to core {CORE} (sched_setaffinity, as taskset), no CPU quota"
        self.period = PERIOD_US
        if PERIOD_US * share < MIN_QUOTA_US:
            self.period = round(MIN_QUOTA_US / share)
        quota = max(MIN_QUOTA_US, round(self.period * share))
        for make in (self._cgroup_v2, self._cgroup_v1):
            with contextlib.suppress(OSError):
                self.group = make(quota, self.period)
                self.method = (
                    f"pinned to core {CORE} (sched_setaffinity, as taskset) and a CPU quota of "
                    f"{quota} µs every {self.period} µs ({self.group})"
                )
                break

    @staticmethod
    def _cgroup_v2(quota: int, period: int) -> Path:
        root = Path("/sys/fs/cgroup")
        if not (root / "cgroup.controllers").exists():
            raise OSError("no cgroup v2")
        group = root / f"diablotin-pi-class-{os.getpid()}"
        group.mkdir()
        (group / "cpu.max").write_text(f"{quota} {period}\n")
        return group

    @staticmethod
    def _cgroup_v1(quota: int, period: int) -> Path:
        group = Path("/sys/fs/cgroup/cpu") / f"diablotin-pi-class-{os.getpid()}"
        group.mkdir()
        (group / "cpu.cfs_period_us").write_text(f"{period}\n")
        (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        rt_runtime = group / "cpu.rt_runtime_us"
        if rt_runtime.exists():  # real-time threads (the coil watcher) may join it too
            rt_runtime.write_text(f"{RT_RUNTIME_US}\n")
        return group

    def throttled(self) -> tuple[int, float]:
        """How many periods the group was held, and for how long in all (s)."""
        if self.group is None:
            return 0, 0.0
        stat = dict(
            line.split() for line in (self.group / "cpu.stat").read_text().splitlines() if line
        )
        usec = int(stat.get("throttled_usec", 0)) or int(stat.get("throttled_time", 0)) // 1000
        return int(stat.get("nr_throttled", 0)), usec / 1e6

    def add(self, pid: int) -> None:
        """Confine the process ``pid`` (all its threads)."""
        os.sched_setaffinity(pid, {CORE})
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task.name), {CORE})
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(f"{pid}\n")

    def close(self) -> None:
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.rmdir()
            self.group = None


def calibrated(log: Callable[[str], None] = print) -> tuple[Confinement, dict[str, float]]:
    """A confinement whose reference loop runs at the Pi Zero 2 W's speed (one correction
    after a first measurement); returns it and the numbers (µs per step)."""
    ctx = multiprocessing.get_context("spawn")

    def measure(confinement: Confinement | None) -> float:
        ours, theirs = ctx.Pipe()
        child = ctx.Process(target=_measure_in, args=(theirs,))
        child.start()
        if confinement is not None:
            confinement.add(child.pid or 0)
        if not ours.poll(120):
            child.kill()
            raise RuntimeError("the reference loop did not report")
        value = float(ours.recv())
        child.join(10)
        return value

    free = measure(None)
    confinement = Confinement(free / PI_ZERO_2W_US_PER_STEP)
    first = measure(confinement)
    if confinement.group is not None and first > 0:
        share = confinement.share * first / PI_ZERO_2W_US_PER_STEP
        confinement.close()
        confinement = Confinement(min(1.0, share))
    confined = measure(confinement)
    numbers = {
        "free_us": free,
        "confined_us": confined,
        "pi_us": PI_ZERO_2W_US_PER_STEP,
        "share": confinement.share,
    }
    log(
        f"pi-class: reference loop {free:.1f} µs/step here, {confined:.1f} confined "
        f"(Pi Zero 2 W: {PI_ZERO_2W_US_PER_STEP:g}); {confinement.method}"
    )
    return confinement, numbers
