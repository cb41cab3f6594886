"""The benchmarks' slow machine: an SD card's fsync (an LD_PRELOAD shim) and a Pi-class CPU
(a pinned core and a cgroup quota). Behaviour only: the numbers are the benchmark's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from controller.bench import piclass, slowdisk

FSYNC = (
    "import os, tempfile, time\n"
    "fd, _ = tempfile.mkstemp()\n"
    "t = time.perf_counter(); os.fsync(fd); print((time.perf_counter() - t) * 1000)\n"
)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler for the shim")
def test_the_shim_makes_every_fsync_wait():
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


def test_the_reference_loop_runs_and_the_confinement_says_what_it_did():
    assert 0 < piclass.reference_us_per_step(200) < piclass.PI_ZERO_2W_US_PER_STEP * 10
    confinement = piclass.Confinement(0.1)
    try:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
        confinement.add(child.pid)
        assert os.sched_getaffinity(child.pid) == {piclass.CORE}
        if confinement.group is not None:  # root with a cpu controller: a real quota
            assert str(child.pid) in (confinement.group / "cgroup.procs").read_text().split()
            assert confinement.period * 0.1 == pytest.approx(piclass.MIN_QUOTA_US, rel=0.01)
            assert "CPU quota of 1000 µs" in confinement.method
        else:
            assert "no CPU quota" in confinement.method
        child.kill()
        child.wait()
    finally:
        confinement.close()
