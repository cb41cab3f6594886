"""The bill of materials (``hardware/bom.csv``): the Pi build's circuit plus the mechanical
parts, one row per component; and its Markdown table for ``hardware/README.md``.

Circuit rows come from :func:`circuit.build` (a changed value or an added part shows up
here); printed parts are priced by their PLA mass, from the models' exact volumes (not the
meshes, whose triangles vary with the CAD kernel's version).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from . import circuit, electrical, mounts, parts

BOM = circuit.HARDWARE / "bom.csv"
FIELDS = (
    "refs",
    "part",
    "value",
    "quantity",
    "part_number",
    "price_each_eur",
    "price_eur",
    "optional",
)
PLA_EUR_PER_G = 0.02
OPTIONAL_REFS = ("SW1", "RPU5", "RL1", "D5")
"""The lid switch and the status LED (with their resistors) are optional."""


@dataclass(frozen=True)
class Row:
    refs: str
    part: str
    value: str
    quantity: int
    part_number: str
    price_each_eur: float
    optional: bool = False

    @property
    def price_eur(self) -> float:
        return round(self.quantity * self.price_each_eur, 2)


def _circuit_rows(built: circuit.Built) -> list[Row]:
    values = circuit.part_values(built)
    groups: dict[tuple[parts.Choice, str, bool], list[str]] = defaultdict(list)
    for ref, choice in built.choices.items():
        groups[(choice, values[ref], ref in OPTIONAL_REFS)].append(ref)
    rows = []
    for (choice, value, optional), refs in groups.items():
        refs.sort(
            key=lambda r: (r.rstrip("0123456789"), int("0" + r[len(r.rstrip("0123456789")) :]))
        )
        rows.append(
            Row(
                " ".join(refs),
                choice.part,
                value,
                len(refs),
                choice.part_number,
                choice.price_eur,
                optional,
            )
        )
        if choice is parts.MOSFET:
            a = parts.SOT23_ADAPTER
            rows.append(Row("", a.part, a.value, len(refs), a.part_number, a.price_eur))
        if choice is parts.SOLENOID:
            t = parts.SCREW_TERMINAL
            rows.append(Row("", t.part, t.value, len(refs), t.part_number, t.price_eur))
        if choice is parts.FUSE_HOLDER:
            rating = electrical.fuse_rating_a()
            rows.append(
                Row(
                    " ".join(refs),
                    "fuse, slow-blow 5×20 mm",
                    f"{rating:g} A T",
                    len(refs),
                    parts.FUSES[rating],
                    parts.FUSE_PRICE_EUR,
                )
            )
    return rows


def _mechanical_rows() -> list[Row]:
    need = electrical.supply_current_a()
    supply, supply_price = next(v for a, v in sorted(parts.SUPPLIES.items()) if a >= need)
    arm = mounts.CameraArm()
    rows = [
        Row(
            "",
            "Raspberry Pi with a 40-pin header",
            "Zero 2 W up to Pi 5",
            1,
            "Raspberry Pi Zero 2 W (SC1146)",
            18.0,
        ),
        Row(
            "",
            "Raspberry Pi power supply",
            "5.1 V 2.5 A, micro-USB",
            1,
            "Raspberry Pi 12.5 W micro-USB supply (SC0614)",
            9.0,
        ),
        Row(
            "",
            "coil power supply",
            f"{electrical.DESIGN_SOLENOID.supply_v:g} V, >= {need:.2f} A",
            1,
            supply,
            supply_price,
        ),
        Row(
            "",
            parts.BOARD.part,
            parts.BOARD.value,
            1,
            parts.BOARD.part_number,
            parts.BOARD.price_eur,
        ),
        Row(
            "",
            "wooden dowel for the camera arm",
            f"Ø {arm.rod_d:g} mm, cut to {arm.rod_length:.0f} mm",
            1,
            "beech dowel 12 mm × 1 m",
            3.0,
        ),
        Row(
            "",
            "Raspberry Pi Camera Module 3 (for camera play)",
            "12 MP",
            1,
            "Raspberry Pi SC0872",
            25.0,
            True,
        ),
        Row(
            "",
            "screw M4 × 12, wood",
            "feet of the bridge and the camera base",
            6,
            "DIN 7997 M4 × 12 (or 4 × 12 wood screw)",
            0.05,
        ),
        Row("", "screw M2 × 6 with nut", "camera module to the arm", 4, "DIN 912 M2 × 6", 0.08),
    ]
    for name, shape in sorted(mounts.parts_to_print().items()):
        grams = mounts.grams(shape)
        rows.append(
            Row(
                "",
                f"printed part: {name}.stl",
                f"PLA, {grams:.0f} g solid",
                1,
                f"hardware/stl/{name}.stl",
                round(grams * PLA_EUR_PER_G, 2),
            )
        )
    return rows


def rows() -> list[Row]:
    """Every row: the circuit's parts, then the mechanical ones."""
    return _circuit_rows(circuit.build("pi")) + _mechanical_rows()


def to_csv(bom: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for r in bom:
        writer.writerow(
            [
                r.refs,
                r.part,
                r.value,
                r.quantity,
                r.part_number,
                f"{r.price_each_eur:.2f}",
                f"{r.price_eur:.2f}",
                "yes" if r.optional else "",
            ]
        )
    return out.getvalue()


def totals(bom: list[Row]) -> tuple[float, float]:
    """(everything, without the optional parts) in euros."""
    every = round(sum(r.price_eur for r in bom), 2)
    needed = round(sum(r.price_eur for r in bom if not r.optional), 2)
    return every, needed


def markdown(bom: list[Row]) -> str:
    """The README's parts table with the totals."""
    lines = ["| refs | part | value | qty | example part number | € |", "|---|---|---|---|---|---|"]
    for r in bom:
        name = f"{r.part} (optional)" if r.optional else r.part
        lines.append(
            f"| {r.refs} | {name} | {r.value} | {r.quantity} | {r.part_number} | "
            f"{r.price_eur:.2f} |"
        )
    every, needed = totals(bom)
    lines += [
        "",
        f"**Total: about {needed:.0f} €** for the box ({every:.0f} € with the optional lid "
        "switch, status LED and camera). Prices are approximate, for one unit each.",
    ]
    return "\n".join(lines) + "\n"


def write() -> list[Path]:
    BOM.write_text(to_csv(rows()), encoding="utf-8")
    return [BOM]
