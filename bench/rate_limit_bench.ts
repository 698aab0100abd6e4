/**
 * Throughput against a server that enforces a rate limit (tests/fake_rate_limit.ts: a sliding window of
 * requests, and optionally of tokens, with 429 + Retry-After + `x-ratelimit-*`), through the real Caller and
 * run store. The client is told nothing of the limit unless `clientCaps` is set: it learns it from the headers.
 *
 * Run: `deno run -A bench/rate_limit_bench.ts` prints the measurement as JSON.
 * @module
 */
import { Caller } from "../lib/providers/caller.ts";
import { EndpointPool } from "../lib/providers/flow/endpoint_pool.ts";
import { createProvider } from "../lib/providers/factory.ts";
import { estimateChatTokens, loadTokenCounter } from "../lib/providers/flow/token_estimate.ts";
import type { ChatProvider, ChatRequest } from "../lib/providers/types.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { startRateLimitedServer } from "../tests/fake_rate_limit.ts";

/** Settings of {@linkcode measureRateLimited}. */
export interface RateLimitBenchOptions {
  /** Requests the server admits per window (default 40). */
  requestsPerWindow?: number;
  /** Tokens the server admits per window (default: no token limit). */
  tokensPerWindow?: number;
  /** The server's sliding window, in milliseconds (default 1000). */
  windowMs?: number;
  /** The server's latency, in milliseconds (default 100). */
  latencyMs?: number;
  /** Requests in flight (default 64). */
  concurrency?: number;
  /** Samples (one call each; default 400). */
  samples?: number;
  /** Give the client the server's limits as RPM/TPM caps over the same window (default `false`). */
  clientCaps?: boolean;
}

/** What {@linkcode measureRateLimited} measured. */
export interface RateLimitBenchResult {
  /** The server's allowed rate, in requests per second. */
  allowedPerSecond: number;
  /**
   * Admitted requests per second in steady state: the allowance per window (A) over the mean time from an
   * admission to the A-th admission after it. The server never admits A + 1 within a window, so this is at
   * most the allowed rate; the free burst of the first window, which a rate over the whole run would count,
   * does not flatter it, and a short last window does not penalise it.
   */
  achievedPerSecond: number;
  /** `achievedPerSecond / allowedPerSecond`. */
  ratio: number;
  /** Samples whose call failed for good. */
  failed: number;
  /** 429 answers the server gave (each waited out and sent again by the client). */
  throttled: number;
  /** Samples sent. */
  samples: number;
  /** Wall-clock time of the run, in milliseconds. */
  elapsedMs: number;
}

function question(i: number): ChatRequest {
  return {
    messages: [{ role: "user", content: `Question ${i}: which organ makes insulin?` }],
    maxTokens: 16,
  };
}

/** Returns `allowance` over the mean gap (in seconds) between each admission and the `allowance`-th after it. */
function steadyRate(admittedAt: readonly number[], allowance: number): number {
  const lags = admittedAt.length - allowance;
  if (allowance < 1 || lags < 1) return NaN;
  let totalMs = 0;
  for (let k = allowance; k < admittedAt.length; k++) totalMs += admittedAt[k] - admittedAt[k - allowance];
  return allowance / (totalMs / lags / 1000);
}

/** Runs `samples` one-call samples against the rate-limited fake and returns the throughput and failures. */
export async function measureRateLimited(options: RateLimitBenchOptions = {}): Promise<RateLimitBenchResult> {
  const windowMs = options.windowMs ?? 1000;
  const requestsPerWindow = options.requestsPerWindow ?? 40;
  const samples = options.samples ?? 400;
  const concurrency = options.concurrency ?? 64;
  const count = await loadTokenCounter();
  const tokensPerRequest = estimateChatTokens(question(0).messages, question(0).maxTokens, count);
  const perWindow = Math.min(
    requestsPerWindow,
    Math.floor((options.tokensPerWindow ?? Infinity) / tokensPerRequest),
  );
  const server = await startRateLimitedServer({
    requestsPerWindow,
    tokensPerWindow: options.tokensPerWindow,
    windowMs,
    latencyMs: options.latencyMs ?? 100,
    keepBodies: false,
  });
  const dir = await Deno.makeTempDir({ prefix: "rate_limit_bench_" });
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    const provider: ChatProvider = options.clientCaps
      ? new EndpointPool({
        model: "fake-model",
        endpoints: [{ baseURL: server.url }],
        concurrency,
        rpm: requestsPerWindow,
        tpm: options.tokensPerWindow,
        capWindowMs: windowMs,
      })
      : createProvider({ model: "fake-model", baseUrl: server.url, concurrency });
    const caller = new Caller(provider, store, "model");
    const started = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: samples }, (_, i) => caller.call(question(i))),
    );
    const elapsedMs = performance.now() - started;
    const achievedPerSecond = steadyRate(server.admittedAt, perWindow);
    const allowedPerSecond = perWindow / (windowMs / 1000);
    return {
      allowedPerSecond,
      achievedPerSecond,
      ratio: achievedPerSecond / allowedPerSecond,
      failed: results.filter((r) => r.status === "rejected").length,
      throttled: server.throttled(),
      samples,
      elapsedMs: Math.round(elapsedMs),
    };
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await measureRateLimited(), null, 2));
}
