"""The firmware's own tests (firmware/tests/fwtest_*.py) under CPython and real MicroPython."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.box.protocol import firmware_dir

from .conftest import load_firmware_test_modules

MODULES = load_firmware_test_modules()
TESTS: list[tuple[str, Callable[[], None]]] = [
    (f"{module.__name__}.{name}", getattr(module, name))
    for module in MODULES
    for name in sorted(dir(module))
    if name.startswith("test_")
]


def test_the_firmware_has_tests_in_every_module() -> None:
    per_module = {
        m.__name__: [n for n, _ in TESTS if n.startswith(m.__name__ + ".")] for m in MODULES
    }
    assert set(per_module) == {"fwtest_wire", "fwtest_core", "fwtest_pico", "fwtest_fuzz"}
    assert all(len(names) >= 2 for names in per_module.values()), per_module


@pytest.mark.parametrize("test", [t for _, t in TESTS], ids=[n for n, _ in TESTS])
def test_firmware_code_on_cpython(test: Callable[[], None]) -> None:
    test()


def _node_runner() -> tuple[str, Path]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the MicroPython (WebAssembly) run needs Node >= 18")
    runner = firmware_dir() / "tests" / "run_wasm.mjs"
    package = firmware_dir() / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    if not package.is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=firmware_dir(),
            check=True,
            capture_output=True,
            timeout=300,
        )
    return node, runner


def test_firmware_code_under_real_micropython() -> None:
    node, runner = _node_runner()
    done = subprocess.run([node, str(runner)], capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("WASM-RESULT ")]
    assert len(lines) == 1, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(lines[0].removeprefix("WASM-RESULT "))
    assert result["error"] is None
    assert result["failed"] == []
    assert "MicroPython v1.27" in result["version"]
    assert sorted(result["passed"]) == sorted(name for name, _ in TESTS)
    assert done.returncode == 0
