"""The host's end of the Pico link: the firmware's own wire code, the handshake, the link.

One source for framing: the firmware's ``firmware/diablotin_fw/wire.py`` (MicroPython
subset) is loaded from the repository here, so the host and the Pico frame and check
messages with the very same code (:func:`load_firmware_module`). ``docs/protocol.md``
describes the messages.

:class:`HostLink` is the link's state machine without I/O or threads: feed it received
bytes and the time, send what :meth:`HostLink.take_output` returns, deliver the events
in :attr:`HostLink.events`. :mod:`controller.box.serial` runs it on a serial port.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import math
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import cast

from controller import data
from controller.sentences import Said

from .base import (
    KEYS,
    BoxEvent,
    CoilFired,
    FaultChanged,
    LidChanged,
    Limits,
    LinkChanged,
    SlotChanged,
)
from .pins import PinMap

log = logging.getLogger(__name__)

FIRMWARE_PACKAGE = "diablotin_fw"
FIRMWARE_DIR = data.firmware_sources()
"""The packaged ``firmware/``; ``DIABLOTIN_FIRMWARE_DIR`` overrides it."""


def firmware_dir() -> Path:
    """The directory holding ``diablotin_fw/`` and ``main.py`` (FileNotFoundError if absent)."""
    path = Path(os.environ.get("DIABLOTIN_FIRMWARE_DIR", FIRMWARE_DIR))
    if not (path / FIRMWARE_PACKAGE / "__init__.py").is_file():
        raise FileNotFoundError(
            Said(
                "the Pico firmware sources are not in {path}: reinstall diablotin, or set "
                "DIABLOTIN_FIRMWARE_DIR to a firmware/ directory",
                path=str(path),
            )
        )
    return path


def load_firmware_module(name: str) -> ModuleType:
    """Import ``diablotin_fw.<name>`` from the firmware sources (the same files the Pico runs)."""
    if FIRMWARE_PACKAGE not in sys.modules:
        package_dir = firmware_dir() / FIRMWARE_PACKAGE
        spec = importlib.util.spec_from_file_location(
            FIRMWARE_PACKAGE,
            package_dir / "__init__.py",
            submodule_search_locations=[str(package_dir)],
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[FIRMWARE_PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{FIRMWARE_PACKAGE}.{name}")


wire: ModuleType = load_firmware_module("wire")
core: ModuleType = load_firmware_module("core")
PROTOCOL: int = wire.PROTOCOL
FIRMWARE_VERSION: str = sys.modules[FIRMWARE_PACKAGE].VERSION

HEARTBEAT_S = 0.25
"""The host sends a heartbeat this often; the firmware tolerates 1 s of silence."""
SILENCE_S = 1.0
"""No valid frame from the Pico for this long: the link is lost."""
RETRY_S = 0.1
"""A request not answered within this is sent again (same sequence number)."""
REQUEST_TIMEOUT_S = 1.0
"""A request not answered within this has failed."""
NAK_GAP_S = 0.05
"""At most one "resend" request per this interval."""
FLASH_HINT = "update the firmware (`diablotin firmware flash`)"


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def expected_settings(pins: PinMap, limits: Limits) -> dict[str, object]:
    """The settings the Pico must run with: flashed by ``flash_firmware``, checked at handshake."""
    return {
        "coils": list(pins.coils),
        "sensors": list(pins.sensors),
        "present": pins.sensor_present,
        "lid": pins.lid,
        "led": pins.led,
        "limits": {
            **{name: _number(value) for name, value in limits.for_firmware().items()},
            "silence_ms": _number(SILENCE_S * 1000),
        },
    }


def _version(text: object) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in str(text).split("."))
    except ValueError:
        return ()


def _same(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-9)
    return a == b


def handshake_problems(reply: dict[str, object], expected: dict[str, object]) -> list[str]:
    """Why the Pico's handshake reply does not fit this service, each naming what to update.

    ``[]`` when protocol, firmware version, pin map and limits all match.
    """
    proto = reply.get("proto")
    if proto != PROTOCOL:
        side = FLASH_HINT if isinstance(proto, int) and proto < PROTOCOL else "update the service"
        return [f"the Pico speaks protocol {proto!r}, this service protocol {PROTOCOL}: {side}"]
    problems = []
    version = reply.get("fw")
    if version != FIRMWARE_VERSION:
        newer = _version(version) > _version(FIRMWARE_VERSION)
        side = "update the service, or flash the firmware it ships" if newer else FLASH_HINT
        problems.append(
            f"the Pico runs firmware {version!r}, this service ships {FIRMWARE_VERSION}: {side}"
        )
    settings = reply.get("settings")
    if not isinstance(settings, dict):
        why = "; ".join(_texts(reply.get("problems"))) or "none"
        problems.append(f"the Pico has no usable pin map and limits ({why}): {FLASH_HINT}")
        return problems
    for name in ("coils", "sensors", "present", "lid", "led"):
        if not _same(settings.get(name), expected[name]):
            problems.append(
                f"pin map differs: {name} is {settings.get(name)!r} on the Pico, "
                f"{expected[name]!r} in hardware/pins.toml [pico]: {FLASH_HINT}"
            )
    pico_limits = settings.get("limits")
    if not isinstance(pico_limits, dict):
        pico_limits = {}
    expected_limits = expected["limits"]
    assert isinstance(expected_limits, dict)  # made by expected_settings
    for name, want in expected_limits.items():
        have = pico_limits.get(name)
        if not _same(have, want):
            problems.append(
                f"safety limit differs: {name} is {have!r} on the Pico, {want!r} in this "
                f"service's configuration: {FLASH_HINT}"
            )
    return problems


def _valid_state(state: object) -> bool:
    """True if ``state`` has the shape the firmware's ``Firmware.state`` produces."""
    if not isinstance(state, dict):
        return False
    slots, ages, faults = state.get("slots"), state.get("ages"), state.get("faults")
    return (
        isinstance(slots, list)
        and len(slots) == len(KEYS)
        and all(type(p) is bool for p in slots)
        and isinstance(ages, list)
        and len(ages) == len(KEYS)
        and all(type(a) is int and a >= 0 for a in ages)
        and isinstance(faults, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in faults.items())
        and (state.get("lid") is None or type(state.get("lid")) is bool)
        and (state.get("lid_age") is None or type(state.get("lid_age")) is int)
    )


MAX_NAME = 64
"""Longest fault name or reason the host accepts from the Pico (characters)."""


def _texts(value: object) -> list[str]:
    """A list of texts from the Pico (fault names, problems) as strings; [] when not a list."""
    return [str(name) for name in value] if isinstance(value, list) else []


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _text(value: object, limit: int = wire.MAX_LINE) -> bool:
    return type(value) is str and len(value) <= limit


def _faults(value: object) -> bool:
    return isinstance(value, dict) and all(
        _text(k, MAX_NAME) and _text(v) for k, v in value.items()
    )


_REPLY_FIELDS: dict[str, Callable[[object], bool]] = {
    "err": _text,
    "why": _text,
    "k": lambda v: v in KEYS and type(v) is int,
    "ms": lambda v: (
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and math.isfinite(v)
        and 0 < v <= Limits.MAX_PULSE_MS
    ),
    "faults": _faults,
    "proto": lambda v: type(v) is int,
    "fw": lambda v: _text(v, MAX_NAME),
    "boot": _count,
    "settings": lambda v: v is None or isinstance(v, dict),
    "problems": lambda v: isinstance(v, list) and all(_text(p) for p in v),
    "state": lambda v: isinstance(v, dict),
}
"""Optional fields of a reply (``r``) and what each must be; the shape of a whole state
is checked where it is used (a malformed hello state is a mismatch, not a bad frame)."""


def frame_problem(msg: dict[str, object]) -> str | None:
    """Why a decoded message from the Pico has a field of the wrong type or range, or None.

    ``wire.decode`` has checked the CRC, the message type and its required fields' JSON
    types; this checks every field's content (fault names are text, keys 1-4, ages and
    uptimes are counts, states have the firmware's shape), so no field can make the
    host's link code fail.
    """
    if "age" in msg and not _count(msg["age"]):
        return "age is not a count of ms"
    kind = msg["t"]
    if kind == "hb":
        names = msg["f"]
        if not _count(msg["boot"]) or not _count(msg["up"]):
            return "heartbeat boot/up is not a count"
        if not isinstance(names, list):  # wire.decode checked it is a JSON array
            return "heartbeat fault names are not a list"
        if not all(_text(n, MAX_NAME) for n in names) or len(set(names)) != len(names):
            return "heartbeat fault names are not distinct texts"
    elif kind == "r":
        for name, valid in _REPLY_FIELDS.items():
            if name in msg and not valid(msg[name]):
                return f"reply field {name} is {msg[name]!r}"
    elif kind == "ev":
        event = msg["e"]
        if event == "slot" and msg["k"] not in KEYS:
            return f"slot event for key {msg['k']!r}"
        if event == "state" and not _valid_state(msg["state"]):
            return "state event with a malformed state"
    return None


@dataclass
class Pending:
    """A request in flight. ``reply`` (the firmware's answer) or ``error`` ends it."""

    kind: str
    msg: dict[str, object]
    internal: bool = False
    first_sent: float | None = None
    last_sent: float | None = None
    reply: dict[str, object] | None = None
    error: str | None = None

    @property
    def done(self) -> bool:
        return self.reply is not None or self.error is not None


@dataclass
class LinkStats:
    frames_in: int = 0
    bad_frames: int = 0
    naks_sent: int = 0
    retries: int = 0
    handshakes: int = 0


DOWN, HELLO, SETUP, UP, MISMATCH = "down", "handshake", "setup", "up", "mismatch"
HANDSHAKE_FAULT = "pico-handshake"


@dataclass
class HostLink:
    """The host's side of the protocol, without I/O: bytes and times in, bytes and events out.

    Phases: ``down`` (no connection) -> ``handshake`` (hello sent) -> ``setup`` (coils
    off, latched faults cleared) -> ``up`` (coils may be driven); ``mismatch`` when the
    handshake does not fit (coils refused, the reason says which side to update).
    ``stamp(age_s)`` turns "this happened age_s ago" into a time of the box's clock.
    Not thread-safe: the caller serialises calls.
    """

    expected: dict[str, object]
    stamp: Callable[[float], float]
    phase: str = DOWN
    detail: str = "not connected yet"
    slots: dict[int, bool] = field(default_factory=lambda: dict.fromkeys(KEYS, False))
    lid: bool | None = None
    synced: bool = False
    firmware: dict[str, object] | None = None
    pico_faults: dict[str, str] = field(default_factory=dict)
    mismatch: str | None = None
    events: list[BoxEvent] = field(default_factory=list)
    stats: LinkStats = field(default_factory=LinkStats)

    def __post_init__(self) -> None:
        self._out = bytearray()
        self._deframer = wire.Deframer()
        self._queue: list[Pending] = []
        self._seq = random.randrange(wire.SEQ_MOD)
        self._last_rx = 0.0
        self._last_beat: float | None = None
        self._last_nak: float | None = None
        self._last_event: object = None
        """The sequence number of the last event taken (``None``: none yet)."""

    # -- driving ----------------------------------------------------------------

    def connected(self, now: float) -> None:
        """A fresh connection: start the handshake."""
        self._deframer = wire.Deframer()
        self._last_rx = now
        self._last_beat = None
        self._restart(now, "connected: handshaking")
        self._pump(now)

    def disconnected(self, now: float, reason: str, expected: bool = False) -> None:
        """The connection is gone (``expected``: closed on purpose): requests fail."""
        self._set_down(reason, now, expected)
        self.phase = DOWN

    def take_output(self) -> bytes:
        """Bytes to send now (then forgotten)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_events(self) -> list[BoxEvent]:
        events, self.events = self.events, []
        return events

    @property
    def up(self) -> bool:
        return self.phase == UP

    def submit(self, kind: str, now: float, **fields: object) -> Pending:
        """Queue a request (``fire``/``off``); it fails at once unless the link is up."""
        pending = Pending(kind, {"t": kind, **fields})
        if self.phase != UP:
            pending.error = self.refusal()
            return pending
        self._enqueue(pending)
        self._pump(now)
        return pending

    def refusal(self) -> str:
        """Why coils cannot be driven now (for BoxFault)."""
        if self.phase == MISMATCH:
            return Said("the Pico does not match this service: {why}", why=self.mismatch)
        return Said("link to the Pico is down ({why})", why=self.detail)

    def receive(self, data: bytes, now: float) -> None:
        """Handle received bytes: valid frames act, bad ones are counted and re-asked."""
        for line in self._deframer.feed(data):
            try:
                msg = wire.decode(line, wire.TO_HOST)
            except wire.BadFrame as exc:
                self.stats.bad_frames += 1
                log.debug("bad frame from the Pico (%s): %r", exc, line[:80])
                self._nak(now)
                continue
            problem = frame_problem(msg)
            if problem is not None:
                self.stats.bad_frames += 1
                log.warning("bad frame from the Pico (%s): %r", problem, line[:80])
                continue  # not re-asked: the Pico would send the same content again
            self.stats.frames_in += 1
            self._last_rx = now
            self._handle(msg, now)
        self._pump(now)

    def tick(self, now: float) -> str | None:
        """Time-driven work: retries, heartbeats. Returns a reason to drop the connection."""
        if self.phase == DOWN:
            return None
        if self._queue:
            head = self._queue[0]
            assert head.first_sent is not None and head.last_sent is not None
            if now - head.first_sent > REQUEST_TIMEOUT_S:
                self._queue.pop(0)
                head.error = Said(
                    "the Pico did not answer {kind!r} within {timeout:g} s",
                    kind=head.kind,
                    timeout=REQUEST_TIMEOUT_S,
                )
                if head.kind == "hello":
                    head.error += (
                        ": is the Diablotin firmware installed? (`diablotin firmware flash`)"
                    )
                if head.internal:
                    return head.error
                self._pump(now)
            elif now - head.last_sent >= RETRY_S:
                self.stats.retries += 1
                self._send(head.msg)
                head.last_sent = now
        if now - self._last_rx > SILENCE_S:
            return f"no valid frame from the Pico for {SILENCE_S:g} s"
        if self._last_beat is None or now - self._last_beat >= HEARTBEAT_S:
            self._last_beat = now
            self._send({"t": "hb"})
        return None

    # -- internals --------------------------------------------------------------

    def _send(self, msg: dict[str, object]) -> None:
        self._out += wire.encode(msg)

    def _nak(self, now: float) -> None:
        if self._last_nak is None or now - self._last_nak >= NAK_GAP_S:
            self._last_nak = now
            self.stats.naks_sent += 1
            self._send({"t": "nak"})

    def _enqueue(self, pending: Pending) -> None:
        self._seq = (self._seq + 1) % wire.SEQ_MOD
        pending.msg["s"] = self._seq
        self._queue.append(pending)

    def _pump(self, now: float) -> None:
        """Send the head request if it has not been sent yet (one request in flight)."""
        if self._queue and self._queue[0].first_sent is None:
            head = self._queue[0]
            head.first_sent = head.last_sent = now
            self._send(head.msg)

    def _fail_all(self, reason: str) -> None:
        for pending in self._queue:
            pending.error = reason
        self._queue = []

    def _set_down(self, reason: str, now: float, expected: bool = False) -> None:
        if self.phase == UP:
            log.log(
                logging.INFO if expected else logging.WARNING, "link to the Pico lost: %s", reason
            )
            self.events.append(LinkChanged(False, reason, self.stamp(0.0)))
        self.detail = reason
        self._fail_all(Said("link to the Pico is down ({why})", why=reason))

    def _restart(self, now: float, reason: str) -> None:
        """(Re)run the handshake on the current connection."""
        self._set_down(reason, now)
        self.phase = HELLO
        self._last_event = None
        self.stats.handshakes += 1
        self._enqueue(Pending("hello", {"t": "hello", "proto": PROTOCOL}, internal=True))

    def _handle(self, msg: dict[str, object], now: float) -> None:
        kind = msg["t"]
        if kind == "nak":
            if self._queue:
                self.stats.retries += 1
                self._send(self._queue[0].msg)
                self._queue[0].last_sent = now
        elif kind == "hb":
            self._beat(msg, now)
        elif kind == "r":
            if self._queue and self._queue[0].msg["s"] == msg["s"]:
                self._answered(self._queue.pop(0), msg, now)
        elif kind == "ev":
            self._event(msg)

    def _beat(self, msg: dict[str, object], now: float) -> None:
        if self.phase not in (SETUP, UP) or self.firmware is None:
            return
        if msg["boot"] != self.firmware["boot"]:
            self._restart(now, "the Pico restarted")
        elif self.phase == UP and set(names := _texts(msg["f"])) - set(self.pico_faults):
            self._restart(now, f"the Pico latched a fault: {', '.join(names)}")

    def _event(self, msg: dict[str, object]) -> None:
        if self.phase not in (SETUP, UP, MISMATCH):
            return  # from before this handshake: the new state covers it
        self._send({"t": "ack", "s": msg["s"]})
        if msg["s"] == self._last_event or self.phase == MISMATCH:
            return  # a repeat whose ack was lost, or sensors we cannot trust
        self._last_event = msg["s"]
        age = msg.get("age")
        age_s = age / 1000 if isinstance(age, int) else 0.0
        if msg["e"] == "slot":
            key = msg["k"]
            if isinstance(key, int) and key in KEYS:
                self._set_slot(key, bool(msg["p"]), age_s)
        elif msg["e"] == "lid":
            self._set_lid(bool(msg["c"]), age_s)
        elif _valid_state(state := msg["state"]):
            self._apply_state(cast("dict[str, object]", state), age_s)
        else:
            log.error("malformed state event from the Pico: %r", msg)

    def _set_slot(self, key: int, present: bool, age_s: float) -> None:
        if self.slots[key] != present:
            self.slots[key] = present
            self.events.append(SlotChanged(key, present, self.stamp(age_s)))

    def _set_lid(self, closed: bool, age_s: float) -> None:
        if self.lid != closed:
            self.lid = closed
            self.events.append(LidChanged(closed, self.stamp(age_s)))

    def _apply_state(self, state: dict[str, object], age_s: float) -> None:
        """Resynchronise: report real differences only (none on the very first sync)."""
        # _valid_state checked the shape: slots are booleans, ages and lid_age counts of ms
        lid = cast("bool | None", state.get("lid"))
        slots = cast("list[bool]", state["slots"])
        if not self.synced:
            self.slots = dict(zip(KEYS, slots, strict=True))
            self.lid = lid
            self.synced = True
            return
        ages = cast("list[int]", state["ages"])
        for key, present, age_ms in zip(KEYS, slots, ages, strict=True):
            self._set_slot(key, present, age_s + age_ms / 1000)
        if lid is not None:
            lid_age = cast("int | None", state.get("lid_age"))
            self._set_lid(lid, age_s + (lid_age or 0) / 1000)

    def _answered(self, pending: Pending, reply: dict[str, object], now: float) -> None:
        pending.reply = reply
        age = reply.get("age")
        age_s = age / 1000 if isinstance(age, int) else 0.0
        if reply.get("err") == "hello" and pending.kind != "hello":
            pending.reply = None
            pending.error = Said(
                "the Pico lost the session (restart or host silence): resynchronising"
            )
            self._restart(now, "the Pico lost the session")
        elif pending.kind == "hello":
            self._hello_answered(reply, age_s, now)
        elif pending.kind == "clear" and pending.internal:
            self._cleared(reply)
        elif pending.kind == "fire" and reply["ok"] is True:
            key, pulse = pending.msg["k"], pending.msg["ms"]  # as submitted by fire()
            assert isinstance(key, int) and isinstance(pulse, int | float)
            self.events.append(CoilFired(key, float(pulse), self.stamp(age_s)))

    def _hello_answered(self, reply: dict[str, object], age_s: float, now: float) -> None:
        problems = handshake_problems(reply, self.expected)
        state = reply.get("state")
        if not problems and not _valid_state(state):
            problems = [f"the Pico sent a malformed state: {FLASH_HINT}"]
        self.firmware = {
            "version": reply.get("fw"),
            "protocol": reply.get("proto"),
            "boot": reply.get("boot"),
        }
        if problems:
            self._set_mismatch("; ".join(problems))
            return
        if self.mismatch is not None:
            self.mismatch = None
            self.events.append(
                FaultChanged(HANDSHAKE_FAULT, False, "handshake matches", self.stamp(0))
            )
        assert isinstance(state, dict)
        self._apply_state(state, age_s)
        for name, why in cast("dict[str, str]", state["faults"]).items():  # _valid_state
            if name not in self.pico_faults:
                self.pico_faults[name] = why
                log.warning("the Pico reports a latched fault %s: %s", name, why)
                self.events.append(FaultChanged(f"pico:{name}", True, why, self.stamp(0)))
        self.phase = SETUP
        self.detail = "forcing coils off and clearing latched faults"
        self._enqueue(Pending("off", {"t": "off"}, internal=True))
        self._enqueue(Pending("clear", {"t": "clear"}, internal=True))

    def _set_mismatch(self, why: str) -> None:
        self.phase = MISMATCH
        self.detail = f"handshake mismatch: {why}"
        if self.mismatch != why:
            self.mismatch = why
            log.error("the Pico does not match this service: %s", why)
            self.events.append(FaultChanged(HANDSHAKE_FAULT, True, why, self.stamp(0)))

    def _cleared(self, reply: dict[str, object]) -> None:
        left = reply.get("faults")
        if not isinstance(left, dict):
            left = {}
        for name in sorted(self.pico_faults):
            if name not in left:
                del self.pico_faults[name]
                log.info("cleared the Pico's latched fault %s", name)
                self.events.append(
                    FaultChanged(f"pico:{name}", False, "cleared after resync", self.stamp(0))
                )
        if reply["ok"] is not True or left:
            self._set_mismatch(f"the Pico keeps faults {sorted(left)}: {FLASH_HINT}")
            return
        assert self.firmware is not None
        self.phase = UP
        self.detail = (
            f"firmware {self.firmware['version']} (protocol {self.firmware['protocol']}), "
            f"boot {self.firmware['boot']}"
        )
        log.info("link to the Pico up: %s", self.detail)
        self.events.append(LinkChanged(True, self.detail, self.stamp(0)))
