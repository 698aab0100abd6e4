import { loadClimedBench } from "./lib/benchmarks/climedbench/load.ts";
const t0 = performance.now();
const s = await loadClimedBench(Deno.args[0]);
console.log(s.length, (performance.now() - t0).toFixed(1));
