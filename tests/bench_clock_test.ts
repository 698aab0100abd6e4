import { assert, assertEquals } from "@std/assert";
import { RequestClock } from "../bench/fake_server_process.ts";

Deno.test("the bench fake's clock keeps the first request and the last answer, and starts afresh on reset", () => {
  const clock = new RequestClock();
  assertEquals(clock.read(), { first_request_ms: null, last_answer_ms: null, requests: 0 });
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
  assertEquals(clock.read(), { first_request_ms: null, last_answer_ms: null, requests: 0 });
});
