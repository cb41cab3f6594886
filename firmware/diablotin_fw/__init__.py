"""Diablotin's Pico co-processor firmware (MicroPython).

The same files run on the Pico, on the host (the virtual co-processor and the host's
framing code load them from here) and under MicroPython's WebAssembly port in tests.
Only ``pico.py`` touches ``machine``.
"""

VERSION = "0.2.0"
