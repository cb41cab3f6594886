"""``diablotin bench box``: latency of the gpio backend on gpiozero's MockFactory pins.

Measures (wall clock, ``time.perf_counter_ns``):
- ``fire()`` call -> coil pin high, and ``fire()`` call -> return (the guard's
  spacing is waited out on a ManualClock, so the run is fast; pulses are 1 ms);
- the length of real 30 ms pulses (the coil thread's timing);
- sensor edge -> ``SlotChanged`` delivered to a listener, on the real clock with
  the default 20 ms debounce; the target applies to the time beyond the debounce
  window (the debounce itself is deliberate).

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import threading
import time
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from controller.box.base import BoxEvent, Limits, SlotChanged
from controller.box.gpio import GpioBox
from controller.box.pins import PinMap
from controller.clock import ManualClock, RealClock

TARGET_FIRE_P99_MS = 5.0
TARGET_SENSOR_P99_MS = 5.0
TARGET_PULSE_ERROR_MS = 5.0

PINS = PinMap(coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19))


class _TimedPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints: an untyped base class
    """A mock coil pin that notes when it went high (``perf_counter_ns``)."""

    def __init__(self, factory: MockFactory, info: Any) -> None:
        super().__init__(factory, info)
        self.rose_ns = 0

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value:
            self.rose_ns = time.perf_counter_ns()
        return changed


def _quantiles_ms(samples_ns: list[int]) -> tuple[float, float, float]:
    ms = sorted(s / 1e6 for s in samples_ns)
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return cuts[49], cuts[98], ms[-1]


def bench_fire(n: int) -> tuple[list[int], list[int]]:
    """``n`` fires round the four coils: (call -> pin high, call -> return) in ns."""
    factory = MockFactory()
    pins = [factory.pin(p, pin_class=_TimedPin) for p in PINS.coils]
    clock = ManualClock()
    to_high: list[int] = []
    to_return: list[int] = []
    with GpioBox(PINS, Limits(pulse_ms=1), clock, factory=factory) as box:
        for i in range(n):
            key = i % 4 + 1
            start = time.perf_counter_ns()
            box.fire(key)
            returned = time.perf_counter_ns()
            to_high.append(pins[key - 1].rose_ns - start)
            to_return.append(returned - start)
            if not box.wait_idle(1.0):
                raise RuntimeError("a pulse did not end within 1 s")
            clock.advance(0.3)
    return to_high, to_return


def bench_pulse(n: int, pulse_ms: float = 30.0) -> list[int]:
    """Lengths (ns) of ``n`` real pulses of ``pulse_ms``."""
    factory = MockFactory()
    pin = factory.pin(PINS.coils[0])
    clock = ManualClock()
    with GpioBox(PINS, Limits(pulse_ms=pulse_ms), clock, factory=factory) as box:
        for _ in range(n):
            box.fire(1)
            box.wait_idle(1.0)
            clock.advance(1.0)
    return [int(s.timestamp * 1e9) for prev, s in itertools.pairwise(pin.states) if prev.state]


def bench_sensor(n: int, debounce_ms: float) -> list[int]:
    """``n`` sensor edges on the real clock: edge -> ``SlotChanged`` delivered (ns)."""
    factory = MockFactory()
    clock = RealClock()
    delivered = threading.Event()
    got_ns = [0]

    def listener(event: BoxEvent) -> None:
        if isinstance(event, SlotChanged):
            got_ns[0] = time.perf_counter_ns()
            delivered.set()

    samples: list[int] = []
    try:
        with GpioBox(PINS, Limits(debounce_ms=debounce_ms), clock, factory=factory) as box:
            box.subscribe(listener)
            sensor = factory.pin(PINS.sensors[0])
            for i in range(n):
                delivered.clear()
                edge_ns = time.perf_counter_ns()
                if i % 2 == 0:
                    sensor.drive_low()  # a die arrives (present = low)
                else:
                    sensor.drive_high()
                if not delivered.wait(1.0):
                    raise RuntimeError("a sensor edge was not reported within 1 s")
                samples.append(got_ns[0] - edge_ns)
    finally:
        clock.close()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench box", description=__doc__)
    parser.add_argument("--fires", type=int, default=500, help="fires to time (default 500)")
    parser.add_argument("--pulses", type=int, default=20, help="30 ms pulses to time (20)")
    parser.add_argument("--edges", type=int, default=300, help="sensor edges to time (300)")
    parser.add_argument("--debounce-ms", type=float, default=20.0, help="debounce (20 ms)")
    args = parser.parse_args(argv)
    if min(args.fires, args.pulses, args.edges) < 2:
        parser.error("--fires, --pulses and --edges need at least 2 samples")

    to_high, to_return = bench_fire(args.fires)
    pulses = bench_pulse(args.pulses)
    edges = bench_sensor(args.edges, args.debounce_ms)
    debounce_ns = int(args.debounce_ms * 1e6)
    beyond = [max(0, s - debounce_ns) for s in edges]
    pulse_error = [abs(p - 30_000_000) for p in pulses]

    rows = [
        ("fire() call -> coil pin high", to_high, f"p99 < {TARGET_FIRE_P99_MS:g} ms"),
        ("fire() call -> fire() returns", to_return, "-"),
        ("30 ms pulse: |length - 30 ms|", pulse_error, f"p99 < {TARGET_PULSE_ERROR_MS:g} ms"),
        (f"sensor edge -> SlotChanged (incl. {args.debounce_ms:g} ms)", edges, "-"),
        ("  of which beyond the debounce", beyond, f"p99 < {TARGET_SENSOR_P99_MS:g} ms"),
    ]
    print("diablotin bench box: gpio backend on gpiozero MockFactory pins")
    print(f"{'measure':<42} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  target")
    results = {}
    for name, samples, target in rows:
        p50, p99, top = _quantiles_ms(samples)
        results[name] = p99
        print(f"{name:<42} {len(samples):>5} {p50:>8.3f} {p99:>8.3f} {top:>8.3f}  {target}")
    missed = [
        name
        for name, limit in (
            ("fire() call -> coil pin high", TARGET_FIRE_P99_MS),
            ("30 ms pulse: |length - 30 ms|", TARGET_PULSE_ERROR_MS),
            ("  of which beyond the debounce", TARGET_SENSOR_P99_MS),
        )
        if results[name] >= limit
    ]
    print("all targets met" if not missed else f"MISSED: {', '.join(n.strip() for n in missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
