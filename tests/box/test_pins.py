"""Pin map loading: the repository's file loads; every error names file, key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.box.pins import (
    DEFAULT_PATH,
    PI_HEADER,
    PICO_HEADER,
    PinMap,
    PinMapError,
    describe_pin,
    load_circuit_pin_map,
    load_pin_map,
    net_name,
)

GOOD = """
[pi]
coils = [17, 27, 22, 23]
sensors = [5, 6, 13, 19]
sensor_present = "low"
lid = 26
led = 12

[pico]
coils = [10, 11, 12, 13]
sensors = [2, 3, 4, 5]
sensor_present = "high"
led = 25
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_repository_pin_map_loads_both_sections() -> None:
    assert DEFAULT_PATH.name == "pins.toml" and DEFAULT_PATH.parent.name == "hardware"
    pi = load_pin_map()
    assert pi == PinMap(coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19), sensor_present="low")
    pico = load_pin_map(section="pico")
    assert pico == PinMap(coils=(10, 11, 12, 13), sensors=(2, 3, 4, 5), led=25)


def test_a_full_file_loads_every_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    assert load_pin_map(path, "pi") == PinMap(
        coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19), sensor_present="low", lid=26, led=12
    )
    pico = load_pin_map(path, "pico")
    assert pico.sensor_present == "high"
    assert pico.lid is None
    assert pico.all_pins() == {
        "coil 1": 10, "coil 2": 11, "coil 3": 12, "coil 4": 13,
        "sensor 1": 2, "sensor 2": 3, "sensor 3": 4, "sensor 4": 5, "led": 25,
    }  # fmt: skip


BASE = "coils = [17, 27, 22, 23]\nsensors = [5, 6, 13, 19]\n"


@pytest.mark.parametrize(
    ("body", "key", "reason"),
    [
        (BASE + "coil_pulse = 3\n", "coil_pulse", "unknown key"),
        ('coils = "17"\nsensors = [5, 6, 13, 19]\n', "coils", "must be a list of 4 pin numbers"),
        ("coils = [17, 27, 22]\nsensors = [5, 6, 13, 19]\n", "coils", "needs exactly 4 pins"),
        ("coils = [17, 27, 22, 23, 24]\nsensors = [5, 6, 13, 19]\n", "coils", "got 5"),
        ('coils = [17, 27, "22", 23]\nsensors = [5, 6, 13, 19]\n', "coils", "must be a list"),
        ("coils = [17, 27, true, 23]\nsensors = [5, 6, 13, 19]\n", "coils", "must be a list"),
        ("coils = [17, 27, 22, 23]\nsensors = [5, 6, 13, 17]\n", "sensors", "used twice"),
        ("coils = [17, 17, 22, 23]\nsensors = [5, 6, 13, 19]\n", "coils", "used twice"),
        (BASE + "lid = 5\n", "lid", "pin 5 is used twice (sensor 1 and lid)"),
        (BASE + "led = 28\n", "led", "outside 0-27"),
        ("coils = [17, 27, 22, -1]\nsensors = [5, 6, 13, 19]\n", "coils", "outside 0-27"),
        (BASE + 'sensor_present = "LOW"\n', "sensor_present", 'must be "low" or "high"'),
        (BASE + 'lid = "26"\n', "lid", "must be a pin number"),
        (BASE + "led = 1.5\n", "led", "must be a pin number"),
        ("sensors = [5, 6, 13, 19]\n", "coils", "missing"),
        ("coils = [17, 27, 22, 23]\n", "sensors", "missing"),
    ],
)
def test_bad_pin_maps_are_refused_naming_file_key_and_reason(
    tmp_path: Path, body: str, key: str, reason: str
) -> None:
    path = write(tmp_path, "[pi]\n" + body)
    with pytest.raises(PinMapError) as caught:
        load_pin_map(path, "pi")
    message = str(caught.value)
    assert message.startswith(f"{path} [pi]: {key}: ")
    assert reason in message
    assert caught.value.key == key
    assert isinstance(caught.value, ValueError)


def test_pico_pins_go_up_to_gp28_but_not_further(tmp_path: Path) -> None:
    path = write(tmp_path, "[pico]\ncoils = [10, 11, 12, 28]\nsensors = [2, 3, 4, 5]\n")
    assert load_pin_map(path, "pico").coils == (10, 11, 12, 28)
    path = write(tmp_path, "[pico]\ncoils = [10, 11, 12, 29]\nsensors = [2, 3, 4, 5]\n")
    with pytest.raises(PinMapError, match=r"coils: coil 4: pin 29 is outside 0-28"):
        load_pin_map(path, "pico")


def test_file_level_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(PinMapError, match=rf"^{missing}: cannot read the pin map"):
        load_pin_map(missing)
    broken = write(tmp_path, "[pi\ncoils = [1, 2, 3, 4]\n")
    with pytest.raises(PinMapError, match=rf"^{broken}: not valid TOML"):
        load_pin_map(broken)
    no_section = write(tmp_path, "[pico]\n" + BASE)
    with pytest.raises(PinMapError, match=rf"^{no_section}: \[pi\]: section missing"):
        load_pin_map(no_section, "pi")


def test_unknown_section_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="section must be one of"):
        load_pin_map(section="arduino")


def test_a_pin_map_built_in_code_is_checked_too() -> None:
    assert PinMap(coils=[1, 2, 3, 4], sensors=[5, 6, 7, 8]).coils == (1, 2, 3, 4)  # type: ignore[arg-type]
    with pytest.raises(PinMapError, match=r"^PinMap: sensors: needs exactly 4 pins"):
        PinMap(coils=(1, 2, 3, 4), sensors=(5, 6, 7))  # type: ignore[arg-type]


# -- the circuit's view: [pi_optional] / [pico_optional], net names, header positions --------


def test_the_circuit_map_adds_the_optional_lid_and_led_the_service_leaves_out() -> None:
    assert load_pin_map().lid is None  # the service: not fitted until copied into [pi]
    assert load_circuit_pin_map() == PinMap(
        coils=(17, 27, 22, 23), sensors=(5, 6, 13, 19), lid=26, led=12
    )
    assert load_circuit_pin_map(section="pico").lid == 6


@pytest.mark.parametrize(
    ("extra", "key", "reason"),
    [
        ("[pi_optional]\nlid = 5\n", "lid", "pin 5 is used twice (sensor 1 and lid)"),
        ("[pi_optional]\nbuzzer = 4\n", "buzzer", "unknown key (allowed: lid, led)"),
        ("[pi_optional]\nled = 13\n", "led", "differs from [pi] led = 12"),
        ("[pi_optional]\nled = 40\n", "led", "outside 0-27"),
    ],
)
def test_bad_optional_pins_are_refused(tmp_path: Path, extra: str, key: str, reason: str) -> None:
    base = GOOD if "differs" in reason else GOOD.replace("lid = 26\nled = 12\n", "")
    path = write(tmp_path, base + extra)
    with pytest.raises(PinMapError) as caught:
        load_circuit_pin_map(path)
    assert caught.value.key == key
    assert reason in str(caught.value)
    assert load_pin_map(path).coils == (17, 27, 22, 23)  # the service ignores the table


def test_net_names_and_header_positions() -> None:
    assert [net_name(r) for r in ("coil 1", "sensor 4", "lid", "led")] == [
        "COIL1",
        "SENSE4",
        "LID",
        "LED",
    ]
    with pytest.raises(ValueError):
        net_name("buzzer")
    # the Pi's header: 28 GPIOs on distinct positions; GPIO17 is pin 11, GPIO21 pin 40
    assert len(set(PI_HEADER.values())) == len(PI_HEADER) == 28
    assert (PI_HEADER[17], PI_HEADER[21], PI_HEADER[2]) == (11, 40, 3)
    assert (PICO_HEADER[0], PICO_HEADER[10], PICO_HEADER[28]) == (1, 14, 34)
    assert describe_pin("coil 1", 17) == "net COIL1 on GPIO17 (header pin 11)"
    assert describe_pin("led", 25, "pico") == "net LED on GP25 (on the Pico's board)"
