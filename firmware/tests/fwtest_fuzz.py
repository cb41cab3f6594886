"""10,000 random and corrupted frames into the firmware: no crash, no action, no answer."""

import random

from diablotin_fw import wire
from fwtest_fakes import Bench

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass

FRAMES = 10000
SEED = 20240611

_VALID = [
    {"t": "fire", "s": 200, "k": 1, "ms": 30},
    {"t": "fire", "s": 201, "k": 4, "ms": 100},
    {"t": "off", "s": 202},
    {"t": "clear", "s": 203},
    {"t": "hello", "s": 204, "proto": 1},
    {"t": "ack", "s": 0},
]
_BAD_VALUES: list[Any] = [None, "1", True, [], {}, 1.5]  # 1.5 is only bad where an int is due


def _rand_bytes(rng: Any, n: int) -> bytes:
    return bytes([rng.getrandbits(8) for _ in range(n)])


def _mutate(rng: Any, line: bytes) -> bytes:
    """``line`` changed by bit flips, a replaced/deleted/inserted byte, or a cut."""
    data = bytearray(line)
    how = rng.randint(0, 4)
    if how == 0:
        for _ in range(rng.randint(1, 3)):
            i = rng.randint(0, len(data) - 1)
            data[i] ^= 1 << rng.randint(0, 7)
    elif how == 1:
        data[rng.randint(0, len(data) - 1)] = rng.getrandbits(8)
    elif how == 2:
        i = rng.randint(0, len(data) - 1)
        data = data[:i] + data[i + 1 :]
    elif how == 3:
        i = rng.randint(0, len(data))
        data = data[:i] + bytes([rng.getrandbits(8)]) + data[i:]
    else:
        data = data[: rng.randint(0, len(data) - 1)]
    return bytes(data)


def _wrong_typed(rng: Any) -> bytes:
    msg = dict(_VALID[rng.randint(0, len(_VALID) - 1)])
    fields = [name for name in msg if name != "t"]
    field = fields[rng.randint(0, len(fields) - 1)]
    choices = len(_BAD_VALUES) - (1 if field == "ms" else 0)
    msg[field] = _BAD_VALUES[rng.randint(0, choices - 1)]
    body = wire.encode(msg)[:-1].rsplit(b" ", 1)[0]
    return body + b" " + f"{wire.crc32(body):08x}".encode()


def corrupt_frames(count: int = FRAMES, seed: int = SEED) -> list[bytes]:
    """``count`` lines (no newline) none of which is a valid frame to the firmware."""
    rng: Any = random.Random(seed) if hasattr(random, "Random") else None
    if rng is None:  # MicroPython: one global generator
        random.seed(seed)
        rng = random
    frames: list[bytes] = []
    while len(frames) < count:
        kind = rng.randint(0, 2)
        if kind == 0:
            line = _rand_bytes(rng, rng.randint(1, 90))
        elif kind == 1:
            good = wire.encode(_VALID[rng.randint(0, len(_VALID) - 1)])[:-1]
            line = _mutate(rng, good)
            if line == good:
                continue
        else:
            line = _wrong_typed(rng)
        frames.append(line.replace(b"\n", b"#"))
    return frames


def test_corrupt_frames_are_never_acted_on() -> None:
    bench = Bench()
    bench.hello()
    bench.take()
    faults = dict(bench.fw.faults)
    req_seq = bench.fw._req_seq
    frames = corrupt_frames()
    for i, line in enumerate(frames):
        bench.hal.inbox += line + b"\n"
        if i % 200 == 0:
            bench.hal.inbox += wire.encode({"t": "hb"})
        bench.advance(1)
        sent = bench.take()
        for msg in sent:
            assert msg["t"] in ("nak", "hb"), (line, msg)
        assert bench.hal.pulses_started == [], line
    blank = [line for line in frames if line in (b"", b"\r")]  # skipped, not bad
    assert bench.fw.bad_frames == FRAMES - len(blank)
    assert bench.fw.faults == faults
    assert bench.fw.session is True
    assert bench.fw._req_seq == req_seq
    # The parser is not wedged: a genuine request still works, once.
    assert bench.fire(2)["ok"] is True
    assert bench.hal.pulses_started == [2]


def test_decode_raises_only_bad_frame() -> None:
    for line in corrupt_frames(2000, seed=7):
        for schema in (wire.TO_PICO, wire.TO_HOST):
            try:
                wire.decode(line, schema)
            except wire.BadFrame:
                pass
            else:
                raise AssertionError(f"accepted {line!r}")
