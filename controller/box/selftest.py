"""Hardware self-test: pulse each coil once within the limits, show every sensor, check pops.

``run_selftest`` works on any :class:`~controller.box.base.Box`. With a
simulated toy it hides the dice first, so every slot is loaded and every pulse
must empty its slot. On real hardware a slot loaded by the builder must empty
after its pulse; an empty slot is reported "not checked" (load a die to check it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

from .base import KEYS, Box, BoxError, LimitRefused, Toy, status_faults
from .pins import PinMap, describe_pin

SETTLE_S = 0.3
"""How long (s) after a pulse's end a loaded slot must have emptied (the jam rule's 0.3 s)."""
COOLDOWN_MARGIN_S = 0.01
"""Waited beyond the box's own cooldown before the second try (s)."""


def _word(present: bool | None, yes: str, no: str) -> str:
    return "?" if present is None else (yes if present else no)


def _where(status: Mapping[str, object]) -> str:
    """The pin factory, or the link's detail, for the report's first line."""
    link = status.get("link")
    if isinstance(link, Mapping):
        link = link.get("detail")
    return str(status.get("factory") or link or "-")


def _wired(box: Box, role: str) -> str:
    """Where ``role`` (``"coil 2"``, ``"sensor 3"``) is wired, e.g. ``"net COIL2 on GPIO27
    (header pin 13)"``; empty when the box has no pin map (a stand-in box)."""
    pins = getattr(box, "pins", None)
    if not isinstance(pins, PinMap):
        return ""
    pin = pins.all_pins().get(role)
    if pin is None:
        return ""
    return describe_pin(role, pin, "pico" if box.kind == "serial" else "pi")


def _check(box: Box, *roles: str) -> str:
    """`` (check net COIL2 on GPIO27 (header pin 13))`` for the fault list, or ``""``."""
    where = [w for w in (_wired(box, role) for role in roles) if w]
    return f" (check {' and '.join(where)})" if where else ""


def _coil_states(status: Mapping[str, object]) -> dict[int, bool | None]:
    coils = status.get("coils")
    if not isinstance(coils, Mapping):
        return {}
    return {int(k): (None if v is None else bool(v)) for k, v in coils.items()}


def run_selftest(
    box: Box,
    toy: Toy | None,
    out: TextIO,
    wait: Callable[[float], None] = time.sleep,
) -> bool:
    """Pulse each coil once, print a table, return True when nothing is wrong.

    ``toy``: a simulated toy (anything with ``hide()``) to load the slots
    first, or None on real hardware. ``wait(seconds)`` lets time pass (tests pass
    a ``ManualClock.advance``).
    A fault is: a pulse refused or failing, a loaded slot that stays full, a
    hidden toy whose slots do not all fill, a coil still on at the end.
    Never raises for a box error: it is printed as a fault.
    """
    faults: list[str] = []
    limits = box.limits
    status = box.status()
    out.write(
        f"Diablotin self-test: backend {status.get('backend', box.kind)} "
        f"({_where(status)}), "
        f"pulse {limits.pulse_ms:g} ms, spacing {limits.min_gap_ms:g} ms, "
        f"duty {limits.max_duty:.0%} over {limits.duty_window_s:g} s, "
        f"debounce {limits.debounce_ms:g} ms\n"
    )
    _load_toy(box, toy, wait, faults)
    lid = box.lid_closed()
    out.write(f"lid: {'not fitted' if lid is None else _word(lid, 'closed', 'open')}\n")
    out.write(f"{'key':<4} {'before':<8} {'coil':<16} {'after':<8} result\n")
    popped = sum(_pulse(box, key, wait, out, faults) for key in KEYS)
    time.sleep(limits.pulse_ms / 1000 + 0.05)  # real time: the last pulse ends on its own clock
    _coils_off(box, out, faults)
    for fault in status_faults(box.status()):
        faults.append(f"box fault: {fault}")
    if faults:
        out.write(f"RESULT: FAIL ({len(faults)} fault(s))\n")
        for fault in faults:
            out.write(f"  - {fault}\n")
        return False
    out.write(f"RESULT: PASS ({len(KEYS)} coils pulsed, {popped} pops checked)\n")
    if popped < len(KEYS):
        out.write("  (load a die into every slot to check every pop)\n")
    return True


def _load_toy(box: Box, toy: object, wait: Callable[[float], None], faults: list[str]) -> None:
    """A simulated toy hides its dice (every slot must then read a die); else nothing."""
    hide = getattr(toy, "hide", None)
    if not callable(hide):
        return
    hide()
    wait(box.limits.debounce_ms / 1000 + 0.05)
    empty = [k for k, full in box.slots().items() if not full]
    if empty:
        faults.append(
            "the simulated toy hid its dice but not every slot reads a die"
            + _check(box, *(f"sensor {k}" for k in empty))
        )


def _pulse(
    box: Box, key: int, wait: Callable[[float], None], out: TextIO, faults: list[str]
) -> bool:
    """Fire ``key`` once and print its row; True when a loaded slot emptied (a pop)."""
    limits = box.limits
    before = box.slots().get(key)
    error = _fire_waiting_out_spacing(box, key, wait)
    if error is not None:
        faults.append(f"coil {key}: {error}" + _check(box, f"coil {key}"))
        out.write(f"{key:<4} {_word(before, 'die', 'empty'):<8} {'refused':<16} {'-':<8} ")
        out.write(f"FAULT: {error}\n")
        return False
    wait(limits.pulse_ms / 1000 + SETTLE_S)
    after = box.slots().get(key)
    popped = False
    if before and after:
        result = "FAULT: the slot still holds its die"
        faults.append(
            f"key {key}: slot still full {SETTLE_S:g} s after its pulse"
            + _check(box, f"coil {key}", f"sensor {key}")
        )
    elif before:
        result, popped = "ok: the die jumped", True
    else:
        result = "not checked: no die in the slot"
    coil = f"fired {limits.pulse_ms:g} ms"
    out.write(
        f"{key:<4} {_word(before, 'die', 'empty'):<8} {coil:<16} "
        f"{_word(after, 'die', 'empty'):<8} {result}\n"
    )
    return popped


def _coils_off(box: Box, out: TextIO, faults: list[str]) -> None:
    """Print whether every coil is off at the end; a coil still on is a fault."""
    coils = _coil_states(box.status())
    stuck = [k for k, on in coils.items() if on]
    if stuck:
        faults.append(
            f"coil(s) {stuck} still on after the test" + _check(box, *(f"coil {k}" for k in stuck))
        )
    out.write(
        "coils off at the end: "
        + ("unknown" if not coils else "yes" if not stuck else f"NO: {stuck}")
        + "\n"
    )


def _fire_waiting_out_spacing(box: Box, key: int, wait: Callable[[float], None]) -> str | None:
    """Fire ``key``; after a limit refusal wait out the spacing once and try again.

    Returns None when the coil fired, else the reason it did not.
    """
    try:
        box.fire(key)
        return None
    except LimitRefused:
        wait(box.cooldown_s(key) + COOLDOWN_MARGIN_S)
    except BoxError as exc:
        return str(exc)
    try:
        box.fire(key)
        return None
    except BoxError as exc:
        return str(exc)
