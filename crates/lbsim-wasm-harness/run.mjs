// Wasm side of the harness, in Node (V8).
//   node run.mjs MODULE.wasm < scenario.json          prints the report JSON
//   node run.mjs MODULE.wasm --time REPS < scenario    prints the median ms
import { readFileSync } from "node:fs";

const [wasmPath, mode, repsArg] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const wasm = instance.exports;
const input = new TextEncoder().encode(readFileSync(0, "utf8"));

function call(entry) {
  const ptr = wasm.io_reserve(input.length);
  new Uint8Array(wasm.memory.buffer, ptr, input.length).set(input);
  const code = wasm[entry]();
  const out = new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, wasm.io_ptr(), wasm.io_len()).slice());
  if (code !== 0) {
    process.stderr.write(out + "\n");
    process.exit(2);
  }
  return out;
}

if (mode === "--time") {
  const reps = Number(repsArg ?? 5);
  const times = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    call("run_for_timing");
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(times[Math.floor(times.length / 2)]);
} else {
  console.log(call("run"));
}
