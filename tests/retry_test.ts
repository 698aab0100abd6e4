import { assert, assertEquals, assertRejects } from "@std/assert";
import { Limiter } from "../lib/providers/flow/limiter.ts";
import { redact, registerSecret } from "../lib/providers/transport/redact.ts";
import { backoffDelayMs, parseRetryAfter, withRetry } from "../lib/providers/transport/retry.ts";
import { ProviderError } from "../lib/providers/types.ts";

Deno.test("Retry-After: seconds, HTTP date and retry-after-ms", () => {
  assertEquals(parseRetryAfter(new Headers({ "retry-after": "3" })), 3000);
  assertEquals(parseRetryAfter(new Headers({ "retry-after-ms": "250" })), 250);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assertEquals(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  assertEquals(parseRetryAfter(new Headers({})), undefined);
});

Deno.test("backoff doubles with jitter in [0.5, 1), is capped, and honours Retry-After", () => {
  const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  assertEquals(backoffDelayMs(policy, 1, undefined, () => 0), 50);
  assertEquals(backoffDelayMs(policy, 3, undefined, () => 0.999), 399);
  assertEquals(backoffDelayMs(policy, 10, undefined, () => 0), 500);
  assertEquals(backoffDelayMs(policy, 1, 700, () => 0), 700);
  assertEquals(backoffDelayMs(policy, 1, 60_000, () => 0), 1000);
});

Deno.test("withRetry retries retryable errors up to the bound and reports each wait", async () => {
  const notices: string[] = [];
  let calls = 0;
  const value = await withRetry(
    () => {
      calls++;
      if (calls < 3) throw new ProviderError("busy", { status: 429, retryable: true, retryAfterMs: 1 });
      return Promise.resolve("done");
    },
    { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 5 },
    (n) => notices.push(`${n.attempt}/${n.maxAttempts} ${n.reason}`),
  );
  assertEquals(value, "done");
  assertEquals(notices, ["1/5 HTTP 429", "2/5 HTTP 429"]);

  // A retryable failure is tried 1 + maxRetries times; a non-retryable one once. Both end in the last error.
  const failing: [string, number, boolean, number, number][] = [["down", 500, true, 2, 3], [
    "bad key",
    401,
    false,
    5,
    1,
  ]];
  for (const [message, status, retryable, maxRetries, expectedCalls] of failing) {
    let tries = 0;
    await assertRejects(
      () =>
        withRetry(() => {
          tries++;
          throw new ProviderError(message, { status, retryable });
        }, { maxRetries, baseDelayMs: 1, maxDelayMs: 2 }),
      ProviderError,
      message,
    );
    assertEquals(tries, expectedCalls, message);
  }
});

Deno.test("Limiter never runs more than its limit at once and runs everything", async () => {
  const limiter = new Limiter(3);
  let active = 0;
  let peak = 0;
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    limiter.run(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, (i % 4) + 1));
      active--;
      return i;
    })));
  assertEquals(results, Array.from({ length: 20 }, (_, i) => i));
  assertEquals(peak, 3);
  assert(limiter.active === 0 && limiter.waiting === 0);
});

Deno.test("redact hides registered secrets and key-shaped tokens", () => {
  registerSecret("my-very-secret-token-123");
  assertEquals(redact("auth my-very-secret-token-123 failed"), "auth *** failed");
  assertEquals(redact("key sk-abcdefghijklmnopqrstuvwx"), "key sk-abc***");
  assertEquals(redact("Authorization: Bearer abcdefghijklmnop"), "Authorization: Bearer ***");
});
