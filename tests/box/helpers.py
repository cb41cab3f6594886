"""Helpers for the box tests: strict pin-state readers and an event recorder."""

from __future__ import annotations

from typing import cast

import pytest
from gpiozero.pins.mock import MockPin

COILS = (17, 27, 22, 23)
SENSORS = (5, 6, 13, 19)
LID = 26


def states(pin: MockPin) -> list[bool]:
    """The full list of a mock pin's states (strict: no zip, no extra states allowed)."""
    return [bool(s.state) for s in pin.states]


def pulse_lengths(pin: MockPin) -> list[float]:
    """Seconds each high period of ``pin`` lasted."""
    return [
        after.timestamp
        for before, after in zip(pin.states, pin.states[1:], strict=False)
        if before.state and not after.state
    ]


class Recorder:
    """A listener that keeps every event it gets."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def __call__(self, event: object) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[object]:
        return [e for e in self.events if isinstance(e, kind)]


def near(value: float, abs: float = 1e-6) -> float:
    """``pytest.approx`` typed as a float, for use inside event constructors."""
    return cast(float, pytest.approx(value, abs=abs))
