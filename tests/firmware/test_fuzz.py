"""10,000 random and corrupted frames into the host's parser: no crash, no action.

(The firmware's parser gets the same treatment in firmware/tests/fwtest_fuzz.py, run by
test_firmware_code.py under CPython and MicroPython.)
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.box.protocol import wire

from .harness import Joined

FRAMES = 10_000


def _host_bound(link_seq: int, event_seq: int, boot: int) -> list[dict[str, object]]:
    """Valid frames the host would act on right now (a reply to its request in flight,
    a new slot event, a heartbeat from another boot)."""
    return [
        {"t": "r", "s": link_seq, "ok": True, "age": 0},
        {"t": "r", "s": link_seq, "ok": False, "err": "hello", "why": "x", "age": 0},
        {"t": "ev", "s": event_seq, "e": "slot", "k": 1, "p": False, "age": 3},
        {"t": "ev", "s": event_seq, "e": "lid", "c": True, "age": 3},
        {"t": "hb", "boot": boot + 1, "up": 5, "f": ["host-silent"]},
    ]


def corrupt_host_frames(valid: list[bytes], rng: random.Random, count: int) -> list[bytes]:
    """Lines none of which is a valid frame: random bytes, mutated valid frames, and
    well-checksummed JSON of the wrong shape."""
    frames: list[bytes] = []
    while len(frames) < count:
        kind = rng.randrange(3)
        if kind == 0:
            line = rng.randbytes(rng.randint(1, 90))
        elif kind == 1:
            good = rng.choice(valid)
            data = bytearray(good)
            for _ in range(rng.randint(1, 3)):
                how = rng.randrange(4)
                i = rng.randrange(len(data))
                if how == 0:
                    data[i] ^= 1 << rng.randrange(8)
                elif how == 1:
                    data[i] = rng.randrange(256)
                elif how == 2 and len(data) > 1:
                    del data[i]
                else:
                    data.insert(i, rng.randrange(256))
            line = bytes(data)
            if line == good:
                continue
        else:
            body = rng.choice(
                [
                    b'{"t":"r","s":"1","ok":true}',
                    b'{"t":"r","s":1,"ok":1}',
                    b'{"t":"ev","s":1,"e":"slot","k":1,"p":0,"age":1}',
                    b'{"t":"ev","s":1,"e":"boom","age":1}',
                    b'{"t":"hb","boot":"1","up":1,"f":[]}',
                    b'{"t":"fire","s":1,"k":1,"ms":30}',
                    b"[1,2,3]",
                ]
            )
            line = body + b" " + b"%08x" % wire.crc32(body)
        frames.append(line.replace(b"\n", b"#"))
    return frames


def test_corrupt_frames_never_make_the_host_act() -> None:
    j = Joined()
    j.up()
    j.run(50)
    link = j.link
    link.take_output()
    pending = link.submit("off", j.t)  # in flight, never delivered: only a reply ends it
    link.take_output()
    seq = pending.msg["s"]
    assert link.firmware is not None
    valid = [wire.encode(m)[:-1] for m in _host_bound(seq, 77, link.firmware["boot"])]
    slots, lid, faults = dict(link.slots), link.lid, dict(link.pico_faults)
    frames = corrupt_host_frames(valid, random.Random(1234), FRAMES)
    for line in frames:
        link.receive(line + b"\n", j.t)  # time stands still: no retries, no silence
    assert link.stats.bad_frames == FRAMES - sum(1 for f in frames if f in (b"", b"\r"))
    assert link.take_events() == []
    assert not pending.done
    assert link.phase == "up"
    assert (link.slots, link.lid, link.pico_faults) == (slots, lid, faults)
    sent = [wire.decode(line, wire.TO_PICO) for line in wire.Deframer().feed(link.take_output())]
    assert sent == [{"t": "nak"}]  # one resend request: the same instant, rate-limited
    # Not wedged: the genuine reply is still taken.
    link.receive(wire.encode({"t": "r", "s": seq, "ok": True, "age": 0}), j.t)
    assert pending.reply is not None and pending.reply["ok"] is True


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_any_bytes_decode_to_a_frame_or_bad_frame(data: bytes) -> None:
    for line in wire.Deframer().feed(data + b"\n"):
        for schema in (wire.TO_HOST, wire.TO_PICO):
            try:
                msg = wire.decode(line, schema)
            except wire.BadFrame:
                continue
            wire.check(msg, schema)  # whatever got through is well formed
