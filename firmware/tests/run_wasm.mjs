// Runs the firmware's tests under real MicroPython (the WebAssembly port) in Node.
// Usage: node firmware/tests/run_wasm.mjs   (after `npm ci` in firmware/)
// Prints the runner's PASS/FAIL lines, then one line `WASM-RESULT {json}`;
// exits 1 if a test failed or none ran.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const firmware = join(here, "..");
const lines = [];
const mp = await loadMicroPython({
  linebuffer: true,
  stdout: (line) => { lines.push(line); console.log(line); },
  stderr: (line) => { lines.push(line); console.error(line); },
});

function copyPy(fromDir, toDir) {
  mp.FS.mkdirTree(toDir);
  for (const name of readdirSync(fromDir)) {
    if (name.endsWith(".py")) {
      mp.FS.writeFile(join(toDir, name), readFileSync(join(fromDir, name)));
    }
  }
}
copyPy(join(firmware, "diablotin_fw"), "/fw/diablotin_fw");
copyPy(join(firmware, "tests"), "/fw/tests");

let error = null;
try {
  mp.runPython(`
import sys
sys.path.insert(0, "/fw")
sys.path.insert(0, "/fw/tests")
import fwtest_runner
_passed, _failed = fwtest_runner.run(fwtest_runner.MODULES)
`);
} catch (exc) {
  error = String(exc);
}
mp.runPython("import sys; print('MICROPYTHON ' + sys.version)");
const version = (lines.find((l) => l.startsWith("MICROPYTHON ")) || "").slice(12);
const passed = lines.filter((l) => l.startsWith("PASS ")).map((l) => l.slice(5));
const failed = lines.filter((l) => l.startsWith("FAIL ")).map((l) => l.slice(5));
console.log("WASM-RESULT " + JSON.stringify({ version, passed, failed, error }));
process.exit(error || failed.length || !passed.length ? 1 : 0);
