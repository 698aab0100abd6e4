import { assert, assertEquals, assertRejects, assertStringIncludes, assertThrows } from "@std/assert";
import OpenAI from "openai";
import { ConfigError } from "../lib/core/errors.ts";
import { AimdWindow } from "../lib/providers/flow/adaptive_concurrency.ts";
import { Endpoint, type EndpointLimits, type EndpointProvider } from "../lib/providers/flow/endpoint.ts";
import { Caller } from "../lib/providers/caller.ts";
import { EndpointHealth } from "../lib/providers/flow/endpoint_health.ts";
import { EmbeddingEndpointPool, endpointNames, EndpointPool } from "../lib/providers/flow/endpoint_pool.ts";
import { createProvider } from "../lib/providers/factory.ts";
import { LearnedBudget } from "../lib/providers/flow/learned_budget.ts";
import { endpointName } from "../lib/providers/transport/openai.ts";
import { classifyError } from "../lib/providers/transport/classify_error.ts";
import { classifyClientError } from "../lib/providers/transport/client_errors.ts";
import { EndpointHttpError } from "../lib/providers/transport/endpoint_http.ts";
import { SlidingWindowCap } from "../lib/providers/flow/rate_caps.ts";
import { parseDurationMs, readRateLimitHeaders } from "../lib/providers/transport/rate_limits.ts";
import type { RetryPolicy } from "../lib/providers/transport/retry.ts";
import { estimateChatTokens, loadTokenCounter } from "../lib/providers/flow/token_estimate.ts";
import { type ChatRequest, ProviderError } from "../lib/providers/types.ts";
import { formatResetDuration, startRateLimitedServer } from "./fake_rate_limit.ts";
import { type FakeServer, type FakeServerOptions, startFakeServer } from "./fake_server.ts";
import { answerWithLatencies, type HeldServer, settle, startHeldServer } from "./held_server.ts";
import { ManualClock } from "./manual_clock.ts";
import type { Progress } from "../lib/report/progress.ts";
import { withTempStore } from "./temp_store.ts";
import { waitUntil } from "./wait_until.ts";

const QUICK_RETRIES: RetryPolicy = { maxRetries: 6, baseDelayMs: 5, maxDelayMs: 20 };

function question(i: number, maxTokens?: number): ChatRequest {
  return { messages: [{ role: "user", content: `question ${i}` }], maxTokens };
}

/** Starts fakes that also record when (performance.now()) each request arrived. */
async function timedFakes(
  ...options: FakeServerOptions[]
): Promise<{ servers: FakeServer[]; arrivals: number[][]; close(): Promise<void> }> {
  const arrivals: number[][] = options.map(() => []);
  const servers = await Promise.all(options.map((o, i) =>
    startFakeServer({
      ...o,
      fault: (record) => {
        arrivals[i].push(performance.now());
        return o.fault?.(record);
      },
    })
  ));
  return { servers, arrivals, close: async () => void await Promise.all(servers.map((s) => s.close())) };
}

/** The most arrivals within any span of `spanMs` (sorted times). */
function mostWithin(times: readonly number[], spanMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last] - times[first] >= spanMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

// ---------------------------------------------------------------------------------------------------------
// Header parsing

Deno.test("rate-limit headers: reset durations in every form OpenAI sends", () => {
  assertEquals(parseDurationMs("1s"), 1000);
  assertEquals(parseDurationMs("6m0s"), 360_000);
  assertEquals(parseDurationMs("20ms"), 20);
  assertEquals(parseDurationMs("1.5s"), 1500);
  assertEquals(parseDurationMs("1h2m3s"), 3_723_000);
  assertEquals(parseDurationMs("0s"), 0);
  assertEquals(parseDurationMs("59.94s"), 59_940);
  assertEquals(parseDurationMs("2m30.5s"), 150_500);
  assertEquals(parseDurationMs("7"), 7000, "a bare number is seconds");
  for (const bad of ["", "abc", "1x", "s", "1s2", "-1s", null, undefined]) {
    assertEquals(parseDurationMs(bad), undefined, String(bad));
  }
});

Deno.test("rate-limit headers: limit, remaining and reset for requests and tokens", () => {
  const headers = new Headers({
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "499",
    "x-ratelimit-reset-requests": "120ms",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29900",
    "x-ratelimit-reset-tokens": "6m0s",
  });
  assertEquals(readRateLimitHeaders(headers), {
    requests: { limit: 500, remaining: 499, resetMs: 120 },
    tokens: { limit: 30_000, remaining: 29_900, resetMs: 360_000 },
  });
  assertEquals(readRateLimitHeaders(new Headers({ "content-type": "application/json" })), {});
  assertEquals(
    readRateLimitHeaders(new Headers({ "x-ratelimit-remaining-requests": "many" })),
    {},
    "an unreadable value is left out",
  );
});

Deno.test("rate-limit headers: Retry-After in seconds and as a date, retry-after-ms first", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assertEquals(readRateLimitHeaders(new Headers({ "retry-after": "2" }), now).retryAfterMs, 2000);
  assertEquals(
    readRateLimitHeaders(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), now).retryAfterMs,
    7000,
  );
  assertEquals(
    readRateLimitHeaders(new Headers({ "retry-after": "2", "retry-after-ms": "350" }), now).retryAfterMs,
    350,
  );
  assertEquals(readRateLimitHeaders(new Headers({ "retry-after": "soon" }), now).retryAfterMs, undefined);
});

Deno.test("rate-limit headers: the fake's reset format reads back", () => {
  for (const ms of [20, 999, 1500, 59_940, 360_000, 150_500]) {
    assertEquals(parseDurationMs(formatResetDuration(ms)), ms, formatResetDuration(ms));
  }
  assertEquals(formatResetDuration(360_000), "6m0s");
});

Deno.test("a 429 for an exhausted quota is not retryable; a rate-limit 429 is, with its Retry-After", () => {
  // The same answers as the direct HTTP path reads them and as the npm:openai client (batch, doctor) throws them.
  const answers = [
    { code: "insufficient_quota", message: "You exceeded your current quota", headers: new Headers() },
    {
      code: "rate_limit_exceeded",
      message: "Rate limit reached",
      headers: new Headers({ "retry-after-ms": "1200" }),
    },
  ];
  for (const path of ["direct", "client"] as const) {
    const [quota, limited] = answers.map(({ code, message, headers }) =>
      path === "direct"
        ? classifyError(new EndpointHttpError(429, JSON.stringify({ error: { code, message } }), headers))
        : classifyClientError(OpenAI.APIError.generate(429, { error: { code, message } }, undefined, headers))
    );
    assertEquals([quota.status, quota.retryable], [429, false], path);
    assertStringIncludes(quota.message, "quota");
    assertEquals([limited.status, limited.retryable, limited.retryAfterMs], [429, true, 1200], path);
    assertEquals(limited.message, "HTTP 429: 429 Rate limit reached", path);
  }
});

// ---------------------------------------------------------------------------------------------------------
// Units: AIMD window, health, caps, learned budget

Deno.test("AIMD window: starts at its ceiling, halves on overload once per round trip, grows back by one", () => {
  const window = new AimdWindow({ ceiling: 16 });
  assertEquals(window.limit, 16);
  assert(window.onOverload(0, 100));
  assertEquals(window.limit, 8);
  assertEquals(window.onOverload(50, 110), false, "a request sent before the decrease changes nothing");
  assertEquals(window.limit, 8);
  assert(window.onOverload(120, 300), "a request sent after it halves again");
  assertEquals(window.limit, 4);
  for (let i = 0; i < 3; i++) window.onSuccess(100, 400 + i, 500 + i);
  assertEquals(window.limit, 7);
  for (let i = 0; i < 50; i++) window.onSuccess(100, 600 + i, 700 + i);
  assertEquals(window.limit, 16, "never above the ceiling");
  for (let i = 0; i < 10; i++) window.onOverload(1000 * (i + 1), 1000 * (i + 1) + 1);
  assertEquals(window.limit, 1, "never below one");
  assertThrows(() => new AimdWindow({ ceiling: 0 }), RangeError);
});

Deno.test("AIMD window: a fixed latency never shrinks it; latency well above the floor does", () => {
  const steady = new AimdWindow({ ceiling: 64 });
  for (let i = 0; i < 2000; i++) steady.onSuccess(100 + (i % 7), i, i + 100);
  assertEquals(steady.limit, 64);
  assert(Math.abs(steady.latencyFloorMs - 103) < 5, String(steady.latencyFloorMs));

  const slowing = new AimdWindow({ ceiling: 64 });
  for (let i = 0; i < 50; i++) slowing.onSuccess(100, i, i + 100);
  let shrank = false;
  for (let i = 0; i < 50 && !shrank; i++) {
    shrank = slowing.onSuccess(1000, 1000 + i * 10, 2000 + i * 10) === "shrank";
  }
  assert(shrank, "latency ten times the floor is overload");
  assertEquals(slowing.limit, 32);
});

Deno.test("endpoint health: benched after failures in a row, probed after a cooldown that doubles", () => {
  const health = new EndpointHealth({ failuresToBench: 3, cooldownMs: 100, maxCooldownMs: 250 });
  assertEquals(health.onFailure(0, true), false);
  health.onSuccess();
  assertEquals([health.onFailure(1, true), health.onFailure(2, true)], [false, false]);
  assertEquals(health.onFailure(3, false), false, "the last endpoint in service is never benched");
  assertEquals(health.onFailure(4, true), true);
  assert(health.benched(50) && !health.benched(104));
  assert(health.probing);
  assertEquals(health.onFailure(110, true), true, "a failed probe benches it at once");
  assertEquals(health.benchedUntil, 310, "for twice as long");
  health.onFailure(320, true);
  assertEquals(health.benchedUntil, 570, "up to the cap");
  health.onSuccess();
  assert(!health.probing);
  assertEquals(health.benchings, 3);
});

Deno.test("sliding-window cap: never more than the limit in a window, sends spread, refusals refunded", () => {
  const cap = new SlidingWindowCap(5, 1000);
  const sent: number[] = [];
  let now = 0;
  while (sent.length < 20) {
    const at = cap.readyAt(now, 1);
    if (at <= now) {
      cap.record(now, 1);
      sent.push(now);
    }
    now = Math.max(now + 1, Math.min(at, now + 50));
  }
  assertEquals(mostWithin(sent, 1000), 5);
  assert(sent.slice(1).every((t, i) => t - sent[i] >= 200), "sends are spread over the window");
  assertEquals(cap.readyAt(0, 6), Infinity, "a cost above the limit never fits");

  const tokens = new SlidingWindowCap(100, 1000);
  tokens.record(0, 60);
  assert(tokens.readyAt(700, 60) >= 1000, "60 more tokens wait for the first 60 to leave the window");
  tokens.refund(0, 60);
  assertEquals(tokens.used(700), 0);
  assertEquals(tokens.readyAt(700, 60), 700);
});

Deno.test("learned budget: the remainder until the reset, the limit after it, less what was sent since", () => {
  const budget = new LearnedBudget();
  assertEquals(budget.readyAt(0, 1), 0, "unknown until reported");
  budget.charge(1, 0);
  budget.update({ limit: 10, remaining: 2, resetMs: 1000 }, 100);
  assertEquals(budget.available(100), 2);
  budget.charge(1, 200);
  budget.charge(1, 210);
  assertEquals(budget.available(220), 0);
  const reset = budget.readyAt(220, 1);
  assert(reset >= 1100 && reset <= 1150, `waits for the reset (with a margin): ${reset}`);
  assertEquals(budget.available(reset), 8, "then the limit less the two sent since the report");
  // A later report with a later reset does not hide the earlier reset.
  budget.update({ limit: 10, remaining: 0, resetMs: 1000 }, 400);
  assertEquals(budget.available(reset), 8);
  assertEquals(budget.available(2000), 10);
});

// ---------------------------------------------------------------------------------------------------------
// The pool against fake servers

Deno.test("pool: least outstanding requests gives two replicas load in inverse proportion to their latency", async () => {
  // Latencies of 20 and 80 ms on a clock the test moves: exact, however loaded the machine.
  const clock = new ManualClock();
  const servers = await Promise.all([0, 1].map(() => startHeldServer({ clock: clock.now })));
  const [fast, slow] = servers;
  try {
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: slow.url }, { baseURL: fast.url }],
      concurrency: 4,
      clock: clock.now,
    });
    assertEquals(pool.concurrency, 8);
    await withTempStore(async (store) => {
      const caller = new Caller(pool, store, "model", QUICK_RETRIES);
      const calls = Promise.all(Array.from({ length: 250 }, (_, i) => caller.call(question(i))));
      await waitUntil(() => fast.arrivals.length + slow.arrivals.length > 0, "the first requests");
      await answerWithLatencies(pool, servers, [20, 80], clock);
      await calls;
      const counts = [fast, slow].map((s) => s.arrivals.length);
      // While both are full each takes a request as it finishes one: 4 per 20 ms against 4 per 80 ms. Only the
      // start (4 each) and the end (the slow one's last requests) keep the ratio from being exactly 4.
      const ratio = counts[0] / counts[1];
      assert(ratio > 3.5 && ratio < 4.5, `fast:slow = ${counts.join(":")} (latency ratio 4)`);
      // Every stored call names the endpoint that served it, and the counts agree with the servers'.
      const byEndpoint = Map.groupBy(store.calls(), (c) => c.endpoint);
      assertEquals(byEndpoint.get(endpointName(fast.url))?.length, counts[0]);
      assertEquals(byEndpoint.get(endpointName(slow.url))?.length, counts[1]);
    });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

Deno.test("pool: equal replicas share the load evenly", async () => {
  const clock = new ManualClock();
  const servers = await Promise.all([0, 1, 2].map(() => startHeldServer({ clock: clock.now })));
  try {
    const pool = new EndpointPool({
      model: "m",
      endpoints: servers.map((s) => ({ baseURL: s.url })),
      concurrency: 2,
      clock: clock.now,
    });
    const calls = Promise.all(Array.from({ length: 120 }, (_, i) => pool.complete(question(i))));
    await waitUntil(() => servers.some((s) => s.arrivals.length > 0), "the first requests");
    await answerWithLatencies(pool, servers, [15, 15, 15], clock);
    await calls;
    const counts = servers.map((s) => s.arrivals.length);
    // 15 ms each on the test's clock: each takes a request as it finishes one, so the shares are equal.
    assert(counts.every((n) => n >= 38 && n <= 42), counts.join(","));
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

Deno.test("pool: an endpoint that always fails is benched, the run completes on the other, probes are spaced out", async () => {
  const fakes = await timedFakes({ fault: () => ({ status: 500 }) }, { latencyMs: 10 });
  try {
    const [broken, healthy] = fakes.servers;
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: broken.url }, { baseURL: healthy.url }],
      concurrency: 2,
      health: { failuresToBench: 2, cooldownMs: 250 },
    });
    await withTempStore(async (store) => {
      const caller = new Caller(pool, store, "model", QUICK_RETRIES);
      const started = performance.now();
      const results = await Promise.allSettled(
        Array.from({ length: 150 }, (_, i) => caller.call(question(i))),
      );
      const elapsed = performance.now() - started;
      assertEquals(results.filter((r) => r.status === "rejected").length, 0);
      assertEquals(caller.stats.failed, 0);
      assertEquals(new Set(store.calls().map((c) => c.endpoint)), new Set([endpointName(healthy.url)]));
      const [status] = pool.status();
      // Two requests benched the broken endpoint; after them it saw only probes, one at a time, each at least a
      // cooldown after the failure before it, the cooldown doubling: 250, 500, 1000 ms. Lower bounds only, which
      // a loaded machine cannot break (it only makes gaps longer). The run lasts over 700 ms (148 requests, two
      // at a time, 10 ms each), so a probe is due while requests still wait.
      const times = fakes.arrivals[0];
      assert(times.length >= 3, `probed after its cooldown: ${times.length} requests`);
      for (let k = 2; k < times.length; k++) {
        const [gap, cooldown] = [times[k] - times[k - 1], 250 * 2 ** (k - 2)];
        assert(
          gap >= cooldown,
          `request ${k} came ${gap} ms after the one before it, within the ${cooldown} ms cooldown`,
        );
      }
      assertEquals(status.benchings, times.length - 1, "benched once, then again after each failed probe");
      assert(elapsed > 600, `the run lasted ${elapsed} ms`);
    });
  } finally {
    await fakes.close();
  }
});

Deno.test("pool: a benched endpoint that recovers is probed after its cooldown and serves again", async () => {
  let failing = true;
  const fakes = await timedFakes({ latencyMs: 5, fault: () => failing ? { status: 503 } : undefined }, {
    latencyMs: 5,
  });
  try {
    const [flaky, steady] = fakes.servers;
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: flaky.url }, { baseURL: steady.url }],
      concurrency: 1,
      health: { failuresToBench: 1, cooldownMs: 200 },
    });
    await withTempStore(async (store) => {
      const caller = new Caller(pool, store, "model", QUICK_RETRIES);
      await Promise.all(Array.from({ length: 10 }, (_, i) => caller.call(question(i))));
      assert(pool.status()[0].benched, "benched after its failure");
      failing = false;
      await new Promise((resolve) => setTimeout(resolve, 250));
      await Promise.all(Array.from({ length: 40 }, (_, i) => caller.call(question(100 + i))));
      const [status] = pool.status();
      assert(!status.benched && status.served >= 10, JSON.stringify(status));
      assertEquals(caller.stats.failed, 0);
    });
  } finally {
    await fakes.close();
  }
});

/** A fake whose first request is answered 429 with `retry-after-ms: retryAfterMs`, then every one normally. */
function throttledFirst(retryAfterMs: number): ReturnType<typeof timedFakes> {
  return timedFakes({
    fault: (r) => r.index === 0 ? { status: 429 } : undefined,
    headers: (r): Record<string, string> => r.index === 0 ? { "retry-after-ms": String(retryAfterMs) } : {},
  });
}

/** A progress stand-in that keeps the notes it is given. */
function noteTaker(): { notes: string[]; progress: Progress } {
  const notes: string[] = [];
  return { notes, progress: { note: (text: string) => notes.push(text) } as unknown as Progress };
}

Deno.test("pool: a wait of a second or more for an endpoint is shown on the progress line, with why (a 429's pause)", async () => {
  const fakes = await throttledFirst(1200);
  try {
    const [server] = fakes.servers;
    const pool = new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 2 });
    await withTempStore(async (store) => {
      const { notes, progress } = noteTaker();
      const caller = new Caller(pool, store, "model", QUICK_RETRIES, progress);
      await caller.call(question(0));
      assertEquals(notes.length, 1, notes.join("\n"));
      assert(
        /^model waiting 1\.[0-2]s for 127\.0\.0\.1:\d+\/v1: paused after HTTP 429/.test(notes[0]),
        notes[0],
      );
    });
  } finally {
    await fakes.close();
  }
});

Deno.test("pool: a cap of the user's own is named when it holds calls back; short waits are not shown", async () => {
  const server = await startFakeServer({});
  // One request per window: the second call waits for the window.
  const oneInWindow = (capWindowMs: number) =>
    new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: server.url }],
      concurrency: 4,
      rpm: 1,
      capWindowMs,
    });
  try {
    await withTempStore(async (store) => {
      const { notes, progress } = noteTaker();
      const caller = new Caller(oneInWindow(1500), store, "model", QUICK_RETRIES, progress);
      await Promise.all([caller.call(question(0)), caller.call(question(1))]);
      assertEquals(notes.length, 1, notes.join("\n"));
      assertStringIncludes(notes[0], ": the --rpm cap");
      const quick = oneInWindow(300);
      const taker = noteTaker();
      const quickCaller = new Caller(quick, store, "model", QUICK_RETRIES, taker.progress);
      await Promise.all([quickCaller.call(question(2)), quickCaller.call(question(3))]);
      assertEquals(taker.notes, [], "a wait under a second is not shown");
    });
  } finally {
    await server.close();
  }
});

Deno.test("endpoint: a hold is said to be for the limit that ends last, as readyAt waits for the latest", () => {
  const clock = new ManualClock();
  const at = (limits: Omit<EndpointLimits, "concurrency">) =>
    new Endpoint(
      "host/v1",
      {} as EndpointProvider,
      { concurrency: 4, capWindowMs: 60_000, ...limits },
      clock.now,
    );
  const endpoint = at({ rpm: 1 });
  // One request in the minute: the --rpm cap holds the next one for about a minute.
  endpoint.succeeded(endpoint.begin(clock.now(), 10), clock.now());
  // A second one (sent past the cap) gets a 429 asking for 1 s: the pause ends long before the cap does.
  const throttled = new ProviderError("HTTP 429", { status: 429, retryable: true, retryAfterMs: 1000 });
  endpoint.failed(endpoint.begin(clock.now(), 10), throttled, clock.now(), true);
  const ready = endpoint.readyAt(clock.now(), 10);
  assert(ready > 50_000, `the cap holds for about a minute, not the pause's second: ${ready}`);
  assertEquals(ready, endpoint.caps.requests!.readyAt(clock.now(), 1));
  assertEquals(endpoint.holdReason(clock.now(), 10), "the --rpm cap");
  // Alone, each limit is named for itself.
  const paused = at({});
  paused.failed(paused.begin(clock.now(), 0), throttled, clock.now(), true);
  assertEquals(paused.holdReason(clock.now(), 0), "paused after HTTP 429 (too many requests)");
  const tokens = at({ tpm: 1000 });
  tokens.succeeded(tokens.begin(clock.now(), 900), clock.now());
  assert(tokens.readyAt(clock.now(), 500) > clock.now());
  assertEquals(tokens.holdReason(clock.now(), 500), "the --tpm cap");
  const failing = at({});
  const down = new ProviderError("HTTP 500", { status: 500, retryable: true });
  for (let i = 0; i < 3; i++) failing.failed(failing.begin(clock.now(), 0), down, clock.now(), true);
  assert(failing.readyAt(clock.now(), 0) > clock.now(), "three failures in a row bench it");
  assertEquals(failing.holdReason(clock.now(), 0), "benched after failures in a row, probed again then");
});

Deno.test("pool: a 429 halves the window and is sent again without using a retry; the window grows back", async () => {
  const fakes = await throttledFirst(150);
  try {
    const [server] = fakes.servers;
    const pool = new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 8 });
    await withTempStore(async (store) => {
      const caller = new Caller(pool, store, "model", { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 });
      const { call } = await caller.call(question(0));
      assertEquals(call.attempts, 1, "the 429 was waited out inside the pool");
      const [first, second] = fakes.arrivals[0];
      assert(second - first >= 140, `Retry-After honoured: ${second - first} ms`);
      assertEquals(pool.status()[0].window, 5, "halved to 4, then one more for the success");
      assertEquals(pool.status()[0].throttled, 1);
      for (let i = 1; i <= 5; i++) await caller.call(question(i));
      assertEquals(pool.status()[0].window, 8, "back at the ceiling");
      assertEquals(caller.stats, { cached: 0, sent: 6, retries: 0, failed: 0 });
    });
  } finally {
    await fakes.close();
  }
});

Deno.test("pool: after a 429 the server has half the window in flight, then one more per success up to the ceiling", async () => {
  const clock = new ManualClock();
  const server = await startHeldServer({ clock: clock.now });
  try {
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: server.url }],
      concurrency: 8,
      clock: clock.now,
    });
    const calls = Promise.allSettled(Array.from({ length: 30 }, (_, i) => pool.complete(question(i))));
    await settle(pool, [server]);
    assertEquals(server.inFlight, 8, "the window starts at its ceiling");
    // All eight refused 10 ms after they were sent: one halving (all were sent before it), and a pause of
    // 100 ms on the pool's clock.
    clock.advance(10);
    server.answerAll({ status: 429, headers: { "retry-after-ms": "100" } });
    await settle(pool, [server]);
    assertEquals(server.arrivals.length, 8, "nothing is sent while the clock stands inside the pause");
    clock.advance(100);
    await waitUntil(() => server.arrivals.length > 8, "the refused requests to be sent again");
    await settle(pool, [server]);
    assertEquals(server.inFlight, 4, "half the window is in flight at the server");
    assert(server.arrivals.slice(8).every((r) => r.inFlight <= 4), "never more than half since the 429");
    // Each success grows the window by one: the server sees one more in flight after each answer.
    const inFlight: number[] = [];
    for (let i = 0; i < 6; i++) {
      server.answer(server.held()[0]);
      await settle(pool, [server]);
      inFlight.push(server.inFlight);
    }
    assertEquals(inFlight, [5, 6, 7, 8, 8, 8]);
    while (server.answerAll() > 0) await settle(pool, [server]);
    const results = await calls;
    assertEquals(results.filter((r) => r.status === "fulfilled").length, 30);
    assertEquals(pool.status()[0].throttled, 8);
  } finally {
    await server.close();
  }
});

Deno.test("pool: when latency rises well above its floor the server has half the window in flight, and the whole window once it falls", async () => {
  const clock = new ManualClock();
  const server = await startHeldServer({ clock: clock.now });
  try {
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: server.url }],
      concurrency: 8,
      clock: clock.now,
    });
    const calls = Promise.allSettled(Array.from({ length: 400 }, (_, i) => pool.complete(question(i))));
    /**
     * Answers everything held `latencyMs` after it was sent (on the pool's clock) and returns what the server has
     * in flight once the pool has sent what it may: always exactly the pool's window, as plenty are waiting.
     */
    const roundTrip = async (latencyMs: number) => {
      clock.advance(latencyMs);
      server.answerAll();
      await settle(pool, [server]);
      assertEquals(server.inFlight, pool.status()[0].window, "the server has the window in flight");
      return server.inFlight;
    };
    await waitUntil(() => server.arrivals.length > 0, "the first requests");
    await settle(pool, [server]);
    assertEquals(server.inFlight, 8);
    // A steady 10 ms: past the warm-up (10 successes) the latency floor is 10 ms; the window stays at 8.
    for (let i = 0; i < 12; i++) assertEquals(await roundTrip(10), 8);
    // One round trip of 250 ms: the smoothed latency passes three times the floor at the first answer.
    const after = [await roundTrip(250)];
    assertEquals(after[0], 4, "half the window in flight at the server");
    // Then 1 ms again: while the smoothed latency is still high, each round trip halves the window once more
    // (never below 1); once it is low, each success adds one, so each round trip at most doubles it, up to 8.
    while (after.length < 40 && after.at(-1)! < 8) after.push(await roundTrip(1));
    assertEquals(after.at(-1), 8, `back at the ceiling: ${after}`);
    const lowest = after.indexOf(Math.min(...after));
    for (let i = 1; i < after.length; i++) {
      const [before, now] = [after[i - 1], after[i]];
      if (i <= lowest) assertEquals(now, Math.max(1, before / 2), `halving: ${after}`);
      else assert(now >= before && now <= 2 * before, `growing back: ${after}`);
    }
    while (server.answerAll() > 0) await settle(pool, [server]);
    const results = await calls;
    assertEquals(results.filter((r) => r.status === "fulfilled").length, 400);
  } finally {
    await server.close();
  }
});

Deno.test("pool: a server-side rate limit gives 429s that are waited out: zero failed calls, endpoint stored", async () => {
  const server = await startRateLimitedServer({ requestsPerWindow: 10, windowMs: 500, latencyMs: 20 });
  try {
    // 16 in flight against 10 per window: the first burst is partly refused.
    const pool = new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 16 });
    await withTempStore(async (store) => {
      const caller = new Caller(pool, store, "model", { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 });
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => caller.call(question(i))),
      );
      assertEquals(results.filter((r) => r.status === "rejected").length, 0);
      assert(server.throttled() > 0, "the server refused some requests");
      const calls = store.calls();
      assertEquals(calls.length, 40);
      assert(calls.every((c) => c.attempts === 1 && c.endpoint === endpointName(server.url)));
      assertEquals(server.admittedAt.length, 40);
      // Every arrival counts, refused ones included. Before any answer the client knows nothing and sends its
      // whole window (16, of which the server refuses 6); after that only what Retry-After and the server's
      // reports allow. A report overtaken by sends still in transit can cost a refusal or two more (6 or 7 were
      // seen, also beside two busy-looping processes), hence a bound of twice the first burst's 6; a client that
      // sends on while the reports say nothing is left is refused 18 times, one that ignores them ~100 times.
      const refused = server.fake.requests.length - calls.length;
      assertEquals(refused, server.throttled());
      assert(refused <= 12, `${refused} requests refused: the client did not wait as the server said`);
    });
  } finally {
    await server.close();
  }
});

Deno.test("pool: x-ratelimit headers on successful answers hold requests back before the server refuses", async () => {
  const server = await startRateLimitedServer({ requestsPerWindow: 4, windowMs: 300, latencyMs: 5 });
  try {
    const pool = new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 1 });
    const started = performance.now();
    for (let i = 0; i < 13; i++) await pool.complete(question(i));
    assertEquals(server.throttled(), 0);
    assert(performance.now() - started >= 800, "three windows waited for");
  } finally {
    await server.close();
  }
});

Deno.test("pool: a rate-limit reset beyond 24.8 days arms a timer setTimeout can honour, not one that fires at once", async () => {
  // 9000h: a server's reset this far off (a malformed header, or a quota reset weeks away) is longer than the
  // 2^31 - 1 ms a timer holds; handed over as is, the timer fires after 1 ms and the pool polls every millisecond.
  const server = await startFakeServer({
    headers: () => ({
      "x-ratelimit-limit-requests": "1",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "9000h",
    }),
  });
  const realSetTimeout = globalThis.setTimeout;
  try {
    const pool = new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 1 });
    await pool.complete(question(0));
    const delays: number[] = [];
    // Only the pool's own timer is armed while this stub stands: the request waits for the reset, nothing is sent.
    globalThis.setTimeout = ((_handler: () => void, delay?: number) => {
      delays.push(delay ?? 0);
      return 0;
    }) as unknown as typeof setTimeout;
    const held: string[] = [];
    void pool.complete(question(1), { onHold: (note) => held.push(note) });
    // The call reaches the queue after a few microtasks (no timer of any other kind runs before it is queued).
    for (let i = 0; i < 20 && delays.length === 0; i++) await Promise.resolve();
    globalThis.setTimeout = realSetTimeout;
    assertEquals(delays.length, 1, "one timer armed for the reset");
    assert(delays[0] <= 2 ** 31 - 1, `timer delay ${delays[0]} ms does not fit setTimeout`);
    assert(delays[0] > 24 * 86_400_000, "the capped timer still waits as long as a timer can");
    assertEquals(server.requests.length, 1, "the second request waits for the reset");
    assertEquals(held.length, 1);
    assertStringIncludes(held[0], "the server's request allowance (x-ratelimit-*-requests) is used up");
  } finally {
    globalThis.setTimeout = realSetTimeout;
    await server.close();
  }
});

/**
 * Answers every request as it arrives. `clock` stands still while the pool has sent requests that have not yet
 * arrived, so each arrival is stamped with the time the pool sent it (no allowance for transit needed); between
 * steps it follows real time, so that the pool's timers (which wait real milliseconds) end about when `clock`
 * reaches their time and the caps are reached.
 */
async function answerAsSent(pool: EndpointPool, server: HeldServer, clock: ManualClock, total: number) {
  await waitUntil(() => server.arrivals.length > 0, "the first requests");
  let stepped = performance.now();
  while (server.arrivals.length < total || server.inFlight > 0) {
    await settle(pool, [server]);
    server.answerAll();
    await settle(pool, [server]);
    const now = performance.now();
    clock.advance(now - stepped);
    stepped = now;
  }
}

Deno.test("pool: an RPM cap is never exceeded within a window (at the server's arrival times)", async () => {
  const clock = new ManualClock();
  const server = await startHeldServer({ clock: clock.now });
  try {
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: server.url }],
      concurrency: 8,
      rpm: 6,
      capWindowMs: 400,
      clock: clock.now,
    });
    const calls = Promise.all(Array.from({ length: 20 }, (_, i) => pool.complete(question(i))));
    await answerAsSent(pool, server, clock, 20);
    await calls;
    const times = server.arrivals.map((r) => r.at);
    assertEquals(times.length, 20);
    assert(mostWithin(times, 400) <= 6, `most in a window: ${mostWithin(times, 400)}`);
    assert(times[19] - times[0] >= 1200, "the cap held requests back: 20 at 6 per window span 3 windows");
  } finally {
    await server.close();
  }
});

Deno.test("pool: a TPM cap counts prompt tokens plus max_tokens and is never exceeded within a window", async () => {
  const count = await loadTokenCounter();
  const clock = new ManualClock();
  const server = await startHeldServer({ clock: clock.now });
  try {
    const requests = Array.from({ length: 16 }, (_, i) => question(i, 40));
    const cost = estimateChatTokens(requests[0].messages, 40, count);
    const pool = new EndpointPool({
      model: "m",
      endpoints: [{ baseURL: server.url }],
      concurrency: 8,
      tpm: cost * 4,
      capWindowMs: 400,
      clock: clock.now,
    });
    const calls = Promise.all(requests.map((r) => pool.complete(r)));
    await answerAsSent(pool, server, clock, 16);
    await calls;
    const times = server.arrivals.map((r) => r.at);
    assertEquals(times.length, 16);
    assert(mostWithin(times, 400) <= 4, `most in a window: ${mostWithin(times, 400)}`);
    assert(server.arrivals.every((r) => r.body?.max_tokens === 40));
    const err = await assertRejects(() => pool.complete(question(99, cost * 5)), ProviderError);
    assertEquals(err.retryable, false);
    assertStringIncludes(err.message, "tokens-per-minute cap");
  } finally {
    await server.close();
  }
});

Deno.test("pool: embeddings go through the pool too", async () => {
  const fakes = await timedFakes({}, {});
  try {
    const pool = new EmbeddingEndpointPool({
      model: "e",
      endpoints: fakes.servers.map((s) => ({ baseURL: s.url })),
    });
    const vectors = await Promise.all(["a", "b", "c", "d"].map((t) => pool.embed(t)));
    assert(vectors.every((v) => v.length === 64));
    assert(fakes.servers.every((s) => s.requests.length > 0), "both endpoints used");
  } finally {
    await fakes.close();
  }
});

// ---------------------------------------------------------------------------------------------------------
// Factory

Deno.test("factory: comma-separated base URLs make a pool; one URL keeps today's label", () => {
  const one = createProvider({ model: "m", baseUrl: "http://10.0.0.1:8000/v1", concurrency: 4 });
  assert(one instanceof EndpointPool);
  assertEquals([one.label, one.concurrency], ["m @ 10.0.0.1:8000/v1", 4]);
  const three = createProvider({
    model: "m",
    baseUrl: "http://10.0.0.1:8000/v1, http://10.0.0.2:8000/v1,http://10.0.0.3:8000/v1/",
    concurrency: 4,
  });
  assertEquals([three.label, three.concurrency], ["m @ 10.0.0.1:8000/v1 (+2)", 12]);
  const embed = createProvider({ model: "e", baseUrl: "http://10.0.0.1:8000/v1", embeddings: true });
  assert(embed instanceof EmbeddingEndpointPool && typeof embed.embed === "function");
  assertEquals(typeof (one as { embed?: unknown }).embed, "undefined", "chat pools serve no embeddings");
  const err = assertThrows(
    () =>
      createProvider({ model: "m", baseUrl: "http://a:1/v1,ftp://b/v1", baseUrlFlag: "--judge-base-url" }),
    ConfigError,
  );
  assertStringIncludes(err.message, '--judge-base-url: "ftp://b/v1" is not an http(s) URL');
});

Deno.test("factory: several key variables pair with the URLs, or make one endpoint per key on one URL", () => {
  Deno.env.set("POOL_TEST_KEY_A", "sk-pool-test-a-aaaaaaaaaaaaaaaa");
  Deno.env.set("POOL_TEST_KEY_B", "sk-pool-test-b-bbbbbbbbbbbbbbbb");
  try {
    const keys = createProvider({
      model: "m",
      baseUrl: "https://api.example.com/v1",
      apiKeyEnv: "POOL_TEST_KEY_A,POOL_TEST_KEY_B",
    });
    assertEquals([keys.label, keys.concurrency], ["m @ api.example.com/v1 (+1)", 16]);
    assert(!keys.label.includes("sk-"));
    assertEquals(endpointNames(["https://api.example.com/v1", "https://api.example.com/v1"]), [
      "api.example.com/v1",
      "api.example.com/v1#2",
    ]);
    const mismatch = assertThrows(() =>
      createProvider({
        model: "m",
        baseUrl: "http://a:1/v1,http://b:1/v1,http://c:1/v1",
        apiKeyEnv: "POOL_TEST_KEY_A,POOL_TEST_KEY_B",
      }), ConfigError);
    assertStringIncludes(mismatch.message, "3 base URLs but 2 key variables");
    const unset = assertThrows(
      () =>
        createProvider({
          model: "m",
          baseUrl: "http://a:1/v1",
          apiKeyEnv: "POOL_TEST_KEY_A,POOL_TEST_UNSET",
        }),
      ConfigError,
    );
    assertStringIncludes(unset.message, '"POOL_TEST_UNSET"');
  } finally {
    Deno.env.delete("POOL_TEST_KEY_A");
    Deno.env.delete("POOL_TEST_KEY_B");
  }
});
