// Frames per second through the firmware's parser (Firmware.receive) under MicroPython
// (WebAssembly port, on this machine: a Pico is slower). Usage: node bench_wasm.mjs [frames]
// Prints one line `BENCH {"frames_per_s": N}`.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const count = Number(process.argv[2] || 5000);
const mp = await loadMicroPython({ linebuffer: true, stdout: (l) => console.log(l) });
mp.FS.mkdirTree("/fw/diablotin_fw");
for (const name of readdirSync(join(here, "..", "diablotin_fw"))) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile(`/fw/diablotin_fw/${name}`, readFileSync(join(here, "..", "diablotin_fw", name)));
  }
}
mp.runPython(`
import sys, time, json
sys.path.insert(0, "/fw")
from diablotin_fw import core, wire

class Hal:
    def __getattr__(self, name):
        return lambda *args: 1

settings = {"coils": [10, 11, 12, 13], "sensors": [2, 3, 4, 5], "present": "low",
            "lid": None, "led": 25, "limits": {"max_ms": 100, "gap_ms": 250, "window_s": 10,
            "duty": 0.1, "debounce_ms": 20, "silence_ms": 1000}}
fw = core.Firmware(Hal(), settings, 0, 1)
fw.receive(wire.encode({"t": "hello", "s": 1, "proto": wire.PROTOCOL}), 0)
stream = wire.encode({"t": "hb"}) * ${count}
start = time.ticks_us()
fw.receive(stream, 1)
took = time.ticks_diff(time.ticks_us(), start)
print("BENCH " + json.dumps({"frames_per_s": ${count} * 1000000 // max(1, took)}))
`);
