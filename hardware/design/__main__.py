"""Regenerate every hardware artifact: ``python -m hardware.design`` (needs the [hardware] extra).

Writes the KiCad netlists, the schematics, ``electrical.md``, the STL files and their
renders, ``bom.csv`` and the parts table in ``hardware/README.md``; prints each path.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from . import bom, circuit, electrical, mounts, schematic

README = circuit.HARDWARE / "README.md"
ELECTRICAL = circuit.HARDWARE / "electrical.md"
BOM_BLOCK = re.compile(r"(<!-- bom: generated -->\n).*?(<!-- /bom -->)", re.S)


def readme_text(current: str) -> str:
    """``current`` with its parts table (between the bom markers) regenerated."""
    if not BOM_BLOCK.search(current):
        raise ValueError(
            f"{README}: the <!-- bom: generated --> ... <!-- /bom --> markers are gone"
        )
    table = bom.markdown(bom.rows())
    return BOM_BLOCK.sub(lambda m: m[1] + table + m[2], current)


def main() -> int:
    written: list[Path] = []
    written += circuit.write()
    written += schematic.write()
    ELECTRICAL.write_text(electrical.render(), encoding="utf-8")
    written.append(ELECTRICAL)
    stls = mounts.write()
    written += stls
    written += mounts.write_renders(stls)
    written += bom.write()
    README.write_text(readme_text(README.read_text(encoding="utf-8")), encoding="utf-8")
    written.append(README)
    for path in written:
        print(path.relative_to(circuit.HARDWARE.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
