import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { Caller } from "../lib/providers/caller.ts";
import { OpenAIProvider } from "../lib/providers/transport/openai.ts";
import { Progress } from "../lib/report/progress.ts";
import { ProviderError } from "../lib/providers/types.ts";
import { startFakeServer } from "./fake_server.ts";
import { withTempStore } from "./temp_store.ts";

const KEY = "sk-provider-test-secret-abcdefghijkl";

Deno.test("caller: waits out Retry-After, shows the wait in progress, stores once, then serves from the store", async () => {
  const server = await startFakeServer({
    fault: (r) => (r.index === 0 ? { status: 429, retryAfterSeconds: 1 } : undefined),
  });
  try {
    await withTempStore(async (store) => {
      const lines: string[] = [];
      const progress = new Progress("t", 1, { tty: false, write: (t) => lines.push(t), intervalMs: 0 });
      const provider = new OpenAIProvider({ model: "m", baseURL: server.url, apiKey: KEY });
      const caller = new Caller(provider, store, "model", {
        maxRetries: 3,
        baseDelayMs: 10,
        maxDelayMs: 5000,
      }, progress);
      const started = performance.now();
      const first = await caller.call({ messages: [{ role: "user", content: "hello" }] });
      assert(performance.now() - started >= 1000, "Retry-After of 1 s must be honoured");
      assertEquals(first.cached, false);
      assertEquals(first.call.attempts, 2);
      assert(lines.some((l) => l.includes("retry 1/3") && l.includes("HTTP 429")), lines.join(""));
      const second = await caller.call({ messages: [{ role: "user", content: "hello" }] });
      assertEquals(second.cached, true);
      assertEquals(server.requests.length, 2);
      assertEquals(server.requests[1].callKey, first.call.key);
      // A different repeat number is a different call.
      const third = await caller.call({ messages: [{ role: "user", content: "hello" }] }, 1);
      assertEquals(third.cached, false);
    });
  } finally {
    await server.close();
  }
});

Deno.test("caller: identical requests made while one is under way share its reply (one request sent)", async () => {
  const server = await startFakeServer({ latencyMs: 100 });
  try {
    await withTempStore(async (store) => {
      const provider = new OpenAIProvider({ model: "m", baseURL: server.url });
      const caller = new Caller(provider, store, "model");
      const request = { messages: [{ role: "user" as const, content: "same" }] };
      const results = await Promise.all([1, 2, 3, 4].map(() => caller.call(request)));
      assertEquals(server.requests.length, 1);
      assertEquals(results.filter((r) => !r.cached).length, 1);
      assertEquals(new Set(results.map((r) => r.call.text)).size, 1);
      assertEquals(caller.stats, { cached: 3, sent: 1, retries: 0, failed: 0 });
      assertEquals(store.calls().length, 1);
    });
  } finally {
    await server.close();
  }
});

Deno.test("caller: a hung request times out and is retried; a malformed body is retried", async () => {
  const server = await startFakeServer({
    fault: (r) => (r.index === 0 ? { hang: true } : r.index === 1 ? { malformed: true } : undefined),
  });
  try {
    await withTempStore(async (store) => {
      const provider = new OpenAIProvider({ model: "m", baseURL: server.url, timeoutMs: 300 });
      const caller = new Caller(provider, store, "model", { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 10 });
      const { call } = await caller.call({ messages: [{ role: "user", content: "x" }] });
      assertEquals(call.attempts, 3);
      assertEquals(caller.stats.retries, 2);
    });
  } finally {
    await server.close();
  }
});

Deno.test("caller: 401 is not retried, and the error never shows the key", async () => {
  const server = await startFakeServer({ fault: () => ({ status: 401 }) });
  try {
    await withTempStore(async (store) => {
      const provider = new OpenAIProvider({ model: "m", baseURL: server.url, apiKey: KEY });
      const caller = new Caller(provider, store, "model", { maxRetries: 5, baseDelayMs: 5, maxDelayMs: 10 });
      const err = await assertRejects(
        () => caller.call({ messages: [{ role: "user", content: "x" }] }),
        ProviderError,
      );
      assertEquals(server.requests.length, 1);
      assertStringIncludes(err.message, "HTTP 401");
      assert(!err.message.includes(KEY));
      assert(!JSON.stringify(store.events()).includes(KEY));
      assertEquals(store.calls().length, 0);
    });
  } finally {
    await server.close();
  }
});

Deno.test("provider: a server that refuses JSON mode is asked again without it, and not asked for it again", async () => {
  const server = await startFakeServer({
    fault: (r) =>
      (r.body as { response_format?: unknown })?.response_format
        ? { status: 400, message: "response_format json_object is not supported by this model" }
        : undefined,
  });
  try {
    const provider = new OpenAIProvider({ model: "m", baseURL: server.url });
    const request = { messages: [{ role: "user" as const, content: "x" }], jsonMode: true };
    assertStringIncludes((await provider.complete(request)).text, "Fake answer");
    await provider.complete(request);
    const formats = server.requests.map((r) =>
      Boolean((r.body as { response_format?: unknown }).response_format)
    );
    assertEquals(formats, [true, false, false]);
  } finally {
    await server.close();
  }
});

Deno.test("provider: other 400s stay errors and are not retried", async () => {
  const server = await startFakeServer({
    fault: () => ({ status: 400, message: "context length exceeded" }),
  });
  try {
    const provider = new OpenAIProvider({ model: "m", baseURL: server.url });
    const err = await assertRejects(
      () => provider.complete({ messages: [{ role: "user", content: "x" }], jsonMode: true }),
      ProviderError,
    );
    assertEquals(err.retryable, false);
  } finally {
    await server.close();
  }
});
