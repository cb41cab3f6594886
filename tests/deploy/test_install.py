"""scripts/install-pi and uninstall-pi, run into a temporary root (``--root``): nothing is
installed on this machine; apt-get, useradd, chown, the venv, pip and systemctl are only
printed. The systemd unit is checked by ``systemd-analyze verify`` where it exists."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from controller.box.pins import load_pin_map
from controller.config import load_config

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "scripts" / "install-pi"
UNINSTALL = REPO / "scripts" / "uninstall-pi"
SKIPPED = "install-pi: skipped (--root): "
SOURCES = [
    "pyproject.toml",
    "README.md",
    "controller",
    "web",
    "firmware",
    "hardware",
    "docs",
    "deploy",
    "scripts",
]
SYSTEM_COMMANDS = [
    "apt-get update -q",
    "apt-get install -y -q python3-venv python3-lgpio python3-picamera2 python3-opencv "
    "python3-numpy",
    "groupadd --system -f gpio",
    "groupadd --system -f dialout",
    "useradd --system --user-group --home-dir /var/lib/diablotin --no-create-home "
    "--shell /usr/sbin/nologin --comment 'Diablotin games box' diablotin",
    "usermod -aG gpio,dialout diablotin",
    "chown -R diablotin:diablotin /var/lib/diablotin",
    "python3 -m venv --system-site-packages /opt/diablotin/venv",
    "/opt/diablotin/venv/bin/python -m pip install --editable /opt/diablotin/src",
    "env LG_WD=/tmp/diablotin-lgpio-check /opt/diablotin/venv/bin/python -c "
    "'import controller, gpiozero, lgpio'",
    "/opt/diablotin/venv/bin/python -m compileall -q /opt/diablotin/src/controller "
    "/opt/diablotin/src/web /opt/diablotin/src/firmware/diablotin_fw",
    "chown root:diablotin /etc/diablotin /etc/diablotin/diablotin.toml /etc/diablotin/pins.toml",
    "/opt/diablotin/venv/bin/diablotin --config /etc/diablotin/diablotin.toml config",
    "systemctl daemon-reload",
    "systemctl enable diablotin.service",
    "systemctl restart diablotin.service",
]


def run(script: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(script), *args], capture_output=True, text=True, timeout=60, check=False
    )
    if check:
        assert done.returncode == 0, f"{script.name} {args}: {done.stdout}\n{done.stderr}"
    return done


def skipped_commands(output: str) -> list[str]:
    return [line[len(SKIPPED) :] for line in output.splitlines() if line.startswith(SKIPPED)]


def tree(root: Path) -> dict[str, str]:
    """Every path under ``root`` -> its mode (``l -> target`` for a symlink)."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        if path.is_symlink():
            found[relative] = f"l -> {path.readlink()}"
        else:
            found[relative] = stat.filemode(path.stat().st_mode)
    return found


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "root"


@pytest.fixture
def installed(root: Path) -> str:
    return run(INSTALL, "--root", str(root)).stdout


# -- the scripts themselves ----------------------------------------------------------------------


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_the_scripts_are_valid_bash(script: Path) -> None:
    assert script.stat().st_mode & stat.S_IXUSR, f"{script} is not executable"
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")


def test_shellcheck_finds_nothing() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    done = subprocess.run(
        ["shellcheck", str(INSTALL), str(UNINSTALL)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, "")


def test_bad_options_change_nothing(tmp_path: Path) -> None:
    for args, message in [
        (["--bogus"], "install-pi: unknown option --bogus"),
        (["--purge"], "install-pi: --purge only goes with --uninstall"),
        (["--prefix", "/"], "install-pi: --prefix must be an absolute folder other than /, got /"),
        (["--prefix", "opt/x"], "--prefix must be an absolute folder other than /, got opt/x"),
        (["--prefix", "/opt/../etc"], "--prefix must be an absolute folder"),
        (["--root"], "install-pi: error: --root needs a folder"),
        (["--prefix", "--no-apt"], "install-pi: error: --prefix needs a folder"),
    ]:
        done = run(INSTALL, "--root", str(tmp_path / "r"), *args, check=False)
        assert done.returncode in (1, 2), args
        assert message in done.stderr, (args, done.stderr)
        assert done.stdout == ""
    assert not (tmp_path / "r" / "opt").exists()


# -- install ---------------------------------------------------------------------------------------


def test_files_land_where_expected_with_their_permissions(root: Path, installed: str) -> None:
    config_dir = root / "etc" / "diablotin"
    assert mode(config_dir) == 0o750
    assert mode(config_dir / "diablotin.toml") == 0o640
    assert mode(config_dir / "pins.toml") == 0o640
    assert (config_dir / "diablotin.toml").read_bytes() == (
        REPO / "deploy" / "diablotin.toml"
    ).read_bytes()
    assert (config_dir / "pins.toml").read_bytes() == (REPO / "hardware" / "pins.toml").read_bytes()
    assert mode(root / "var" / "lib" / "diablotin") == 0o750
    assert list((root / "var" / "lib" / "diablotin").iterdir()) == []
    unit = root / "etc" / "systemd" / "system" / "diablotin.service"
    assert mode(unit) == 0o644
    link = root / "usr" / "local" / "bin" / "diablotin"
    assert link.is_symlink()
    assert str(link.readlink()) == "/opt/diablotin/venv/bin/diablotin"

    src = root / "opt" / "diablotin" / "src"
    assert sorted(p.name for p in src.iterdir()) == sorted(SOURCES)
    for relative in [
        "controller/coils_off.py",
        "controller/box/gpio.py",
        "web/templates/base.html",
        "firmware/diablotin_fw/wire.py",
        "firmware/main.py",
        "hardware/pins.toml",
        "docs/install-pi.md",
        "deploy/diablotin.service",
    ]:
        assert (src / relative).read_bytes() == (REPO / relative).read_bytes(), relative
    assert mode(src / "scripts" / "install-pi") == 0o755
    names = {p.name for p in src.rglob("*")}
    assert not names & {"__pycache__", "node_modules", ".venv", ".git", "diablotin.egg-info"}
    writable_by_others = [
        str(p) for p in src.rglob("*") if not p.is_symlink() and mode(p) & (stat.S_IWGRP | 0o002)
    ]
    assert writable_by_others == []
    assert (root / "opt" / "diablotin" / ".diablotin-install").read_text() == (
        f"diablotin installed from {REPO}\n"
    )
    assert installed.splitlines()[-1] == f"install-pi: installed into {root}"


def test_the_installed_config_is_valid(root: Path, installed: str) -> None:
    config = load_config(root / "etc" / "diablotin" / "diablotin.toml")
    assert (config.box.backend, config.box.pin_factory) == ("gpio", "lgpio")
    assert config.box.pins == root / "etc" / "diablotin" / "pins.toml"
    assert config.data_dir == Path("/var/lib/diablotin")
    assert (config.server.host, config.server.port, config.server.referee_pin) == (
        "0.0.0.0",
        8000,
        "",
    )
    assert load_pin_map(config.box.pins, "pi").coils == (17, 27, 22, 23)


def test_system_commands_are_printed_not_run(installed: str) -> None:
    assert skipped_commands(installed) == SYSTEM_COMMANDS


def test_no_start_enables_without_starting(root: Path) -> None:
    output = run(INSTALL, "--root", str(root), "--no-start", "--no-apt").stdout
    commands = skipped_commands(output)
    assert commands == [
        c for c in SYSTEM_COMMANDS if not c.startswith(("apt-get", "systemctl restart"))
    ]
    assert "install-pi: not started (--no-start)" in output


def test_the_unit_is_the_template_with_the_prefix(root: Path, installed: str) -> None:
    unit = (root / "etc" / "systemd" / "system" / "diablotin.service").read_text()
    assert unit == run(INSTALL, "--render-unit").stdout
    assert unit == (REPO / "deploy" / "diablotin.service").read_text().replace(
        "@PREFIX@", "/opt/diablotin"
    )
    lines = unit.splitlines()
    for line in [
        "[Service]",
        "User=diablotin",
        "Group=diablotin",
        "Environment=DIABLOTIN_CONFIG=/etc/diablotin/diablotin.toml",
        "Environment=PYTHONUNBUFFERED=1",
        "StateDirectory=diablotin",
        "WorkingDirectory=/var/lib/diablotin",
        "ExecStart=/opt/diablotin/venv/bin/diablotin serve",
        "KillSignal=SIGTERM",
        "ExecStopPost=-/opt/diablotin/venv/bin/python -m controller.coils_off",
        "Restart=on-failure",
        "RestartPreventExitStatus=78",
        "StandardOutput=journal",
        "StandardError=journal",
        "WantedBy=multi-user.target",
    ]:
        assert lines.count(line) == 1, line
    assert not any(line.startswith(("User=root", "LogsDirectory")) for line in lines)
    assert "file:" not in unit.replace("Documentation=file://", "")  # no log files


def test_systemd_analyze_verifies_the_rendered_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    prefix = tmp_path / "prefix"
    (prefix / "venv" / "bin").mkdir(parents=True)
    for name in ("diablotin", "python"):
        program = prefix / "venv" / "bin" / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    unit = tmp_path / "diablotin.service"
    unit.write_text(run(INSTALL, "--render-unit", "--prefix", str(prefix)).stdout)
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0 and "diablotin.service" not in done.stderr:
        pytest.skip(f"systemd-analyze cannot run in this container: {done.stderr.strip()}")
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "")
    # and it does look: the same unit with a missing program is refused
    (prefix / "venv" / "bin" / "diablotin").unlink()
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert f"Command {prefix}/venv/bin/diablotin is not executable" in done.stderr


def test_running_it_again_updates_the_code_and_keeps_the_config(root: Path, installed: str) -> None:
    config = root / "etc" / "diablotin" / "diablotin.toml"
    pins = root / "etc" / "diablotin" / "pins.toml"
    config.write_text(config.read_text().replace("port = 8000", "port = 8100"))
    pins.write_text(pins.read_text().replace("[17, 27, 22, 23]", "[4, 27, 22, 23]"))
    stale = root / "opt" / "diablotin" / "src" / "controller" / "gone.py"
    stale.write_text("# a module removed upstream\n")
    before = tree(root)
    del before["opt/diablotin/src/controller/gone.py"]

    output = run(INSTALL, "--root", str(root)).stdout

    assert "install-pi: kept your /etc/diablotin/diablotin.toml" in output
    assert "install-pi: kept your /etc/diablotin/pins.toml" in output
    assert "install-pi: wrote /etc/diablotin" not in output
    assert "port = 8100" in config.read_text()
    assert load_pin_map(pins, "pi").coils == (4, 27, 22, 23)
    assert not stale.exists()
    assert tree(root) == before
    assert skipped_commands(output) == SYSTEM_COMMANDS


# -- uninstall ---------------------------------------------------------------------------------


def test_uninstall_removes_what_it_installed_and_keeps_config_and_games(
    root: Path, installed: str
) -> None:
    journal = root / "var" / "lib" / "diablotin" / "diablotin.sqlite3"
    journal.write_bytes(b"games")
    output = run(UNINSTALL, "--root", str(root)).stdout
    files = {k for k, v in tree(root).items() if not v.startswith("d")}
    assert files == {
        "etc/diablotin/diablotin.toml",
        "etc/diablotin/pins.toml",
        "var/lib/diablotin/diablotin.sqlite3",
    }
    assert not (root / "opt" / "diablotin").exists()
    assert journal.read_bytes() == b"games"
    assert skipped_commands(output) == [
        "systemctl disable --now diablotin.service",
        "systemctl daemon-reload",
    ]
    assert output.splitlines()[-1] == (
        "install-pi: kept /etc/diablotin (your config) and /var/lib/diablotin (your games); "
        "--purge removes them"
    )


def test_uninstall_purge_removes_config_games_and_user(root: Path, installed: str) -> None:
    (root / "var" / "lib" / "diablotin" / "diablotin.sqlite3").write_bytes(b"games")
    output = run(UNINSTALL, "--root", str(root), "--purge").stdout
    assert [k for k, v in tree(root).items() if not v.startswith("d")] == []
    assert not (root / "etc" / "diablotin").exists()
    assert not (root / "var" / "lib" / "diablotin").exists()
    assert skipped_commands(output) == [
        "systemctl disable --now diablotin.service",
        "systemctl daemon-reload",
        "userdel diablotin",
    ]


def test_uninstall_leaves_a_folder_it_did_not_install_alone(root: Path, installed: str) -> None:
    other = root / "opt" / "other"
    other.mkdir(parents=True)
    (other / "precious.txt").write_text("keep me")
    output = run(UNINSTALL, "--root", str(root), "--prefix", "/opt/other").stdout
    assert (other / "precious.txt").read_text() == "keep me"
    assert "install-pi: no Diablotin install in /opt/other (no .diablotin-install there)" in output
    assert (root / "opt" / "diablotin" / "src" / "pyproject.toml").is_file()


POLKIT_PROBE = """
const fs = require("fs");
let rule = null;
global.polkit = {Result: {YES: "yes", NOT_HANDLED: "not handled"}, addRule: (f) => { rule = f; }};
eval(fs.readFileSync(process.argv[1], "utf8"));
const ask = (user, id, details) =>
  rule({id, lookup: (k) => (details || {})[k]}, {user});
const unit = (verb, name) => ({unit: name || "diablotin.service", verb});
console.log(JSON.stringify([
  ask("diablotin", "org.freedesktop.timedate1.set-time"),
  ask("diablotin", "org.freedesktop.login1.power-off"),
  ask("diablotin", "org.freedesktop.systemd1.manage-units", unit("restart")),
  ask("diablotin", "org.freedesktop.systemd1.manage-units", unit("stop")),
  ask("diablotin", "org.freedesktop.systemd1.manage-units", unit("restart", "ssh.service")),
  ask("diablotin", "org.freedesktop.login1.reboot"),
  ask("pi", "org.freedesktop.timedate1.set-time"),
]));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node to run the polkit rule")
def test_the_polkit_rule_grants_the_clock_restart_and_power_off_only(
    root: Path, installed: str
) -> None:
    """The installed rule, run as polkit would run it (JavaScript, here under Node)."""
    rule = root / "etc" / "polkit-1" / "rules.d" / "50-diablotin.rules"
    assert mode(rule) == 0o644 and "@USER@" not in rule.read_text()
    answers = subprocess.run(
        ["node", "-e", POLKIT_PROBE, str(rule)], capture_output=True, text=True, check=True
    ).stdout
    yes, no = "yes", "not handled"
    assert json.loads(answers) == [yes, yes, yes, no, no, no, no]
    run(UNINSTALL, "--root", str(root))
    assert not rule.exists()
