"""Fixtures shared by every test folder: one real Chromium for the whole session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Tests read English unless one asks for a language: a developer's German locale must not
# change what the CLI says (controller.cli.environment_language) in the tests that run it.
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"


@pytest.fixture(autouse=True, scope="session")
def _checked_kernels() -> None:
    """The compiled rule-A kernels (controller/games/sauteur/compiled.py) check their
    indices in this process: numba does not by default, and a read past an array's end
    would only give wrong numbers. Not through DIABLOTIN_COMPILED: the processes the tests
    start would each compile them again (about 12 s) instead of loading numba's cache."""
    from controller.games.sauteur import compiled

    if "DIABLOTIN_COMPILED" not in os.environ:
        compiled._KERNELS[:] = [compiled.compile_kernels("checked")]


CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (never a downloaded browser). Skips with a
    message where it is absent; fails instead when DIABLOTIN_REQUIRE_BROWSER is set (CI)."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is absent: apt-get install -y chromium to run browser tests"
        if os.environ.get("DIABLOTIN_REQUIRE_BROWSER"):
            pytest.fail(message + " (CI requires them)")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
