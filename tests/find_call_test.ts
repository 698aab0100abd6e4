/**
 * `RunStore.findCall`: the lookups of one turn of the event loop are answered together, each call as `getCall`
 * reads it but with the request it was asked with (its key is that request's address: the stored request is
 * not read back), and a call not committed yet is found too.
 * @module
 */
import { assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import type { StoredCall } from "../lib/core/records.ts";
import { withTempStore } from "./temp_store.ts";

function call(key: string, extra: Partial<StoredCall> = {}): StoredCall {
  return {
    key,
    role: "model",
    model: "m",
    request: { messages: [{ role: "user", content: `问 ${key}` }], params: { temperature: 0.5 } },
    text: `答 ${key}`,
    finishReason: "stop",
    usage: { prompt: 3, completion: 2 },
    attempts: 2,
    latencyMs: 7.5,
    createdAt: "2025-01-01T00:00:00Z",
    endpoint: "host/v1",
    condition: "cot",
    ...extra,
  };
}

Deno.test("findCall: the calls of a turn found together, as getCall reads them, unknown keys undefined", async () => {
  await withTempStore(async (store) => {
    const stored = [
      call("k1"),
      call("k2", { refusal: "no", reasoning: "因为", finishReason: null, usage: null }),
    ];
    for (const c of stored) store.putCall(c);
    store.flush();
    const found = await Promise.all([
      ...stored.map((c) => store.findCall(c.key, c.request)),
      store.findCall("missing", call("missing").request),
    ]);
    assertEquals(found, [store.getCall("k1"), store.getCall("k2"), undefined]);
    assertEquals(found[0], stored[0]);
  });
});

Deno.test("findCall: a call queued and not committed yet is found as it was stored", async () => {
  await withTempStore(async (store) => {
    const queued = call("k3");
    store.putCall(queued);
    assertEquals(await store.findCall("k3", queued.request), queued);
  });
});

Deno.test("findCall: the request is the one asked with, not read back from the store", async () => {
  await withTempStore(async (store) => {
    const stored = call("k4");
    store.putCall(stored);
    store.flush();
    const db = new DatabaseSync(store.path);
    try {
      db.prepare("UPDATE calls SET request = ? WHERE key = ?").run('{"messages":[],"params":{}}', "k4");
    } finally {
      db.close();
    }
    const found = await store.findCall("k4", stored.request);
    assertEquals(found?.request, stored.request);
    assertEquals(store.getCall("k4")?.request, { messages: [], params: {} });
  });
});
