import { assert, assertEquals } from "@std/assert";
import { DeadlineQueue } from "../lib/providers/transport/deadlines.ts";

/** Waits `ms` milliseconds. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadlines expire in the order they started, each no sooner than its timeout; ended ones never do", async () => {
  const queue = new DeadlineQueue(60);
  const expired: { name: string; after: number }[] = [];
  const start = (name: string) => {
    const started = performance.now();
    return queue.start(() => expired.push({ name, after: performance.now() - started }));
  };
  start("a");
  const b = start("b");
  await sleep(25);
  start("c");
  const d = start("d");
  queue.end(b);
  await sleep(10);
  queue.end(d);
  assertEquals(queue.size, 2);
  // Until both have expired (however late a loaded machine fires the timer).
  for (let waited = 0; queue.size > 0 && waited < 2000; waited += 10) await sleep(10);
  assertEquals(expired.map((e) => e.name), ["a", "c"]);
  for (const e of expired) assert(e.after >= 59, `${e.name} expired after ${e.after} ms`);
  assertEquals(queue.size, 0);
  // An ended or expired deadline ended again changes nothing.
  queue.end(b);
  assertEquals(queue.size, 0);
});

Deno.test("a deadline started as another expires is kept, and no timer outlives the pending deadlines", async () => {
  const queue = new DeadlineQueue(20);
  const expired: string[] = [];
  queue.start(() => {
    expired.push("first");
    queue.start(() => expired.push("second"));
  });
  await sleep(80);
  assertEquals(expired, ["first", "second"]);
  // Ended before its time, the only deadline leaves no timer behind (the test's sanitizer would fail on one).
  const last = queue.start(() => expired.push("never"));
  queue.end(last);
  await sleep(40);
  assertEquals(expired, ["first", "second"]);
});
