"""A slow disk for the benchmarks: ``fsync`` that takes as long as an SD card's.

This kernel has no device-mapper (no ``dm-delay``), so the delay is an ``LD_PRELOAD``
shim (``slow_fsync.c``, next to this file): ``fsync`` and ``fdatasync`` sleep
``DIABLOTIN_FSYNC_DELAY_MS`` ms, then do the real call. SQLite's commit in WAL mode with
``synchronous=FULL`` calls one of them once per transaction, so a commit costs the delay
plus the real sync. It is compiled with the system's C compiler on first use.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("slow_fsync.c")


def environment(delay_ms: float) -> dict[str, str]:
    """The environment that makes a new process's ``fsync`` take ``delay_ms`` more; raises
    ``RuntimeError`` when there is no C compiler (``apt-get install gcc``)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError("--fsync-delay needs a C compiler (cc) to build its shim")
    library = Path(tempfile.mkdtemp(prefix="diablotin-slowdisk-")) / "slow_fsync.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    return {"LD_PRELOAD": str(library), "DIABLOTIN_FSYNC_DELAY_MS": str(round(delay_ms))}
