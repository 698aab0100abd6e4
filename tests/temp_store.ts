/**
 * Test helpers: a run store in a fresh temporary directory (closed and removed after use), and a stored score.
 * @module
 */
import type { StoredScore } from "../lib/core/records.ts";
import { RunStore } from "../lib/store/run_store.ts";

/** Runs `fn` with a new run store in a temporary directory; closes the store and removes the directory after. */
export async function withTempStore<T>(fn: (store: RunStore) => T | Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-store-" });
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    return await fn(store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * A stored score of sample `s1` under condition `c` (scorer `m`, run 1, value 1, valid, nothing else), with
 * `over` replacing any of its fields.
 */
export function storedScore(over: Partial<StoredScore> = {}): StoredScore {
  return {
    sampleId: "s1",
    condition: "c",
    scorer: "m",
    judge: null,
    run: 1,
    value: 1,
    values: null,
    valid: true,
    reason: null,
    callKey: null,
    detail: null,
    ...over,
  };
}
