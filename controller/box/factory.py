"""Open the configured box backend: one entry point for the service and the CLI.

Backends (``[box] backend`` in the config, ``--box`` on the command line):

- ``simulated``: the gpio backend on gpiozero's ``MockFactory`` with a :class:`SimulatedToy`;
- ``gpio``: real pins through the configured pin factory (``lgpio``, ``rpigpio``, ``mock``);
- ``serial``: a Pico co-processor over USB serial (``serial_port``; ``auto`` finds it
  under ``/dev/serial/by-id``);
- ``virtual``: the firmware's own code behind a virtual serial link.

The serial and virtual backends are imported lazily, so each backend only needs
its own libraries.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ..clock import Clock
from ..sentences import Said
from .base import Box, Limits, Toy
from .gpio import GpioBox
from .pins import load_pin_map
from .toy import DEFAULT_NUMBER_FACES, Face, ToyFaults, make_simulated_box

BACKENDS = ("simulated", "gpio", "serial", "virtual")


class BoxSettings(Protocol):
    """What :func:`make_box` reads (``controller.config.BoxConfig`` has it)."""

    backend: str
    pin_factory: str
    pins: Path
    serial_port: str
    seed: int | None
    limits: Limits


def make_box(
    settings: BoxSettings,
    clock: Clock,
    *,
    number_faces: Sequence[Face] = DEFAULT_NUMBER_FACES,
    faults: ToyFaults | None = None,
) -> tuple[Box, Toy | None]:
    """Open the configured backend on ``clock``; returns ``(box, toy)``.

    ``toy`` is the :class:`SimulatedToy` for ``simulated`` and ``virtual`` (its
    dice show ``number_faces``; ``faults`` switched on from the start), else
    ``None``. The virtual co-processor's link fault menu is ``box.coprocessor``. The pin map is the
    ``[pi]`` section of ``settings.pins`` for gpio/simulated and ``[pico]`` for
    serial/virtual. The caller closes the box, then the clock.

    Raises ``ValueError`` for an unknown backend, :class:`PinMapError` for a
    bad pin map, :class:`FactoryUnavailable` when the pin factory cannot load,
    :class:`BoxFault` when a pin cannot be opened.
    """
    backend = settings.backend
    if backend not in BACKENDS:
        raise ValueError(
            Said(
                "unknown box backend {backend!r}: choose one of {names}",
                backend=backend,
                names=", ".join(BACKENDS),
            )
        )
    section = "pico" if backend in ("serial", "virtual") else "pi"
    pins = load_pin_map(settings.pins, section)
    limits = settings.limits
    if backend == "simulated":
        return make_simulated_box(pins, limits, clock, settings.seed, faults, number_faces)
    if backend == "gpio":
        return GpioBox(pins, limits, clock, factory=settings.pin_factory), None
    if backend == "serial":
        from .serial import make_serial_box  # lazy: pyserial and the wire protocol

        return make_serial_box(settings.serial_port, pins, limits, clock), None
    # backend == "virtual"
    from .virtual import make_virtual_box  # lazy: runs the firmware's code on the host

    box, coprocessor = make_virtual_box(pins, limits, clock, settings.seed, faults)
    coprocessor.toy.set_number_faces(number_faces)
    return box, coprocessor.toy
