"""The circuit: SKiDL's ERC passes, its nets follow pins.toml, and the committed netlists and
schematics are what ``python -m hardware.design`` makes now."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

from controller.box.pins import (
    DEFAULT_PATH,
    PI_HEADER,
    PICO_HEADER,
    PinMap,
    load_circuit_pin_map,
    net_name,
)

from .tools import require_hardware_tools

require_hardware_tools()

from hardware.design import circuit, schematic  # noqa: E402

SECTIONS = ("pi", "pico")


@pytest.fixture(scope="module", params=SECTIONS)
def built(request: pytest.FixtureRequest) -> circuit.Built:
    return circuit.build(request.param)


def test_the_erc_finds_no_error_nor_warning(built: circuit.Built) -> None:
    errors, warnings, report = circuit.erc(built)
    assert (errors, warnings) == (0, 0), report


def test_the_erc_catches_two_gpio_outputs_shorted() -> None:
    """The check can fail: join COIL1 and COIL2 (two GPIO outputs) and the ERC reports it."""
    broken = circuit.build("pi")
    nets = {net.name: net for net in broken.circuit.get_nets()}
    nets["COIL1"] += nets["COIL2"]
    errors, _warnings, report = circuit.erc(broken)
    assert errors >= 1
    assert "OUTPUT connected to OUTPUT" in report


def test_every_coil_channel_has_its_mosfet_resistors_and_flyback_diode(
    built: circuit.Built,
) -> None:
    nets = circuit.connections(built)
    ref = built.controller_ref
    gnd = nets["GND"]
    for k in range(1, 5):
        assert nets[f"COIL{k}"] == {
            (ref, _pin_name(built, built.pins.coils[k - 1])),
            (f"RG{k}", "~"),
        }
        assert nets[f"COIL{k}_GATE"] == {(f"RG{k}", "~"), (f"RPD{k}", "~"), (f"Q{k}", "G")}
        assert nets[f"COIL{k}_DRAIN"] == {(f"Q{k}", "D"), (f"L{k}", "-"), (f"D{k}", "A")}
        assert {(f"Q{k}", "S"), (f"RPD{k}", "~")} <= gnd
        assert {(f"L{k}", "+"), (f"D{k}", "K")} <= nets["VCOIL"]  # diode stripe to the supply +
    assert nets["VCOIL_IN"] == {("J2", "+"), ("F1", "~")}  # the supply reaches coils via the fuse
    assert ("F1", "~") in nets["VCOIL"] and ("C1", "+") in nets["VCOIL"]
    assert {("J2", "-"), ("C1", "-")} <= gnd
    assert any(r == ref for r, _ in gnd), "the coil supply's ground is common with the board's"
    values = circuit.part_values(built)
    assert values["RG1"] == "220 Ω" and values["RPD1"] == "10 kΩ" and values["Q1"] == "AO3400A"


def test_sensors_and_lid_read_3v3_logic_with_pull_ups(built: circuit.Built) -> None:
    nets = circuit.connections(built)
    for k in range(1, 5):
        sense = nets[f"SENSE{k}"]
        module = next(r for r, name in sense if name == "DO")
        assert (module, "VCC") in nets["+3V3"] and (module, "GND") in nets["GND"]
        pull_up = next(r for r, _ in sense if r.startswith("RPU"))
        assert (pull_up, "~") in nets["+3V3"]
    assert ("SW1", "1") in nets["LID"] and ("SW1", "2") in nets["GND"]
    assert not any(name == "5V" for _ref, name in nets["+3V3"]), "sensors never on 5 V"


def _pin_name(built: circuit.Built, pin: int) -> str:
    return f"{'GPIO' if built.section == 'pi' else 'GP'}{pin}"


# -- the netlist against the pin map (read back from the file, not from the code) ------------

NODE = re.compile(r'\(node\s+\(ref "([^"]+)"\)\s+\(pin "?(\d+)"?\)')
NET = re.compile(r'\(net\s+\(code "?\d+"?\)\s+\(name "([^"]+)"\)(.*?)(?=\(net\s+\(code|\Z)', re.S)


def header_positions(netlist: str, ref: str) -> dict[str, set[int]]:
    """Net name -> positions of ``ref``'s pins on it, parsed from a KiCad netlist."""
    out: dict[str, set[int]] = {}
    for name, body in NET.findall(netlist):
        positions = {int(pin) for r, pin in NODE.findall(body) if r == ref}
        if positions:
            out[name] = positions
    return out


def disagreements(netlist: str, pins: PinMap, section: str) -> list[str]:
    """Each role of ``pins`` whose net does not reach the header position of its GPIO."""
    ref, header = ("J1", PI_HEADER) if section == "pi" else ("U1", PICO_HEADER)
    found = header_positions(netlist, ref)
    wrong = []
    for role, pin in pins.all_pins().items():
        if pin not in header:
            continue  # on the board itself (the Pico's LED)
        if found.get(net_name(role)) != {header[pin]}:
            wrong.append(
                f"{role}: {net_name(role)} on {found.get(net_name(role))}, not {header[pin]}"
            )
    return wrong


@pytest.mark.parametrize("section", SECTIONS)
def test_the_committed_netlist_agrees_with_pins_toml(section: str) -> None:
    netlist = circuit.NETLISTS[section].read_text(encoding="utf-8")
    assert disagreements(netlist, load_circuit_pin_map(section=section), section) == []
    # 4 coils, 4 sensors, lid, +3V3, GND, and the LED where it is not on the Pico's board
    assert len(header_positions(netlist, "J1" if section == "pi" else "U1")) >= 11


def test_a_pin_moved_in_pins_toml_makes_the_netlist_disagree(tmp_path: Path) -> None:
    moved = tmp_path / "pins.toml"
    moved.write_text(
        DEFAULT_PATH.read_text(encoding="utf-8").replace("coils = [17,", "coils = [4,"),
        encoding="utf-8",
    )
    pins = load_circuit_pin_map(moved)
    committed = circuit.NETLISTS["pi"].read_text(encoding="utf-8")
    assert disagreements(committed, pins, "pi") == ["coil 1: COIL1 on {11}, not 7"]
    rebuilt = circuit.netlist(circuit.build("pi", moved))
    assert disagreements(rebuilt, pins, "pi") == []
    assert rebuilt != committed


def test_the_circuit_follows_a_changed_pin_map_into_the_schematic(tmp_path: Path) -> None:
    shutil.copy(DEFAULT_PATH, tmp_path / "pins.toml")
    text = (
        (tmp_path / "pins.toml")
        .read_text(encoding="utf-8")
        .replace("sensors = [5,", "sensors = [24,")
    )
    (tmp_path / "pins.toml").write_text(text, encoding="utf-8")
    svg = schematic.svg(circuit.build("pi", tmp_path / "pins.toml"))
    assert "GPIO24 (pin 18)" in svg and "GPIO5 (pin 29)" not in svg


# -- generated files are current --------------------------------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
def test_the_netlist_is_current(section: str) -> None:
    made = circuit.netlist(circuit.build(section))
    assert made == circuit.NETLISTS[section].read_text(encoding="utf-8"), (
        "run: python -m hardware.design"
    )
    assert '(date "")' in made and "/work/" not in made


@pytest.mark.parametrize("section", SECTIONS)
def test_the_schematic_is_current_and_carries_every_value_and_net(section: str) -> None:
    built = circuit.build(section)
    made = schematic.svg(built)
    assert made == schematic.SVGS[section].read_text(encoding="utf-8"), (
        "run: python -m hardware.design"
    )
    for net in circuit.connections(built):
        assert f">{net}</tspan>" in made, net
    for ref, value in circuit.part_values(built).items():
        assert ref in made, ref
        assert value in made, f"{ref} {value}"


def test_the_readme_shows_the_schematic() -> None:
    readme = (circuit.HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "](schematic.svg)" in readme
    assert not (circuit.HARDWARE / "wiring.svg").exists()


def test_skidl_leaves_the_processs_loggers_alone() -> None:
    """SKiDL makes every later logger of the process its own, whose debug() adds a string to
    the message; circuit.py puts the class back. Before, numba's loggers (made later in the
    same test process, for a rule-A tree compiled there) failed on their lazy messages, and
    the computer never moved (CI, session 23)."""
    assert logging.getLoggerClass() is logging.Logger
    logging.getLogger("diablotin.tests.after-skidl").debug(object())  # a message no str
