"""``diablotin bench serial``: the Pico link over the virtual co-processor, and its parsers.

Measures (wall clock, ``time.perf_counter``):
- ``fire()`` -> the Pico's ack, over the virtual link (a real pty, the firmware's own code
  on a thread polling every 2 ms); keys in turn, each waiting out its 250 ms spacing;
- an ``off`` request -> its ack (no limits, so many samples);
- frames per second through each parser: the host's (deframe + CRC + checks, valid and
  corrupted frames) and the firmware's (``Firmware.receive``: the same plus dispatch), on
  CPython, and the firmware's under MicroPython (WebAssembly, this machine) if Node is here.

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable

from controller.box.base import Limits
from controller.box.pins import PinMap, load_pin_map
from controller.box.protocol import core, expected_settings, firmware_dir, wire
from controller.box.virtual import make_virtual_box
from controller.clock import RealClock
from controller.config import DEFAULT_PINS

PINS = PinMap(coils=(10, 11, 12, 13), sensors=(2, 3, 4, 5), led=25)
TARGET_FIRE_P99_MS = 20.0
TARGET_OFF_P99_MS = 20.0
TARGET_HOST_FPS = 20_000
TARGET_FIRMWARE_FPS = 5_000
"""The link carries a few dozen frames a second; the parsers must never be the bottleneck."""


def _quantiles_ms(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered) * 1000, p99 * 1000, ordered[-1] * 1000


def bench_round_trips(fires: int, offs: int) -> tuple[list[float], list[float]]:
    """Seconds from call to return of ``fire`` (5 ms pulses) and of an ``off`` request."""
    clock = RealClock()
    box, coprocessor = make_virtual_box(PINS, Limits(), clock, seed=1)
    try:
        if not box.wait_until_up(5):
            raise RuntimeError(f"the virtual Pico did not come up: {box.status()['link']}")
        fire_s = []
        for i in range(fires):
            key = 1 + i % 4
            # A margin over the host's spacing: the Pico measures the gap on its own clock,
            # so a late previous command (a retry) would make it refuse.
            time.sleep(box.guard.cooldown_s(key) + 0.02)
            start = time.perf_counter()
            box.fire(key, 5)
            fire_s.append(time.perf_counter() - start)
        off_s = []
        for _ in range(offs):
            start = time.perf_counter()
            box._request("off")
            off_s.append(time.perf_counter() - start)
        return fire_s, off_s
    finally:
        box.close()
        clock.close()
        del coprocessor


def _frames(count: int, corrupt: bool) -> bytes:
    rng = random.Random(3)
    lines = []
    for i in range(count):
        line = wire.encode({"t": "hb", "boot": 7, "up": i, "f": []})
        if corrupt:
            buf = bytearray(line)
            buf[rng.randrange(len(buf) - 1)] ^= 1 << rng.randrange(8)
            line = bytes(buf)
        lines.append(line)
    return b"".join(lines)


def _rate(count: int, work: Callable[[], None]) -> float:
    start = time.perf_counter()
    work()
    return count / (time.perf_counter() - start)


def bench_host_parser(count: int, corrupt: bool) -> float:
    """Frames per second through the host's deframing and checks."""
    stream = _frames(count, corrupt)

    def parse() -> None:
        for line in wire.Deframer().feed(stream):
            with contextlib.suppress(wire.BadFrame):
                wire.decode(line, wire.TO_HOST)

    return _rate(count, parse)


class _QuietHal:
    def __getattr__(self, name: str) -> Callable[..., int]:
        return lambda *args: 1


def bench_firmware_parser(count: int, corrupt: bool) -> float:
    """Frames per second through ``Firmware.receive`` (host heartbeats, in a session)."""
    hal = _QuietHal()
    settings = expected_settings(load_pin_map(DEFAULT_PINS, "pico"), Limits())
    firmware = core.Firmware(hal, settings, 0, 1)
    firmware.receive(wire.encode({"t": "hello", "s": 1, "proto": wire.PROTOCOL}), 0)
    valid = b"".join(wire.encode({"t": "hb"}) for _ in range(count))
    stream = _frames(count, True) if corrupt else valid
    return _rate(count, lambda: firmware.receive(stream, 1))


def bench_firmware_parser_micropython(count: int) -> float | None:
    """The same under MicroPython's WebAssembly port, or None without Node."""
    node = shutil.which("node")
    script = firmware_dir() / "tests" / "bench_wasm.mjs"
    if node is None or not (firmware_dir() / "node_modules").is_dir():
        return None
    done = subprocess.run(
        [node, str(script), str(count)], capture_output=True, text=True, timeout=120
    )
    for line in done.stdout.splitlines():
        if line.startswith("BENCH "):
            return float(json.loads(line[6:])["frames_per_s"])
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench serial", description=__doc__)
    parser.add_argument("--fires", type=int, default=60, help="fires to time (default 60)")
    parser.add_argument("--offs", type=int, default=300, help="off requests to time (300)")
    parser.add_argument("--frames", type=int, default=20000, help="frames per parser run")
    args = parser.parse_args(argv)
    if min(args.fires, args.offs, args.frames) < 2:
        parser.error("--fires, --offs and --frames need at least 2 samples")

    fire_s, off_s = bench_round_trips(args.fires, args.offs)
    print("diablotin bench serial: Pico link over the virtual co-processor (pty)")
    print(f"{'round trip':<44} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    missed = []
    for name, samples, target in (
        ("fire() -> Pico ack (5 ms pulse)", fire_s, TARGET_FIRE_P99_MS),
        ("off request -> Pico ack", off_s, TARGET_OFF_P99_MS),
    ):
        p50, p99, top = _quantiles_ms(samples)
        print(
            f"{name:<44} {len(samples):>6} {p50:>8.3f} {p99:>8.3f} {top:>8.3f}  p99 < {target:g} ms"
        )
        if p99 >= target:
            missed.append(name)

    print(f"{'parser (CPython unless noted)':<44} {'frames':>6} {'frames/s':>17}  target")
    wasm_frames = min(args.frames, 5000)
    rates: list[tuple[str, int, float | None, float]] = [
        ("host: valid frames", args.frames, bench_host_parser(args.frames, False), TARGET_HOST_FPS),
        (
            "host: corrupted frames (dropped)",
            args.frames,
            bench_host_parser(args.frames, True),
            TARGET_HOST_FPS,
        ),
        (
            "firmware: valid frames",
            args.frames,
            bench_firmware_parser(args.frames, False),
            TARGET_FIRMWARE_FPS,
        ),
        (
            "firmware: corrupted frames (dropped)",
            args.frames,
            bench_firmware_parser(args.frames, True),
            TARGET_FIRMWARE_FPS,
        ),
        (
            "firmware under MicroPython (wasm, not a Pico)",
            wasm_frames,
            bench_firmware_parser_micropython(wasm_frames),
            0,
        ),
    ]
    for name, frames, rate, target in rates:
        shown = "n/a (no node)" if rate is None else f"{rate:,.0f}"
        goal = f">= {target:,}" if target else "-"
        print(f"{name:<44} {frames:>6} {shown:>17}  {goal}")
        if rate is not None and rate < target:
            missed.append(name)
    print("all targets met" if not missed else f"MISSED: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
