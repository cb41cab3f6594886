"""The benchmarks' slow machine: an SD card's fsync (an LD_PRELOAD shim) and a Pi-class CPU
(a pinned core, and a cgroup quota, a SIGSTOP/SIGCONT duty cycle or a real-time hog).
Behaviour only: the numbers are the benchmark's. The duty cycle's timing is tested with a
fake clock and fake signals; the real ones only for what must hold at any speed (nothing is
left stopped, no hog left running)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.bench import duty, piclass, slowdisk

FSYNC = (
    "import os, tempfile, time\n"
    "fd, _ = tempfile.mkstemp()\n"
    "t = time.perf_counter(); os.fsync(fd); print((time.perf_counter() - t) * 1000)\n"
)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the shim")
def test_the_shim_makes_every_fsync_wait() -> None:
    env = os.environ | slowdisk.environment(60)
    waited = float(
        subprocess.run(
            [sys.executable, "-c", FSYNC], env=env, capture_output=True, text=True, check=True
        ).stdout
    )
    plain = float(
        subprocess.run(
            [sys.executable, "-c", FSYNC], capture_output=True, text=True, check=True
        ).stdout
    )
    assert waited >= 55 > plain


def test_the_reference_loop_runs_and_the_confinement_says_what_it_did() -> None:
    assert 0 < piclass.reference_us_per_step(200) < piclass.PI_ZERO_2W_US_PER_STEP * 10
    confinement = piclass.CgroupConfinement(0.1)
    try:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
        confinement.add(child.pid)
        assert os.sched_getaffinity(child.pid) == {piclass.CORE}
        if confinement.group is not None:  # root with a cpu controller: a real quota
            assert str(child.pid) in (confinement.group / "cgroup.procs").read_text().split()
            assert confinement.period * 0.1 == pytest.approx(piclass.MIN_QUOTA_US, rel=0.01)
            assert "CPU quota of 1000 µs" in confinement.method
            assert confinement.throttled().times >= 0
        else:
            assert "no CPU quota" in confinement.method
        child.kill()
        child.wait()
    finally:
        confinement.close()


STOP, CONT = signal.SIGSTOP, signal.SIGCONT


class FakeSignals:
    """pidfds that are the pids themselves; ``gone`` pids answer ProcessLookupError."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []
        self.gone: set[int] = set()
        self.now = 0

    def send(self, pid: int, signum: int) -> None:
        if pid in self.gone:
            raise ProcessLookupError(pid)
        self.sent.append((pid, signum))

    def last(self, pid: int) -> int:
        return [signum for to, signum in self.sent if to == pid][-1]

    def cycle(self) -> duty.DutyCycle:
        return duty.DutyCycle(
            clock=lambda: self.now, opener=lambda pid: pid, send=self.send, closer=lambda _: None
        )


def test_the_duty_cycle_times_each_hold_from_stop_to_continue() -> None:
    fake = FakeSignals()
    duty = fake.cycle()
    duty.add(11)
    duty.go()
    duty.hold()
    fake.now += 950_000
    duty.go()
    duty.hold()
    fake.now += 3_000_000  # the controller was late once
    duty.go()
    assert fake.sent == [(11, CONT), (11, STOP), (11, CONT), (11, STOP), (11, CONT)]
    assert (duty.holds, duty.held_ns, duty.longest_ns) == (2, 3_950_000, 3_000_000)


def test_a_process_added_during_a_hold_is_stopped_with_the_others() -> None:
    fake = FakeSignals()
    duty = fake.cycle()
    duty.add(11)
    duty.hold()
    duty.add(12)
    assert fake.sent == [(11, STOP), (12, STOP)]


def test_a_process_that_has_gone_is_dropped_quietly() -> None:
    fake = FakeSignals()
    duty = fake.cycle()
    duty.add(11)
    duty.add(12)
    fake.gone.add(11)
    duty.hold()
    duty.go()
    assert list(duty.handles) == [12]
    assert fake.sent == [(12, STOP), (12, CONT)]

    def no_such_process(pid: int) -> int:
        raise ProcessLookupError(pid)

    duty.opener = no_such_process
    duty.add(13)
    assert list(duty.handles) == [12]


def test_a_removed_process_is_continued() -> None:
    fake = FakeSignals()
    duty = fake.cycle()
    duty.add(11)
    duty.hold()
    duty.remove(11)
    assert fake.last(11) == CONT and not duty.handles
    duty.remove(11)  # twice: nothing


class FakeBench:
    """The bench's end of the controller's pipe: ``(at_ns, command)`` pairs, each readable
    from its time on the fake clock; a command that is an exception is raised."""

    def __init__(self, fake: FakeSignals, commands: list[tuple[int, object]]) -> None:
        self.fake = fake
        self.commands = commands
        self.answers: list[duty.Holds] = []

    def poll(self, timeout: float | None = 0.0) -> bool:
        if not self.commands:
            assert timeout is not None, "the controller would wait for ever"
            return False
        if timeout is None:  # blocks until the next command
            self.fake.now = max(self.fake.now, self.commands[0][0])
        return self.fake.now >= self.commands[0][0]

    def recv(self) -> object:
        command = self.commands.pop(0)[1]
        if isinstance(command, BaseException):
            raise command
        return command

    def send(self, answer: duty.Holds) -> None:
        self.answers.append(answer)


def serve(fake: FakeSignals, bench: FakeBench, run_ns: int, period_ns: int) -> None:
    def wait_until(deadline: int) -> None:
        fake.now = max(fake.now, deadline)

    duty.serve(bench, fake.cycle(), run_ns, period_ns, wait_until)  # type: ignore[arg-type]


def test_the_controller_runs_then_holds_each_period_until_closed() -> None:
    fake = FakeSignals()
    bench = FakeBench(fake, [(0, ("add", 11)), (2_500_000, ("holds",)), (4_500_000, ("close",))])
    serve(fake, bench, 50_000, 1_000_000)
    # periods start at 0, 1, 2, 3, 4 ms; commands are read at a period's start
    assert fake.sent == [(11, CONT), (11, STOP)] * 5 + [(11, CONT)]
    assert [answer.times for answer in bench.answers] == [0, 2, 5]
    assert bench.answers[-1].longest_ms == pytest.approx(0.95)
    assert bench.answers[-1].seconds == pytest.approx(5 * 0.95e-3)


def test_a_late_period_starts_afresh() -> None:
    fake = FakeSignals()
    bench = FakeBench(fake, [(0, ("add", 11)), (9_500_000, ("close",))])
    waits: list[int] = []

    def wait_until(deadline: int) -> None:  # the first run ends 7 ms late
        fake.now = max(fake.now, deadline) + (7_000_000 if not waits else 0)
        waits.append(deadline)

    duty.serve(bench, fake.cycle(), 50_000, 1_000_000, wait_until)  # type: ignore[arg-type]
    # the next period starts when the controller is back (7.05 ms), not 6 periods back
    assert waits[:4] == [50_000, 1_000_000, 7_100_000, 8_050_000]
    assert bench.answers[-1].longest_ms == pytest.approx(0.95)
    assert fake.sent[-1] == (11, CONT)


@pytest.mark.parametrize("failure", [EOFError(), OSError("gone"), RuntimeError("bug")])
def test_the_controller_continues_everything_however_it_ends(failure: BaseException) -> None:
    fake = FakeSignals()
    bench = FakeBench(fake, [(0, ("add", 11)), (0, ("add", 12)), (3_500_000, failure)])
    try:
        serve(fake, bench, 50_000, 1_000_000)
    except RuntimeError:
        assert isinstance(failure, RuntimeError)
    assert fake.sent[-2:] == [(11, CONT), (12, CONT)]
    assert fake.sent.count((11, STOP)) == 4


def state(pid: int) -> str:
    """The process's state letter in /proc (T: stopped)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def until(check: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_confined_child_runs_to_completion_after_close() -> None:
    busy = "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 0.3: pass\n"
    confinement = duty.DutyConfinement(0.02)
    child = subprocess.Popen([sys.executable, "-c", busy])
    try:
        confinement.add(child.pid)
        assert "SIGSTOP/SIGCONT: run 20 µs every 1000 µs" in confinement.method
        assert os.sched_getaffinity(child.pid) == {piclass.CORE}
        assert until(lambda: confinement.throttled().times > 20)
    finally:
        confinement.close()
    assert child.wait(60) == 0
    held = confinement.throttled()
    assert held.times > 20 and held.seconds > 0 and held.longest_ms is not None
    assert held.controller_cpu_s is not None and held.controller_cpu_s > 0


def test_a_child_closed_in_its_stopped_phase_is_left_running() -> None:
    # a period of 1 s: the child is stopped for all but 1 ms of it
    confinement = duty.DutyConfinement(0.001, period_us=1_000_000)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        confinement.add(child.pid)
        assert until(lambda: state(child.pid) == "T")
        confinement.close()
        assert until(lambda: state(child.pid) != "T", 5)
        time.sleep(1.2)  # past the next period: nothing stops it again
        assert state(child.pid) != "T"
    finally:
        confinement.close()
        child.kill()
        child.wait()


BENCH = (
    "import sys, time\n"
    "from controller.bench import duty\n"
    "confinement = duty.DutyConfinement(0.001, period_us=2_000_000)\n"
    "confinement.add(int(sys.argv[1]))\n"
    "print('confined', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_bench_killed_mid_hold_leaves_its_child_running() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    bench = subprocess.Popen(
        [sys.executable, "-c", BENCH, str(child.pid)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert bench.stdout is not None and bench.stdout.readline() == "confined\n"
        assert until(lambda: state(child.pid) == "T")
        bench.kill()  # no close, no atexit: the controller sees its pipe's end
        bench.wait()
        assert until(lambda: state(child.pid) != "T", 5)
    finally:
        bench.kill()
        bench.wait()
        child.kill()
        child.wait()


def test_calibration_finds_the_share_of_a_machine_with_a_cost_per_switch() -> None:
    def machine(share: float) -> float:  # µs per step: 2.8 at full speed, 2 % lost to switches
        return 2.8 / (share - 0.02)

    points = [(2.8 / piclass.PI_ZERO_2W_US_PER_STEP, 0.0)]
    points[0] = (points[0][0], machine(points[0][0]))
    for _ in range(2):
        share = piclass.next_share(points)
        points.append((share, machine(share)))
    assert points[1][1] == pytest.approx(piclass.PI_ZERO_2W_US_PER_STEP, rel=0.5)
    assert points[2][1] == pytest.approx(piclass.PI_ZERO_2W_US_PER_STEP, rel=0.001)
    assert piclass.next_share([(0.5, 200.0)]) == 1.0  # never more than the whole core
    noisy = piclass.next_share([(0.0452, 68.6), (0.0479, 68.0)])  # the line says 0.0724
    assert noisy == pytest.approx(0.0479 * 68.0 / piclass.PI_ZERO_2W_US_PER_STEP)


def _can_hog() -> bool:
    """Root with real-time scheduling (the hog's SCHED_FIFO) on a machine with 2+ cores."""
    return os.geteuid() == 0 and len(os.sched_getaffinity(0)) > 1


@pytest.mark.skipif(not _can_hog(), reason="the hog needs root, SCHED_FIFO and two cores")
def test_the_hog_slows_its_core_and_puts_the_real_time_budget_back() -> None:
    from controller.bench import hog

    before = [path.read_text() for path in hog.RT_LIMITS if path.exists()]
    cores = os.sched_getaffinity(0)
    free = piclass.reference_us_per_step(3000)
    confinement = hog.HogConfinement(0.01)
    try:
        assert confinement.share == hog.MIN_SHARE  # under it the kernel's fair server steps in
        assert "SCHED_FIFO hog" in confinement.method
        code = "from controller.bench.piclass import reference_us_per_step as r; print(r(1000))"
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        confinement.add(child.pid)
        assert os.sched_getaffinity(child.pid) == {piclass.CORE}
        during = [path.read_text() for path in hog.RT_LIMITS if path.exists()]
        slowed = float(child.communicate(timeout=60)[0])
        holds = confinement.throttled()
    finally:
        confinement.close()
    assert all(int(value) == hog.RT_RUNTIME_US for value in during)
    assert slowed > 3 * free  # ~17x on an idle machine; the margin is for a loaded one
    assert holds.times > 0 and holds.longest_ms is not None and holds.longest_ms < 60
    assert confinement._helper.returncode is not None  # the hog has ended
    assert os.sched_getaffinity(0) == cores  # the bench has its cores back
    assert [path.read_text() for path in hog.RT_LIMITS if path.exists()] == before


@pytest.mark.skipif(not _can_hog(), reason="the hog needs root, SCHED_FIFO and two cores")
def test_a_bench_killed_mid_run_leaves_no_hog_and_the_budget_as_it_was() -> None:
    from controller.bench import hog

    before = [path.read_text() for path in hog.RT_LIMITS if path.exists()]
    bench = (
        "import subprocess, sys, time\n"
        "from controller.bench.hog import HogConfinement\n"
        "c = HogConfinement(0.5)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "c.add(child.pid)\n"
        "print(c._helper.pid, child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", bench], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    hog_pid, child_pid = (int(word) for word in proc.stdout.readline().split())
    try:
        proc.kill()  # SIGKILL: no finally, no atexit in the bench
        proc.wait()
        deadline = time.monotonic() + 10
        while Path(f"/proc/{hog_pid}").exists() and time.monotonic() < deadline:
            if Path(f"/proc/{hog_pid}/stat").read_text().split()[2] == "Z":
                break  # ended; only its entry waits to be reaped
            time.sleep(0.05)
        state = Path(f"/proc/{hog_pid}/stat")
        assert not state.exists() or state.read_text().split()[2] == "Z"
        assert [path.read_text() for path in hog.RT_LIMITS if path.exists()] == before
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child_pid, signal.SIGKILL)
