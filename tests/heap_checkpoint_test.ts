import { assert } from "@std/assert";
import { collectGarbage, HEAP_SLACK_BYTES, loadCollector } from "../lib/pipeline/evaluate.ts";

Deno.test("a memory checkpoint collects the garbage a phase left once it exceeds the slack", async () => {
  await loadCollector();
  collectGarbage();
  // Garbage well past the slack: arrays kept until the phase ends, then dropped.
  let phase: number[][] = Array.from({ length: 48 }, (_, i) => new Array(2 ** 19).fill(i + 0.5));
  assert(phase.length === 48);
  phase = [];
  const before = Deno.memoryUsage().heapUsed;
  collectGarbage();
  const after = Deno.memoryUsage().heapUsed;
  assert(
    after < before - HEAP_SLACK_BYTES,
    `heap in use ${Math.round(before / 2 ** 20)} MB before the checkpoint, ${
      Math.round(after / 2 ** 20)
    } MB after`,
  );
});
