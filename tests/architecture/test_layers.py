"""The layer contract (docs/architecture.md, "Layers"): every module of ``controller`` has a
layer, imports only from its own layer or lower (module level or inside a function), and no
import cycle exists. The layers are listed once, in pyproject.toml's ``[tool.importlinter]``;
import-linter checks them, and :mod:`tests.architecture.layering` checks what it does not
promise (a layer for every module, no cycle at all)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.architecture.layering import (
    Contract,
    cycles,
    imports,
    layer_of,
    modules,
    read_contract,
    unassigned,
    upward,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "controller"
PYPROJECT = ROOT / "pyproject.toml"

KNOWN_UNTIL_MERGE: set[tuple[str, str]] = set()
KNOWN_CYCLES_UNTIL_MERGE: list[list[str]] = []


@pytest.fixture(scope="module")
def contract() -> Contract:
    return read_contract(PYPROJECT, "layers")


@pytest.fixture(scope="module")
def found() -> list:
    return imports(PACKAGE, "controller")


def test_import_linter_keeps_the_layers() -> None:
    """In a process of its own: import-linter configures logging (``dictConfig``), which
    would silence the loggers of every module imported before it for the rest of the run."""
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True))"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_module_has_a_layer(contract: Contract) -> None:
    assert unassigned(modules(PACKAGE, "controller"), contract, "controller") == []


def test_no_import_climbs(contract: Contract, found: list) -> None:
    assert [str(imp) for imp in upward(found, contract, "controller")] == []
    assert contract.ignored == KNOWN_UNTIL_MERGE  # the contract lets through these only


def test_no_import_cycle(found: list) -> None:
    assert [c for c in cycles(found) if c not in KNOWN_CYCLES_UNTIL_MERGE] == []


def test_the_known_exceptions_still_exist(contract: Contract, found: list) -> None:
    """An exception that no longer happens leaves the list (it can only shrink)."""
    strict = Contract(contract.layers, frozenset())
    climbing = {(imp.importer, imp.imported) for imp in upward(found, strict, "controller")}
    assert climbing >= KNOWN_UNTIL_MERGE
    assert all(c in cycles(found) for c in KNOWN_CYCLES_UNTIL_MERGE)


# The checker itself, on a small package made for the purpose.


def _package(tmp_path: Path, files: dict[str, str], layers: list[str]) -> tuple[Path, Contract]:
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    lines = ", ".join(f'"{layer}"' for layer in layers)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "pkg"\n[[tool.importlinter.contracts]]\n'
        f'name = "layers"\ntype = "layers"\ncontainers = ["pkg"]\nlayers = [{lines}]\n'
    )
    return root, read_contract(tmp_path / "pyproject.toml", "layers")


def test_the_checker_sees_a_lazy_relative_import_climb(tmp_path: Path) -> None:
    root, contract = _package(
        tmp_path,
        {
            "top.py": "from .low import base\n",
            "low/__init__.py": "",
            "low/base.py": "def f():\n    from .. import top\n    return top\n",
        },
        ["top", "low"],
    )
    found = imports(root, "pkg")
    assert [str(imp) for imp in upward(found, contract, "pkg")] == ["pkg.low.base:2 -> pkg.top"]
    assert cycles(found) == [["pkg.low.base", "pkg.top"]]


def test_the_checker_sees_a_cycle_within_a_layer(tmp_path: Path) -> None:
    root, contract = _package(
        tmp_path,
        {"a.py": "import pkg.b\n", "b.py": "from pkg.c import x\n", "c.py": "from . import a\n"},
        ["a : b : c"],
    )
    found = imports(root, "pkg")
    assert upward(found, contract, "pkg") == []
    assert cycles(found) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_checker_sees_a_module_without_a_layer(tmp_path: Path) -> None:
    root, contract = _package(
        tmp_path, {"a.py": "", "b/__init__.py": "", "b/c.py": "", "stray.py": ""}, ["a", "b"]
    )
    assert unassigned(modules(root, "pkg"), contract, "pkg") == ["pkg.stray"]
    assert layer_of("pkg.b.c", contract) == 0
    assert layer_of("pkg.a", contract) == 1


def test_the_longest_name_decides_the_layer(tmp_path: Path) -> None:
    _, contract = _package(tmp_path, {}, ["tools.cli", "tools"])
    assert layer_of("pkg.tools.cli", contract) == 1
    assert layer_of("pkg.tools.read", contract) == 0
