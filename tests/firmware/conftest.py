"""Helpers for the Pico firmware tests: load the firmware's own test modules on CPython."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from controller.box.protocol import firmware_dir

FIRMWARE_TESTS = firmware_dir() / "tests"


def fw_test_module(name: str) -> ModuleType:
    """Import ``firmware/tests/<name>.py`` under its own name (the firmware tests import
    each other, ``machine`` and ``micropython`` by plain name, as on MicroPython)."""
    if name in sys.modules:
        return sys.modules[name]
    path: Path = FIRMWARE_TESTS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_firmware_test_modules() -> list[ModuleType]:
    """The firmware's test modules, with the stand-ins for ``machine`` and ``micropython``."""
    stubs = [stub for stub in ("machine", "micropython") if stub not in sys.modules]
    for stub in stubs:
        fw_test_module(stub)
    fw_test_module("fwtest_fakes")
    runner = fw_test_module("fwtest_runner")
    modules = [fw_test_module(name) for name in runner.MODULES]
    for stub in stubs:  # bound where imported; nobody else should find them
        del sys.modules[stub]
    return modules
