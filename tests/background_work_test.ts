import { assert, assertEquals } from "@std/assert";
import type { Sample } from "../lib/core/sample.ts";
import type { Solver } from "../lib/core/task.ts";
import { BACKGROUND_DELAY_MS, evaluate } from "../lib/pipeline/evaluate.ts";
import type { Roles } from "../lib/pipeline/roles.ts";
import type { RunStore } from "../lib/store/run_store.ts";

/** A store that takes what evaluate writes and keeps nothing. */
const STORE = {
  outputScores: () => [],
  holdView: () => false,
  putOutput: () => {},
  putScore: () => {},
  logEvent: () => {},
} as unknown as RunStore;
const ROLES = { members: () => [], context: () => ({}), sent: () => 0 } as unknown as Roles;

const samples = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => ({ id: `s${i}`, input: `q${i}`, conversation: null, fields: {} }) as unknown as Sample,
  );

/** Holds this thread for `ms` milliseconds (a request's preparation). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* preparing */ }
}

/** Evaluates `n` samples, `window` at a time, with `solver`; returns when the background work began (or never). */
async function backgroundStart(
  n: number,
  window: number,
  solver: Solver["solve"],
): Promise<number | undefined> {
  let began: number | undefined;
  await evaluate({
    samples: samples(n),
    solver: { name: "stub", templates: {}, solve: solver },
    scorers: [],
    roles: ROLES,
    judgeRuns: 1,
    auxiliary: new Map(),
    condition: "c",
    store: STORE,
    window,
    background: () => began = performance.now(),
  });
  // A background timer left armed would fire in this wait.
  await new Promise((resolve) => setTimeout(resolve, 2 * BACKGROUND_DELAY_MS));
  return began;
}

Deno.test("background work begins BACKGROUND_DELAY_MS after the first requests are made, however long they took to prepare", async () => {
  // Eight conversations start in one task; each request takes 15 ms to prepare (120 ms in all, more than the
  // delay), in a microtask of that task (as after a call's store lookup), then its answer comes 200 ms later.
  // With the delay armed before the conversations started (as it was), the background work ran ~9 ms after the
  // last of those requests was made, before they had left.
  let lastRequest = 0;
  const began = await backgroundStart(8, 8, async ({ sample }) => {
    await Promise.resolve();
    busy(15);
    lastRequest = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { answer: sample.id, callKey: null, turn: [] };
  });
  assert(began !== undefined, "the background work began while the answers were awaited");
  assert(
    began - lastRequest >= BACKGROUND_DELAY_MS - 1,
    `began ${(began - lastRequest).toFixed(1)} ms after the last first request`,
  );
});

Deno.test("an evaluation that ends before the delay begins no background work", async () => {
  const began = await backgroundStart(
    4,
    2,
    ({ sample }) => Promise.resolve({ answer: sample.id, callKey: null, turn: [] }),
  );
  assertEquals(began, undefined);
});
