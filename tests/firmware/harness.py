"""The host's link and the firmware's code joined in-process, on a simulated 1 ms clock.

No threads and no sleeping: every millisecond the bytes in flight are delivered (through
optional fault filters), the firmware polls once and the host link ticks once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.box.base import BoxEvent, Limits
from controller.box.pins import PinMap
from controller.box.protocol import HostLink, core, expected_settings

from .conftest import fw_test_module

PINS = PinMap(coils=(10, 11, 12, 13), sensors=(2, 3, 4, 5), sensor_present="low", led=25)
Filter = Callable[[bytes], bytes]


class Joined:
    """A HostLink and a Firmware on a FakeHal, connected by two byte pipes."""

    def __init__(self, settings: dict[str, Any] | None = None, **firmware: Any) -> None:
        fakes = fw_test_module("fwtest_fakes")
        self.expected = expected_settings(PINS, Limits())
        self.hal = fakes.FakeHal()
        self.ticks = 10_000
        self.t = 50.0
        self.boot_id = 1
        self._firmware_options = firmware
        self.settings = self.expected if settings is None else settings
        self.fw = self._boot()
        self.link = HostLink(self.expected, lambda age: self.t - age)
        self.events: list[BoxEvent] = []
        self.drops: list[str] = []
        self.to_pico: Filter | None = None
        self.to_host: Filter | None = None
        self.wire_up = True  # False: nothing passes and the host sees no connection
        self.link.connected(self.t)

    def _boot(self) -> Any:
        self.boot_id += 1
        return core.Firmware(
            self.hal, self.settings, self.ticks, self.boot_id, **self._firmware_options
        )

    def reset_pico(self) -> None:
        """The Pico restarts (state lost, new boot id) behind the same connection."""
        self.fw = self._boot()

    def step(self) -> None:
        self.t += 0.001
        self.ticks = core.ticks_add(self.ticks, 1)
        out = self.link.take_output()
        if self.wire_up:
            if self.to_pico is not None:
                out = self.to_pico(out)
            self.hal.inbox += out
        self.fw.poll(self.ticks)
        back, self.hal.sent = self.hal.sent, b""
        if self.wire_up and self.link.phase != "down":
            if self.to_host is not None:
                back = self.to_host(back)
            if back:
                self.link.receive(back, self.t)
            reason = self.link.tick(self.t)
            if reason:
                self.drops.append(reason)
                self.link.disconnected(self.t, reason)
        self.events.extend(self.link.take_events())

    def run(self, ms: int) -> None:
        for _ in range(ms):
            self.step()

    def run_until(self, done: Callable[[], bool], max_ms: int = 5000) -> int:
        """Step until ``done()``; returns the ms it took (AssertionError after max_ms)."""
        for ms in range(max_ms):
            if done():
                return ms
            self.step()
        raise AssertionError(f"not done after {max_ms} ms")

    def cut(self, reason: str) -> None:
        """The connection is gone (the host closed it): nothing passes until reconnect."""
        self.wire_up = False
        self.link.disconnected(self.t, reason)
        self.events.extend(self.link.take_events())

    def reconnect(self) -> None:
        self.wire_up = True
        self.link.connected(self.t)

    def up(self) -> int:
        return self.run_until(lambda: self.link.up)

    def request(self, kind: str, max_ms: int = 3000, **fields: Any) -> Any:
        pending = self.link.submit(kind, self.t, **fields)
        self.run_until(lambda: pending.done, max_ms)
        return pending

    def set_present(self, key: int, present: bool) -> None:
        self.hal.levels[key] = 0 if present else 1

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
