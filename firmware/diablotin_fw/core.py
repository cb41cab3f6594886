"""The firmware's logic, free of ``machine``: safety limits, debouncing, the link.

:class:`Firmware` is driven by ``poll(now_ms)`` from a loop (``pico.py`` on the Pico,
the virtual co-processor on the host, plain calls in tests). It talks to the hardware
through a *hal* object with these methods:

- ``set_coil(key, on)``, ``all_off()``: coil outputs, keys 1-4;
- ``read_sensor(key)`` -> 0/1 pin level; ``read_lid()`` -> 0/1 (only if a lid is fitted);
- ``set_led(on)``;
- ``read()`` -> bytes received since the last call (may be empty), ``write(data)``;
- ``start_watchdog()``, ``feed()``: the hardware watchdog;
- ``set_session(on)``: a host session began or ended (the Pico then blocks Ctrl-C).

Times are MicroPython ``ticks_ms`` values (they wrap at 2**30); lengths in ms.
"""

from . import VERSION, wire

try:  # noqa: SIM105 (MicroPython has no contextlib)
    from typing import Any
except ImportError:  # MicroPython: no typing, and annotations are never evaluated there
    pass

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2

# Hard limits (hardware/README.md, Safety), the same bounds as the host's
# controller/box/base.py Limits (a property test checks both accept exactly the same settings).
MAX_PULSE_MS = 100
MIN_GAP_MS = 250
MAX_GAP_MS = 60000
MAX_DUTY = 0.10
WINDOW_S = 10  # duty is measured over exactly this sliding window: not a setting
MIN_DEBOUNCE_MS = 1
MAX_DEBOUNCE_MS = 500
MAX_SILENCE_MS = 1000

HEARTBEAT_MS = 250
"""The firmware sends a heartbeat this often while a host session is open."""
RESEND_MS = 250
"""An event not acknowledged within this is sent again."""
NAK_GAP_MS = 50
"""At most one "resend" request per this many ms, so noise cannot cause a storm."""
MAX_EVENTS = 16
"""Events waiting for an ack beyond this are replaced by one full-state event."""

GPIO_RANGE = 29  # the Pico brings out GP0-GP28


def ticks_diff(a: int, b: int) -> int:
    """``a - b`` in ms for wrapping ticks (like ``time.ticks_diff``)."""
    return ((a - b + _HALF) & (TICKS_PERIOD - 1)) - _HALF


def ticks_add(ticks: int, delta: int) -> int:
    """``ticks + delta`` wrapped like ``time.ticks_add``."""
    return (ticks + delta) & (TICKS_PERIOD - 1)


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def check_settings(settings: Any) -> list[str]:
    """Problems with a settings dict (pin map and limits), as sentences; [] if usable.

    The flashing step writes the settings from ``hardware/pins.toml`` and the service's
    limits; the firmware refuses to drive coils with settings that fail here.
    """
    if type(settings) is not dict:
        return ["no settings (pin map and limits): flash the firmware again"]
    problems: list[str] = []
    pins: list[Any] = []
    value: Any
    for name in ("coils", "sensors"):
        value = settings.get(name)
        if type(value) is not list or len(value) != 4:
            problems.append(name + " must list 4 GP pin numbers")
            continue
        pins.extend(value)
    for name in ("lid", "led"):
        value = settings.get(name)
        if value is not None:
            pins.append(value)
    for pin in pins:
        if type(pin) is not int or not 0 <= pin < GPIO_RANGE:
            problems.append("pin " + repr(pin) + " is not a GP pin number 0-28")
    if len(set(p for p in pins if type(p) is int)) != len(pins):
        problems.append("a pin is used twice")
    if settings.get("present") not in ("low", "high"):
        problems.append('present must be "low" or "high"')
    limits = settings.get("limits")
    if type(limits) is not dict:
        return problems + ["limits missing"]  # noqa: RUF005 (MicroPython has no [*x])
    for name, low, high in (
        ("max_ms", 0, MAX_PULSE_MS),
        ("gap_ms", MIN_GAP_MS, MAX_GAP_MS),
        ("window_s", WINDOW_S, WINDOW_S),
        ("duty", 0, MAX_DUTY),
        ("debounce_ms", MIN_DEBOUNCE_MS, MAX_DEBOUNCE_MS),
        ("silence_ms", 100, MAX_SILENCE_MS),
    ):
        # NaN fails both comparisons, inf the upper one; a low bound of 0 is open.
        value = limits.get(name)
        if not _number(value) or not low <= value <= high or (low == 0 and value == 0):
            problems.append(f"limit {name}={value!r} is outside {low}-{high}")
    return problems


class Debounced:
    """A debounced digital input: ``value`` changes once the raw level held ``hold_ms``."""

    def __init__(self, value: bool, now: int) -> None:
        self.value = value
        self.since = now  # when the current value's raw level first appeared
        self._raw = value
        self._raw_since = now

    def update(self, raw: bool, now: int, hold_ms: float) -> bool:
        """Feed a raw reading; True when the debounced value just changed."""
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now
        if raw != self.value and ticks_diff(now, self._raw_since) >= hold_ms:
            self.value = raw
            self.since = self._raw_since
            return True
        return False


class CoilLimits:
    """Pulse cap, per-coil spacing and duty, one coil at a time (mirrors the host's CoilGuard)."""

    def __init__(self, limits: dict[str, Any]) -> None:
        self.max_ms = limits["max_ms"]
        self.gap_ms = limits["gap_ms"]
        self.window_ms = int(limits["window_s"] * 1000 + 0.5)
        # Whole ms, so single-precision floats on the Pico cannot round 1000 up or down.
        self.budget_ms = int(limits["duty"] * limits["window_s"] * 1000 + 0.5)
        self._pulses: dict[int, list[tuple[int, float]]] = {1: [], 2: [], 3: [], 4: []}

    def refusal(self, key: int, ms: float, now: int, busy_key: int | None) -> str | None:
        """Why pulsing coil ``key`` for ``ms`` now would break a limit, or None."""
        if key not in self._pulses:
            return f"there is no key {key!r}: keys are 1-4"
        if not 0 < ms <= self.max_ms:
            return f"a {ms!r} ms pulse is outside (0, {self.max_ms!r}] ms"
        if busy_key is not None:
            return f"coil {busy_key} is energised: one coil at a time"
        pulses = self._pulses[key]
        while pulses and ticks_diff(now, pulses[0][0]) - pulses[0][1] >= self.window_ms:
            pulses.pop(0)
        if pulses:
            gap = ticks_diff(now, pulses[-1][0]) - pulses[-1][1]
            if gap < self.gap_ms:
                return (
                    f"key {key} fired {gap:.0f} ms ago: "
                    f"wait at least {self.gap_ms!r} ms between pulses"
                )
        on_ms: float = 0
        for start, length in pulses:
            on_ms += min(length, length - ticks_diff(now, start) + self.window_ms)
        if on_ms + ms > self.budget_ms:
            return (
                f"key {key} would be on {on_ms + ms:.0f} ms in {self.window_ms} ms: "
                "over its duty limit"
            )
        return None

    def book(self, key: int, ms: float, now: int) -> None:
        self._pulses[key].append((now, ms))


class Firmware:
    """The co-processor: one instance per boot. See the module docstring for ``hal``.

    ``settings`` is the dict written at flash time (None if missing); with settings that
    fail :func:`check_settings` it answers the handshake but refuses every pulse.
    ``reset_cause`` is ``"watchdog"`` after a watchdog reset (latched as a fault).
    """

    def __init__(
        self,
        hal: Any,
        settings: Any,
        now: int,
        boot_id: int,
        reset_cause: str | None = None,
        version: str = VERSION,
    ) -> None:
        self.hal = hal
        self.version = version
        self.boot_id = boot_id
        self.problems = check_settings(settings)
        self.settings: dict[str, Any] | None = settings if not self.problems else None
        self.limits = CoilLimits(settings["limits"]) if self.settings else None
        self.faults: dict[str, str] = {}
        if self.problems:
            self.faults["settings"] = "; ".join(self.problems)
        if reset_cause == "watchdog":
            self.faults["watchdog-reset"] = "the watchdog restarted a hung firmware"
        hal.all_off()
        self.coil: int | None = None  # the energised key, if any
        self._coil_start = now
        self._coil_ms: float = 0
        self._up_ms = 0
        self._last_now = now
        self._deframer = wire.Deframer()
        self.session = False
        self._last_host = now
        self._req_seq: int | None = None
        self._reply: tuple[dict[str, Any], int] | None = None  # last answer, and when
        self._events: list[tuple[int, dict[str, Any], int]] = []  # (seq, msg, at); head in flight
        self._ev_seq = 0
        self._ev_sent: int | None = None
        self._next_beat = now
        self._last_nak: int | None = None
        self.bad_frames = 0
        self.slots: dict[int, Debounced] = {}
        self.lid: Debounced | None = None
        if self.settings:
            for key in (1, 2, 3, 4):
                self.slots[key] = Debounced(self._present(key), now)
            if self.settings.get("lid") is not None:
                self.lid = Debounced(hal.read_lid() == 0, now)
        self._led = False
        hal.set_led(False)

    # -- the loop ----------------------------------------------------------------

    def poll(self, now: int) -> None:
        """One turn of the main loop at ``now`` (ticks_ms). Feeds the watchdog last."""
        self._up_ms += max(0, ticks_diff(now, self._last_now))
        self._last_now = now
        self._end_pulse(now)
        data = self.hal.read()
        if data:
            self.receive(data, now)
        self._end_pulse(now)
        self._check_host(now)
        self._scan_inputs(now)
        self._send_due(now)
        led = self.session and not self.faults
        if led != self._led:
            self._led = led
            self.hal.set_led(led)
        self.hal.feed()

    def receive(self, data: bytes, now: int) -> None:
        """Handle received bytes: valid frames act, bad ones are counted and re-asked."""
        for line in self._deframer.feed(data):
            try:
                msg = wire.decode(line, wire.TO_PICO)
            except wire.BadFrame:
                self.bad_frames += 1
                self._nak(now)
                continue
            self._last_host = now
            self._handle(msg, now)

    def all_off(self) -> None:
        self.hal.all_off()
        self.coil = None

    # -- messages ----------------------------------------------------------------

    def _handle(self, msg: dict[str, Any], now: int) -> None:
        kind = msg["t"]
        if kind == "hb":
            if not self.session:  # a host that thinks it has a session learns of the restart
                self._beat(now)
            return
        if kind == "nak":
            if self._reply is not None:
                self._send(self._reply[0], self._reply[1], now)
            if self._events:
                self._send_event(now)
            return
        if kind == "ack":
            if self._events and self._events[0][0] == msg["s"]:
                self._events.pop(0)
                self._ev_sent = None
                self._send_due(now)
            return
        if kind == "hello":
            self._hello(msg, now)
            return
        if not self.session:
            self._answer(msg, {"ok": False, "err": "hello", "why": "no handshake yet"}, now)
            return
        if msg["s"] == self._req_seq and self._reply is not None:  # a retry: answer again
            self._send(self._reply[0], self._reply[1], now)
            return
        if kind == "fire":
            reply = self._fire(msg["k"], msg["ms"], now)
        elif kind == "off":
            self.all_off()
            reply = {"ok": True}
        else:  # clear
            for name in list(self.faults):
                if name != "settings":
                    del self.faults[name]
            reply = {"ok": True, "faults": self.faults}
        self._req_seq = msg["s"]
        self._answer(msg, reply, now)

    def _hello(self, msg: dict[str, Any], now: int) -> None:
        if not self.session:
            self.hal.set_session(True)
        self.session = True
        self._req_seq = msg["s"]
        self._events = []
        self._ev_sent = None
        self._next_beat = now
        self.hal.start_watchdog()
        reply = {
            "ok": True,
            "proto": wire.PROTOCOL,
            "fw": self.version,
            "boot": self.boot_id,
            "settings": self.settings,
            "problems": self.problems,
            "state": self.state(now),
        }
        self._answer(msg, reply, now)

    def _fire(self, key: int, ms: float, now: int) -> dict[str, Any]:
        if self.limits is None:
            return {"ok": False, "err": "settings", "why": "; ".join(self.problems)}
        if self.faults:
            names = ", ".join(sorted(self.faults))
            return {"ok": False, "err": "fault", "why": "latched fault: " + names}
        why = self.limits.refusal(key, ms, now, self.coil)
        if why is not None:
            return {"ok": False, "err": "limit", "why": why}
        self.limits.book(key, ms, now)
        self.coil = key
        self._coil_start = now
        self._coil_ms = ms
        self.hal.set_coil(key, True)
        return {"ok": True, "k": key, "ms": ms}

    def _answer(self, msg: dict[str, Any], reply: dict[str, Any], now: int) -> None:
        reply["t"] = "r"
        reply["s"] = msg["s"]
        self._reply = (reply, now)
        self._send(reply, now, now)

    def state(self, now: int) -> dict[str, Any]:
        """Everything the host needs to resynchronise, as a JSON-ready dict."""
        state = {
            "slots": [self.slots[k].value for k in sorted(self.slots)],
            "ages": [max(0, ticks_diff(now, self.slots[k].since)) for k in sorted(self.slots)],
            "lid": None,
            "lid_age": None,
            "faults": self.faults,
            "coil": self.coil or 0,
            "up": self._up_ms,
        }
        if self.lid is not None:
            state["lid"] = self.lid.value
            state["lid_age"] = max(0, ticks_diff(now, self.lid.since))
        return state

    # -- periodic work -----------------------------------------------------------

    def _end_pulse(self, now: int) -> None:
        if self.coil is not None and ticks_diff(now, self._coil_start) >= self._coil_ms:
            self.hal.set_coil(self.coil, False)
            self.coil = None

    def _check_host(self, now: int) -> None:
        if not self.session or not self.settings:
            return
        silence = self.settings["limits"]["silence_ms"]
        if ticks_diff(now, self._last_host) > silence:
            self.all_off()
            self.faults["host-silent"] = f"no frame from the host for {silence} ms: coils off"
            self.session = False
            self._events = []
            self.hal.set_session(False)

    def _present(self, key: int) -> bool:
        present_level = 0 if self.settings and self.settings["present"] == "low" else 1
        return bool(self.hal.read_sensor(key) == present_level)

    def _scan_inputs(self, now: int) -> None:
        if not self.settings:
            return
        hold = self.settings["limits"]["debounce_ms"]
        for key in (1, 2, 3, 4):
            slot = self.slots[key]
            if slot.update(self._present(key), now, hold):
                self._queue({"t": "ev", "e": "slot", "k": key, "p": slot.value}, slot.since)
        if self.lid is not None and self.lid.update(self.hal.read_lid() == 0, now, hold):
            self._queue({"t": "ev", "e": "lid", "c": self.lid.value}, self.lid.since)

    def _queue(self, msg: dict[str, Any], at: int) -> None:
        if not self.session:
            return
        for _seq, queued, _at in self._events:
            if queued["e"] == "state" and queued["state"] is None:
                return  # a snapshot not taken yet will include this change
        if len(self._events) >= MAX_EVENTS:
            self._events = self._events[:1]  # keep the one in flight
            msg = {"t": "ev", "e": "state", "state": None}
        seq = self._ev_seq
        self._ev_seq = (seq + 1) % wire.SEQ_MOD
        self._events.append((seq, msg, at))

    def _send_due(self, now: int) -> None:
        if not self.session:
            return
        if self._events and (self._ev_sent is None or ticks_diff(now, self._ev_sent) >= RESEND_MS):
            self._send_event(now)
        if ticks_diff(now, self._next_beat) >= 0:
            self._next_beat = ticks_add(now, HEARTBEAT_MS)
            self._beat(now)

    def _beat(self, now: int) -> None:
        beat = {"t": "hb", "boot": self.boot_id, "up": self._up_ms, "f": sorted(self.faults)}
        self.hal.write(wire.encode(beat))

    def _send_event(self, now: int) -> None:
        seq, msg, at = self._events[0]
        msg["s"] = seq
        if msg["e"] == "state" and msg["state"] is None:
            # Taken once, at first sending: later changes follow as their own events.
            msg["state"] = self.state(now)
            at = now
            self._events[0] = (seq, msg, at)
        self._ev_sent = now
        self._send(msg, at, now)

    def _send(self, msg: dict[str, Any], at: int, now: int) -> None:
        msg["age"] = max(0, ticks_diff(now, at))
        self.hal.write(wire.encode(msg))

    def _nak(self, now: int) -> None:
        if self._last_nak is None or ticks_diff(now, self._last_nak) >= NAK_GAP_MS:
            self._last_nak = now
            self.hal.write(wire.encode({"t": "nak"}))
