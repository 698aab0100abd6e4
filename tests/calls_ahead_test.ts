/**
 * The calls file a run's export worker writes as the run goes (lib/store/calls_ahead.ts) is the calls file the
 * export writes from the store's sorted query, byte for byte, or it is dropped for that one.
 * @module
 */
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import type { StoredCall } from "../lib/core/records.ts";
import { CallsAhead, partialCalls } from "../lib/store/calls_ahead.ts";
import { DatabaseSync } from "node:sqlite";
import {
  discardExport,
  exportStore,
  prepareExport,
  startExport,
  writeJsonLines,
} from "../lib/store/export.ts";
import type { RunStore } from "../lib/store/run_store.ts";
import { storedScore, withTempDir, withTempStore } from "./temp_store.ts";
import { waitUntil } from "./wait_until.ts";

/** A call of key `key` stored at second `second` (a fraction of it, so that several share a time). */
function call(key: string, second: number): StoredCall {
  return {
    key,
    role: key.startsWith("j") ? "judge" : "model",
    model: "m",
    request: { messages: [{ role: "user", content: `问 ${key}\n"quoted"` }], params: { temperature: 0 } },
    text: `答 ${key}`,
    finishReason: "stop",
    usage: { prompt: 3, completion: 2 },
    attempts: 1,
    latencyMs: 10.5,
    createdAt: new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString(),
    endpoint: "host/v1",
    condition: null,
  };
}

/** What the export writes for the calls of `store` from its sorted query. */
async function sortedCalls(store: RunStore, dir: string): Promise<string> {
  await writeJsonLines(`${dir}/sorted.jsonl`, store.eachCallJson());
  return await Deno.readTextFile(`${dir}/sorted.jsonl`);
}

/** Stores calls `from`..`to` (exclusive), three to a millisecond, keys falling within each, then commits them. */
function storeCalls(store: RunStore, from: number, to: number): void {
  for (let i = from; i < to; i++) store.putCall(call(`k${String(9_999_999 - i)}`, Math.floor(i / 3) / 1000));
  store.flush();
}

Deno.test("calls written as they are stored, steps between, make the sorted query's file (times shared, pages crossed, a resume's calls first)", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      // A resumed run: calls of an earlier session are stored already.
      storeCalls(store, 0, 100);
      const calls = await CallsAhead.start(store);
      await calls.step();
      assert((await Deno.readTextFile(calls.path)).length > 0, "written as the run goes");
      storeCalls(store, 100, 2500);
      await calls.step();
      storeCalls(store, 2500, 5000);
      const path = await calls.finish();
      assertEquals(path, partialCalls(store.path));
      assertEquals(await Deno.readTextFile(path!), await sortedCalls(store, dir));
    })
  );
});

Deno.test("a call stored out of time order drops the file: the export writes the calls from the sorted query", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      const calls = await CallsAhead.start(store);
      storeCalls(store, 0, 30);
      await calls.step();
      // A clock set back: this call sorts before calls already written.
      store.putCall(call("k-early", 0));
      storeCalls(store, 30, 60);
      assertEquals(await calls.finish(), undefined);
      assert(calls.broken?.includes("k-early"), calls.broken);
      const files = await exportStore(store, `${dir}/log`, calls);
      assertEquals(await Deno.readTextFile(files[0]), await sortedCalls(store, dir));
      assertEquals([...Deno.readDirSync(`${dir}/log`)].map((e) => e.name).sort(), [
        ".calls.jsonl.json",
        ".outputs.jsonl.json",
        ".scores.jsonl.json",
        "calls.jsonl",
        "events.jsonl",
        "outputs.jsonl",
        "scores.jsonl",
      ]);
    })
  );
});

/** Stores an answer and a score for samples `from` … `to` - 1 (in reverse, none of the read orders). */
function storeRows(store: RunStore, from: number, to: number): void {
  for (let i = to - 1; i >= from; i--) {
    const sampleId = `s${i}`;
    store.putOutput({ sampleId, condition: "c", callKey: `k${i}`, text: `answer ${i}`, error: null });
    store.putScore(storedScore({ sampleId, condition: "c", scorer: "metric", value: i % 2 }));
  }
}

Deno.test("the export worker writes the calls file while calls are stored, and the export finishes it", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      prepareExport(store, { dir: `${dir}/log` });
      // Outputs and scores stored before the worker's first step (which reads their first rows once, to have
      // their reading compiled) and after it: the log's files hold them all, as an export afresh writes them.
      storeRows(store, 0, 300);
      const partial = partialCalls(store.path);
      const size = () => {
        try {
          return Deno.statSync(partial).size;
        } catch {
          return 0;
        }
      };
      storeCalls(store, 0, 200);
      await waitUntil(() => size() > 0, "the worker's calls file");
      const early = size();
      const begun = Deno.statSync(partial).ino;
      storeCalls(store, 200, 3000);
      storeRows(store, 300, 2600);
      store.logEvent("done", {});
      startExport(store, `${dir}/log`);
      const files = await exportStore(store, `${dir}/log`);
      assertNotEquals(early, Deno.statSync(files[0]).size, "the file grew after the worker began it");
      assertEquals(Deno.statSync(files[0]).ino, begun, "the log's calls file is the one the worker began");
      assertEquals(
        await Deno.stat(partial).then(() => "left", () => "gone"),
        "gone",
        "nothing left beside the store",
      );
      await exportStore(store, `${dir}/again`);
      assertEquals((await Deno.readTextFile(`${dir}/log/outputs.jsonl`)).split("\n").length - 1, 2600);
      for (const name of ["calls", "outputs", "scores", "events"]) {
        assertEquals(
          await Deno.readTextFile(`${dir}/log/${name}.jsonl`),
          await Deno.readTextFile(`${dir}/again/${name}.jsonl`),
          name,
        );
      }
      assertEquals(await Deno.stat(partial).then(() => "left", () => "gone"), "gone");
    })
  );
});

Deno.test("a run that ends without its export leaves no calls file behind", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      prepareExport(store, { dir: `${dir}/log` });
      storeCalls(store, 0, 50);
      const partial = partialCalls(store.path);
      await waitUntil(() => {
        try {
          return Deno.statSync(partial).size > 0;
        } catch {
          return false;
        }
      }, "the worker's calls file");
      discardExport(store);
      assertEquals(await Deno.stat(partial).then(() => "left", () => "gone"), "gone");
      assertEquals(
        await Deno.stat(`${dir}/log`).then(() => "made", () => "none"),
        "none",
        "no empty log directory",
      );
    })
  );
});

Deno.test("a call the steps never read (the count differs at the end) drops the file for the sorted query", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      // Calls at storage numbers 10-12 are read; one slipped in at number 5 (later in time) never is.
      const raw = new DatabaseSync(store.path);
      const insert = (rowid: number, c: StoredCall) =>
        raw.prepare(
          "INSERT INTO calls (rowid, key, role, model, request, text, finish_reason, usage, attempts, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(
          rowid,
          c.key,
          c.role,
          c.model,
          JSON.stringify(c.request),
          c.text,
          c.finishReason,
          JSON.stringify(c.usage),
          c.attempts,
          c.latencyMs,
          c.createdAt,
        );
      for (const [i, rowid] of [10, 11, 12].entries()) insert(rowid, call(`k${i}`, i));
      const calls = await CallsAhead.start(store);
      await calls.step();
      insert(5, call("k-late", 60));
      raw.close();
      assertEquals(await calls.finish(), undefined);
      assertEquals(calls.broken, "3 of 4 calls written");
      const files = await exportStore(store, `${dir}/log`, calls);
      assertEquals(await Deno.readTextFile(files[0]), await sortedCalls(store, dir));
    })
  );
});

Deno.test("a calls file left beside the store by a run killed outright is removed by the next export", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      storeCalls(store, 0, 10);
      await Deno.writeTextFile(partialCalls(store.path), "a killed run's calls\n");
      const files = await exportStore(store, `${dir}/log`);
      assertEquals(await Deno.readTextFile(files[0]), await sortedCalls(store, dir));
      assertEquals(await Deno.stat(partialCalls(store.path)).then(() => "left", () => "gone"), "gone");
    })
  );
});

Deno.test("a finished calls file the log cannot take by a rename is written from the sorted query instead", async () => {
  await withTempStore((store) =>
    withTempDir("calls-ahead", async (dir) => {
      storeCalls(store, 0, 40);
      const calls = await CallsAhead.start(store);
      await calls.step();
      // Gone before the export moves it (as a rename to another file system fails).
      await Deno.remove(calls.path);
      const files = await exportStore(store, `${dir}/log`, calls);
      assertEquals(await Deno.readTextFile(files[0]), await sortedCalls(store, dir));
    })
  );
});
