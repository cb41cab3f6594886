"""Frames and messages of the Pico link, shared by the firmware and the host.

Written in the subset of Python that MicroPython and CPython both run: the host loads
this very file (``controller/box/protocol.py``), so framing and checks live in one place.

A frame is one line of printable ASCII::

    {"t":"fire","s":7,"k":2,"ms":30} 5c1d0a3e\\n

a JSON object, one space, the CRC-32 (IEEE, as ``binascii.crc32``) of the JSON bytes as
8 lowercase hex digits, then a newline. Lines never contain byte 0x03, so the
MicroPython REPL's Ctrl-C stays usable for ``mpremote``; boot banners and other noise are
lines that fail the check and are dropped. See ``docs/protocol.md``.
"""

import binascii
import json

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass

PROTOCOL = 1
"""Bumped on any incompatible change of the messages below."""

MAX_LINE = 600
"""Longest frame in bytes, newline excluded; longer lines are dropped as bad frames."""

SEQ_MOD = 256
"""Sequence numbers count modulo this."""

_HEX = b"0123456789abcdef"

INT = "int"
NUM = "number"
BOOL = "bool"
STR = "str"
LIST = "list"
DICT = "dict"
ANY = "any"

TO_PICO = {
    "hello": {"s": INT, "proto": INT},
    "fire": {"s": INT, "k": INT, "ms": NUM},
    "off": {"s": INT},
    "clear": {"s": INT},
    "hb": {},
    "ack": {"s": INT},
    "nak": {},
}
"""Messages the host sends, with the fields each must carry and their types."""

TO_HOST = {
    "r": {"s": INT, "ok": BOOL},
    "ev": {"s": INT, "e": STR},
    "hb": {"boot": INT, "up": INT, "f": LIST},
    "nak": {},
}
"""Messages the firmware sends. ``r`` answers the request with the same ``s``."""

EVENTS = {
    "slot": {"k": INT, "p": BOOL, "age": INT},
    "lid": {"c": BOOL, "age": INT},
    "state": {"state": DICT},
}
"""Kinds of ``ev`` message (field ``e``) and their own fields."""


class BadFrame(ValueError):
    """A line that is not a valid frame; ``str()`` says why. It is never acted on."""


def crc32(data: bytes) -> int:
    """CRC-32 (IEEE 802.3, zlib's) of ``data`` as an unsigned int."""
    return binascii.crc32(data) & 0xFFFFFFFF


def encode(msg: dict[str, Any]) -> bytes:
    """The frame (bytes, newline included) carrying the dict ``msg``.

    Raises ValueError if the result would not be printable ASCII or would be too long:
    that is a bug in the sender, never something to send anyway.
    """
    body = json.dumps(msg, separators=(",", ":")).encode()
    for byte in body:
        if byte < 0x20 or byte > 0x7E:
            raise ValueError("frame is not printable ASCII")
    line = body + b" " + f"{crc32(body):08x}".encode() + b"\n"
    if len(line) - 1 > MAX_LINE:
        raise ValueError("frame too long")
    return line


def _is(kind: str, value: Any) -> bool:
    # type(...) is int: MicroPython's bool is not an int, CPython's is; neither counts here.
    if kind == INT:
        return type(value) is int
    if kind == NUM:  # finite: x - x is nan for inf and nan
        return type(value) is int or (type(value) is float and value - value == 0)
    if kind == BOOL:
        return type(value) is bool
    if kind == STR:
        return type(value) is str
    if kind == LIST:
        return type(value) is list
    if kind == DICT:
        return type(value) is dict
    return True


def _check_fields(msg: dict[str, Any], fields: dict[str, str], what: str) -> None:
    for name in fields:
        if name not in msg:
            raise BadFrame(what + " lacks field " + name)
        if not _is(fields[name], msg[name]):
            raise BadFrame(what + " field " + name + " is not " + fields[name])


def check(msg: Any, schema: dict[str, dict[str, str]]) -> None:
    """Raise BadFrame unless ``msg`` is a message of ``schema`` (TO_PICO or TO_HOST)."""
    if type(msg) is not dict:
        raise BadFrame("not a JSON object")
    kind = msg.get("t")
    if type(kind) is not str or kind not in schema:
        raise BadFrame("unknown message type")
    _check_fields(msg, schema[kind], kind)
    if "s" in msg and not 0 <= msg["s"] < SEQ_MOD:
        raise BadFrame("sequence number out of range")
    if kind == "ev" and schema is TO_HOST:
        event = msg["e"]
        if event not in EVENTS:
            raise BadFrame("unknown event")
        _check_fields(msg, EVENTS[event], event)


def decode(line: bytes, schema: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The message carried by one line (without its newline), checked against ``schema``.

    Raises BadFrame for anything else: too long, no or bad checksum, not JSON, not a
    known message. Never raises anything but BadFrame, whatever the bytes.
    """
    if len(line) > MAX_LINE:
        raise BadFrame("frame too long")
    if line[-1:] == b"\r":
        line = line[:-1]
    cut = line.rfind(b" ")
    if cut < 0 or len(line) - cut - 1 != 8:
        raise BadFrame("no checksum")
    tail = line[cut + 1 :]
    for byte in tail:
        if byte not in _HEX:
            raise BadFrame("checksum is not 8 lowercase hex digits")
    body = line[:cut]
    if crc32(body) != int(tail, 16):
        raise BadFrame("checksum mismatch")
    try:
        msg = json.loads(body)
    except Exception:  # any failure to parse untrusted bytes is a bad frame
        raise BadFrame("not JSON") from None
    check(msg, schema)
    checked: dict[str, Any] = msg
    return checked


class Deframer:
    """Cuts a byte stream into lines; memory stays bounded by MAX_LINE.

    ``feed(data)`` returns the complete lines (without newline, empty lines skipped).
    A line longer than MAX_LINE comes out cut to MAX_LINE + 1 bytes, so ``decode``
    rejects it as too long.
    """

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> list[bytes]:
        data = bytes(data)
        lines: list[bytes] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data[start:])
                return lines
            self._keep(data[start:end])
            line = b"".join(self._parts)
            self._parts = []
            self._size = 0
            if line and line != b"\r":
                lines.append(line)
            start = end + 1

    def _keep(self, chunk: bytes) -> None:
        room = MAX_LINE + 1 - self._size
        if room > 0 and chunk:
            chunk = chunk[:room]
            self._parts.append(chunk)
            self._size += len(chunk)
