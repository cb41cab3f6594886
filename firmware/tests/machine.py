"""A stand-in for MicroPython's ``machine`` module, for tests of ``pico.py`` off the Pico."""

PWRON_RESET = 1
WDT_RESET = 3

_reset_cause = PWRON_RESET
resets: list[bool] = []


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    made: dict[int, "Pin"] = {}  # noqa: RUF012  (GP number -> the last Pin made on it)

    def __init__(self, gp: int, mode: int = -1, pull: int = -1, value: int | None = None) -> None:
        self.gp = gp
        self.mode = mode
        self.pull = pull
        if value is None:
            value = 1 if pull == Pin.PULL_UP else 0
        self._value = value
        Pin.made[gp] = self

    def value(self, level: int | None = None) -> int | None:
        if level is None:
            return self._value
        self._value = 1 if level else 0
        return None


class WDT:
    made: list["WDT"] = []  # noqa: RUF012

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        self.timeout = timeout
        self.feeds = 0
        WDT.made.append(self)

    def feed(self) -> None:
        self.feeds += 1


def reset_cause() -> int:
    return _reset_cause


def set_reset_cause(cause: int) -> None:
    global _reset_cause
    _reset_cause = cause


def reset() -> None:
    resets.append(True)


def forget() -> None:
    """Start a test afresh."""
    Pin.made = {}
    WDT.made = []
    del resets[:]
    set_reset_cause(PWRON_RESET)
