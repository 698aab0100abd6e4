import { assert, assertEquals } from "@std/assert";
import { gapStats, RequestClock } from "../bench/fake_server_process.ts";
import { startFakeServer, TimerLateness } from "./fake_server.ts";

/** What a clock reads before any request. */
const EMPTY = {
  first_request_ms: null,
  last_answer_ms: null,
  requests: 0,
  answer_to_next_request_ms: null,
  request_to_answer_ms: null,
};

Deno.test("the bench fake's clock keeps the first request and the last answer, and starts afresh on reset", () => {
  const clock = new RequestClock();
  assertEquals(clock.read(), EMPTY);
  clock.received();
  clock.received();
  clock.answered();
  const first = clock.read();
  clock.answered();
  const second = clock.read(true);
  assertEquals(second.requests, 2);
  assertEquals(second.first_request_ms, first.first_request_ms);
  assert(second.last_answer_ms! >= first.last_answer_ms!);
  assert(second.last_answer_ms! >= second.first_request_ms!);
  assertEquals(clock.read(), EMPTY);
});

Deno.test("the bench fake's clock measures answer → next request per connection, not across connections", async () => {
  const clock = new RequestClock();
  clock.received(1);
  clock.received(2);
  clock.answered(1);
  // Port 2's answer has not left: its next request makes no gap, nor does a request of unknown connection.
  clock.received(3);
  clock.received(null);
  await new Promise((resolve) => setTimeout(resolve, 20));
  clock.received(1);
  const gaps = clock.read(true).answer_to_next_request_ms!;
  assertEquals(gaps.n, 1);
  assert(gaps.mean >= 15 && gaps.mean < 1000, `gap ${gaps.mean} ms`);
  assertEquals(clock.read().answer_to_next_request_ms, null, "reset");
  assertEquals(gapStats([4, 1, 3, 2]), { n: 4, mean: 2.5, p50: 2, p90: 3, p99: 3, max: 4 });
});

Deno.test("the fake notes each request's connection: requests on one kept-alive connection share its port", async () => {
  const server = await startFakeServer();
  try {
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${server.url}/models`);
      await response.body?.cancel();
    }
    const ports = server.requests.map((r) => r.remotePort);
    assert(ports.every((p) => typeof p === "number" && p > 0), JSON.stringify(ports));
    assertEquals(new Set(ports).size, 1, "one connection, kept alive");
  } finally {
    await server.close();
  }
});

Deno.test("the bench fake's clock measures each request's arrival → answer on its connection", async () => {
  const clock = new RequestClock();
  clock.received(1);
  clock.received(2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  clock.answered(1);
  // An answer of unknown connection, or on a connection with no request, is not a latency.
  clock.answered(null);
  clock.answered(3);
  const served = clock.read(true).request_to_answer_ms!;
  assertEquals(served.n, 1);
  assert(served.mean >= 15 && served.mean < 1000, `served ${served.mean} ms`);
  assertEquals(clock.read().request_to_answer_ms, null, "reset");
});

/** The mean arrival → answer of `n` sequential chat requests to a fake with `latencyMs`, as the client saw it. */
async function clientLatency(options: { latencyMs: number; onTimeLatency?: boolean }, n: number) {
  const server = await startFakeServer(options);
  try {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `q${i}` }] }),
      });
      await response.text();
      times.push(performance.now() - start);
    }
    return times;
  } finally {
    await server.close();
  }
}

Deno.test("a fake with on-time latency is never early by more than its cap; by default never sooner", async () => {
  const plain = await clientLatency({ latencyMs: 30 }, 8);
  assert(plain.every((t) => t >= 30), `default: ${plain}`);
  // No delay is shortened by more than the most a timer's lateness counts for.
  const onTime = await clientLatency({ latencyMs: 30, onTimeLatency: true }, 16);
  assert(onTime.every((t) => t >= 30 - TimerLateness.MAX_LATE_MS), `on time: ${onTime}`);
});

Deno.test("TimerLateness: timers 2 ms late are set 2 ms short once it has seen them, and end on time", async () => {
  let clock = 0;
  const asked: number[] = [];
  const lateTimer = (ms: number) => {
    asked.push(ms);
    clock += ms + 2;
    return Promise.resolve();
  };
  const lateness = new TimerLateness(lateTimer, () => clock);
  assertEquals(lateness.mean, 0);
  const signal = new AbortController().signal;
  const took: number[] = [];
  for (let i = 0; i < 4; i++) {
    const start = clock;
    await lateness.delay(100, signal);
    took.push(clock - start);
  }
  assertEquals(asked, [100, 98, 98, 98]);
  assertEquals(took, [102, 100, 100, 100]);
  assertEquals(lateness.mean, 2);
  // Never a negative timer: a delay shorter than the lateness asks for none.
  await lateness.delay(1, signal);
  assertEquals(asked.at(-1), 0);
  // A stall counts for no more than MAX_LATE_MS.
  const stalled = new TimerLateness((ms) => {
    clock += ms + 500;
    return Promise.resolve();
  }, () => clock);
  await stalled.delay(100, signal);
  assertEquals(stalled.mean, TimerLateness.MAX_LATE_MS);
});
