/**
 * The log's calls file is kept when it already holds exactly the store's calls (its note beside it says so): a
 * resumed run that stored no call, or a second export, does not write the largest log file again. Any call
 * stored since, an edited file, a note of another format or a missing note has it written afresh.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import type { StoredCall } from "../lib/core/records.ts";
import { callsNotePath, exportStore } from "../lib/store/export.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { offlineClimedBenchArgs, runCli } from "./run_cli.ts";
import { withTempDir, withTempStore } from "./temp_store.ts";

function call(key: string, second: number): StoredCall {
  return {
    key,
    role: "model",
    model: "m",
    request: { messages: [{ role: "user", content: `q ${key}` }], params: {} },
    text: `a ${key}`,
    finishReason: "stop",
    usage: { prompt: 1, completion: 1 },
    attempts: 1,
    latencyMs: 5,
    createdAt: `2025-01-01T00:00:${String(second).padStart(2, "0")}Z`,
    endpoint: null,
    condition: null,
  };
}

/** Counts how often `store`'s calls are read for the calls file while `fn` runs. */
async function callReads(store: RunStore, fn: () => Promise<unknown>): Promise<number> {
  const eachCallJson = store.eachCallJson.bind(store);
  let reads = 0;
  store.eachCallJson = () => {
    reads++;
    return eachCallJson();
  };
  try {
    await fn();
  } finally {
    store.eachCallJson = eachCallJson;
  }
  return reads;
}

/** The calls file an export writes afresh into a directory of its own. */
async function freshCalls(store: RunStore, dir: string): Promise<string> {
  await exportStore(store, `${dir}/fresh`);
  return await Deno.readTextFile(`${dir}/fresh/calls.jsonl`);
}

/**
 * Runs `fn` with a store holding five calls (k0–k4) exported once into `log` (checked: that export reads the
 * calls), under a temporary directory `dir`.
 */
async function withExportedStore(fn: (store: RunStore, log: string, dir: string) => Promise<void>) {
  await withTempStore((store) =>
    withTempDir("calls-note", async (dir) => {
      for (let i = 0; i < 5; i++) store.putCall(call(`k${i}`, i));
      const log = `${dir}/log`;
      assertEquals(await callReads(store, () => exportStore(store, log)), 1);
      await fn(store, log, dir);
    })
  );
}

Deno.test("a second export keeps the calls file that holds every call, and writes the rest", async () => {
  await withExportedStore(async (store, log, dir) => {
    const first = await Deno.stat(`${log}/calls.jsonl`);
    store.logEvent("resume", { at: "now" });
    assertEquals(await callReads(store, () => exportStore(store, log)), 0);
    const second = await Deno.stat(`${log}/calls.jsonl`);
    assertEquals(second.mtime?.getTime(), first.mtime?.getTime());
    assertEquals(await Deno.readTextFile(`${log}/calls.jsonl`), await freshCalls(store, dir));
    // The events file is written each time: the event stored since is in the log.
    assert((await Deno.readTextFile(`${log}/events.jsonl`)).includes('"resume"'));
  });
});

Deno.test("a call stored since the calls file was written has it written again, with that call", async () => {
  await withExportedStore(async (store, log, dir) => {
    store.putCall(call("k-late", 9));
    assertEquals(await callReads(store, () => exportStore(store, log)), 1);
    const text = await Deno.readTextFile(`${log}/calls.jsonl`);
    assert(text.includes("k-late"));
    assertEquals(text, await freshCalls(store, dir));
  });
});

Deno.test("an edited calls file, a note of another format or no note has the calls file written again", async () => {
  await withExportedStore(async (store, log) => {
    const expected = await Deno.readTextFile(`${log}/calls.jsonl`);

    // Edited in place: its size (and time) no longer match the note.
    await Deno.writeTextFile(`${log}/calls.jsonl`, expected.replace("a k1", "a k1 edited"));
    assertEquals(await callReads(store, () => exportStore(store, log)), 1);
    assertEquals(await Deno.readTextFile(`${log}/calls.jsonl`), expected);

    // A note of another format.
    const note = JSON.parse(await Deno.readTextFile(callsNotePath(log)));
    await Deno.writeTextFile(callsNotePath(log), JSON.stringify({ ...note, format: note.format + 1 }));
    assertEquals(await callReads(store, () => exportStore(store, log)), 1);

    // No note, or one that is not JSON.
    await Deno.remove(callsNotePath(log));
    assertEquals(await callReads(store, () => exportStore(store, log)), 1);
    await Deno.writeTextFile(callsNotePath(log), "{");
    assertEquals(await callReads(store, () => exportStore(store, log)), 1);
    assertEquals(await Deno.readTextFile(`${log}/calls.jsonl`), expected);
  });
});

Deno.test("a store made afresh with the same calls, stored at other times, has the calls file written again", async () => {
  await withTempDir("calls-note", async (dir) => {
    const log = `${dir}/log`;
    await withTempStore(async (first) => {
      for (let i = 0; i < 5; i++) first.putCall(call(`k${i}`, i));
      await exportStore(first, log);
    });
    await withTempStore(async (again) => {
      for (let i = 0; i < 5; i++) again.putCall(call(`k${i}`, 10 + i));
      assertEquals(await callReads(again, () => exportStore(again, log)), 1);
      assertEquals(await Deno.readTextFile(`${log}/calls.jsonl`), await freshCalls(again, dir));
    });
  });
});

Deno.test("the calls file of a store with no calls is noted, kept, then written again once a call is stored", async () => {
  await withTempStore((store) =>
    withTempDir("calls-note", async (dir) => {
      const log = `${dir}/log`;
      await exportStore(store, log);
      assertEquals(await Deno.readTextFile(`${log}/calls.jsonl`), "");
      assertEquals(await callReads(store, () => exportStore(store, log)), 0);
      store.putCall(call("k0", 0));
      assertEquals(await callReads(store, () => exportStore(store, log)), 1);
      assert((await Deno.readTextFile(`${log}/calls.jsonl`)).includes("k0"));
    })
  );
});

Deno.test("CLI: resuming a finished run keeps its calls file, and its log is what a fresh export writes", async () => {
  await withTempDir("calls-note-cli", async (dir) => {
    const out = `${dir}/run`;
    const args = offlineClimedBenchArgs(out);
    const first = await runCli(args);
    assertEquals(first.code, 0, first.stderr);
    const before = await Deno.stat(`${out}/log/calls.jsonl`);
    assert(before.size > 0);
    const again = await runCli([...args, "--resume"]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals((await Deno.stat(`${out}/log/calls.jsonl`)).mtime?.getTime(), before.mtime?.getTime());
    const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
    try {
      await exportStore(store, `${dir}/fresh`);
    } finally {
      store.close();
    }
    for (const name of ["calls", "outputs", "scores", "events"]) {
      assertEquals(
        await Deno.readTextFile(`${out}/log/${name}.jsonl`),
        await Deno.readTextFile(`${dir}/fresh/${name}.jsonl`),
        name,
      );
    }
  });
});
