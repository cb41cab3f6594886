"""Flashing with mpremote (commands and staged files, mpremote faked) and finding the Pico."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import serial.tools.list_ports

from controller.box import serial as serial_backend
from controller.box.base import BoxFault, Limits
from controller.box.protocol import FIRMWARE_VERSION, core, expected_settings
from controller.box.serial import (
    PortNotFound,
    SerialBox,
    find_pico_ports,
    firmware_main,
    flash_firmware,
    resolve_port,
    stage_firmware,
)

from .harness import PINS


class FakeRun:
    """Stands in for subprocess.run: records commands and what was staged when copying."""

    def __init__(self, copy_returncode: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.staged: dict[str, Any] = {}
        self.copy_returncode = copy_returncode

    def __call__(self, command: list[str], **kwargs: Any) -> SimpleNamespace:
        self.commands.append(command)
        if "cp" in command:
            settings = Path(command[command.index(":diablotin.json") - 1])
            package = Path(command[command.index("-r") + 1])
            self.staged = {
                "settings": json.loads(settings.read_text()),
                "modules": sorted(p.name for p in package.iterdir()),
            }
            return SimpleNamespace(returncode=self.copy_returncode)
        return SimpleNamespace(returncode=1)  # the reset cuts mpremote off, as on a Pico


@pytest.fixture
def mpremote(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serial_backend, "mpremote_command", lambda: ["mpremote"])


def test_flash_restarts_the_pico_then_copies_firmware_and_settings(
    mpremote: None, tmp_path: Path
) -> None:
    port = tmp_path / "ttyACM0"
    port.touch()
    run = FakeRun()
    printed: list[str] = []
    commands = flash_firmware(str(port), PINS, Limits(), run=run, settle_s=0, out=printed.append)
    assert run.commands == commands
    assert commands[0] == [
        "mpremote",
        "connect",
        str(port),
        "exec",
        "import machine; machine.reset()",
    ]
    copy = commands[1]
    assert copy[:3] == ["mpremote", "connect", str(port)]
    assert copy[-1] == "reset"
    assert ":main.py" in copy and ":diablotin.json" in copy
    assert run.staged["settings"] == expected_settings(PINS, Limits())
    assert run.staged["modules"] == ["__init__.py", "core.py", "pico.py", "wire.py"]
    assert printed[-1] == f"flashed firmware {FIRMWARE_VERSION} to {port}"


def test_flash_fails_clearly_when_copying_fails(mpremote: None, tmp_path: Path) -> None:
    port = tmp_path / "ttyACM0"
    port.touch()
    with pytest.raises(RuntimeError, match="stop it first"):
        flash_firmware(str(port), PINS, Limits(), run=FakeRun(2), settle_s=0, out=lambda s: None)


def test_flash_refuses_settings_the_firmware_would_refuse() -> None:
    run = FakeRun()
    off_the_pico = copy.copy(PINS)  # a pin map that slipped past its own check
    object.__setattr__(off_the_pico, "coils", (2, 3, 4, 40))  # the Pico has GP0-GP28
    with pytest.raises(ValueError, match=r"pin 40 is not a GP pin number"):
        flash_firmware("/dev/null", off_the_pico, Limits(), run=run, out=lambda s: None)
    assert run.commands == []


def test_dry_run_prints_and_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert firmware_main(["flash", "--port", "/dev/ttyACM7", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "$ mpremote connect /dev/ttyACM7 exec import machine; machine.reset()" in out
    assert ":diablotin.json + reset" in out


def test_missing_mpremote_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(FileNotFoundError, match="pip install mpremote"):
        serial_backend.mpremote_command()


def test_staged_settings_pass_the_firmwares_own_check(tmp_path: Path) -> None:
    settings = expected_settings(PINS, Limits())
    staged = stage_firmware(tmp_path, settings)
    assert (staged / "main.py").read_text().strip().endswith("pico.main()")
    written = json.loads((staged / "diablotin.json").read_text())
    assert core.check_settings(written) == []
    assert not list(staged.rglob("__pycache__"))


def _by_id(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "by-id"
    folder.mkdir()
    for name in names:
        (folder / name).touch()
    monkeypatch.setattr(serial_backend, "BY_ID", folder)
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    return folder


def test_auto_finds_the_pico_by_id(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = _by_id(
        monkeypatch,
        tmp_path,
        ["usb-FTDI_FT232R-if00-port0", "usb-MicroPython_Board_in_FS_mode_e6614c31-if00"],
    )
    pico = str(folder / "usb-MicroPython_Board_in_FS_mode_e6614c31-if00")
    assert find_pico_ports() == [pico]
    assert resolve_port("auto") == pico
    assert resolve_port("/dev/ttyACM3") == "/dev/ttyACM3"


def test_auto_without_or_with_two_picos(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = _by_id(monkeypatch, tmp_path, [])
    with pytest.raises(PortNotFound, match="no Pico found"):
        resolve_port("auto")
    (folder / "usb-MicroPython_Board_a-if00").touch()
    (folder / "usb-MicroPython_Board_b-if00").touch()
    with pytest.raises(PortNotFound, match="several Picos found"):
        resolve_port("auto")


def test_auto_falls_back_to_the_usb_vendor_id(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(serial_backend, "BY_ID", tmp_path / "absent")
    ports = [
        SimpleNamespace(vid=0x0403, device="/dev/cu.ftdi"),
        SimpleNamespace(vid=0x2E8A, device="/dev/cu.usbmodem1"),
    ]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert find_pico_ports() == ["/dev/cu.usbmodem1"]


def test_a_missing_port_keeps_the_link_down_and_fire_says_so(tmp_path: Path) -> None:
    box = SerialBox(str(tmp_path / "no-such-port"), PINS, Limits())
    try:
        deadline = 50
        while "cannot open" not in box.status()["link"]["detail"] and deadline:
            deadline -= 1
            box.wait_until_up(0.05)
        status = box.status()
        assert status["link"]["up"] is False
        assert "cannot open the Pico's port" in status["link"]["detail"]
        assert status["faults"]["link"].startswith("link to the Pico is down (cannot open")
        with pytest.raises(BoxFault, match=r"^link to the Pico is down \(cannot open"):
            box.fire(1)
        box.all_off()  # never raises
        assert box.slots() == {1: False, 2: False, 3: False, 4: False}
        assert box.lid_closed() is None
    finally:
        box.close()


def test_flash_command_line_is_documented() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from controller.box.serial import firmware_main; firmware_main(['flash', '--help'])",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "--port" in done.stdout and "--dry-run" in done.stdout
