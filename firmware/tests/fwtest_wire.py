"""Framing and message checks (wire.py)."""

from diablotin_fw import wire
from fwtest_fakes import raises

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass


def test_crc32_is_the_standard_one() -> None:
    assert wire.crc32(b"123456789") == 0xCBF43926


def test_encode_makes_one_ascii_line_with_checksum() -> None:
    line = wire.encode({"t": "off", "s": 3})
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    body, check = line[:-1].rsplit(b" ", 1)
    assert check == f"{wire.crc32(body):08x}".encode()
    assert wire.decode(line[:-1], wire.TO_PICO) == {"t": "off", "s": 3}


def test_round_trip_of_every_host_message() -> None:
    messages: list[dict[str, Any]] = [
        {"t": "hello", "s": 0, "proto": 1},
        {"t": "fire", "s": 255, "k": 4, "ms": 30},
        {"t": "fire", "s": 1, "k": 1, "ms": 12.5},
        {"t": "off", "s": 9},
        {"t": "clear", "s": 9},
        {"t": "hb"},
        {"t": "ack", "s": 17},
        {"t": "nak"},
    ]
    for msg in messages:
        assert wire.decode(wire.encode(msg)[:-1], wire.TO_PICO) == msg


def test_round_trip_of_every_firmware_message() -> None:
    messages: list[dict[str, Any]] = [
        {"t": "r", "s": 1, "ok": True, "age": 0},
        {"t": "r", "s": 2, "ok": False, "err": "limit", "why": "too soon"},
        {"t": "ev", "s": 3, "e": "slot", "k": 2, "p": False, "age": 12},
        {"t": "ev", "s": 4, "e": "lid", "c": True, "age": 0},
        {"t": "ev", "s": 5, "e": "state", "state": {"slots": [True, True, False, True]}},
        {"t": "hb", "boot": 7, "up": 1234, "f": []},
        {"t": "nak"},
    ]
    for msg in messages:
        assert wire.decode(wire.encode(msg)[:-1], wire.TO_HOST) == msg


def test_carriage_return_before_newline_is_accepted() -> None:
    line = wire.encode({"t": "hb"})[:-1] + b"\r"
    assert wire.decode(line, wire.TO_PICO) == {"t": "hb"}


def test_bad_checksum_is_refused() -> None:
    line = wire.encode({"t": "off", "s": 3})[:-1]
    flipped = line[:-1] + (b"0" if line[-1:] != b"0" else b"1")
    assert "mismatch" in str(raises(wire.BadFrame, wire.decode, flipped, wire.TO_PICO))


def test_changed_body_is_refused() -> None:
    line = wire.encode({"t": "fire", "s": 3, "k": 1, "ms": 30})[:-1]
    changed = line.replace(b'"k":1', b'"k":2')
    assert changed != line
    raises(wire.BadFrame, wire.decode, changed, wire.TO_PICO)


def test_checksum_must_be_eight_lowercase_hex_digits() -> None:
    line = wire.encode({"t": "hb"})[:-1]
    body, check = line.rsplit(b" ", 1)
    raises(wire.BadFrame, wire.decode, body + b" " + check.upper(), wire.TO_PICO)
    raises(wire.BadFrame, wire.decode, body + b" 0x" + check[2:], wire.TO_PICO)
    raises(wire.BadFrame, wire.decode, body + b" " + check[1:], wire.TO_PICO)
    raises(wire.BadFrame, wire.decode, body, wire.TO_PICO)


def _framed(body: bytes) -> bytes:
    return body + b" " + f"{wire.crc32(body):08x}".encode()


def test_schema_refuses_wrong_shapes_even_with_a_good_checksum() -> None:
    bad = [
        b"[1,2]",
        b'"hello"',
        b"not json",
        b'{"s":1}',
        b'{"t":"launch","s":1}',
        b'{"t":"fire","s":1,"k":1}',
        b'{"t":"fire","s":1,"k":"1","ms":30}',
        b'{"t":"fire","s":1,"k":true,"ms":30}',
        b'{"t":"fire","s":1,"k":1.0,"ms":30}',
        b'{"t":"fire","s":1,"k":1,"ms":false}',
        b'{"t":"fire","s":1,"k":1,"ms":1e999}',
        b'{"t":"fire","s":1,"k":1,"ms":NaN}',
        b'{"t":"fire","s":256,"k":1,"ms":30}',
        b'{"t":"fire","s":-1,"k":1,"ms":30}',
        b'{"t":"r","s":1}',
        b'{"t":"hello","s":1,"proto":1,"extra":',
    ]
    for body in bad:
        raises(wire.BadFrame, wire.decode, _framed(body), wire.TO_PICO)


def test_firmware_messages_are_not_accepted_by_the_firmware_and_vice_versa() -> None:
    reply = wire.encode({"t": "r", "s": 1, "ok": True})[:-1]
    raises(wire.BadFrame, wire.decode, reply, wire.TO_PICO)
    fire = wire.encode({"t": "fire", "s": 1, "k": 1, "ms": 30})[:-1]
    raises(wire.BadFrame, wire.decode, fire, wire.TO_HOST)


def test_events_are_checked_by_kind() -> None:
    for body in (
        b'{"t":"ev","s":1,"e":"boom"}',
        b'{"t":"ev","s":1,"e":"slot","k":1,"p":1,"age":0}',
        b'{"t":"ev","s":1,"e":"slot","k":1,"p":true}',
        b'{"t":"ev","s":1,"e":"lid","c":true,"age":"0"}',
        b'{"t":"ev","s":1,"e":"state","state":null}',
    ):
        raises(wire.BadFrame, wire.decode, _framed(body), wire.TO_HOST)


def test_too_long_frames_are_refused_on_both_ends() -> None:
    raises(ValueError, wire.encode, {"t": "hb", "pad": "x" * wire.MAX_LINE})
    raises(wire.BadFrame, wire.decode, b"x" * (wire.MAX_LINE + 1), wire.TO_PICO)


def test_non_ascii_is_never_sent() -> None:
    # CPython's json escapes it (\\u00e9); MicroPython's would not, so encode refuses.
    try:
        line = wire.encode({"t": "hb", "why": "caf\u00e9"})
    except ValueError:
        return
    assert [b for b in line[:-1] if b < 0x20 or b > 0x7E] == []


def test_deframer_joins_chunks_and_skips_blank_lines() -> None:
    one = wire.encode({"t": "hb"})
    two = wire.encode({"t": "nak"})
    stream = b"\r\n" + one + two
    deframer = wire.Deframer()
    lines = []
    for i in range(len(stream)):
        lines.extend(deframer.feed(stream[i : i + 1]))
    assert lines == [one[:-1], two[:-1]]


def test_deframer_cuts_overlong_lines_and_recovers() -> None:
    deframer = wire.Deframer()
    good = wire.encode({"t": "hb"})
    lines = deframer.feed(b"y" * 3000)
    assert lines == []
    lines = deframer.feed(b"y" * 3000 + b"\n" + good)
    assert len(lines) == 2
    assert len(lines[0]) == wire.MAX_LINE + 1
    raises(wire.BadFrame, wire.decode, lines[0], wire.TO_PICO)
    assert lines[1] == good[:-1]
