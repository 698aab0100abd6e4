/**
 * Test helper: a run store in a fresh temporary directory, closed and removed after use.
 * @module
 */
import { RunStore } from "../lib/store/run_store.ts";

/** Runs `fn` with a new run store in a temporary directory; closes the store and removes the directory after. */
export async function withTempStore<T>(fn: (store: RunStore) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-store-" });
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    return await fn(store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}
