"""The gpiozero pin factories the box can drive: ``lgpio`` (a Pi), ``rpigpio`` (Pi 4 and
older), ``mock`` (a laptop), and what to do when one cannot load."""

from __future__ import annotations

from functools import partial

from gpiozero import DigitalOutputDevice
from gpiozero.pins import Factory

from ..sentences import Said
from .base import FactoryUnavailable

FACTORY_NAMES = ("lgpio", "rpigpio", "mock")

_FIXES = {
    "lgpio": Said(
        "on a Raspberry Pi install it with `pip install 'diablotin[pi]'` or "
        '`sudo apt install python3-lgpio`; on a laptop set the pin factory to "mock"'
    ),
    "rpigpio": Said(
        "install it with `pip install 'diablotin[rpigpio]'` (Pi 4 and older only: "
        'RPi.GPIO does not work on a Pi 5: use lgpio); on a laptop use "mock"'
    ),
}


def load_pin_factory(name: str) -> Factory:
    """Create the gpiozero pin factory ``name`` (``lgpio``, ``rpigpio`` or ``mock``).

    Raises :class:`FactoryUnavailable` naming the fix when the library is
    missing or cannot drive this machine's pins; never falls back to another one.
    """
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory

            return MockFactory()
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
    except Exception as exc:  # ImportError off a Pi, RuntimeError/lgpio.error without GPIO
        raise FactoryUnavailable(
            Said(
                "pin factory {name!r} cannot load ({error}): {fix}",
                name=name,
                error=f"{type(exc).__name__}: {exc}",
                fix=_FIXES[name],
            )
        ) from exc
    raise FactoryUnavailable(
        Said(
            "unknown pin factory {name!r}: choose one of {names}",
            name=name,
            names=", ".join(FACTORY_NAMES),
        )
    )


def coil_output(pin: int, factory: Factory) -> partial[DigitalOutputDevice]:
    """How a coil's pin opens (call it): an output, active high, low from the first write."""
    return partial(
        DigitalOutputDevice, pin, active_high=True, initial_value=False, pin_factory=factory
    )
