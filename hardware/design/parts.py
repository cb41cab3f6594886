"""The box's component choices: one place for each value, example part number and price.

The circuit (``circuit.py``) places these, the BOM (``bom.py``) counts them and
``electrical.py`` explains them. Prices are approximate single-unit prices in euros (2025,
small distributors or marketplaces); part numbers are one example each, not the only choice.
The coil-channel values are checked by ``electrical.py``: change one here and the numbers in
``electrical.md`` follow.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Choice:
    """A component as ordered: what it is, its value, one example part number, € each."""

    part: str
    value: str
    part_number: str
    price_eur: float
    footprint: str = ""


GATE_RESISTOR = Choice(
    "resistor",
    "220 Ω",
    "Yageo CFR-25JB-52-220R",
    0.05,
    "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
)
GATE_PULLDOWN = Choice(
    "resistor",
    "10 kΩ",
    "Yageo CFR-25JB-52-10K",
    0.05,
    "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
)
INPUT_PULLUP = GATE_PULLDOWN
LED_RESISTOR = Choice(
    "resistor",
    "330 Ω",
    "Yageo CFR-25JB-52-330R",
    0.05,
    "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
)
MOSFET = Choice(
    "logic-level N-MOSFET, SOT-23 (on a SOT-23 to DIP adapter for perfboard)",
    "AO3400A",
    "Alpha & Omega AO3400A (or Infineon IRLML6344TRPBF)",
    0.15,
    "Package_TO_SOT_SMD:SOT-23",
)
SOT23_ADAPTER = Choice("SOT-23 to DIP adapter board", "SOT-23", "Adafruit 1230", 0.60)
FLYBACK_DIODE = Choice(
    "flyback diode",
    "1N4007",
    "Diodes Inc. 1N4007-T",
    0.05,
    "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal",
)
SOLENOID = Choice(
    "push solenoid 5 V, 10 mm stroke",
    "JF-0530B 5 V",
    "JF-0530B (5 V version)",
    3.50,
    "TerminalBlock_Phoenix:TerminalBlock_Phoenix_MKDS-1,5-2_1x02_P5.00mm_Horizontal",
)
COIL_SUPPLY = Choice(
    "coil power supply input (barrel jack)",
    "5 V",
    "CUI PJ-002A",
    0.60,
    "Connector_BarrelJack:BarrelJack_CUI_PJ-002A_Horizontal",
)
FUSE_HOLDER = Choice(
    "fuse holder 5×20 mm, PCB",
    "5×20 mm",
    "Schurter 0031.8201",
    1.00,
    "Fuse:Fuseholder_Cylinder-5x20mm_Schurter_0031_8201_Horizontal_Open",
)
BULK_CAPACITOR = Choice(
    "electrolytic capacitor",
    "470 µF 25 V",
    "Panasonic EEU-FR1E471",
    0.35,
    "Capacitor_THT:CP_Radial_D8.0mm_P3.50mm",
)
SENSOR_MODULE = Choice(
    "dice-presence sensor: TCRT5000 module (LM393 comparator), run at 3.3 V",
    "TCRT5000",
    "TCRT5000 line-tracker module (Vishay TCRT5000L on it)",
    0.80,
    "Connector_PinHeader_2.54mm:PinHeader_1x03_P2.54mm_Vertical",
)
LID_SWITCH = Choice(
    "lid microswitch",
    "SPST microswitch",
    "Omron D2F-01L",
    1.50,
    "Connector_PinHeader_2.54mm:PinHeader_1x02_P2.54mm_Vertical",
)
STATUS_LED = Choice("status LED 3 mm", "green", "Kingbright WP710A10GD", 0.10, "LED_THT:LED_D3.0mm")
PI_HEADER = Choice(
    "40-pin female header to the Raspberry Pi",
    "2×20, 2.54 mm",
    "Adafruit 2222",
    1.50,
    "Connector_PinSocket_2.54mm:PinSocket_2x20_P2.54mm_Vertical",
)
PICO_HEADER = Choice(
    "Raspberry Pi Pico (optional co-processor, on sockets)",
    "Pico",
    "Raspberry Pi SC0915",
    4.50,
    "Module:RaspberryPi_Pico_Common_THT",
)

FUSES = {
    0.5: "Littelfuse 0215.500MXP",
    0.63: "Littelfuse 0215.630MXP",
    0.8: "Littelfuse 0215.800MXP",
    1.0: "Littelfuse 0215001.MXP",
    1.25: "Littelfuse 021501.25MXP",
    1.6: "Littelfuse 021501.6MXP",
    2.0: "Littelfuse 0215002.MXP",
    2.5: "Littelfuse 02152.5MXP",
    3.15: "Littelfuse 02153.15MXP",
}
"""Slow-blow (T) 5×20 mm fuses in the standard ratings (A) -> one example part number."""
FUSE_PRICE_EUR = 0.30

SUPPLIES = {
    2.0: ("Mean Well GST18E05-P1J (5 V, 3 A)", 11.0),
    4.0: ("Mean Well GST25E05-P1J (5 V, 4 A)", 13.0),
}
"""Coil supplies by the current they can give (A) -> (example, € each); the smallest that
covers the computed need is chosen (``electrical.supply_current_a``)."""

BOARD = Choice(
    "perfboard 70×90 mm",
    "2.54 mm pitch",
    "generic FR-4 perfboard 7×9 cm",
    1.0,
)
SCREW_TERMINAL = Choice("screw terminal 2-pole, 5 mm", "2-pole", "Phoenix Contact 1935161", 0.50)
