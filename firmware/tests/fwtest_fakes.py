"""Test helpers shared by the firmware tests (MicroPython and CPython)."""

from diablotin_fw import core, wire

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass


def settings(**changes: Any) -> dict[str, Any]:
    """Valid settings like the flashing step writes, with ``changes`` applied."""
    made: dict[str, Any] = {
        "coils": [10, 11, 12, 13],
        "sensors": [2, 3, 4, 5],
        "present": "low",
        "lid": None,
        "led": 25,
        "limits": {
            "max_ms": 100,
            "gap_ms": 250,
            "window_s": 10,
            "duty": 0.1,
            "debounce_ms": 20,
            "silence_ms": 1000,
        },
    }
    for name in changes:
        made[name] = changes[name]
    return made


class FakeHal:
    """Records coil and LED writes; sensor levels and received bytes are set by the test."""

    def __init__(self) -> None:
        self.coils = {1: False, 2: False, 3: False, 4: False}
        self.pulses_started: list[int] = []  # keys, in order
        self.levels = {1: 1, 2: 1, 3: 1, 4: 1}  # raw pin levels: 1 = empty ("low" present)
        self.lid_level = 1
        self.led: bool | None = None
        self.inbox = b""
        self.sent = b""
        self.watchdog = False
        self.feeds = 0
        self.all_off_calls = 0
        self.sessions: list[bool] = []

    def set_coil(self, key: int, on: bool) -> None:
        if on and not self.coils[key]:
            self.pulses_started.append(key)
        self.coils[key] = on

    def all_off(self) -> None:
        self.all_off_calls += 1
        for key in self.coils:
            self.coils[key] = False

    def read_sensor(self, key: int) -> int:
        return self.levels[key]

    def read_lid(self) -> int:
        return self.lid_level

    def set_led(self, on: bool) -> None:
        self.led = on

    def read(self) -> bytes:
        data = self.inbox
        self.inbox = b""
        return data

    def write(self, data: bytes) -> None:
        self.sent += data

    def start_watchdog(self) -> None:
        self.watchdog = True

    def feed(self) -> None:
        self.feeds += 1

    def set_session(self, on: bool) -> None:
        self.sessions.append(on)

    def energised(self) -> list[int]:
        return [k for k in self.coils if self.coils[k]]


class Bench:
    """A Firmware on a FakeHal with a hand-moved ms clock, and a host stand-in."""

    def __init__(self, conf: Any = None, start: int = 5000, **options: Any) -> None:
        self.hal = FakeHal()
        self.now = start
        if conf is None:
            conf = settings()
        self.fw = core.Firmware(self.hal, conf, start, 4242, **options)
        self.seq = 0

    def poll(self) -> None:
        self.fw.poll(self.now)

    def advance(self, ms: int, beat_every: int | None = None) -> None:
        """Move time ``ms`` forward in 1 ms loop turns (heartbeats if ``beat_every``)."""
        for step in range(ms):
            self.now = core.ticks_add(self.now, 1)
            if beat_every and step % beat_every == 0:
                self.hal.inbox += wire.encode({"t": "hb"})
            self.fw.poll(self.now)

    def push(self, data: bytes) -> list[dict[str, Any]]:
        """Deliver raw bytes and run one loop turn; returns the decoded frames sent back."""
        self.hal.inbox += data
        self.poll()
        return self.take()

    def send(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        return self.push(wire.encode(msg))

    def take(self) -> list[dict[str, Any]]:
        frames = []
        for line in wire.Deframer().feed(self.hal.sent):
            frames.append(wire.decode(line, wire.TO_HOST))
        self.hal.sent = b""
        return frames

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a new request; returns its reply (and asserts exactly one came)."""
        self.seq = (self.seq + 1) % wire.SEQ_MOD
        fields["t"] = kind
        fields["s"] = self.seq
        replies = [m for m in self.send(fields) if m["t"] == "r" and m["s"] == self.seq]
        assert len(replies) == 1, replies
        return replies[0]

    def hello(self) -> dict[str, Any]:
        reply = self.request("hello", proto=wire.PROTOCOL)
        assert reply["ok"] is True, reply
        return reply

    def fire(self, key: int, ms: float = 30) -> dict[str, Any]:
        return self.request("fire", k=key, ms=ms)


def raises(exc_type: Any, fn: Any, *args: Any) -> Any:
    """The exception ``fn(*args)`` raised; fails unless it is an ``exc_type``."""
    try:
        fn(*args)
    except exc_type as exc:
        return exc
    raise AssertionError("did not raise " + exc_type.__name__)
