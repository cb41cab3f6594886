"""Start checks (`controller.checks`): what passes on a laptop, what fails with which fix."""

from __future__ import annotations

import getpass
import importlib.metadata
import io
import logging
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins.mock import MockFactory

from controller import checks
from controller.box.base import Limits
from controller.box.pins import load_pin_map
from controller.box.virtual import VirtualCoprocessor
from controller.checks import CheckResult, doctor, preflight, sensor_sanity, start_checks
from controller.clock import RealClock

from .helpers import make_config, write_pins


def by_name(results: list[CheckResult]) -> dict[str, CheckResult]:
    names = [r.name for r in results]
    assert len(names) == len(set(names)), f"a check ran twice: {names}"
    return {r.name: r for r in results}


@pytest.fixture
def no_lgpio(monkeypatch: pytest.MonkeyPatch) -> None:
    """lgpio is not installed (as on a laptop), whatever this machine has."""
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)


@pytest.fixture
def no_rpigpio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.rpigpio", None)


# -- what passes -------------------------------------------------------------------------------


def test_simulated_box_checks_the_data_dir_and_the_pin_map(tmp_path: Path, no_pi: Path) -> None:
    results = start_checks(make_config(tmp_path, backend="simulated"))
    assert [(r.name, r.ok) for r in results] == [("data dir", True), ("pin map", True)]
    assert results[0].message == (
        f"{tmp_path / 'data'} will be created in {tmp_path} (user {getpass.getuser()})"
    )


def test_mock_factory_passes_every_check(tmp_path: Path, no_pi: Path) -> None:
    config = make_config(tmp_path, backend="gpio", factory="mock")
    results = start_checks(config)
    assert [(r.name, r.ok) for r in results] == [
        ("data dir", True),
        ("pin map", True),
        ("pin factory", True),
        ("pins free", True),
        ("sensors", True),
    ]
    checks_by_name = by_name(results)
    assert checks_by_name["pins free"].message == "8 pins claimed and released"
    assert checks_by_name["sensors"].message == (
        "slot 1 empty, slot 2 empty, slot 3 empty, slot 4 empty"
    )
    out = io.StringIO()
    assert doctor(config, out=out) == 0
    text = out.getvalue()
    assert text.splitlines()[0] == (
        "Diablotin doctor: config defaults (no config file), backend gpio, pin factory mock"
    )
    assert text.splitlines()[-3] == (
        f"  ok    journal      no journal yet: {config.data_dir}/diablotin.sqlite3 is made at "
        "the first start"
    )
    assert text.splitlines()[-2] == (
        "  ok    clock        synchronisation unknown (no systemd timesync here)"
    )
    assert text.splitlines()[-1] == "7 checks: 7 ok, 0 warnings, 0 failed"
    assert "fix:" not in text


def test_preflight_lets_a_healthy_box_start_and_says_so(tmp_path: Path, no_pi: Path) -> None:
    out = io.StringIO()
    assert preflight(make_config(tmp_path), out=out) is True
    assert out.getvalue() == "diablotin: start checks: 5 checks: 5 ok, 0 warnings, 0 failed\n"


def test_the_checks_release_every_pin(tmp_path: Path, no_pi: Path) -> None:
    factory = MockFactory()
    start_checks(make_config(tmp_path), factory=factory, sample_s=0.01)
    for pin in (17, 27, 22, 23):
        DigitalOutputDevice(pin, pin_factory=factory).close()  # GPIOPinInUse if still held
    assert [factory.pin(p).state for p in (17, 27, 22, 23)] == [False] * 4


# -- pin factories that cannot load ------------------------------------------------------------


def test_lgpio_missing_fails_with_the_fix(
    tmp_path: Path, no_pi: Path, no_lgpio: None, no_lg_wd: None
) -> None:
    config = make_config(tmp_path, factory="lgpio")
    results = by_name(start_checks(config))
    assert set(results) == {"data dir", "pin map", "gpio access", "lgpio work dir", "pin factory"}
    access = results["gpio access"]
    assert (access.ok, access.hard) == (False, True)
    assert access.message == (
        f"no {no_pi / 'gpiochip*'}: this is not a Raspberry Pi, or its GPIO driver is missing"
    )
    factory = results["pin factory"]
    assert (factory.ok, factory.hard) == (False, True)
    assert factory.message.startswith("pin factory 'lgpio' cannot load (")
    assert "sudo apt install python3-lgpio" in factory.fix
    assert 'box.backend = "simulated"' in factory.fix
    out = io.StringIO()
    assert preflight(config, out=out) is False
    lines = out.getvalue().splitlines()
    assert lines[-1] == (
        "diablotin: refusing to start: 5 checks: 3 ok, 0 warnings, 2 failed "
        "(`diablotin doctor` shows every check)"
    )
    assert sum(line.strip().startswith("fix:") for line in lines) == 2


def test_rpigpio_missing_fails_with_the_fix(tmp_path: Path, no_pi: Path, no_rpigpio: None) -> None:
    results = by_name(start_checks(make_config(tmp_path, factory="rpigpio")))
    assert results["gpio access"].message.startswith(f"no {no_pi / 'gpiomem*'}")
    factory = results["pin factory"]
    assert (factory.ok, factory.hard) == (False, True)
    assert factory.message.startswith("pin factory 'rpigpio' cannot load (")
    assert "pip install 'diablotin[rpigpio]'" in factory.fix
    assert 'box.pin_factory = "lgpio"' in factory.fix
    assert "pins free" not in results


def test_rpigpio_on_a_pi5_is_refused_before_loading(tmp_path: Path, pi5: Path) -> None:
    (pi5.parent / "dev" / "gpiomem0").touch()
    results = by_name(start_checks(make_config(tmp_path, factory="rpigpio")))
    factory = results["pin factory"]
    assert factory.ok is False
    assert factory.message == "RPi.GPIO does not work on a Raspberry Pi 5 Model B Rev 1.0"
    assert factory.fix == 'set box.pin_factory = "lgpio" in the config (it works on every Pi)'
    assert results["gpiozero"].ok is True  # this venv has gpiozero >= 2.0.1.post3


def test_mock_factory_on_a_real_pi_is_a_warning(tmp_path: Path, pi5: Path) -> None:
    config = make_config(tmp_path, factory="mock")
    results = start_checks(config, sample_s=0.01)
    warnings = [r for r in results if not r.ok]
    assert [(r.name, r.hard) for r in warnings] == [("real pins", False)]
    assert by_name(results)["pin factory"].ok is True
    assert warnings[0].message == (
        'pin factory "mock" on a Raspberry Pi 5 Model B Rev 1.0: the pins are simulated, '
        "the toy will not move"
    )
    assert preflight(config, out=io.StringIO(), sample_s=0.01) is True
    assert doctor(config, out=io.StringIO(), sample_s=0.01) == 1


def test_gpio_devices_the_user_may_not_open(
    tmp_path: Path, pi5: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chip = pi5.parent / "dev" / "gpiochip0"
    unwritable(monkeypatch, chip)
    result = checks._gpio_devices("lgpio")
    assert (result.ok, result.hard) == (False, True)
    user = getpass.getuser()
    assert result.message == f"{user} may not use {chip}"
    assert result.fix.startswith(f"add {user} to the gpio group: `sudo usermod -aG gpio {user}`")


@pytest.fixture
def no_lg_wd(monkeypatch: pytest.MonkeyPatch) -> None:
    """LG_WD unset during the test, and whatever the test sets is undone after it."""
    monkeypatch.setenv("LG_WD", "recorded")
    monkeypatch.delenv("LG_WD")


def unwritable(monkeypatch: pytest.MonkeyPatch, *folders: Path) -> None:
    """``os.access`` says no to writing ``folders`` (the tests run as root, who may write)."""
    real_access = os.access
    refused = {str(folder) for folder in folders}
    monkeypatch.setattr(
        os, "access", lambda path, mode: str(path) not in refused and real_access(path, mode)
    )


def test_lgpio_work_dir_is_the_working_directory_when_writable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_lg_wd: None
) -> None:
    monkeypatch.chdir(tmp_path)
    result = checks.prepare_lgpio_workdir(tmp_path / "data")
    assert (result.ok, result.message) == (True, f"{tmp_path} is writable")
    assert "LG_WD" not in os.environ
    assert not (tmp_path / "data").exists()


def test_lgpio_work_dir_moves_to_the_data_dir_from_a_read_only_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_lg_wd: None
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    unwritable(monkeypatch, home)
    result = checks.prepare_lgpio_workdir(tmp_path / "data")
    assert (result.ok, result.message) == (
        True,
        f"{tmp_path / 'data'} (the data dir: {home} is not writable)",
    )
    assert os.environ["LG_WD"] == str(tmp_path / "data")
    assert (tmp_path / "data").is_dir()


def test_lgpio_work_dir_fails_when_nothing_is_writable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_lg_wd: None
) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    data.mkdir()
    monkeypatch.chdir(home)
    unwritable(monkeypatch, home, data)
    result = checks.prepare_lgpio_workdir(data)
    assert (result.ok, result.hard) == (False, True)
    assert result.message == (
        f"import lgpio creates a pipe in the working directory, and {home} is not writable "
        f"by {getpass.getuser()}"
    )
    assert "WorkingDirectory=/var/lib/diablotin" in result.fix
    assert "LG_WD" not in os.environ


def test_gpiozero_versions() -> None:
    assert checks._version_tuple("2.0.1.post3") == (2, 0, 1, 3)
    assert checks._version_tuple("2.0.1") == (2, 0, 1, -1)
    assert checks._version_tuple("2.0") == (2, 0, 0, -1)
    assert checks._version_tuple("2.0.1") < checks.GPIOZERO_PI5_MIN
    assert checks._version_tuple("2.0.1.post2") < checks.GPIOZERO_PI5_MIN
    assert checks._version_tuple("2.0.2") > checks.GPIOZERO_PI5_MIN


def test_old_gpiozero_on_a_pi5_is_a_warning(pi5: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.0.1")
    [result] = checks._gpiozero_version()
    assert (result.name, result.ok, result.hard) == ("gpiozero", False, False)
    assert "2.0.1.post3" in result.fix


# -- pins, sensors -------------------------------------------------------------------------------


def test_a_pin_already_reserved_is_reported(tmp_path: Path, no_pi: Path) -> None:
    factory = MockFactory()
    holder = DigitalOutputDevice(27, pin_factory=factory)
    try:
        config = make_config(tmp_path)
        results = by_name(start_checks(config, factory=factory))
        busy = results["pins free"]
        assert (busy.ok, busy.hard) == (False, True)
        assert busy.message.startswith("cannot claim coil 2 (GPIO27) (GPIOPinInUse: ")
        assert ";" not in busy.message  # only that pin
        assert "systemctl status diablotin" in busy.fix
        assert "sensors" not in results
        assert holder.closed is False
        DigitalOutputDevice(17, pin_factory=factory).close()  # the others were released
        assert preflight(config, out=io.StringIO(), factory=factory) is False
    finally:
        holder.close()


def test_a_flapping_sensor_is_a_warning(tmp_path: Path, no_pi: Path) -> None:
    factory = MockFactory()
    slot3 = factory.pin(13)
    turns = iter(range(1000))

    def sleep(seconds: float) -> None:
        assert seconds == checks.SAMPLE_INTERVAL_S
        slot3.drive_low() if next(turns) % 2 else slot3.drive_high()

    config = make_config(tmp_path)
    results = by_name(start_checks(config, factory=factory, sample_s=0.1, sleep=sleep))
    sensors = results["sensors"]
    assert (sensors.ok, sensors.hard) == (False, False)
    assert sensors.message == "flapping while watched for 20 readings: slot 3 (18 changes)"
    out = io.StringIO()
    factory2 = MockFactory()
    slot3 = factory2.pin(13)
    turns = iter(range(1000))
    assert preflight(config, out=out, factory=factory2, sample_s=0.1, sleep=sleep) is True
    assert "  warn  sensors  flapping" in out.getvalue()
    assert out.getvalue().endswith("5 checks: 4 ok, 1 warning, 0 failed\n")


def test_all_slots_present_with_the_lid_open_is_a_warning(tmp_path: Path, no_pi: Path) -> None:
    config = make_config(tmp_path)
    config.box.pins = write_pins(tmp_path, "lid = 26\n")
    factory = MockFactory()

    def load_dice(lid_closed: bool) -> None:
        for pin in (5, 6, 13, 19):
            factory.pin(pin).drive_low()  # sensor_present = "low"
        factory.pin(26).drive_low() if lid_closed else factory.pin(26).drive_high()

    results = by_name(
        start_checks(config, factory=factory, sleep=lambda s: load_dice(lid_closed=False))
    )
    sensors = results["sensors"]
    assert (sensors.ok, sensors.hard) == (False, False)
    assert sensors.message == (
        "all four slots read 'present' while the lid is open (slot 1 present, slot 2 present, "
        "slot 3 present, slot 4 present, lid open)"
    )
    assert "sensor_present in pins.toml is inverted" in sensors.fix

    factory = MockFactory()
    results = by_name(
        start_checks(config, factory=factory, sleep=lambda s: load_dice(lid_closed=True))
    )
    assert results["sensors"].ok is True
    assert results["sensors"].message.endswith("slot 4 present, lid closed")


def test_sensor_sanity_without_a_lid_accepts_four_dice() -> None:
    reading = {f"slot {k}": True for k in (1, 2, 3, 4)}
    result = sensor_sanity([reading] * 3, has_lid=False)
    assert result.ok is True
    reading_lid_open = {**reading, "lid": False}
    assert sensor_sanity([reading_lid_open], has_lid=True).ok is False


def test_a_bad_pin_map_is_a_hard_failure(tmp_path: Path, no_pi: Path) -> None:
    config = make_config(tmp_path)
    config.box.pins = tmp_path / "pins.toml"
    config.box.pins.write_text("[pi]\ncoils = [17, 27, 22]\nsensors = [5, 6, 13, 19]\n")
    results = by_name(start_checks(config))
    pin_map = results["pin map"]
    assert (pin_map.ok, pin_map.hard) == (False, True)
    assert "needs exactly 4 pins" in pin_map.message
    assert "pins free" not in results


# -- data dir, port ----------------------------------------------------------------------------


def test_a_check_that_breaks_is_reported_not_raised(
    tmp_path: Path, no_pi: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> list[CheckResult]:
        raise RuntimeError("lgpio exploded")

    monkeypatch.setattr(checks, "_gpio_checks", broken)
    results = start_checks(make_config(tmp_path))
    assert [(r.name, r.ok) for r in results] == [
        ("data dir", True),
        ("pin map", True),
        ("gpio", False),
    ]
    assert results[-1].message == "the check itself failed: RuntimeError: lgpio exploded"
    assert results[-1].hard is True


def test_a_data_dir_that_cannot_be_made_fails(tmp_path: Path, no_pi: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    config = make_config(tmp_path, backend="simulated")
    config.data_dir = blocker / "data"
    [data] = [r for r in start_checks(config) if r.name == "data dir"]
    assert (data.ok, data.hard) == (False, True)
    assert data.message == f"{blocker / 'data'}: {blocker} is not a folder"
    assert f"sudo chown -R {getpass.getuser()}: {blocker / 'data'}" in data.fix


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_a_port_in_use_fails(tmp_path: Path, no_pi: Path, listening: int) -> None:
    config = make_config(tmp_path, backend="simulated")
    config.server.host, config.server.port = "127.0.0.1", listening
    [port] = [r for r in start_checks(config) if r.name == "port"]
    assert (port.ok, port.hard) == (False, True)
    assert port.message == f"port {listening} on 127.0.0.1 is in use"
    assert "systemctl status diablotin" in port.fix


def test_a_free_port_passes_and_stays_free(tmp_path: Path, no_pi: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    config = make_config(tmp_path, backend="simulated")
    config.server.host, config.server.port = "127.0.0.1", free
    [port] = [r for r in start_checks(config) if r.name == "port"]
    assert (port.ok, port.message) == (True, f"127.0.0.1:{free} is free")
    with socket.socket() as again:
        again.bind(("127.0.0.1", free))


def test_an_unknown_host_fails(tmp_path: Path, no_pi: Path) -> None:
    config = make_config(tmp_path, backend="simulated")
    config.server.host, config.server.port = "no-such-host.invalid", 8000
    [port] = [r for r in start_checks(config) if r.name == "port"]
    assert port.ok is False
    assert port.message.startswith("server.host 'no-such-host.invalid' is not an address")


# -- serial ------------------------------------------------------------------------------------


def test_serial_port_missing_is_a_warning(tmp_path: Path) -> None:
    config = make_config(tmp_path, backend="serial")
    config.box.serial_port = str(tmp_path / "ttyACM9")
    results = by_name(start_checks(config))
    port = results["Pico port"]
    assert (port.ok, port.hard) == (False, False)
    assert port.message == f"{tmp_path / 'ttyACM9'} does not exist"
    assert "Pico firmware" not in results
    assert preflight(config, out=io.StringIO()) is True


def test_serve_logs_start_check_problems_at_their_level(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without ``out`` (``serve``) a warning is logged as a warning, a failure as an error:
    ``journalctl -p warning`` finds them."""
    config = make_config(tmp_path, backend="serial")
    config.box.serial_port = str(tmp_path / "ttyACM9")
    with caplog.at_level(logging.INFO, logger="controller.checks"):
        assert preflight(config) is True
    levels = [(r.levelname, r.getMessage().split(":")[0]) for r in caplog.records]
    assert levels == [("WARNING", "start check Pico port"), ("INFO", "start checks")]
    caplog.clear()
    config.box.pins = tmp_path / "missing.toml"
    with caplog.at_level(logging.INFO, logger="controller.checks"):
        assert preflight(config) is False
    assert [r.levelname for r in caplog.records] == ["ERROR", "WARNING", "ERROR"]
    assert caplog.records[-1].getMessage().startswith("refusing to start: ")


@pytest.fixture
def virtual_pico() -> Iterator[tuple[VirtualCoprocessor, str]]:
    """A virtual Pico (the firmware's own code behind a pty); yields it and its port."""
    clock = RealClock()
    pico = VirtualCoprocessor(load_pin_map(None, "pico"), Limits(), clock, seed=3)
    assert pico.port is not None
    try:
        yield pico, pico.port
    finally:
        pico.close()
        clock.close()


def test_serial_pico_that_matches_passes(
    tmp_path: Path, virtual_pico: tuple[VirtualCoprocessor, str]
) -> None:
    _pico, port = virtual_pico
    config = make_config(tmp_path, backend="serial")
    config.box.serial_port = port
    results = start_checks(config)
    assert [(r.name, r.ok) for r in results] == [
        ("data dir", True),
        ("pin map", True),
        ("Pico port", True),
        ("Pico firmware", True),
        ("sensors", True),
    ]
    assert results[3].message.startswith(f"{port}: firmware ")


def test_serial_firmware_version_mismatch_says_to_flash(tmp_path: Path) -> None:
    clock = RealClock()
    pico = VirtualCoprocessor(load_pin_map(None, "pico"), Limits(), clock, version="0.0.1")
    try:
        assert pico.port is not None
        config = make_config(tmp_path, backend="serial")
        config.box.serial_port = pico.port
        results = by_name(start_checks(config))
    finally:
        pico.close()
        clock.close()
    firmware = results["Pico firmware"]
    assert (firmware.ok, firmware.hard) == (False, False)
    assert firmware.message.startswith("handshake mismatch: the Pico runs firmware '0.0.1'")
    assert "diablotin firmware flash" in firmware.message
    assert "`diablotin firmware flash`" in firmware.fix


# -- the command -------------------------------------------------------------------------------


def test_module_main_reads_the_config_and_exits_by_result(
    tmp_path: Path, no_pi: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.toml"
    good.write_text(
        f'[box]\nbackend = "simulated"\n[data]\ndir = "{tmp_path}"\n[server]\nport = 0\n'
    )
    assert checks.main(["--config", str(good)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "4 checks: 4 ok, 0 warnings, 0 failed"
    bad = tmp_path / "bad.toml"
    bad.write_text('[box]\nbackend = "laser"\n')
    assert checks.main(["--config", str(bad)]) == 2
    assert "box.backend: 'laser' is not one of" in capsys.readouterr().err


# -- the journal (doctor only: the full integrity_check) ----------------------------------------


def test_doctor_checks_the_journals_integrity(tmp_path: Path, no_pi: Path) -> None:
    from controller.journal import Journal

    config = make_config(tmp_path, backend="simulated")
    path = config.data_dir / "diablotin.sqlite3"
    journal = Journal(path)
    gid = journal.create_game("tails", {"players": 2})
    for n in range(300):
        journal.append(gid, {"type": "pass", "n": n, "pad": "x" * 50})
    journal.close()
    out = io.StringIO()
    assert doctor(config, out=out) == 0
    assert f"  ok    journal   {path}: integrity ok, 1 game(s), " in out.getvalue()
    with path.open("r+b") as file:  # a page in the middle: quick reads may not notice
        file.seek(4096 * 5)
        file.write(b"\xa5" * 4096)
    out = io.StringIO()
    assert doctor(config, out=out) == 1
    text = out.getvalue()
    assert f"  FAIL  journal   {path} is damaged: " in text
    assert (
        "fix: restore a copy of the file; or save what can be read with `diablotin export " in text
    )
    assert "`diablotin serve --new-journal`" in text
    path.write_bytes(b"")  # truncated to 0 bytes: the marker says a journal existed
    out = io.StringIO()
    assert doctor(config, out=out) == 1
    assert (
        f"  FAIL  journal   {path} is empty, but diablotin.sqlite3.marker says one existed"
        in out.getvalue()
    )
