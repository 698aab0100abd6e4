/**
 * What a server says about its rate limits: `Retry-After` / `retry-after-ms` and OpenAI's `x-ratelimit-*`
 * headers (limit, remaining and reset, for requests and for tokens). `learned_budget.ts` turns them into when an
 * endpoint may send next.
 * @module
 */
import { parseRetryAfter } from "./retry.ts";

/** One dimension (requests or tokens) of the `x-ratelimit-*` headers. */
export interface RateLimitDimension {
  /** `x-ratelimit-limit-*`: most units allowed in the server's window. */
  limit?: number;
  /** `x-ratelimit-remaining-*`: units left now. */
  remaining?: number;
  /** `x-ratelimit-reset-*`: milliseconds until the allowance is back to its limit. */
  resetMs?: number;
}

/** Everything rate-related an answer's headers said. */
export interface RateLimitHeaders {
  /** The requests dimension, when any of its three headers was sent. */
  requests?: RateLimitDimension;
  /** The tokens dimension, when any of its three headers was sent. */
  tokens?: RateLimitDimension;
  /** `retry-after-ms` or `Retry-After` (seconds or HTTP date), in milliseconds. */
  retryAfterMs?: number;
}

const UNIT_MS: Record<string, number> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 1e-3,
  "µs": 1e-3,
  ns: 1e-6,
};
const DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * Parses a reset duration as OpenAI sends it (Go duration syntax: `1s`, `6m0s`, `20ms`, `1.5s`, `1h2m3s`) or a
 * bare number of seconds, into milliseconds; `undefined` when it is neither.
 */
export function parseDurationMs(text: string | null | undefined): number | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (!DURATION.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(DURATION_PART)) total += Number(amount) * UNIT_MS[unit];
  return total;
}

function count(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+(?:\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

function dimension(headers: Headers, kind: "requests" | "tokens"): RateLimitDimension | undefined {
  const limit = count(headers.get(`x-ratelimit-limit-${kind}`));
  const remaining = count(headers.get(`x-ratelimit-remaining-${kind}`));
  const resetMs = parseDurationMs(headers.get(`x-ratelimit-reset-${kind}`));
  if (limit === undefined && remaining === undefined && resetMs === undefined) return undefined;
  return { limit, remaining, resetMs };
}

/** Reads the rate-limit headers of an answer (successful or not); `now` dates an HTTP-date `Retry-After`. */
export function readRateLimitHeaders(headers: Headers, now = Date.now()): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  const requests = dimension(headers, "requests");
  const tokens = dimension(headers, "tokens");
  const retryAfterMs = parseRetryAfter(headers, now);
  if (requests) out.requests = requests;
  if (tokens) out.tokens = tokens;
  if (retryAfterMs !== undefined) out.retryAfterMs = retryAfterMs;
  return out;
}
