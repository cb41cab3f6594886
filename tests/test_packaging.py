"""The package as users get it: pyproject's package list matches the source tree, and a wheel
built from this checkout, installed into a fresh venv outside the repository with its runtime
dependencies only, runs ``serve``, ``selftest``, ``doctor`` (with the firmware handshake) and
``firmware flash --dry-run`` from another directory.

The wheel and the venv are made once per session (about 5 s with a warm pip cache; pip fetches
the runtime dependencies and the build backend from PyPI). Select these with ``-m packaging``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import pytest

from controller.box.base import Limits
from controller.box.pins import load_pin_map
from controller.box.virtual import VirtualCoprocessor
from controller.clock import RealClock

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
RUNTIME_VENV_LIMIT_MB = 150
"""numpy (the rule-A solver, ~40 MB) and Babel (CLDR data for plurals and numbers, ~30 MB)
are most of it."""
DEV_ONLY = ("playwright", "mypy", "hypothesis", "ruff", "pytest", "cheroot", "schemathesis")
OPTIONAL = ("opencv-python-headless", "lgpio", "RPi.GPIO", "mpremote")
HARDWARE_TOOLS = ("skidl", "schemdraw", "build123d", "trimesh", "rtree", "matplotlib")
"""The [hardware] extra (python -m hardware.design): never in the runtime install."""
APT_ON_PI_OS = {"numpy": "python3-numpy"}
"""Runtime dependencies 32-bit Pi OS takes from Debian (scripts/install-pi; the venv sees
system packages): PyPI has no armv7l wheel of them."""
SKIP_IN_COPY = shutil.ignore_patterns(
    "__pycache__", "*.pyc", "node_modules", "tests", "*.egg-info", "build", "dist"
)


# -- the explicit package list -------------------------------------------------------------


def _packages_under(folder: Path, name: str) -> set[str]:
    """``name`` and every sub-package of ``folder`` (a folder holding ``__init__.py``)."""
    found = set()
    for init in folder.rglob("__init__.py"):
        parts = init.parent.relative_to(folder).parts
        if "node_modules" in parts or "tests" in parts:
            continue
        found.add(".".join((name, *parts)))
    return found


def test_pyproject_lists_every_package_of_the_source_tree() -> None:
    mapped = SETUPTOOLS["package-dir"]
    on_disk = _packages_under(REPO / "controller", "controller")
    for package, folder in mapped.items():
        assert (REPO / folder / "__init__.py").is_file(), f"{folder}/ is not a package"
        on_disk |= _packages_under(REPO / folder, package)
    listed = set(SETUPTOOLS["packages"])
    assert sorted(on_disk - listed) == [], "packages missing from pyproject [tool.setuptools]"
    assert sorted(listed - on_disk) == [], "pyproject lists packages that are not in the tree"


def test_every_data_package_is_mapped_and_read_through_controller_data() -> None:
    data_module = (REPO / "controller" / "data" / "__init__.py").read_text(encoding="utf-8")
    for package in SETUPTOOLS["package-dir"]:
        assert package.startswith("controller.data."), package
        assert f'"{package}"' in data_module, f"controller/data does not read {package}"


# -- a wheel in a fresh venv ---------------------------------------------------------------


@dataclass
class Installed:
    venv: Path
    wheel: Path
    elsewhere: Path  # a working directory outside the repository
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "diablotin"), *args],
            cwd=self.elsewhere,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _pip(*args: str, timeout: float = 300) -> None:
    """Run this venv's pip (its cache is reused); fail with pip's own output."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        pytest.fail(f"pip {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")


def _copy_sources(dest: Path) -> Path:
    """What the build needs, copied out of the checkout: no stale build/ dir, no egg-info
    left behind in the repository."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, dest / name)
    for folder in ("controller", *SETUPTOOLS["package-dir"].values()):
        shutil.copytree(REPO / folder, dest / folder, ignore=SKIP_IN_COPY)
    return dest


def folder_size_mb(folder: Path) -> float:
    """Bytes of the files under ``folder`` (symlinks not followed), in MB (10**6)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_size
    return total / 1e6


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel, built from a copy of the checkout, installed into a venv made without pip
    (the runtime alone: pip itself is not part of what is measured), by this venv's pip."""
    base = tmp_path_factory.mktemp("packaging")
    source = _copy_sources(base / "src")
    _pip("wheel", "--no-deps", "-q", "-w", str(base / "wheels"), str(source))
    (wheel,) = (base / "wheels").glob("diablotin-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _pip("--python", str(venv / "bin" / "python"), "install", "-q", str(wheel))
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DIABLOTIN_", "PYTHON", "VIRTUAL_ENV"))
    }
    env |= {
        "HOME": str(base / "home"),
        "XDG_DATA_HOME": str(base / "xdg"),
        "PYTHONUNBUFFERED": "1",
        "PATH": f"{venv / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}",
    }
    return Installed(venv, wheel, elsewhere, env)


@pytest.mark.packaging
def test_the_installed_package_is_the_wheel_not_the_checkout(installed: Installed) -> None:
    python = str(installed.venv / "bin" / "python")
    code = (
        "import controller, controller.data as d; from importlib import metadata; "
        "print(controller.__file__); print(d.pins_file()); print(d.firmware_sources()); "
        "print(d.web_templates()); print(d.rules_file('tails')); "
        "print(sorted(x.metadata['Name'].lower() for x in metadata.distributions()))"
    )
    result = subprocess.run(
        [python, "-c", code],
        cwd=installed.elsewhere,
        env=installed.env,
        capture_output=True,
        text=True,
        check=True,
    )
    *paths, names = result.stdout.splitlines()
    site = installed.venv / "lib"
    for path in paths:
        assert Path(path).is_relative_to(site), path
        assert Path(path).exists(), path
    assert str(REPO) not in result.stdout
    for package in (*DEV_ONLY, *OPTIONAL, *HARDWARE_TOOLS):
        assert f"'{package.lower()}'" not in names, f"{package} is not a runtime dependency"


LEFT_OUT = (
    "docs/*",
    "*/README.md",
    "firmware/tests/*",
    "firmware/package*.json",
    "hardware/design/*",
    "hardware/stl/*",
    "hardware/renders/*",
    "hardware/*.net",
    "hardware/*.csv",
    "hardware/electrical.md",
)
"""What of the source folders is not in the wheel, on purpose (the rules pages in docs/ are;
of hardware/, the pin map and the schematics are)."""


@pytest.mark.packaging
def test_the_wheel_holds_every_file_of_the_source_folders(installed: Installed) -> None:
    """A new template, icon or catalogue that pyproject's package-data misses fails here."""
    shipped = set(zipfile.ZipFile(installed.wheel).namelist())
    where = {"controller": "controller", **SETUPTOOLS["package-dir"]}
    missing = []
    for package, folder in where.items():
        for path in sorted((REPO / folder).rglob("*")):
            relative = path.relative_to(REPO).as_posix()
            if path.is_dir() or {"__pycache__", "node_modules"} & set(path.parts):
                continue
            inside = package.replace(".", "/") + relative.removeprefix(folder)
            if inside not in shipped and not any(fnmatch(relative, p) for p in LEFT_OUT):
                missing.append(relative)
    assert missing == []
    assert "controller/data/docs/rules-tails.md" in shipped


@pytest.mark.packaging
def test_the_runtime_venv_is_small(installed: Installed) -> None:
    size = folder_size_mb(installed.venv)
    wheel_kb = installed.wheel.stat().st_size / 1e3
    print(f"\nruntime venv (no pip): {size:.1f} MB; wheel {wheel_kb:.0f} kB")
    assert 5 < size < RUNTIME_VENV_LIMIT_MB


def _read_until(stream: object, pattern: re.Pattern[str], seen: list[str]) -> None:
    for line in iter(stream.readline, ""):  # type: ignore[attr-defined]
        seen.append(line)
        if pattern.search(line):
            return


@pytest.mark.packaging
def test_serve_answers_from_another_directory(installed: Installed, tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            str(installed.venv / "bin" / "diablotin"),
            "--data-dir",
            str(tmp_path / "data"),
            "serve",
            "--box",
            "simulated",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ],
        cwd=installed.elsewhere,
        env=installed.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    banner = re.compile(r"Diablotin dashboard: (http://127\.0\.0\.1:\d+/)")
    seen: list[str] = []
    reader = threading.Thread(target=_read_until, args=(process.stdout, banner, seen))
    reader.start()
    reader.join(30)
    try:
        found = banner.search(seen[-1]) if seen else None
        assert found, "serve printed no address:\n" + "".join(seen)
        url = found[1]

        def get(path: str) -> tuple[int, str, bytes]:
            with urllib.request.urlopen(url + path, timeout=10) as response:
                return response.status, response.headers["Content-Type"], response.read()

        status, kind, body = get("")
        assert (status, kind.split(";")[0]) == (200, "text/html")
        assert b"/static/" in body  # the template, from the package data
        assert get("static/app.css")[0] == 200
        assert get("rules/tails")[0] == 200  # web/rules/tails.en.md, from the package data
        status, kind, body = get("api/games")
        assert (status, kind) == (200, "application/json")
        assert body.strip().startswith(b"[") or body.strip().startswith(b"{")
        assert b'"openapi"' in get("api/openapi.json")[2]
    finally:
        process.terminate()
        rest, _ = process.communicate(timeout=20)
    assert process.returncode == 0, "".join(seen) + rest
    assert "Traceback" not in "".join(seen) + rest
    assert "Diablotin stopped: coils off." in rest


@pytest.mark.packaging
def test_selftest_passes(installed: Installed) -> None:
    result = installed.run("selftest", "--box", "simulated")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "RESULT: PASS" in result.stdout


@pytest.fixture
def virtual_pico() -> Iterator[str]:
    """A virtual Pico on a pty: this checkout's firmware code behind the real protocol."""
    clock = RealClock()
    pico = VirtualCoprocessor(load_pin_map(None, "pico"), Limits(), clock, seed=3)
    assert pico.port is not None
    try:
        yield pico.port
    finally:
        pico.close()
        clock.close()


@pytest.mark.packaging
def test_doctor_finds_the_pin_map_and_shakes_hands_with_the_firmware(
    installed: Installed, virtual_pico: str, tmp_path: Path
) -> None:
    config = tmp_path / "diablotin.toml"
    config.write_text(f'[server]\nhost = "127.0.0.1"\nport = 0\n[data]\ndir = "{tmp_path}"\n')
    result = installed.run("--config", str(config), "doctor", "--box", f"serial:{virtual_pico}")
    lines = result.stdout.splitlines()
    assert not [line for line in lines if "FAIL" in line], result.stdout + result.stderr
    assert any(re.match(r"\s+ok\s+pin map\s+.*site-packages", line) for line in lines), lines
    assert any(re.match(r"\s+ok\s+Pico firmware\s+.*firmware ", line) for line in lines), lines
    warned = any(line.lstrip().startswith("warn") for line in lines)
    assert result.returncode == (1 if warned else 0), result.stdout + result.stderr


@pytest.mark.packaging
def test_firmware_flash_dry_run_stages_the_packaged_firmware(installed: Installed) -> None:
    result = installed.run("firmware", "flash", "--dry-run")
    assert result.returncode == 0, result.stdout + result.stderr
    copy = result.stdout.splitlines()[-1]
    assert re.search(r"fs cp -r \S+/diablotin_fw :", copy), copy
    assert re.search(r"fs cp \S+/main\.py :main\.py", copy), copy


@pytest.mark.packaging
def test_config_and_version_run_installed(installed: Installed) -> None:
    assert installed.run("--version").stdout.startswith("diablotin ")
    result = installed.run("config")
    assert result.returncode == 0, result.stderr
    assert "site-packages" in result.stdout  # the default pin map, from the package data


# -- run and test install different things -------------------------------------------------

ARMV7 = [
    "linux_armv7l",
    "manylinux2014_armv7l",
    *(f"manylinux_2_{minor}_armv7l" for minor in range(17, 37)),  # Pi OS Bookworm: glibc 2.36
]


def _installed_names(venv: Path) -> list[str]:
    code = (
        "from importlib import metadata; "
        "print('\\n'.join(sorted(d.metadata['Name'].lower() for d in metadata.distributions())))"
    )
    python = str(venv / "bin" / "python")
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return result.stdout.split()


@pytest.mark.packaging
def test_scripts_serve_venv_holds_the_runtime_only(tmp_path: Path) -> None:
    """``scripts/setup --runtime`` (what ``./scripts/serve`` runs first): under 120 MB with pip,
    and none of the dev tools or optional extras."""
    venv = tmp_path / "venv-run"
    result = subprocess.run(
        [str(REPO / "scripts" / "setup"), "--runtime"],
        env=dict(os.environ, DIABLOTIN_RUN_VENV=str(venv)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    names = _installed_names(venv)
    assert "diablotin" in names and "flask" in names
    for package in (*DEV_ONLY, *OPTIONAL, *HARDWARE_TOOLS):
        assert package.lower() not in names, f"{package} is not a runtime dependency"
    size = folder_size_mb(venv)
    print(f"\n./scripts/serve venv (scripts/setup --runtime, with pip): {size:.1f} MB")
    assert size < RUNTIME_VENV_LIMIT_MB


@pytest.mark.packaging
def test_runtime_dependencies_install_on_armv7(installed: Installed, tmp_path: Path) -> None:
    """32-bit Pi OS: every runtime dependency but those Debian provides there
    (:data:`APT_ON_PI_OS`) resolves to a wheel for armv7l (pure Python or built for it) on
    PyPI, so nothing needs a compiler there."""
    platforms = [arg for platform in ARMV7 for arg in ("--platform", platform)]
    report = tmp_path / "report.json"
    with zipfile.ZipFile(installed.wheel) as wheel:
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        lines = wheel.read(metadata).decode().splitlines()
    needs = [
        line.split(":", 1)[1].strip()
        for line in lines
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    from_apt = [need for need in needs if re.match(r"[\w.-]+", need)[0].lower() in APT_ON_PI_OS]
    assert from_apt, "numpy is a runtime dependency Pi OS provides"
    runtime = [need for need in needs if need not in from_apt]
    _pip(
        "install",
        "--dry-run",
        "--ignore-installed",
        "-q",
        "--only-binary=:all:",
        *platforms,
        "--python-version",
        "3.11",
        "--implementation",
        "cp",
        "--abi",
        "cp311",
        "--report",
        str(report),
        *runtime,
    )
    wheels = {
        item["metadata"]["name"].lower(): item["download_info"]["url"].rsplit("/", 1)[-1]
        for item in json.loads(report.read_text())["install"]
    }
    print("\narmv7 wheels:", ", ".join(sorted(wheels.values())))
    assert {"flask", "gpiozero", "waitress", "pyserial", "babel"} <= set(wheels)
    for name, wheel in wheels.items():
        assert wheel.endswith(("-none-any.whl", "armv7l.whl")), (name, wheel)


def test_the_readme_commands_are_the_whole_setup() -> None:
    """The README's two commands; CI runs the test one; serve makes the runtime venv, test the
    dev one."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    assert blocks[:2] == ["./scripts/serve\n", "./scripts/test\n"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == "exec ./scripts/test"
    serve = (REPO / "scripts" / "serve").read_text(encoding="utf-8")
    test = (REPO / "scripts" / "test").read_text(encoding="utf-8")
    assert "scripts/setup --runtime\n" in serve and ".venv/" not in serve
    assert "scripts/setup\n" in test and ".venv/bin/pytest" in test


def test_the_hardware_extra_is_in_the_test_venv_not_the_serve_one() -> None:
    """scripts/setup installs [hardware] into .venv (scripts/test, CI); --runtime (what
    ./scripts/serve uses) installs the package alone."""
    setup = (REPO / "scripts" / "setup").read_text(encoding="utf-8")
    assert "spec=(-e '.[dev,hardware]')" in setup
    assert "spec=(-e .)" in setup
    extra = PYPROJECT["project"]["optional-dependencies"]["hardware"]
    assert {re.match(r"[\w.-]+", need)[0].lower() for need in extra} == set(HARDWARE_TOOLS)
    assert "DIABLOTIN_REQUIRE_HARDWARE=1" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
