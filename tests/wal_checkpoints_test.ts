/**
 * A run leaves the checkpoints of its store's log to the export worker (lib/store/wal_checkpointer.ts), so that
 * its own commits never wait for one: its connection checkpoints only past a far bound, the worker's keep the
 * log short, and the run's connection takes them back when the worker stops.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import type { StoredCall } from "../lib/core/records.ts";
import { partialCalls } from "../lib/store/calls_ahead.ts";
import { discardExport, exportStore, prepareExport, startExport } from "../lib/store/export.ts";
import { CHECKPOINT_FALLBACK_PAGES } from "../lib/store/wal_checkpointer.ts";
import { withTempDir, withTempStore } from "./temp_store.ts";
import { waitUntil } from "./wait_until.ts";

/** SQLite's own checkpoint threshold (pages), which the store keeps unless a worker checkpoints. */
const SQLITE_DEFAULT_PAGES = 1000;

/** A call whose text fills about one 4 KiB page of the store. */
function pageCall(i: number): StoredCall {
  return {
    key: `k${String(i).padStart(6, "0")}`,
    role: "model",
    model: "m",
    request: { messages: [{ role: "user", content: `q${i}` }], params: {} },
    text: `${i} `.padEnd(4000, "x"),
    finishReason: "stop",
    usage: { prompt: 3, completion: 2 },
    attempts: 1,
    latencyMs: 1,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    endpoint: "host/v1",
    condition: null,
  };
}

/** Size in bytes of a file, 0 when there is none. */
function sizeOf(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

Deno.test("the export worker checkpoints a run's log as it goes; the run's own connection does not", async () => {
  await withTempStore((store) =>
    withTempDir("checkpoints", async (dir) => {
      assertEquals(store.autoCheckpointPages, SQLITE_DEFAULT_PAGES);
      prepareExport(store, { dir: `${dir}/log` });
      assertEquals(store.autoCheckpointPages, CHECKPOINT_FALLBACK_PAGES, "left to the worker");
      const partial = partialCalls(store.path);
      // Rounds of ~150 pages, each seen by a step of the worker (its calls file holds them) and one step more
      // (each step checkpoints once it has written): the next round's first commit then starts the log afresh.
      const rounds = 8;
      const perRound = 150;
      for (let round = 0; round < rounds; round++) {
        for (let i = round * perRound; i < (round + 1) * perRound; i++) store.putCall(pageCall(i));
        store.flush();
        const written = sizeOf(partial);
        await waitUntil(() => sizeOf(partial) > written, "the worker's step over the round");
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
      // Without the worker's checkpoints the log would have grown to every page written (~1,200), or, left to
      // the run's connection, to SQLite's 1,000 before its first checkpoint.
      const walPages = sizeOf(`${store.path}-wal`) / 4096;
      assert(walPages < 4 * perRound, `the log stayed short: ${walPages.toFixed(0)} pages`);
      startExport(store, `${dir}/log`);
      assertEquals(store.autoCheckpointPages, SQLITE_DEFAULT_PAGES, "taken back when the worker exports");
      const files = await exportStore(store, `${dir}/log`);
      const lines = (await Deno.readTextFile(files[0])).trimEnd().split("\n");
      assertEquals(lines.length, rounds * perRound, "every call exported");
    })
  );
});

Deno.test("a run whose export worker fails to load, or whose export is discarded, checkpoints on its own again", async () => {
  await withTempStore((store) =>
    withTempDir("checkpoints", async (dir) => {
      await Deno.writeTextFile(`${dir}/broken.ts`, 'throw new Error("broken worker");\n');
      prepareExport(store, { dir: `${dir}/log`, module: new URL(`file://${dir}/broken.ts`) });
      assertEquals(store.autoCheckpointPages, CHECKPOINT_FALLBACK_PAGES);
      await waitUntil(() => store.autoCheckpointPages === SQLITE_DEFAULT_PAGES, "the checkpoints taken back");
    })
  );
  await withTempStore((store) =>
    withTempDir("checkpoints", (dir) => {
      prepareExport(store, { dir: `${dir}/log` });
      discardExport(store);
      assertEquals(store.autoCheckpointPages, SQLITE_DEFAULT_PAGES);
    })
  );
});
