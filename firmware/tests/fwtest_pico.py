"""The layer over ``machine`` (pico.py), against the stand-in machine module."""

import machine
from diablotin_fw import VERSION, pico, wire
from fwtest_fakes import settings

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass


class Stream:
    def __init__(self, data: bytes = b"") -> None:
        self.data = data
        self.written = b""

    def ready(self) -> bool:
        return len(self.data) > 0

    def read(self, n: int) -> bytes:
        chunk = self.data[:n]
        self.data = self.data[n:]
        return chunk

    def write(self, data: bytes) -> None:
        self.written += data


def _hal(conf: Any, stream: Stream) -> Any:
    machine.forget()
    return pico.PicoHal(conf, ready=stream.ready, inp=stream, out=stream, kbd_intr=lambda c: None)


def test_pins_are_made_from_the_settings_with_coils_off() -> None:
    stream = Stream()
    _hal(settings(lid=6), stream)
    made = machine.Pin.made
    for gp in (10, 11, 12, 13):
        assert made[gp].mode == machine.Pin.OUT
        assert made[gp].value() == 0
    for gp in (2, 3, 4, 5, 6):
        assert made[gp].mode == machine.Pin.IN
        assert made[gp].pull == machine.Pin.PULL_UP
    assert made[25].mode == machine.Pin.OUT


def test_sensor_pull_follows_polarity() -> None:
    _hal(settings(present="high"), Stream())
    assert machine.Pin.made[2].pull == machine.Pin.PULL_DOWN


def test_coil_and_sensor_mapping() -> None:
    hal = _hal(settings(), Stream())
    hal.set_coil(3, True)
    assert [machine.Pin.made[gp].value() for gp in (10, 11, 12, 13)] == [0, 0, 1, 0]
    hal.all_off()
    assert [machine.Pin.made[gp].value() for gp in (10, 11, 12, 13)] == [0, 0, 0, 0]
    machine.Pin.made[5].value(0)
    assert hal.read_sensor(4) == 0
    assert hal.read_sensor(1) == 1
    assert hal.read_lid() is None


def test_no_settings_touches_no_pin() -> None:
    hal = _hal(None, Stream())
    assert machine.Pin.made == {}
    hal.all_off()
    hal.set_led(True)


def test_serial_read_and_write() -> None:
    stream = Stream(b"x" * 300)
    hal = _hal(settings(), stream)
    assert hal.read() == b"x" * pico.READ_CHUNK
    assert hal.read() == b"x" * (300 - pico.READ_CHUNK)
    assert hal.read() == b""
    hal.write(b"abc\n")
    assert stream.written == b"abc\n"


def test_watchdog_starts_once_with_500_ms() -> None:
    hal = _hal(settings(), Stream())
    hal.feed()
    assert machine.WDT.made == []
    hal.start_watchdog()
    hal.start_watchdog()
    hal.feed()
    assert len(machine.WDT.made) == 1
    assert machine.WDT.made[0].timeout == 500
    assert machine.WDT.made[0].feeds == 1


def test_ctrl_c_is_data_during_a_session_only() -> None:
    calls: list[int] = []
    machine.forget()
    hal = pico.PicoHal(
        settings(), ready=Stream().ready, inp=Stream(), out=Stream(), kbd_intr=calls.append
    )
    hal.set_session(True)
    hal.set_session(False)
    assert calls == [-1, 3]


def test_make_firmware_handshakes_over_the_stream() -> None:
    stream = Stream(wire.encode({"t": "hello", "s": 1, "proto": wire.PROTOCOL}))
    machine.forget()
    machine.set_reset_cause(machine.WDT_RESET)
    firmware = pico.make_firmware(
        settings(), 1, ready=stream.ready, inp=stream, out=stream, kbd_intr=lambda c: None
    )
    firmware.poll(1)
    lines = wire.Deframer().feed(stream.written)
    reply = wire.decode(lines[0], wire.TO_HOST)
    assert reply["ok"] is True
    assert reply["fw"] == VERSION
    assert "watchdog-reset" in reply["state"]["faults"]
    assert machine.WDT.made[0].feeds == 1


def test_settings_file() -> None:
    path = "/tmp/diablotin-fw-test.json"
    import json

    with open(path, "w") as f:
        json.dump(settings(), f)
    assert pico.load_settings(path) == settings()
    with open(path, "w") as f:
        f.write("{not json")
    assert pico.load_settings(path) is None
    assert pico.load_settings(path + ".missing") is None


def test_boot_ids_differ() -> None:
    assert pico.boot_id() != pico.boot_id()
