/**
 * Test helpers: a fresh temporary directory, a run store in one (closed and removed after use), and a stored
 * score.
 * @module
 */
import type { StoredScore } from "../lib/core/records.ts";
import { RunStore } from "../lib/store/run_store.ts";

/** Runs `fn` with a new temporary directory (named `medeval-<prefix>-…`), removed after. */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => T | Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: `medeval-${prefix}-` });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` with a new run store in a temporary directory; closes the store and removes the directory after. */
export function withTempStore<T>(fn: (store: RunStore) => T | Promise<T>): Promise<T> {
  return withTempDir("store", async (dir) => {
    const store = new RunStore(`${dir}/run.sqlite`);
    try {
      return await fn(store);
    } finally {
      store.close();
    }
  });
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
