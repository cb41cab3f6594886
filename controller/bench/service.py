"""``diablotin bench service``: the Diable sauteur through the whole service on mock pins.

- pop request -> coil pin high: ``Service.press`` called (rules checked, box faults
  checked, handed to the service thread, coil guard, coil thread) until the mock
  coil pin is high;
- sensor edge -> game state updated: a key pressed by hand on the simulated toy
  (the slot's sensor pin changes) until the pop is journaled (committed to disk) and
  the new state is in place. The 20 ms debounce is deliberate; the target is for the
  time beyond it. Publishing to the phones is measured by ``bench web`` and ``bench all``;
- ``sim`` games per second (rule A, computer against random, through the engine, as
  ``diablotin sim`` runs it: one process per core).

Hiding is shortened (0.05 s steady instead of 0.5 s) so the run takes seconds.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from controller.boxplay import box_game_state, box_play
from controller.config import Config
from controller.games import registry
from controller.service import Service
from controller.sim import simulate_parallel
from controller.table import Table

TARGET_MS = 5.0
TARGET_GAMES_PER_S = 2000


def _quantiles(samples_ms: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(sorted(samples_ms), n=100, method="inclusive")
    return cuts[49], cuts[98], max(samples_ms)


def _wait(condition: Callable[..., bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the simulated game did not move on")
        time.sleep(0.001)


def run(samples: int) -> tuple[list[float], list[float], float]:
    config = Config()
    config.data_dir = Path(tempfile.mkdtemp(prefix="diablotin-bench-"))
    config.box.seed = 1
    service = Service(config, think_s=0.001, face_delay_s=0.001, hide_delay_s=0.001, steady_s=0.05)
    service.start()
    press_ms: list[float] = []
    edge_ms: list[float] = []
    try:
        kind = registry.on_box()  # the game the box's toy plays
        game_id = service.new_game(kind.name, dict(kind.long_game or {}))
        table = service.table(game_id)
        changed = threading.Event()
        changed_at = [0.0]

        def on_change(_table: Table) -> None:
            changed_at[0] = time.monotonic()
            changed.set()

        table.listeners.append(on_change)
        by_hand = False
        box = service.box
        assert box is not None
        while len(press_ms) < samples or len(edge_ms) < samples:
            _wait(lambda: box_game_state(table).phase in ("pop", "advance"))
            if box_game_state(table).phase == "advance":
                figure = next(
                    n
                    for n, s in zip(
                        box_game_state(table).config.figure_names,
                        box_game_state(table).status,
                        strict=True,
                    )
                    if s == "in-play"
                )
                service.submit(
                    game_id,
                    {"type": "advance", "figure": figure, "by": box_game_state(table).popper},
                )
                continue
            if box_game_state(table).numbers >= 3:
                service.submit(game_id, {"type": "rehide", "by": box_game_state(table).popper})
                continue
            free = [k for k in (1, 2, 3, 4) if k not in box_game_state(table).popped]
            key = min(free, key=lambda k: box.cooldown_s(k))
            time.sleep(box.cooldown_s(key))
            before = table.version
            by_hand = not by_hand if len(edge_ms) < samples else False
            if by_hand:
                changed.clear()
                t0 = time.monotonic()
                assert service.toy is not None  # the bench runs on the simulated toy
                service.toy.press_by_hand(key)
                _wait(lambda v=before: table.version > v)
                edge_ms.append((changed_at[0] - t0) * 1000 - config.box.limits.debounce_ms)
            elif len(press_ms) < samples:
                assert service.toy is not None
                pin = service.toy.coil_pin(key)
                t0 = time.monotonic()
                box_play(service).press(game_id, key)
                press_ms.append((pin._last_change - t0) * 1000)
            _wait(lambda v=before: table.version >= v + 2 and box_game_state(table).phase != "face")
    finally:
        service.stop()
    report = simulate_parallel("A", 4000, 1, {"p1": "computer", "p2": "random"})
    return press_ms, edge_ms, report.games_per_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin bench service")
    parser.add_argument("--samples", type=int, default=200, help="presses timed")
    args = parser.parse_args(argv)
    press_ms, edge_ms, games_per_s = run(args.samples)
    ok = True
    title = registry.on_box().title.english()
    print(f"{title} through the service, simulated box on gpiozero MockFactory pins")
    print(f"{'measure':52s} {'n':>5s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s}  target")
    for name, samples in (
        ("pop request -> coil pin high", press_ms),
        ("sensor edge -> game state updated (past 20 ms debounce)", edge_ms),
    ):
        p50, p99, top = _quantiles(samples)
        verdict = "ok" if p99 < TARGET_MS else "SLOW"
        ok &= p99 < TARGET_MS
        row = f"{name:52s} {len(samples):5d} {p50:8.3f} {p99:8.3f} {top:8.3f}"
        print(f"{row}  p99 < {TARGET_MS:g} {verdict}")
    verdict = "ok" if games_per_s > TARGET_GAMES_PER_S else "SLOW"
    ok &= games_per_s > TARGET_GAMES_PER_S
    name = f"sim: rule A games/s (computer vs random, {os.cpu_count()} processes)"
    print(f"{name:52s} {games_per_s:23.0f}  > {TARGET_GAMES_PER_S} {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
