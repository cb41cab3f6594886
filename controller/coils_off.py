"""Force every coil off after the service stops, whatever state it left them in.

systemd runs this after the service ends, by ``systemctl stop``, a crash or ``kill -9``
(``ExecStopPost=`` in ``deploy/diablotin.service``); ``diablotin coils-off`` runs it by hand.

- ``gpio``: each coil pin is claimed as an output driven low (gpiozero, the configured pin
  factory), then released; the gate pull-down keeps the coil off afterwards.
- ``serial``: the Pico's handshake forces every coil off before the link is up, and an
  all-off is sent after it. An unreachable Pico cannot be told, but its firmware switches
  every coil off by itself 1 s after the host goes silent.
- ``simulated`` and ``virtual``: there are no real coils.

It prints one line per thing it did, never raises, and returns 0 when every coil is known
off (or there is nothing to switch), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .config import Config, ConfigError, find_config_path, load_config
from .logs import complain, journal_prefix

if TYPE_CHECKING:
    from gpiozero.pins import Factory

SERIAL_WAIT_S = 3.0
"""How long to wait for the Pico's handshake (seconds)."""


def coils_off(
    config: Config,
    *,
    factory: Factory | None = None,
    out: Callable[[str], None] = print,
    serial_wait_s: float = SERIAL_WAIT_S,
) -> int:
    """Drive every coil of ``config``'s box off; 0 when all are known off, else 1. Never raises.

    ``factory``: a gpiozero pin factory to use instead of loading ``box.pin_factory`` (tests
    pass a ``MockFactory``; it is not closed). ``out`` receives each line of the report.
    """
    backend = config.box.backend
    try:
        if backend == "gpio":
            return _gpio_off(config, factory, out)
        if backend == "serial":
            return _serial_off(config, out, serial_wait_s)
        out(f"coils-off: the {backend} box has no real coils: nothing to switch")
        return 0
    except Exception as exc:  # never raise: this runs when things already went wrong
        out(f"coils-off: failed: {type(exc).__name__}: {exc}")
        return 1


def _gpio_off(config: Config, factory: Factory | None, out: Callable[[str], None]) -> int:
    from gpiozero import DigitalOutputDevice

    from .box.base import FactoryUnavailable
    from .box.pin_factory import load_pin_factory
    from .box.pins import PinMapError, load_pin_map

    try:
        pins = load_pin_map(config.box.pins, "pi")
    except PinMapError as exc:
        out(f"coils-off: cannot read the pin map, no coil switched: {exc}")
        return 1
    owned = factory is None
    if owned:
        if config.box.pin_factory == "lgpio":
            from .checks import prepare_lgpio_workdir

            prepare_lgpio_workdir(config.data_dir)
        try:
            factory = load_pin_factory(config.box.pin_factory)
        except FactoryUnavailable as exc:
            out(f"coils-off: no coil switched: {exc}")
            return 1
    failed = 0
    try:
        for key, pin in enumerate(pins.coils, 1):
            role = f"coil {key} (GPIO{pin})"
            try:
                device = DigitalOutputDevice(
                    pin, active_high=True, initial_value=False, pin_factory=factory
                )
            except Exception as exc:
                failed += 1
                out(
                    f"coils-off: {role}: cannot claim it ({type(exc).__name__}: {exc}); "
                    "is the service still running?"
                )
                continue
            try:
                device.off()
                out(f"coils-off: {role}: driven low, released")
            except Exception as exc:
                failed += 1
                out(f"coils-off: {role}: could not drive it low ({type(exc).__name__}: {exc})")
            finally:
                with contextlib.suppress(Exception):
                    device.close()
    finally:
        if owned and factory is not None:
            with contextlib.suppress(Exception):
                factory.close()
    if failed:
        out(f"coils-off: {failed} of {len(pins.coils)} coils NOT confirmed off")
        return 1
    out(f"coils-off: all {len(pins.coils)} coils off ({config.box.pin_factory})")
    return 0


def _serial_off(config: Config, out: Callable[[str], None], wait_s: float) -> int:
    from .box.pins import PinMapError, load_pin_map
    from .box.serial import PortNotFound, SerialBox, resolve_port
    from .clock import RealClock

    fallback = "its firmware switches every coil off by itself 1 s after the host goes silent"
    try:
        pins = load_pin_map(config.box.pins, "pico")
        path = resolve_port(config.box.serial_port)
    except (PinMapError, PortNotFound) as exc:
        out(f"coils-off: cannot reach the Pico ({exc}); {fallback}")
        return 1
    clock = RealClock()
    box = SerialBox(path, pins, config.box.limits, clock)
    try:
        if box.wait_until_up(wait_s):
            box.all_off()
            firmware = box.status()["firmware"] or {}
            out(
                f"coils-off: the Pico on {path} (firmware {firmware.get('version')}) "
                "forced every coil off"
            )
            return 0
        detail = box.status()["link"]["detail"]
        out(f"coils-off: the Pico on {path} did not answer ({detail}); {fallback}")
        return 1
    finally:
        box.close()
        clock.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.coils_off [--config PATH]`` (what the systemd unit runs)."""
    parser = argparse.ArgumentParser(
        prog="python -m controller.coils_off", description="Force every coil of the box off."
    )
    parser.add_argument("--config", help="config file (default: $DIABLOTIN_CONFIG, /etc/...)")
    args = parser.parse_args(argv)
    try:
        config = load_config(find_config_path(args.config))
    except (ConfigError, OSError) as exc:
        complain(f"cannot read the config, no coil switched: {exc}", "coils-off")
        return 2
    report: list[str] = []
    status = coils_off(config, out=report.append)
    # Under systemd a coil not confirmed off is an error in the journal (journalctl -p err).
    prefix = journal_prefix(6 if status == 0 else 3)
    for line in report:
        print(prefix + line, file=sys.stderr if prefix else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())
