/**
 * A fake OpenAI-compatible server that enforces a rate limit the way OpenAI reports one: a sliding window of
 * requests and of tokens (prompt + max_tokens, counted with js-tiktoken); a request that does not fit is
 * answered 429 with `Retry-After`, `retry-after-ms` and the `x-ratelimit-*` headers, and every answer carries
 * the `x-ratelimit-*` headers. Built on {@linkcode startFakeServer}'s `fault` and `headers` hooks.
 * @module
 */
import {
  estimateChatTokens,
  loadTokenCounter,
  type TokenCounter,
} from "../lib/providers/flow/token_estimate.ts";
import {
  type FakeChatBody,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";

/** Settings of {@linkcode startRateLimitedServer}. */
export interface RateLimitedServerOptions {
  /** Requests admitted per window (default: no request limit). */
  requestsPerWindow?: number;
  /** Tokens (prompt + max_tokens) admitted per window (default: no token limit). */
  tokensPerWindow?: number;
  /** Length of the sliding window, in milliseconds (default 1000). */
  windowMs?: number;
  /** Delay before every answer, in milliseconds (default 0). */
  latencyMs?: number;
  /** Keep request bodies (default `true`; benchmarks turn it off). */
  keepBodies?: boolean;
  /** Passed on to the fake server: extra misbehaviour after the rate check admitted a request. */
  fault?: FakeServerOptions["fault"];
}

/** A running rate-limited fake. */
export interface RateLimitedServer {
  /** Base URL including `/v1`. */
  url: string;
  /** The underlying fake (every request received, with its status). */
  fake: FakeServer;
  /** Arrival times (`performance.now()`) of the admitted requests, in order. */
  admittedAt: number[];
  /** Estimated tokens of the admitted requests, in the order of `admittedAt`. */
  admittedTokens: number[];
  /** Requests answered 429 so far. */
  throttled(): number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Formats milliseconds the way OpenAI sends reset times: `20ms`, `1.5s`, `6m0s`. */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(3))}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${Number(((ms - minutes * 60_000) / 1000).toFixed(3))}s`;
}

/** A sliding window of admitted units: what it holds at a time, and when it frees enough for more. */
class Window {
  readonly times: number[] = [];
  readonly costs: number[] = [];
  #head = 0;
  #sum = 0;

  constructor(readonly limit: number, readonly windowMs: number) {}

  /** Units admitted within the window ending at `now`. */
  used(now: number): number {
    while (this.#head < this.times.length && this.times[this.#head] <= now - this.windowMs) {
      this.#sum -= this.costs[this.#head++];
    }
    return this.#sum;
  }

  fits(now: number, cost: number): boolean {
    return this.used(now) + cost <= this.limit;
  }

  add(now: number, cost: number): void {
    this.times.push(now);
    this.costs.push(cost);
    this.#sum += cost;
  }

  /** Milliseconds from `now` until `cost` more units fit. */
  waitFor(now: number, cost: number): number {
    let excess = this.used(now) + cost - this.limit;
    for (let i = this.#head; excess > 0 && i < this.times.length; i++) {
      excess -= this.costs[i];
      if (excess <= 0) return Math.max(0, this.times[i] + this.windowMs - now);
    }
    return 0;
  }

  /** Milliseconds from `now` until the window is empty again. */
  resetIn(now: number): number {
    return this.used(now) > 0 ? Math.max(0, this.times[this.times.length - 1] + this.windowMs - now) : 0;
  }
}

function isModelCall(path: string): boolean {
  return path.endsWith("/chat/completions") || path.endsWith("/embeddings");
}

function tokensOf(body: unknown, count: TokenCounter): number {
  const chat = body as Partial<FakeChatBody> & { input?: string | string[] };
  if (Array.isArray(chat?.messages)) {
    return estimateChatTokens(chat.messages, chat.max_tokens, count);
  }
  const input = chat?.input ?? "";
  return (Array.isArray(input) ? input : [input]).reduce((sum, text) => sum + count(text), 0);
}

/** Starts a fake that admits at most the given requests and tokens per sliding window. */
export async function startRateLimitedServer(
  options: RateLimitedServerOptions = {},
): Promise<RateLimitedServer> {
  const windowMs = options.windowMs ?? 1000;
  const requests = new Window(options.requestsPerWindow ?? Infinity, windowMs);
  const tokens = new Window(options.tokensPerWindow ?? Infinity, windowMs);
  const count = await loadTokenCounter();
  /** Tokens of each request by arrival index, and the indices answered 429. */
  const costs = new Map<number, number>();
  const throttled = new Set<number>();

  const headers: FakeServerOptions["headers"] = (record) => {
    if (!isModelCall(record.path)) return {};
    const now = performance.now();
    const cost = costs.get(record.index) ?? 0;
    costs.delete(record.index);
    const out: Record<string, string> = {};
    for (const [kind, window] of [["requests", requests], ["tokens", tokens]] as const) {
      if (window.limit === Infinity) continue;
      out[`x-ratelimit-limit-${kind}`] = String(window.limit);
      out[`x-ratelimit-remaining-${kind}`] = String(Math.max(0, window.limit - window.used(now)));
      out[`x-ratelimit-reset-${kind}`] = formatResetDuration(window.resetIn(now));
    }
    if (throttled.has(record.index)) {
      const waitMs = Math.max(1, requests.waitFor(now, 1), tokens.waitFor(now, cost));
      out["retry-after-ms"] = String(Math.ceil(waitMs));
      out["retry-after"] = String(Math.ceil(waitMs / 1000));
    }
    return out;
  };

  const fake = await startFakeServer({
    latencyMs: options.latencyMs,
    keepBodies: options.keepBodies,
    headers,
    fault: (record) => {
      if (!isModelCall(record.path)) return options.fault?.(record);
      const now = performance.now();
      const cost = tokens.limit === Infinity ? 0 : tokensOf(record.body, count);
      costs.set(record.index, cost);
      if (!requests.fits(now, 1) || !tokens.fits(now, cost)) {
        throttled.add(record.index);
        const kind = requests.fits(now, 1) ? "tokens" : "requests";
        return { status: 429, message: `Rate limit reached for ${kind} (fake)` };
      }
      requests.add(now, 1);
      tokens.add(now, cost);
      return options.fault?.(record);
    },
  });
  return {
    url: fake.url,
    fake,
    admittedAt: requests.times,
    admittedTokens: tokens.costs,
    throttled: () => throttled.size,
    close: () => fake.close(),
  };
}
