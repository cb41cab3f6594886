"""``--pi-class``: run the server as slowly as on a Raspberry Pi Zero 2 W, on this machine.

**Three methods** (``--pi-method``). Each pins the server's process to one core
(``sched_setaffinity``, the call ``taskset`` makes) and is calibrated the same way (below).

- ``hog`` (the default, session 11): a real-time process on that core leaves ordinary work
  about 5.7 % of every millisecond (:mod:`.hog`); the server is held about 1 ms at a time,
  whatever its threads. Its floor is the kernel's fair server (5 %), just above the Zero 2
  W's share on this machine's cores; the calibration gets there by the switches' cost.
- ``cgroup``: a CPU quota in a cgroup of its own (v2 ``cpu.max`` or v1
  ``cpu.cfs_quota_us``/``cpu.cfs_period_us``) with a period of **5 ms** where the share
  allows. The kernel's smallest quota is 1 ms, so a share under 20 % takes a period of
  1 ms / share (about 22 ms for the Zero 2 W on this machine): the server runs 1 ms, then
  is held about 21 ms, and longer when it overran its quota before the scheduler's tick
  noticed (a busy loop saw gaps of 80-92 ms in its own clock); a p99 partly measures the
  throttle. The kernel says how often and how long in all (``cpu.stat``), not the longest
  hold. Idle, it costs nothing. Where no cgroup can be made (not root, no cpu controller)
  the process is pinned only, and :attr:`CgroupConfinement.method` says so.
- ``duty``: a controller process, pinned to another core where there is one (real-time
  priority 1, timer slack 1 ns), alternates ``SIGCONT`` and ``SIGSTOP`` on each confined
  process every :data:`DUTY_PERIOD_US` (1 ms): it runs ``share × period`` (72-82 µs on this
  machine after calibration), then is stopped for the rest. It times every hold and reports
  how many, how long in all and the longest, and its own CPU (about 8 % of a core). A
  one-thread busy loop sees gaps of 5-7 ms at most in its own clock, against the quota's
  80-92. **But a stop and a continue wake every thread of the process**, idle ones too (a
  group stop), at about 2.5 µs of the process's own CPU per thread and period on this VM:
  the reference loop beside 5 idle threads runs at 81 µs a step instead of 65, beside 20-25
  at 3,000-5,900 (starved); an idle ``diablotin serve`` (26 threads) uses 11 % of a core at
  an 8.2 % share (13 % at 30 %), and at a 7.2 % share once did not answer within 30 s.
  So it fits a process with one or two threads, not the server: it is kept for comparison
  and for such probes. Processes the confined one starts later are not confined. Nothing is left
  stopped: a removed process, and every process when the confinement closes or its
  controller exits (its ``finally``, ``SIGTERM``, the bench gone: its pipe's end), is sent
  ``SIGCONT``; the bench side sends it too on close and at exit (``atexit``). Processes are
  signalled by pidfd (a reused pid is never signalled); one that has exited is dropped.

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
the 3.7 of 2020, so **63 µs**. The share is ``this machine's µs per step / 63`` of one
core, then measured in a confined process and corrected until it is within
:data:`CALIBRATION_TOLERANCE` (at most :data:`CALIBRATION_ROUNDS` corrections).

**Limits.** Either method slows the CPU, not memory or the disk: the Pi's memory bandwidth
(a few GB/s) and its SD card's ``fsync`` (milliseconds to tens of ms, see ``--fsync-delay``
in ``bench stages``) are not reproduced; nor are its 512 MB (measured as RSS instead).
``python -m controller.bench.piclass [--method cgroup|duty] [--serve]`` calibrates, then
prints the reference loop's speed (alone and beside 20 idle threads), the longest gap a
confined busy loop sees in its own clock, the CPU an idle confined process with 21 threads
uses, and (``--serve``) a confined ``diablotin serve``'s start-up and idle CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol, cast

from .duty import CORE, DutyConfinement, Holds, pin

PI_ZERO_2W_US_PER_STEP = 63.0
"""The reference loop's time per step on a Raspberry Pi Zero 2 W (µs; see the module doc)."""
PERIOD_US = 5000
"""The cgroup quota's period where the share allows: short, so the server is slowed evenly,
not stalled in bursts."""
MIN_QUOTA_US = 1000
"""The kernel's smallest CFS quota (and period)."""
RT_RUNTIME_US = 10_000
"""cgroup v1 with real-time group scheduling: the group's budget for ``SCHED_FIFO`` threads
(µs a second; the box's coil watcher is one). Without one, moving the server in fails
with EINVAL."""
METHODS = ("hog", "cgroup", "duty")
CALIBRATION_TOLERANCE = 0.03
"""How far from :data:`PI_ZERO_2W_US_PER_STEP` the confined loop may land (a fraction)."""
CALIBRATION_ROUNDS = 3


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


def longest_gap_ms(seconds: float) -> float:
    """The longest gap between two consecutive ``time.monotonic`` reads over ``seconds`` in
    a busy loop (ms): the longest this process was held, as it sees it."""
    longest = 0.0
    now = time.monotonic()
    end = now + seconds
    while now < end:
        last, now = now, time.monotonic()
        longest = max(longest, now - last)
    return longest * 1000


def _probe_in(pipe: Connection, seconds: float, threads: int) -> None:
    """Sends the reference loop's µs per step, the longest gap (ms), then the loop's µs per
    step again beside ``threads`` idle threads."""
    alone = min(reference_us_per_step() for _ in range(3))
    gap = longest_gap_ms(seconds)
    done = threading.Event()
    for _ in range(threads):
        threading.Thread(target=done.wait, daemon=True).start()
    beside = reference_us_per_step(3000)
    done.set()
    pipe.send((alone, gap, beside))


def _idle_in(pipe: Connection, threads: int, seconds: float) -> None:
    """Sends the CPU this process used (s) over ``seconds`` with ``threads`` idle threads."""
    done = threading.Event()
    for _ in range(threads):
        threading.Thread(target=done.wait, daemon=True).start()
    before = os.times()
    time.sleep(seconds)
    after = os.times()
    done.set()
    pipe.send(after.user + after.system - before.user - before.system)


class Confinement(Protocol):
    """What ``--pi-class`` needs of a method: ``add(pid)`` confines a process, ``throttled()``
    says how it was held, ``close()`` lets everything go."""

    share: float
    method: str

    @property
    def throttles(self) -> bool:
        """Whether it slows the process (not only pins it): calibration corrects it then."""
        ...

    def add(self, pid: int) -> None: ...

    def throttled(self) -> Holds: ...

    def close(self) -> None: ...


class CgroupConfinement:
    """A cgroup with a CPU quota (when one can be made) plus one pinned core. ``add(pid)``
    confines a process; ``close()`` removes the cgroup (its processes must be gone)."""

    def __init__(self, share: float) -> None:
        self.share = share
        self.group: Path | None = None
        self._last = Holds(0, 0.0)
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

    @property
    def throttles(self) -> bool:
        return self.group is not None

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

    def throttled(self) -> Holds:
        """How many periods the group was held, and for how long in all (s); once closed,
        the last figures."""
        if self.group is None:
            return self._last
        stat = dict(
            line.split() for line in (self.group / "cpu.stat").read_text().splitlines() if line
        )
        usec = int(stat.get("throttled_usec", 0)) or int(stat.get("throttled_time", 0)) // 1000
        self._last = Holds(int(stat.get("nr_throttled", 0)), usec / 1e6)
        return self._last

    def add(self, pid: int) -> None:
        """Confine the process ``pid`` (all its threads)."""
        pin(pid)
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(f"{pid}\n")

    def close(self) -> None:
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.throttled()
                self.group.rmdir()
            self.group = None


def confinement(method: str, share: float) -> Confinement:
    """A confinement by ``method`` (one of :data:`METHODS`) at ``share`` of a core."""
    if method == "duty":
        return DutyConfinement(share)
    if method == "hog":
        from .hog import HogConfinement

        return HogConfinement(share)
    if method == "cgroup":
        return CgroupConfinement(share)
    raise ValueError(f"no such pi-class method: {method!r} (one of {', '.join(METHODS)})")


def _run_confined(
    target: Callable[..., None], args: tuple[object, ...], confined: Confinement | None
) -> object:
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=target, args=(theirs, *args))
    child.start()
    if confined is not None:
        confined.add(child.pid or 0)
    if not ours.poll(300):
        child.kill()
        raise RuntimeError("the confined process did not report")
    value = ours.recv()
    child.join(10)
    return value


def next_share(points: list[tuple[float, float]]) -> float:
    """The share to try next, from the ``(share, µs per step)`` measured so far: through the
    last two points in ``(share, steps per µs)`` (the speed grows with the share less a cost
    per switch, so a line, not a ratio, fits it), or by the ratio from the last point when
    there is one or the last two speeds are within 10 % (noise would make a wild line). The
    line is kept within 1.5 times the ratio's guess either way. In (0, 1]."""
    target = 1 / PI_ZERO_2W_US_PER_STEP
    share, us = points[-1]
    guess = share * us / PI_ZERO_2W_US_PER_STEP
    if len(points) >= 2:
        before, before_us = points[-2]
        speed, before_speed = 1 / us, 1 / before_us
        if abs(speed / before_speed - 1) > 0.1:  # apart enough for the noise
            line = share + (target - speed) * (share - before) / (speed - before_speed)
            guess = min(max(line, guess / 1.5), guess * 1.5)
    return min(1.0, max(guess, 1e-4))


def calibrated(
    log: Callable[[str], None] = print, method: str = "hog"
) -> tuple[Confinement, dict[str, float]]:
    """A confinement by ``method`` whose reference loop runs at the Pi Zero 2 W's speed
    (measured in a confined process and corrected, :func:`next_share`, until within
    :data:`CALIBRATION_TOLERANCE`, at most :data:`CALIBRATION_ROUNDS` times); returns it and
    the numbers (µs per step)."""

    def measure(confined: Confinement | None) -> float:
        return float(cast(float, _run_confined(_measure_in, (), confined)))

    free = measure(None)
    confined = confinement(method, min(1.0, free / PI_ZERO_2W_US_PER_STEP))
    points = [(confined.share, measure(confined))]
    for _ in range(CALIBRATION_ROUNDS):
        off = abs(points[-1][1] / PI_ZERO_2W_US_PER_STEP - 1)
        if not confined.throttles or off <= CALIBRATION_TOLERANCE:
            break
        confined.close()
        confined = confinement(method, next_share(points))
        points.append((confined.share, measure(confined)))
    share, measured = min(points, key=lambda point: abs(point[1] - PI_ZERO_2W_US_PER_STEP))
    if share != confined.share:  # an earlier try was closer: back to it
        confined.close()
        confined = confinement(method, share)
    numbers = {
        "free_us": free,
        "confined_us": measured,
        "pi_us": PI_ZERO_2W_US_PER_STEP,
        "share": confined.share,
    }
    tries = ", ".join(f"{share * 100:.2f} % → {us:.1f}" for share, us in points)
    log(
        f"pi-class: reference loop {free:.1f} µs/step here, {measured:.1f} confined "
        f"(Pi Zero 2 W: {PI_ZERO_2W_US_PER_STEP:g}; shares tried: {tries}); {confined.method}"
    )
    return confined, numbers


def _serve_probe(confined: Confinement, seconds: float) -> str:
    """Start ``diablotin serve`` confined: its start-up, threads and idle CPU."""
    import tempfile

    from controller.reliability.common import ServeProcess, cpu_seconds

    with tempfile.TemporaryDirectory(prefix="diablotin-piclass-") as tmp:
        server = ServeProcess(Path(tmp))
        server.confine = confined.add
        try:
            started = server.start()
        except RuntimeError as exc:
            return f"diablotin serve: {exc}"
        try:
            time.sleep(1)
            threads = len(os.listdir(f"/proc/{server.pid}/task"))
            cpu, wall = cpu_seconds(server.pid), time.monotonic()
            time.sleep(seconds)
            idle = (cpu_seconds(server.pid) - cpu) / (time.monotonic() - wall) * 100
        finally:
            server.stop()
    return f"diablotin serve: started in {started:.2f} s, {threads} threads, idle CPU {idle:.2f} %"


def main(argv: list[str] | None = None) -> int:
    """Calibrate by one method, then probe confined processes: the reference loop, the
    longest gap in a busy loop's own clock, the loop beside idle threads, the CPU of an idle
    process with threads (and free), and (``--serve``) a real ``diablotin serve``."""
    parser = argparse.ArgumentParser(prog="python -m controller.bench.piclass")
    parser.add_argument("--method", choices=METHODS, default="hog")
    parser.add_argument("--seconds", type=float, default=3.0, help="each probe's length")
    parser.add_argument("--threads", type=int, default=20, help="idle threads beside the probes")
    parser.add_argument("--serve", action="store_true", help="also start diablotin serve")
    args = parser.parse_args(argv)
    idle = (args.threads, args.seconds)
    free_idle = cast(float, _run_confined(_idle_in, idle, None))
    confined, _ = calibrated(method=args.method)
    served = ""
    try:
        before = confined.throttled()
        probe = _run_confined(_probe_in, (args.seconds, args.threads), confined)
        us, gap, beside = cast(tuple[float, float, float], probe)
        confined_idle = cast(float, _run_confined(_idle_in, idle, confined))
        if args.serve:
            served = _serve_probe(confined, args.seconds)
        holds = confined.throttled()
    finally:
        confined.close()
    print(
        f"probe ({args.method}): reference loop {us:.1f} µs/step confined, {beside:.1f} "
        f"beside {args.threads} idle threads; longest gap in a busy loop's clock over "
        f"{args.seconds:g} s: {gap:.2f} ms"
    )
    print(
        f"idle, {args.threads + 1} threads, {args.seconds:g} s: CPU "
        f"{free_idle / args.seconds * 100:.2f} % free, "
        f"{confined_idle / args.seconds * 100:.2f} % confined (of this machine's core)"
    )
    if served:
        print(served)
    print(f"whole run: {holds.said()} (calibration's part: {before.times} holds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
