"""electrical.md, bom.csv and the README's generated tables are what the command makes now;
the numbers in them hold against the software's limits and the circuit."""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest

from controller.box.base import Limits

from .tools import require_hardware_tools

require_hardware_tools()

from hardware.design import __main__ as build  # noqa: E402
from hardware.design import bom, circuit, electrical  # noqa: E402

STALE = "stale: run python -m hardware.design"


def test_electrical_md_is_current() -> None:
    assert build.ELECTRICAL.read_text(encoding="utf-8") == electrical.render(), STALE


def test_every_design_check_passes() -> None:
    failed = [name for name, ok in electrical.checks() if not ok]
    assert failed == []
    assert "- [ ]" not in electrical.render()


def test_the_worst_case_follows_the_software_limits() -> None:
    assert electrical.worst_coil_duty() == Limits.MAX_DUTY == 0.10
    assert electrical.worst_supply_duty() == pytest.approx(0.40)
    assert [round(s.current_a, 2) for s in electrical.SOLENOIDS] == [1.0, 0.5]
    ao3400 = electrical.MOSFETS[0]
    # 1 A through 48 mΩ, on 10 % of the time
    assert electrical.mosfet_dissipation_w(ao3400, electrical.SOLENOIDS[0], 0.1) == pytest.approx(
        0.0048
    )
    assert electrical.fuse_rating_a() == 1.25  # smallest standard rating >= 1.25 × 1 A
    text = electrical.render()
    assert "48 mW / 4.8 mW" in text and "**1.25 A T**" in text


def test_a_tighter_duty_limit_changes_the_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The numbers are computed, not typed: change a limit and electrical.md changes."""
    before = electrical.render()
    monkeypatch.setattr(Limits, "MAX_DUTY", 0.05)
    after = electrical.render()
    assert after != before and "**5%**" in after


def test_the_fuse_in_the_circuit_is_the_computed_one() -> None:
    values = circuit.part_values(circuit.build("pi"))
    assert values["F1"] == f"{electrical.fuse_rating_a():g} A T"


def read_bom() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(bom.BOM.read_text(encoding="utf-8"))))


def test_bom_csv_is_current_and_has_the_columns_a_buyer_needs() -> None:
    assert bom.BOM.read_text(encoding="utf-8") == bom.to_csv(bom.rows()), STALE
    rows = read_bom()
    for row in rows:
        assert row["part"] and row["value"] and row["part_number"], row
        assert int(row["quantity"]) >= 1
        assert float(row["price_eur"]) == pytest.approx(
            int(row["quantity"]) * float(row["price_each_eur"]), abs=0.011
        )


def test_every_part_of_the_circuit_is_in_the_bom_once() -> None:
    refs = [
        ref
        for row in read_bom()
        if row["part"] != "fuse, slow-blow 5×20 mm"
        for ref in row["refs"].split()
    ]
    assert sorted(refs) == sorted(circuit.build("pi").choices)
    printed = {row["part_number"] for row in read_bom() if row["part"].startswith("printed part")}
    assert printed == {
        "hardware/stl/solenoid_bridge.stl",
        "hardware/stl/camera_base.stl",
        "hardware/stl/camera_head.stl",
    }


def test_the_readme_tables_and_total_are_current() -> None:
    readme = build.README.read_text(encoding="utf-8")
    assert build.readme_text(readme) == readme, STALE
    rows = read_bom()
    needed = sum(float(r["price_eur"]) for r in rows if not r["optional"])
    everything = sum(float(r["price_eur"]) for r in rows)
    total = re.search(r"\*\*Total: about (\d+) €\*\* for the box \((\d+) € with", readme)
    assert total, "the README shows no total"
    assert (int(total[1]), int(total[2])) == (round(needed), round(everything))
    assert "| COIL1 | GPIO17 (pin 11) | GP10 (pin 14) |" in readme


def test_the_readme_command_is_the_one_that_builds() -> None:
    readme = build.README.read_text(encoding="utf-8")
    assert ".venv/bin/python -m hardware.design " in readme
    assert ".venv/bin/pytest tests/hardware" in readme
    with pytest.raises(ValueError, match="markers"):
        build.readme_text("no markers here")


def test_the_one_command_remakes_every_file_as_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m hardware.design`` run into a scratch folder writes the committed files."""
    from hardware.design import mounts, schematic

    hw = circuit.HARDWARE
    shutil.copy(build.README, tmp_path / "README.md")
    monkeypatch.setattr(
        circuit, "NETLISTS", {s: tmp_path / p.name for s, p in circuit.NETLISTS.items()}
    )
    monkeypatch.setattr(
        schematic, "SVGS", {s: tmp_path / p.name for s, p in schematic.SVGS.items()}
    )
    monkeypatch.setattr(build, "ELECTRICAL", tmp_path / "electrical.md")
    monkeypatch.setattr(build, "README", tmp_path / "README.md")
    monkeypatch.setattr(bom, "BOM", tmp_path / "bom.csv")
    monkeypatch.setattr(mounts, "STL", tmp_path / "stl")
    monkeypatch.setattr(mounts, "RENDERS", tmp_path / "renders")
    monkeypatch.setattr(circuit, "HARDWARE", tmp_path)
    assert build.main() == 0
    printed = capsys.readouterr().out.split()
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert len(printed) == len(written) == 13
    for name in written:
        if name.endswith((".stl", ".png")):
            assert (hw / name).is_file(), name  # meshes: compared in test_mounts
        else:
            assert (tmp_path / name).read_bytes() == (hw / name).read_bytes(), f"{name} is {STALE}"


def test_the_readme_states_the_mounts_defaults_the_code_uses() -> None:
    from hardware.design import mounts

    readme = build.README.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[\w`, ]+`) \| [^|]+ \| ([\d., ]+) \|$", readme, re.M)
    assert len(rows) >= 10
    bridge, arm = vars(mounts.Bridge()), vars(mounts.CameraArm())
    assert set(bridge) & set(arm) == set(), "one name, one parameter (the mounts command)"
    defaults = {**bridge, **arm}
    for names, values in rows:
        for name, value in zip(re.findall(r"`(\w+)`", names), values.split(","), strict=True):
            assert defaults[name] == float(value), name
