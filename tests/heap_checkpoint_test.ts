import { assert } from "@std/assert";
import {
  collectGarbage,
  HEAP_FLOOR_BYTES,
  HEAP_SLACK_BYTES,
  loadCollector,
} from "../lib/pipeline/evaluate.ts";

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

Deno.test("a memory checkpoint leaves a heap below the floor alone, however much it grew", async () => {
  await loadCollector();
  const garbage = () => {
    let phase: number[][] = Array.from({ length: 4 }, (_, i) => new Array(2 ** 19).fill(i + 0.5));
    assert(phase.length === 4);
    phase = [];
  };
  collectGarbage({ slack: 0, floor: 0 });
  // A floor above what this process holds plus the garbage (the test runner alone holds tens of MB).
  const floor = Deno.memoryUsage().heapUsed + 64 * 2 ** 20;
  garbage();
  const before = Deno.memoryUsage().heapUsed;
  collectGarbage({ slack: 2 ** 20, floor });
  assert(Deno.memoryUsage().heapUsed > before - 4 * 2 ** 20, "a heap below the floor was collected");
  // The same garbage with no floor is collected (so the check above could have seen a collection).
  collectGarbage({ slack: 2 ** 20, floor: 0 });
  assert(Deno.memoryUsage().heapUsed < before - 8 * 2 ** 20, "the garbage was not collectable");
  assert(HEAP_FLOOR_BYTES > HEAP_SLACK_BYTES);
});
