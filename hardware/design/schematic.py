"""The schematic a person reads (``hardware/schematic.svg``), drawn from the SKiDL circuit.

Every part's reference and value and every net name come from :mod:`circuit` (and so from
``pins.toml``); the drawing only places them. Wires that would cross the page are drawn as
net labels: two labels with the same name are one net, as on any schematic.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import schemdraw
import schemdraw.elements as elm

from . import circuit

SVGS = {"pi": circuit.HARDWARE / "schematic.svg", "pico": circuit.HARDWARE / "schematic-pico.svg"}
FONT = 11


def _pin_of(conns: dict[str, set[tuple[str, str]]], net: str, ref: str) -> str:
    """The controller pin name on ``net`` (e.g. ``GPIO17``)."""
    names = sorted(name for r, name in conns.get(net, set()) if r == ref)
    if not names:
        raise ValueError(f"net {net} does not reach {ref}")
    return names[0]


def draw(built: circuit.Built) -> schemdraw.Drawing:
    """The whole schematic of ``built``."""
    conns = circuit.connections(built)
    values = circuit.part_values(built)
    ref = built.controller_ref

    def label(part: str) -> str:
        return f"{part}\n{values[part]}"

    d = schemdraw.Drawing(show=False)
    d.config(fontsize=FONT, unit=2.5)

    # -- the controller: every used pin with its net ------------------------------------------
    pi = built.section == "pi"
    header_pins = {p.name: p.num for p in next(x for x in built.circuit.parts if x.ref == ref).pins}
    used = []
    for net in sorted(conns):
        for r, name in sorted(conns[net]):
            if r == ref and not name.startswith(("GND", "3V3")):
                used.append((net, name))
    used.sort(key=lambda item: (item[0].startswith(("SENSE", "LID")), item[0]))
    pins = [
        elm.IcPin(name=f"{name} (pin {header_pins[name]})", side="R", anchorname=net)
        for net, name in used
    ]
    pins += [
        elm.IcPin(
            name=f"3V3 (pin {header_pins['3V3' if pi else '3V3_OUT']})",
            side="L",
            anchorname="P3V3",
            pos=0.8,
        ),
        elm.IcPin(name="GND (all)", side="L", anchorname="PGND", pos=0.2),
    ]
    title = f"{ref}  {values[ref]}  " + (
        "Raspberry Pi 40-pin header" if pi else "Raspberry Pi Pico"
    )
    ic = d.add(elm.Ic(pins=pins, size=(7, 0.8 * len(used) + 1)).label(title, "top"))
    for net, _name in used:
        d.add(elm.Line().right(1.2).at(ic.absanchors[net]))
        d.add(elm.Tag().right().label(net, fontsize=FONT))
    d.add(elm.Line().left(1).at(ic.absanchors["P3V3"]))
    d.add(elm.Vdd().label("+3V3"))
    d.add(elm.Line().left(1).at(ic.absanchors["PGND"]))
    d.add(elm.Ground().label("GND", "right"))

    # -- coil supply ----------------------------------------------------------------------------
    x0, y0 = 2.0, -13.0
    d.add(elm.Dot(open=True).at((x0, y0)).label(f"J2 +\n{values['J2']} supply", "left"))
    d.add(elm.Line().right(2).label("VCOIL_IN", "bottom", fontsize=FONT - 2))
    d.add(elm.Fuse().right().label(label("F1")))
    vcoil = d.add(elm.Dot())
    d.add(elm.Line().right(1))
    d.add(elm.Tag().right().label("VCOIL", fontsize=FONT))
    d.add(elm.Capacitor(polar=True).down().at(vcoil.center).label(label("C1"), "bottom"))
    d.add(elm.Ground())
    d.add(elm.Dot(open=True).at((x0, y0 - 2.5)).label("J2 −", "left"))
    d.add(elm.Ground())

    # -- four coil channels ---------------------------------------------------------------------
    for k in range(1, 5):
        x, y = 14.0 + (k - 1) * 7.5, -4.0
        ctrl = f"COIL{k}"
        pin = _pin_of(conns, ctrl, ref)
        d.add(elm.Tag().left().at((x, y)).label(f"{ctrl}\n{pin}", fontsize=FONT))
        d.add(elm.Resistor().right().at((x, y)).label(label(f"RG{k}"), "top"))
        gate = d.add(elm.Dot().label(f"{ctrl}_GATE", "bottom", ofst=(0.2, -0.1), fontsize=FONT - 3))
        d.add(elm.Line().right(1.2))
        fet = d.add(elm.NFet().reverse().anchor("gate"))
        d.add(elm.Resistor().down().at(gate.center).label(label(f"RPD{k}"), "bottom"))
        d.add(elm.Ground())
        d.add(elm.Ground().at(fet.source))
        d.add(elm.Label().at(fet.center).label(label(f"Q{k}"), "right", ofst=(0.6, 0)))
        d.add(elm.Line().up(1.0).at(fet.drain))
        drain = d.add(elm.Dot().label(f"{ctrl}_DRAIN", "left", fontsize=FONT - 3))
        coil = d.add(elm.Inductor2(loops=3).up().label(label(f"L{k}"), "top"))
        d.add(elm.Tag().up().at(coil.end).label("VCOIL", fontsize=FONT - 1))
        d.add(elm.Line().right(1.5).at(drain.center))
        d.add(elm.Diode().up().label(label(f"D{k}"), "right"))
        d.add(elm.Line().left(1.5))
        d.add(elm.Dot())

    # -- sensors, lid, LED ----------------------------------------------------------------------
    inputs = sorted(n for n in conns if n.startswith("SENSE")) + (["LID"] if "LID" in conns else [])
    for n, net in enumerate(inputs, 1):
        x, y = 14.0 + (n - 1) * 6.0, -13.0
        pin = _pin_of(conns, net, ref)
        pullup = next(r for r, _ in conns[net] if r.startswith("RPU"))
        d.add(elm.Tag().left().at((x, y)).label(f"{net}\n{pin}", fontsize=FONT))
        node = d.add(elm.Dot().at((x, y)))
        d.add(elm.Resistor().up().at(node.center).label(label(pullup), "bottom"))
        d.add(elm.Vdd().label("+3V3"))
        d.add(elm.Line().down(1).at(node.center))
        if net == "LID":
            d.add(elm.Switch().down().label(label("SW1") + "\nclosed = low", "top"))
            d.add(elm.Ground())
        else:
            module = next(r for r, _ in conns[net] if r.startswith("J") and r != ref)
            d.add(elm.Dot(open=True).label(f"{module} DO", "right"))
            d.add(
                elm.Label()
                .at((x, y - 2.0))
                .label(f"{values[module]} module\nVCC +3V3, GND\n(die = low)", "bottom")
            )
    if "LED" in conns:
        x, y = 14.0 + len(inputs) * 6.0, -13.0
        pin = _pin_of(conns, "LED", ref)
        d.add(elm.Tag().left().at((x, y)).label(f"LED\n{pin}", fontsize=FONT))
        d.add(elm.Resistor().down().at((x, y)).label(label("RL1"), "top"))
        d.add(elm.Dot().label("LED_A", "left", fontsize=FONT - 3))
        d.add(elm.LED().down().label(label("D5"), "top"))
        d.add(elm.Ground())
    elif built.pins.led is not None:
        d.add(
            elm.Label()
            .at((14.0 + len(inputs) * 6.0, -13.0))
            .label(f"status LED: GP{built.pins.led}, on the Pico's board")
        )
    d.add(
        elm.Label()
        .at((ic.get_bbox(transform=True).xmin, ic.get_bbox(transform=True).ymax + 2))
        .label(
            f"Diablotin, {'Raspberry Pi' if pi else 'Pico co-processor'} build: generated by "
            "python -m hardware.design from hardware/pins.toml. Pin numbers in brackets are "
            "positions on the connector; equal net labels are one net.",
            halign="left",
        )
    )
    return d


def svg(built: circuit.Built) -> str:
    """The schematic as SVG text (schemdraw's own SVG backend: no fonts, no matplotlib)."""
    schemdraw.use("svg")
    # schemdraw makes SVG the default namespace when imported; a later import of svgpathtools
    # (by build123d) maps it to "svg:" instead, which would change every tag of the file.
    ElementTree.register_namespace("", "http://www.w3.org/2000/svg")
    data = draw(built).get_imagedata("svg")
    text = data.decode("utf-8") if isinstance(data, bytes) else str(data)
    return text.rstrip("\n") + "\n"


def write() -> list[Path]:
    written = []
    for section, path in SVGS.items():
        path.write_text(svg(circuit.build(section)), encoding="utf-8")
        written.append(path)
    return written
