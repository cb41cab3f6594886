"""Pin map loading: the repository's file loads; every error names file, key and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.box.pins import DEFAULT_PATH, PinMap, PinMapError, load_pin_map

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
