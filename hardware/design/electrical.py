"""The coil channel's numbers, worked out from datasheet figures and the software's limits.

Every number of ``hardware/electrical.md`` comes from here (``render()``); the test checks the
file is current and that the chosen parts pass these checks. Units are in the names: ``_v``
volts, ``_a`` amperes, ``_ohm`` ohms, ``_w`` watts, ``_s`` seconds, ``_j`` joules.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.box.base import Limits

from . import parts

GPIO_HIGH_V = 3.3
"""A Pi (or Pico) output driven high; the MOSFET is rated at 2.5 V gate drive to keep margin."""
GPIO_MAX_MA = 16.0
"""The most one Pi GPIO should source or sink (Raspberry Pi documentation)."""
GPIO_VIL_MAX_V = 0.8
"""Highest level a Pi GPIO input surely reads as low (BCM2835 datasheet: V_IL max)."""
GATE_RESISTOR_OHM = 220.0
GATE_PULLDOWN_OHM = 10_000.0
INPUT_PULLUP_OHM = 10_000.0
MODULE_PULLUP_OHM = 10_000.0
"""The TCRT5000 module's own pull-up on DO (to its VCC)."""
LM393_VOL_V = 0.4
"""LM393 output low at 4 mA sink (datasheet max)."""
TCRT_LED_RESISTOR_OHM = 100.0
TCRT_LED_VF_V = 1.25
RAIL_3V3_BUDGET_A = 0.3
"""What the Pi's 3.3 V pin can spare for add-ons (a conservative figure for Zero 2 W to Pi 5)."""
LED_VF_V = 2.1
LED_RESISTOR_OHM = 330.0
FUSE_RATINGS_A = tuple(sorted(parts.FUSES))
FUSE_MARGIN = 1.25
"""A slow-blow fuse carries its rating indefinitely: rate it 25 % over the highest current
the coils draw so that pulses never age it."""
SUPPLY_MARGIN = 1.5
DIODE_SURGE_A = 30.0
"""1N4007: 1 A continuous, 30 A for 8.3 ms, 1000 V reverse."""
DIODE_CONTINUOUS_A = 1.0
DIODE_REVERSE_V = 1000.0


@dataclass(frozen=True)
class Solenoid:
    """A typical push solenoid: coil supply and DC resistance (measure yours with a meter)."""

    name: str
    supply_v: float
    coil_ohm: float

    @property
    def current_a(self) -> float:
        return self.supply_v / self.coil_ohm

    @property
    def power_w(self) -> float:
        return self.supply_v * self.current_a


@dataclass(frozen=True)
class Mosfet:
    """Datasheet maxima of a logic-level N-MOSFET; R_DS(on) at V_GS = 2.5 V bounds 3.3 V."""

    part: str
    vds_max_v: float
    id_max_a: float
    rds_on_2v5_ohm: float | None
    vgs_th_max_v: float
    r_theta_ja: float  # °C/W, junction to ambient on a small board


SOLENOIDS = (
    Solenoid("5 V push solenoid (JF-0530B 5 V size)", 5.0, 5.0),
    Solenoid("12 V push solenoid (JF-0530B 12 V size)", 12.0, 24.0),
)
DESIGN_SOLENOID = SOLENOIDS[0]
"""The one the BOM and the fuse are sized for."""

MOSFETS = (
    Mosfet("AO3400A (Alpha & Omega)", 30.0, 5.7, 0.048, 1.45, 125.0),
    Mosfet("IRLML6344TRPBF (Infineon)", 30.0, 5.0, 0.037, 1.1, 100.0),
)
REJECTED = Mosfet("IRLZ44N (TO-220)", 55.0, 47.0, None, 2.0, 62.0)
"""R_DS(on) specified at V_GS = 4 V and up only: nothing is promised at 3.3 V."""


def worst_coil_duty(limits: type[Limits] = Limits) -> float:
    """Highest on-time share one coil can reach: the duty cap, or back-to-back longest pulses."""
    back_to_back = limits.MAX_PULSE_MS / (limits.MAX_PULSE_MS + limits.MIN_GAP_MS)
    return min(limits.MAX_DUTY, back_to_back)


def worst_supply_duty(coils: int = 4) -> float:
    """Share of time some coil is on: one coil at a time, each at its worst duty."""
    return min(1.0, coils * worst_coil_duty())


def mosfet_dissipation_w(mosfet: Mosfet, solenoid: Solenoid, duty: float) -> float:
    """Average I²·R_DS(on) heat at ``duty`` (0-1)."""
    assert mosfet.rds_on_2v5_ohm is not None
    return solenoid.current_a**2 * mosfet.rds_on_2v5_ohm * duty


def fuse_rating_a(solenoid: Solenoid = DESIGN_SOLENOID) -> float:
    """Smallest standard slow-blow rating >= FUSE_MARGIN × one coil's current (one at a time)."""
    need = FUSE_MARGIN * solenoid.current_a
    return next(r for r in FUSE_RATINGS_A if r >= need - 1e-9)


def supply_current_a(solenoid: Solenoid = DESIGN_SOLENOID) -> float:
    """Current the coil supply must give: one coil at a time, with SUPPLY_MARGIN."""
    return SUPPLY_MARGIN * solenoid.current_a


def gate_voltage_v() -> float:
    """Gate voltage with the GPIO high: the 220 Ω / 10 kΩ divider."""
    return GPIO_HIGH_V * GATE_PULLDOWN_OHM / (GATE_PULLDOWN_OHM + GATE_RESISTOR_OHM)


def gate_peak_ma() -> float:
    """Peak GPIO current charging the gate through the series resistor."""
    return GPIO_HIGH_V / GATE_RESISTOR_OHM * 1000


def sensor_low_v() -> float:
    """Input level with a die present: the LM393 output low (its sink swamps the pull-ups)."""
    return LM393_VOL_V


def sensor_sink_ma() -> float:
    """Current the comparator (or switch) sinks through both pull-ups in parallel."""
    both = 1 / (1 / INPUT_PULLUP_OHM + 1 / MODULE_PULLUP_OHM)
    return GPIO_HIGH_V / both * 1000


def tcrt_led_ma() -> float:
    return (GPIO_HIGH_V - TCRT_LED_VF_V) / TCRT_LED_RESISTOR_OHM * 1000


def rail_3v3_ma(modules: int = 4) -> float:
    """Load on the Pi's 3.3 V pin: the modules' IR LEDs and the pull-ups, all low at once."""
    return modules * tcrt_led_ma() + modules * sensor_sink_ma()


def led_ma() -> float:
    return (GPIO_HIGH_V - LED_VF_V) / LED_RESISTOR_OHM * 1000


def checks() -> list[tuple[str, bool]]:
    """Each design rule with whether the chosen parts meet it (the test wants all True)."""
    s = DESIGN_SOLENOID
    result = [
        (f"gate drive {gate_voltage_v():.2f} V >= 2.5 V rating point", gate_voltage_v() >= 2.5),
        (f"gate peak {gate_peak_ma():.1f} mA <= {GPIO_MAX_MA:g} mA", gate_peak_ma() <= GPIO_MAX_MA),
        (
            f"sensor low {sensor_low_v():.2f} V <= {GPIO_VIL_MAX_V} V",
            sensor_low_v() <= GPIO_VIL_MAX_V,
        ),
        (f"3.3 V load {rail_3v3_ma():.0f} mA <= budget", rail_3v3_ma() <= RAIL_3V3_BUDGET_A * 1e3),
        (f"LED {led_ma():.1f} mA <= {GPIO_MAX_MA:g} mA", led_ma() <= GPIO_MAX_MA),
        ("fuse passes one coil", fuse_rating_a() >= s.current_a),
        (
            "diode surge covers the coil current",
            max(x.current_a for x in SOLENOIDS) <= DIODE_SURGE_A,
        ),
        ("diode blocks the supply", 2 * max(x.supply_v for x in SOLENOIDS) <= DIODE_REVERSE_V),
    ]
    for m in MOSFETS:
        assert m.rds_on_2v5_ohm is not None
        for sol in SOLENOIDS:
            result.append(
                (f"{m.part} V_DS for {sol.supply_v:g} V", m.vds_max_v >= 2 * sol.supply_v)
            )
            result.append(
                (f"{m.part} I_D for {sol.current_a:.2f} A", m.id_max_a >= 2 * sol.current_a)
            )
            rise = sol.current_a**2 * m.rds_on_2v5_ohm * m.r_theta_ja
            result.append((f"{m.part} stuck-on rise {rise:.0f} °C < 50 °C", rise < 50))
    return result


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render() -> str:
    """The text of ``hardware/electrical.md``."""
    lim = Limits
    duty = worst_coil_duty()
    sduty = worst_supply_duty()
    s = DESIGN_SOLENOID
    fuse = fuse_rating_a()
    supply = supply_current_a()
    lines = [
        "# Values with reasons",
        "",
        "Generated by `python -m hardware.design` from `hardware/design/electrical.py`: every",
        "number below is computed there from datasheet figures and the software's limits",
        "(`controller/box/base.py`, `Limits`). Do not edit by hand.",
        "",
        "## The software's limits, the worst case they allow",
        "",
        f"- A pulse lasts at most **{lim.MAX_PULSE_MS:g} ms**; a coil rests at least "
        f"**{lim.MIN_GAP_MS:g} ms** between pulses and is on at most **{lim.MAX_DUTY:.0%}** "
        f"of any {lim.DUTY_WINDOW_S:g} s; one coil at a time.",
        f"- Back-to-back longest pulses would be {lim.MAX_PULSE_MS:g}/({lim.MAX_PULSE_MS:g}+"
        f"{lim.MIN_GAP_MS:g}) = {lim.MAX_PULSE_MS / (lim.MAX_PULSE_MS + lim.MIN_GAP_MS):.1%};"
        f" the duty cap makes the worst case per coil **{duty:.0%}**.",
        f"- Four coils, one at a time, each at {duty:.0%}: the supply delivers coil current at "
        f"most **{sduty:.0%}** of the time.",
        "",
        "## Coil current",
        "",
        "Typical small push solenoids (measure your coil's resistance with a multimeter, "
        "and redo the sums with it):",
        "",
        _row(
            "solenoid",
            "supply",
            "coil resistance",
            "current",
            "power while on",
            f"mean power at {duty:.0%}",
        ),
        _row(*["---"] * 6),
    ]
    for sol in SOLENOIDS:
        lines.append(
            _row(
                sol.name,
                f"{sol.supply_v:g} V",
                f"{sol.coil_ohm:g} Ω",
                f"{sol.current_a:.2f} A",
                f"{sol.power_w:.1f} W",
                f"{sol.power_w * duty:.2f} W",
            )
        )
    lines += [
        "",
        f"The design (BOM, fuse) uses the **{s.name}**: {s.current_a:.2f} A per pulse.",
        "",
        "## MOSFET: R_DS(on) at 3.3 V gate drive",
        "",
        f"The GPIO drives the gate through {GATE_RESISTOR_OHM:g} Ω, with "
        f"{GATE_PULLDOWN_OHM / 1000:g} kΩ from gate to ground: the gate sits at "
        f"{gate_voltage_v():.2f} V when the pin is high, and the pin gives at most "
        f"{gate_peak_ma():.1f} mA while the gate charges (a Pi GPIO is good for "
        f"{GPIO_MAX_MA:g} mA). A MOSFET qualifies only if its datasheet promises R_DS(on) at "
        "V_GS = 2.5 V, below the gate's 3.3 V with margin:",
        "",
        _row(
            "MOSFET",
            "V_DS max",
            "I_D max",
            "R_DS(on) max at 2.5 V",
            "R_θJA",
            *(
                f"{sol.supply_v:g} V coil: heat during a pulse / at {duty:.0%} / stuck on"
                for sol in SOLENOIDS
            ),
        ),
        _row(*["---"] * (5 + len(SOLENOIDS))),
    ]
    for m in MOSFETS:
        assert m.rds_on_2v5_ohm is not None
        cells = []
        for sol in SOLENOIDS:
            on = mosfet_dissipation_w(m, sol, 1.0)
            cells.append(
                f"{on * 1000:.0f} mW / {mosfet_dissipation_w(m, sol, duty) * 1000:.1f} mW / "
                f"+{on * m.r_theta_ja:.1f} °C"
            )
        lines.append(
            _row(
                m.part,
                f"{m.vds_max_v:g} V",
                f"{m.id_max_a:g} A",
                f"{m.rds_on_2v5_ohm * 1000:g} mΩ",
                f"{m.r_theta_ja:g} °C/W",
                *cells,
            )
        )
    lines += [
        "",
        "Even a MOSFET stuck on warms by a few degrees: no heatsink is needed. Both parts are "
        "SOT-23; solder each onto a SOT-23 to DIP adapter for perfboard. "
        f"Not the {REJECTED.part}: its R_DS(on) is specified from V_GS = 4 V up and its "
        f"threshold may be {REJECTED.vgs_th_max_v:g} V, so at 3.3 V it may be half on and "
        "hot.",
        "",
        "## Flyback diode",
        "",
        "When the MOSFET opens, the coil keeps its current flowing and the drain voltage rises "
        "until something conducts. Without the diode that is the MOSFET itself: it breaks down "
        "(avalanche, above its 30 V rating) and absorbs the coil's energy at every pulse. That "
        "wears it out, a worn MOSFET fails short, and a short MOSFET leaves its coil on; the "
        "spike also couples through the gate-drain capacitance towards the GPIO. With the diode "
        "across the coil (stripe to the supply +) the current circulates in the coil and dies "
        "away in a few L/R time constants, and the drain never rises more than a diode drop "
        "above the supply.",
        "",
        f"- It must carry the coil current for that moment: at most "
        f"{max(x.current_a for x in SOLENOIDS):.2f} A here; the 1N4007 takes "
        f"{DIODE_CONTINUOUS_A:g} A continuously and {DIODE_SURGE_A:g} A for 8.3 ms.",
        f"- It must block the supply: {max(x.supply_v for x in SOLENOIDS):g} V here, twice is "
        f"{2 * max(x.supply_v for x in SOLENOIDS):g} V; the 1N4007 blocks "
        f"{DIODE_REVERSE_V:g} V.",
        "",
        "## Supply and fuse",
        "",
        f"- One coil at a time: the coil supply gives at most {s.current_a:.2f} A "
        f"(the {s.supply_v:g} V design), on average {s.current_a * sduty:.2f} A "
        f"({sduty:.0%} of the time). Take a supply good for at least "
        f"{SUPPLY_MARGIN:g} × {s.current_a:.2f} = **{supply:.2f} A**, separate from the Pi's "
        "(a coil's inrush would brown out the Pi). Join its − to a Pi GND pin (net GND).",
        f"- The fuse (slow-blow, 5×20 mm) is the smallest standard rating of at least "
        f"{FUSE_MARGIN:g} × {s.current_a:.2f} A: **{fuse:g} A T**. It protects the wiring and "
        "the supply from a short (a shorted coil, a pinched wire). It does not blow for one "
        "coil stuck on (its current is under the rating): nothing on the board can switch off "
        "a MOSFET that failed short, which is why the flyback diode and the MOSFET's margins "
        "matter. The software's limits and the gate pull-down keep a healthy MOSFET from "
        "being left on.",
        f"- For a {SOLENOIDS[1].supply_v:g} V build: supply >= "
        f"{supply_current_a(SOLENOIDS[1]):.2f} A, fuse {fuse_rating_a(SOLENOIDS[1]):g} A T.",
        "- A 470 µF capacitor across the coil supply near the MOSFETs keeps the pulse's current "
        "step off the supply cable.",
        "",
        "## Sensor and switch inputs at 3.3 V",
        "",
        f"- Power the TCRT5000 modules from **3.3 V**: the module pulls its output up to its own "
        f"supply through {MODULE_PULLUP_OHM / 1000:g} kΩ, and 5 V on a GPIO damages the Pi.",
        f"- Each input also has a {INPUT_PULLUP_OHM / 1000:g} kΩ pull-up to 3.3 V on the board "
        "(the service turns on the Pi's internal one too): an unplugged module or an open "
        'switch reads high, "no die", never a floating level.',
        f"- With a die present the LM393 pulls the line to at most {sensor_low_v():.1f} V "
        f"(a GPIO reads low below {GPIO_VIL_MAX_V} V) and sinks {sensor_sink_ma():.2f} mA "
        "through both pull-ups; a microswitch or reed to GND does the same with 0 V.",
        f"- Each module's IR LED draws about {tcrt_led_ma():.0f} mA at 3.3 V through its "
        f"{TCRT_LED_RESISTOR_OHM:g} Ω resistor: four modules and their pull-ups load the "
        f"Pi's 3.3 V pin with {rail_3v3_ma():.0f} mA, within the "
        f"{RAIL_3V3_BUDGET_A * 1000:.0f} mA it can spare.",
        f"- The lid switch closes to GND with the same pull-up; the status LED takes "
        f"{led_ma():.1f} mA through {LED_RESISTOR_OHM:g} Ω.",
        "",
        "## What each safety limit protects",
        "",
        _row("limit", "protects", "number"),
        _row("---", "---", "---"),
        _row(
            f"pulse <= {lim.MAX_PULSE_MS:g} ms",
            "the coil and the key: one push's energy is bounded, whatever a game or the "
            "config asks",
            f"{s.power_w * lim.MAX_PULSE_MS / 1000:.2f} J per pulse at most",
        ),
        _row(
            f">= {lim.MIN_GAP_MS:g} ms between pulses of a coil",
            "the key and the die: the plunger returns and the key springs back before the next "
            "push; the coil's field has collapsed",
            f"at most {1000 / (lim.MAX_PULSE_MS + lim.MIN_GAP_MS):.1f} pulses/s per coil",
        ),
        _row(
            f"<= {lim.MAX_DUTY:.0%} duty over {lim.DUTY_WINDOW_S:g} s",
            "the coil's temperature: small push solenoids are rated for short duty",
            f"mean coil heat {s.power_w * duty:.2f} W instead of {s.power_w:.1f} W",
        ),
        _row(
            "one coil at a time",
            "the supply and the fuse: they see one coil's current",
            f"peak {s.current_a:.2f} A instead of {4 * s.current_a:.2f} A",
        ),
        _row(
            "coils off at start, stop, error, lost link",
            "everything: a coil left on heats until it burns",
            f"{s.power_w:.1f} W continuously",
        ),
        _row(
            f"gate pull-down {GATE_PULLDOWN_OHM / 1000:g} kΩ",
            "the coils while the Pi boots (GPIOs are inputs) or a wire comes loose",
            f"gate held at 0 V; {GPIO_HIGH_V / GATE_PULLDOWN_OHM * 1e6:.0f} µA when driven",
        ),
        "",
        "## Checks",
        "",
    ]
    lines += [f"- [{'x' if ok else ' '}] {name}" for name, ok in checks()]
    return "\n".join(lines) + "\n"
