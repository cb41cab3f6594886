"""`controller.coils_off`: every coil forced off after the service ends; it never raises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins.mock import MockFactory

from controller import coils_off as coils_off_module
from controller.box.base import Limits
from controller.box.pins import load_pin_map
from controller.box.virtual import VirtualCoprocessor
from controller.clock import RealClock
from controller.coils_off import coils_off

from .helpers import make_config, write_pins

REPO = Path(__file__).resolve().parents[2]
COILS = (17, 27, 22, 23)


def stuck_on(factory: MockFactory, pins: tuple[int, ...]) -> None:
    """Leave ``pins`` driven high with no device holding them (as after a crash)."""
    for pin in pins:
        mock = factory.pin(pin)
        mock.function = "output"
        mock.state = True


def test_gpio_drives_every_coil_low_and_releases_it(tmp_path: Path) -> None:
    factory = MockFactory()
    stuck_on(factory, COILS)
    lines: list[str] = []
    assert coils_off(make_config(tmp_path), factory=factory, out=lines.append) == 0
    assert lines == [
        "coils-off: coil 1 (GPIO17): driven low, released",
        "coils-off: coil 2 (GPIO27): driven low, released",
        "coils-off: coil 3 (GPIO22): driven low, released",
        "coils-off: coil 4 (GPIO23): driven low, released",
        "coils-off: all 4 coils off (mock)",
    ]
    for pin in COILS:
        mock = factory.pin(pin)
        assert [s.state for s in mock.states][-2:] == [True, False], pin  # was on, now low
        assert mock.state is False
        assert mock.function == "input"  # released (the gate pull-down holds it low)
    DigitalOutputDevice(17, pin_factory=factory).close()  # nothing still holds it


def test_a_coil_held_by_another_device_is_reported_and_the_rest_go_off(tmp_path: Path) -> None:
    factory = MockFactory()
    stuck_on(factory, (17, 22, 23))
    holder = DigitalOutputDevice(27, initial_value=True, pin_factory=factory)
    lines: list[str] = []
    try:
        assert coils_off(make_config(tmp_path), factory=factory, out=lines.append) == 1
    finally:
        holder.close()
    assert lines[1].startswith("coils-off: coil 2 (GPIO27): cannot claim it (GPIOPinInUse: ")
    assert lines[1].endswith("is the service still running?")
    assert lines[-1] == "coils-off: 1 of 4 coils NOT confirmed off"
    assert [factory.pin(p).state for p in (17, 22, 23)] == [False, False, False]


def test_a_factory_that_cannot_load_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)
    lines: list[str] = []
    assert coils_off(make_config(tmp_path, factory="lgpio"), out=lines.append) == 1
    [line] = lines
    assert line.startswith("coils-off: no coil switched: pin factory 'lgpio' cannot load (")
    assert "sudo apt install python3-lgpio" in line


def test_a_bad_pin_map_is_reported_not_raised(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    config.box.pins = tmp_path / "missing.toml"
    lines: list[str] = []
    assert coils_off(config, factory=MockFactory(), out=lines.append) == 1
    assert lines == [
        f"coils-off: cannot read the pin map, no coil switched: {tmp_path / 'missing.toml'}: "
        "cannot read the pin map (No such file or directory)"
    ]


def test_any_unexpected_error_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> int:
        raise MemoryError("out of memory")

    monkeypatch.setattr(coils_off_module, "_gpio_off", broken)
    lines: list[str] = []
    assert coils_off(make_config(tmp_path), out=lines.append) == 1
    assert lines == ["coils-off: failed: MemoryError: out of memory"]


@pytest.mark.parametrize("backend", ["simulated", "virtual"])
def test_no_real_coils_nothing_to_do(tmp_path: Path, backend: str) -> None:
    lines: list[str] = []
    assert coils_off(make_config(tmp_path, backend=backend), out=lines.append) == 0
    assert lines == [f"coils-off: the {backend} box has no real coils: nothing to switch"]


def test_serial_the_pico_switches_a_stuck_coil_off(tmp_path: Path) -> None:
    clock = RealClock()
    pico = VirtualCoprocessor(load_pin_map(None, "pico"), Limits(), clock, seed=4)
    try:
        pico.hal.set_coil(3, True)  # left on by a host that died mid-pulse
        assert pico.coils_on() == [3]
        assert pico.port is not None
        config = make_config(tmp_path, backend="serial")
        config.box.serial_port = pico.port
        lines: list[str] = []
        assert coils_off(config, out=lines.append) == 0
        assert pico.coils_on() == []
    finally:
        pico.close()
        clock.close()
    [line] = lines
    assert line.startswith(f"coils-off: the Pico on {config.box.serial_port} (firmware ")
    assert line.endswith("forced every coil off")


def test_serial_unreachable_pico_is_reported(tmp_path: Path) -> None:
    config = make_config(tmp_path, backend="serial")
    config.box.serial_port = str(tmp_path / "ttyACM7")
    lines: list[str] = []
    assert coils_off(config, out=lines.append, serial_wait_s=0.2) == 1
    [line] = lines
    assert line.startswith(f"coils-off: the Pico on {tmp_path / 'ttyACM7'} did not answer (")
    assert line.endswith("switches every coil off by itself 1 s after the host goes silent")


def test_the_units_command_runs_with_the_config_from_the_environment(tmp_path: Path) -> None:
    """What systemd runs after the service stops: `python -m controller.coils_off`."""
    config = tmp_path / "diablotin.toml"
    pins = write_pins(tmp_path)
    config.write_text(f'[box]\nbackend = "gpio"\npin_factory = "mock"\npins = "{pins.name}"\n')
    env = {**os.environ, "DIABLOTIN_CONFIG": str(config)}
    done = subprocess.run(
        [sys.executable, "-m", "controller.coils_off"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "coils-off: all 4 coils off (mock)"
    assert len(done.stdout.splitlines()) == 5


def test_the_units_command_with_a_broken_config_exits_2(tmp_path: Path) -> None:
    config = tmp_path / "diablotin.toml"
    config.write_text("[box\n")
    done = subprocess.run(
        [sys.executable, "-m", "controller.coils_off", "--config", str(config)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("coils-off: cannot read the config, no coil switched: ")
    assert "Traceback" not in done.stderr


def _under_journald(tmp_path: Path, config: Path) -> tuple[int, str]:
    """The unit's command with stderr as the journal's stream (``$JOURNAL_STREAM``)."""
    stream = tmp_path / "journal-stream"
    with stream.open("w") as handle:
        status = os.fstat(handle.fileno())
        env = {**os.environ, "JOURNAL_STREAM": f"{status.st_dev}:{status.st_ino}"}
        done = subprocess.run(
            [sys.executable, "-m", "controller.coils_off", "--config", str(config)],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=handle,
            timeout=60,
            check=False,
        )
    return done.returncode, stream.read_text()


def test_under_journald_a_coil_not_confirmed_off_is_an_error(tmp_path: Path) -> None:
    """``journalctl -p err`` shows it; a clean run stays informational."""
    config = tmp_path / "diablotin.toml"
    config.write_text(f'[box]\nbackend = "serial"\nserial_port = "{tmp_path / "ttyACM9"}"\n')
    status, text = _under_journald(tmp_path, config)
    assert status == 1 and text
    assert all(line.startswith("<3>coils-off: ") for line in text.splitlines()), text
    pins = write_pins(tmp_path)
    config.write_text(f'[box]\nbackend = "gpio"\npin_factory = "mock"\npins = "{pins.name}"\n')
    status, text = _under_journald(tmp_path, config)
    assert status == 0
    assert text.splitlines()[-1] == "<6>coils-off: all 4 coils off (mock)"
