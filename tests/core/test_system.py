"""The box as a computer: clock commands, power commands and the PIN file, with the
system commands faked at the one boundary (``System.run``) and their command lines checked."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.cli import main
from controller.system import PinFile, System, SystemRefused


class FakeRun:
    """Records every command; answers from ``answers`` (command prefix → (code, out, err))."""

    def __init__(self, answers: dict[str, tuple[int, str, str]] | None = None) -> None:
        self.answers = answers or {}
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.commands.append(list(command))
        line = " ".join(command)
        for prefix, (code, out, err) in self.answers.items():
            if line.startswith(prefix):
                return subprocess.CompletedProcess(list(command), code, out, err)
        return subprocess.CompletedProcess(list(command), 0, "", "")


SHOW = "timedatectl show -p NTPSynchronized --value"


@pytest.mark.parametrize(
    ("answer", "flag", "expected"),
    [
        ((0, "yes\n", ""), False, True),
        ((0, "no\n", ""), True, False),  # timedatectl's answer wins over the file
        ((1, "", "System has not been booted with systemd"), True, True),
        ((1, "", "System has not been booted with systemd"), False, None),
    ],
)
def test_clock_synchronised_asks_timedatectl_then_the_timesync_file(
    tmp_path: Path, answer: tuple[int, str, str], flag: bool, expected: bool | None
) -> None:
    marker = tmp_path / "synchronized"
    if flag:
        marker.touch()
    run = FakeRun({SHOW: answer})
    assert System(run, marker).clock_synchronised() is expected
    assert run.commands[0] == SHOW.split()


def test_no_timedatectl_at_all_is_unknown(tmp_path: Path) -> None:
    def missing(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        raise FileNotFoundError(2, "No such file or directory", command[0])

    assert System(missing, tmp_path / "none").clock_synchronised() is None


def test_the_offer_needs_more_than_a_minute_and_no_ntp(tmp_path: Path) -> None:
    unsynced = System(FakeRun({SHOW: (0, "no\n", "")}), tmp_path / "none")
    synced = System(FakeRun({SHOW: (0, "yes\n", "")}), tmp_path / "none")
    assert unsynced.clock_report(1_000_300.0, now_s=1_000_000.0) == {
        "box_s": 1_000_000.0,
        "offset_s": 300.0,
        "synchronised": False,
        "offer": True,
    }
    assert unsynced.clock_report(1_000_059.0, now_s=1_000_000.0)["offer"] is False
    assert unsynced.clock_report(999_000.0, now_s=1_000_000.0)["offer"] is True  # phone behind
    assert synced.clock_report(1_000_300.0, now_s=1_000_000.0)["offer"] is False


def test_set_time_runs_timedatectl_with_the_local_time(tmp_path: Path) -> None:
    run = FakeRun()
    when = 1_795_000_000.0
    command = System(run, tmp_path / "none").set_time(when)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
    assert command == run.commands[-1] == ["timedatectl", "set-time", stamp]


@pytest.mark.parametrize(
    ("err", "hint"),
    [
        ("Failed to set time: Access denied", "not allowed to"),
        ("Failed to set time: Automatic time synchronization is enabled", "NTP"),
        ("Failed to set time: something else", "something else"),
    ],
)
def test_a_refused_set_time_says_why(tmp_path: Path, err: str, hint: str) -> None:
    system = System(FakeRun({"timedatectl set-time": (1, "", err)}), tmp_path / "none")
    with pytest.raises(SystemRefused, match="cannot set the clock: timedatectl set-time") as info:
        system.set_time(1_795_000_000.0)
    assert hint in str(info.value) and err in str(info.value)


def test_restart_and_poweroff_command_lines(tmp_path: Path) -> None:
    run = FakeRun()
    system = System(run, tmp_path / "none")
    assert system.restart() == ["systemctl", "restart", "--no-block", "diablotin"]
    assert system.poweroff() == ["systemctl", "poweroff", "--no-block"]
    refusing = System(FakeRun({"systemctl": (1, "", "Access denied")}), tmp_path / "none")
    with pytest.raises(SystemRefused, match="sudo systemctl poweroff"):
        refusing.poweroff()


def test_the_pin_file_is_made_once_and_a_reset_is_seen_by_another_reader(tmp_path: Path) -> None:
    service_side = PinFile(tmp_path)
    first = service_side.current()
    assert first.isdigit() and len(first) == 6
    assert (tmp_path / "referee-pin").stat().st_mode & 0o777 == 0o600
    assert PinFile(tmp_path).current() == first
    new = PinFile(tmp_path).reset()  # what `diablotin pin --reset` does, in another process
    assert new != first and service_side.current() == new
    assert (tmp_path / "referee-pin").stat().st_mode & 0o777 == 0o600


def test_diablotin_pin_shows_and_resets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main([*data, "pin"]) == 0
    pin = capsys.readouterr().out.strip()
    assert pin == (tmp_path / "referee-pin").read_text().strip()
    assert main([*data, "pin", "--reset"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] != pin and out[0] == (tmp_path / "referee-pin").read_text().strip()
    assert "every referee session has ended" in out[1]


def test_diablotin_pin_reset_refuses_a_pin_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "d.toml"
    config.write_text(f'[data]\ndir = "{tmp_path}"\n[server]\nreferee_pin = "4321"\n')
    assert main(["--config", str(config), "pin"]) == 0
    assert capsys.readouterr().out.startswith("4321  (from ")
    assert main(["--config", str(config), "pin", "--reset"]) == 2
    assert "change it there and restart" in capsys.readouterr().err
    assert not (tmp_path / "referee-pin").exists()
