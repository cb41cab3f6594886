# Runs at every boot of the Pico: the Diablotin co-processor firmware.
# Ctrl-C (as mpremote sends) stops it with every coil off and returns to the REPL.
from diablotin_fw import pico

pico.main()
