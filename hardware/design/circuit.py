"""The box's circuit in SKiDL, built from ``hardware/pins.toml``; its ERC and KiCad netlist.

``build("pi")`` is the Pi build (the 40-pin header drives the coils); ``build("pico")`` the
optional co-processor variant (a Pico on its GP pins). GPIO numbers come from
:func:`controller.box.pins.load_circuit_pin_map`, net names from
:func:`controller.box.pins.net_name`: the self-test prints the same names. Parts are defined
here (SKiDL's own tool), so no KiCad symbol library is needed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import io
import logging
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from controller.box.pins import PI_HEADER, PICO_HEADER, PinMap, load_circuit_pin_map, net_name

from . import electrical, parts

T = TypeVar("T")
HARDWARE = Path(__file__).resolve().parent.parent
NETLISTS = {"pi": HARDWARE / "diablotin.net", "pico": HARDWARE / "diablotin-pico.net"}

for _var in ("KICAD_SYMBOL_DIR", *(f"KICAD{n}_SYMBOL_DIR" for n in range(5, 11))):
    os.environ.setdefault(_var, "")  # no KiCad libraries: every part is defined below


def _shallow(work: Callable[[], T]) -> T:
    """Run ``work`` on a fresh thread and return its result (or raise its exception).

    SKiDL records ``inspect.stack()`` for every part, net and message; its cost grows with
    the caller's stack depth (2 s a build under pytest, 0.15 s from a shallow stack).
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work).result()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """SKiDL logs to stderr and may write log files: keep both out of the build's output."""
    with contextlib.redirect_stderr(io.StringIO()):
        yield


with _quiet():
    _LOGGER_CLASS = logging.getLoggerClass()
    import skidl
    from skidl import POWER, Circuit, Net, Part, Pin
    from skidl.logger import erc_logger

    # SKiDL makes every later logger of the process one of its own, whose debug() adds a
    # string to the message: numba's lazy messages then fail (a rule-A tree compiled in
    # the same process, the test suite's). Its own loggers are made: put the class back.
    logging.setLoggerClass(_LOGGER_CLASS)

PASSIVE, INPUT, OUTPUT, BIDIR, PWROUT = (
    Pin.types.PASSIVE,
    Pin.types.INPUT,
    Pin.types.OUTPUT,
    Pin.types.BIDIR,
    Pin.types.PWROUT,
)


def _template(name: str, prefix: str, *pins: tuple[int, str, Any]) -> Any:
    return Part(
        tool="skidl",
        name=name,
        ref_prefix=prefix,
        dest=skidl.TEMPLATE,
        pins=[Pin(num=n, name=pin_name, func=func) for n, pin_name, func in pins],
    )


def _header_pins(section: str) -> list[tuple[int, str, Any]]:
    """(position, name, type) of the Pi's 40-pin header or the Pico's 40 edge pins."""
    if section == "pi":
        names = {pos: f"GPIO{gpio}" for gpio, pos in PI_HEADER.items()}
        names |= {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}
        names |= {p: "GND" for p in (6, 9, 14, 20, 25, 30, 34, 39)}
    else:
        names = {pos: f"GP{gp}" for gp, pos in PICO_HEADER.items()}
        names |= {30: "RUN", 33: "AGND", 35: "ADC_VREF", 36: "3V3_OUT", 37: "3V3_EN"}
        names |= {39: "VSYS", 40: "VBUS"} | {p: "GND" for p in (3, 8, 13, 18, 23, 28, 38)}
    out = []
    for pos in range(1, 41):
        name = names[pos]
        func = PASSIVE if name in ("3V3", "3V3_OUT") or "GND" in name else BIDIR
        out.append((pos, name, func))
    return out


@dataclass
class Built:
    """A built circuit and the pin map it was drawn from."""

    circuit: Any
    section: str
    pins: PinMap
    choices: dict[str, parts.Choice]
    """Part ref -> the component chosen for it (the BOM counts these)."""

    @property
    def controller_ref(self) -> str:
        return "J1" if self.section == "pi" else "U1"


def build(section: str = "pi", pins_path: str | Path | None = None) -> Built:
    """The circuit for ``section`` (``"pi"`` or ``"pico"``) from the pin map at ``pins_path``.

    Raises :class:`controller.box.pins.PinMapError` for a bad pin map.
    """
    pins = load_circuit_pin_map(pins_path, section)

    def work() -> Built:
        with _quiet():
            circuit = Circuit()
            circuit.no_files = True
            with circuit:
                choices = _wire(section, pins)
        return Built(circuit, section, pins, choices)

    return _shallow(work)


def _wire(section: str, pins: PinMap) -> dict[str, parts.Choice]:
    choices: dict[str, parts.Choice] = {}

    def _part(template: Any, ref: str, choice: parts.Choice, value: str | None = None) -> Any:
        part = template(value=value or choice.value, footprint=choice.footprint or "none")
        part.ref = ref
        part.tag = ref  # a stable tag: the netlist does not change from run to run
        choices[ref] = choice
        return part

    resistor = _template("R", "R", (1, "~", PASSIVE), (2, "~", PASSIVE))
    diode = _template("D", "D", (1, "K", PASSIVE), (2, "A", PASSIVE))
    led = _template("LED", "D", (1, "K", PASSIVE), (2, "A", PASSIVE))
    mosfet = _template("Q_NMOS_GSD", "Q", (1, "G", INPUT), (2, "S", PASSIVE), (3, "D", PASSIVE))
    coil = _template("Solenoid", "L", (1, "+", PASSIVE), (2, "-", PASSIVE))
    fuse = _template("Fuse", "F", (1, "~", PASSIVE), (2, "~", PASSIVE))
    capacitor = _template("CP", "C", (1, "+", PASSIVE), (2, "-", PASSIVE))
    jack = _template("Barrel_Jack", "J", (1, "+", PWROUT), (2, "-", PASSIVE))
    module = _template(
        "TCRT5000_module", "J", (1, "VCC", PASSIVE), (2, "GND", PASSIVE), (3, "DO", OUTPUT)
    )
    switch = _template("SW_SPST", "SW", (1, "1", PASSIVE), (2, "2", PASSIVE))
    board = _template(
        "RPi_GPIO" if section == "pi" else "RPi_Pico",
        "J" if section == "pi" else "U",
        *_header_pins(section),
    )

    gnd = Net("GND")
    gnd.drive = POWER
    v3 = Net("+3V3")
    v3.drive = POWER  # the board's 3.3 V pins (two on the Pi: passive, so no output conflict)
    vcoil_in = Net("VCOIL_IN")
    vcoil = Net("VCOIL")
    vcoil.drive = POWER

    ref = "J1" if section == "pi" else "U1"
    choice = parts.PI_HEADER if section == "pi" else parts.PICO_HEADER
    header = _part(board, ref, choice)
    prefix = "GPIO" if section == "pi" else "GP"
    used: set[str] = set()

    def gpio(pin: int, func: Any) -> Any:
        name = f"{prefix}{pin}"
        used.add(name)
        header[name].func = func
        return header[name]

    for p in header.pins:
        if p.name == "GND":
            gnd += p
        elif p.name in ("3V3", "3V3_OUT"):
            v3 += p

    supply = _part(jack, "J2", parts.COIL_SUPPLY, f"{electrical.DESIGN_SOLENOID.supply_v:g} V")
    vcoil_in += supply["+"]
    gnd += supply["-"]
    f1 = _part(fuse, "F1", parts.FUSE_HOLDER, f"{electrical.fuse_rating_a():g} A T")
    vcoil_in & f1 & vcoil
    c1 = _part(capacitor, "C1", parts.BULK_CAPACITOR)
    vcoil += c1["+"]
    gnd += c1["-"]

    for k, pin in enumerate(pins.coils, 1):
        ctrl = Net(net_name(f"coil {k}"))
        gate = Net(f"{ctrl.name}_GATE")
        drain = Net(f"{ctrl.name}_DRAIN")
        ctrl += gpio(pin, OUTPUT)
        ctrl & _part(resistor, f"RG{k}", parts.GATE_RESISTOR) & gate
        gate & _part(resistor, f"RPD{k}", parts.GATE_PULLDOWN) & gnd
        q = _part(mosfet, f"Q{k}", parts.MOSFET)
        gate += q["G"]
        drain += q["D"]
        gnd += q["S"]
        solenoid = _part(coil, f"L{k}", parts.SOLENOID)
        vcoil += solenoid["+"]
        drain += solenoid["-"]
        flyback = _part(diode, f"D{k}", parts.FLYBACK_DIODE)
        vcoil += flyback["K"]
        drain += flyback["A"]

    inputs = [(f"sensor {k}", p) for k, p in enumerate(pins.sensors, 1)]
    if pins.lid is not None:
        inputs.append(("lid", pins.lid))
    for n, (role, pin) in enumerate(inputs, 1):
        line = Net(net_name(role))
        line += gpio(pin, INPUT)
        line & _part(resistor, f"RPU{n}", parts.INPUT_PULLUP) & v3
        if role == "lid":
            sw = _part(switch, "SW1", parts.LID_SWITCH)
            line += sw["1"]
            gnd += sw["2"]
        else:
            sensor = _part(module, f"J{2 + n}", parts.SENSOR_MODULE)
            v3 += sensor["VCC"]
            gnd += sensor["GND"]
            line += sensor["DO"]

    header_gpios = PI_HEADER if section == "pi" else PICO_HEADER
    if pins.led is not None and pins.led in header_gpios:
        line = Net(net_name("led"))
        line += gpio(pins.led, OUTPUT)
        anode = Net("LED_A")
        line & _part(resistor, "RL1", parts.LED_RESISTOR) & anode
        d = _part(led, "D5", parts.STATUS_LED)
        anode += d["A"]
        gnd += d["K"]

    circuit = header.circuit
    for p in header.pins:
        if not p.is_connected():
            circuit.NC += p
    return choices


def erc(built: Built) -> tuple[int, int, str]:
    """Run SKiDL's ERC: (errors, warnings, its report)."""
    report = io.StringIO()
    handler = logging.StreamHandler(report)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    erc_logger.addHandler(handler)
    try:
        _shallow(built.circuit.ERC)
    finally:
        erc_logger.removeHandler(handler)
    return erc_logger.error.count, erc_logger.warning.count, report.getvalue()


_DATE = re.compile(r'\(date "[^"]*"\)')
_SOURCE = re.compile(r'\(source "[^"]*"\)')


def netlist(built: Built) -> str:
    """The KiCad netlist (S-expression), made deterministic: no date, a relative source."""

    def work() -> str:
        with _quiet():
            return str(
                built.circuit.generate_netlist(
                    tool="kicad8", track_src=False, track_abs_path=False, do_backup=False
                )
            )

    text = _shallow(work)
    text = _DATE.sub('(date "")', text)
    text = _SOURCE.sub('(source "hardware/design/circuit.py")', text)
    return text.rstrip("\n") + "\n"


def connections(built: Built) -> dict[str, set[tuple[str, str]]]:
    """Net name -> {(part ref, pin name)}: what the schematic draws and the tests check."""
    out: dict[str, set[tuple[str, str]]] = {}
    for net in built.circuit.get_nets():
        if net.name.startswith("__"):
            continue
        out[net.name] = {(p.part.ref, p.name) for p in net.pins}
    return out


def pin_table() -> str:
    """Markdown: each net that reaches the controller, with its Pi and Pico pin."""
    where: dict[str, dict[str, str]] = {}
    for section in ("pi", "pico"):
        built = build(section)
        positions = {
            p.name: p.num
            for p in next(x for x in built.circuit.parts if x.ref == built.controller_ref).pins
        }
        for net, ends in connections(built).items():
            for ref, name in ends:
                if ref == built.controller_ref and not name.startswith(("GND", "3V3")):
                    where.setdefault(net, {})[section] = f"{name} (pin {positions[name]})"
    order = sorted(
        where, key=lambda n: (["COIL", "SENSE", "LID", "LED"].index(n.rstrip("0123456789")), n)
    )
    lines = ["| net | Raspberry Pi | Pico variant |", "|---|---|---|"]
    for net in order:
        on_board = f"GP{load_circuit_pin_map(section='pico').led} (on the Pico's board)"
        pi, pico = where[net].get("pi", "—"), where[net].get("pico", on_board)
        lines.append(f"| {net} | {pi} | {pico} |")
    return "\n".join(lines) + "\n"


def part_values(built: Built) -> dict[str, str]:
    """Part ref -> value, as in the netlist."""
    return {p.ref: str(p.value) for p in built.circuit.parts}


def write() -> list[Path]:
    """Regenerate both netlists; raise RuntimeError if the ERC finds an error."""
    written = []
    for section, path in NETLISTS.items():
        built = build(section)
        errors, _warnings, report = erc(built)
        if errors:
            raise RuntimeError(f"ERC of the {section} circuit: {errors} error(s)\n{report}")
        path.write_text(netlist(built), encoding="utf-8")
        written.append(path)
    return written
