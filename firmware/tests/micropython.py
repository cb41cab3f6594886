"""A stand-in for MicroPython's ``micropython`` module, for ``pico.py`` under CPython."""


def kbd_intr(char: int) -> None:
    """The real one sets the interrupt character; nothing to do off the Pico."""
