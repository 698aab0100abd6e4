import { assert, assertEquals } from "@std/assert";
import { gapStats, RequestClock } from "../bench/fake_server_process.ts";
import { startFakeServer } from "./fake_server.ts";

/** What a clock reads before any request. */
const EMPTY = { first_request_ms: null, last_answer_ms: null, requests: 0, answer_to_next_request_ms: null };

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
