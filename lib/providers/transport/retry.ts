/**
 * Bounded retries with exponential backoff and jitter that honour the server's `Retry-After`.
 * @module
 */
import { ProviderError } from "../types.ts";

/** Retry policy. */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). */
  maxRetries: number;
  /** Backoff before the first retry, in milliseconds; doubles each retry. */
  baseDelayMs: number;
  /** Cap of a single backoff (and of an honoured `Retry-After`), in milliseconds. */
  maxDelayMs: number;
}

/** The policy used unless configured otherwise: 6 retries, 1 s doubling to at most 60 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 6, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** What the retry loop reports before it waits. */
export interface RetryNotice {
  /** The attempt that just failed (1-based). */
  attempt: number;
  /** Attempts allowed in total. */
  maxAttempts: number;
  /** How long it waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** Short reason, e.g. `HTTP 429` or `timeout`. */
  reason: string;
}

/**
 * Returns the delay before retry number `attempt` (1-based), in milliseconds: the server's `Retry-After` when
 * given (capped), otherwise `base * 2^(attempt-1)` capped, scaled by a jitter factor in [0.5, 1).
 */
export function backoffDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, policy.maxDelayMs) + Math.floor(random() * 250);
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(exp * (0.5 + random() * 0.5));
}

/** Parses a `Retry-After` (seconds or HTTP date) or `retry-after-ms` header into milliseconds. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error occurs, or the policy's retries are used up.
 * Calls `onRetry` before every wait, so progress output can show that the run is waiting, not stuck.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (notice: RetryNotice) => void,
  signal?: AbortSignal,
): Promise<T> {
  const maxAttempts = policy.maxRetries + 1;
  for (let n = 1;; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const retryable = err instanceof ProviderError && err.retryable;
      if (!retryable || n >= maxAttempts || signal?.aborted) throw err;
      const delayMs = backoffDelayMs(policy, n, err.retryAfterMs);
      onRetry?.({
        attempt: n,
        maxAttempts,
        delayMs,
        reason: err.status ? `HTTP ${err.status}` : err.message,
      });
      await sleep(delayMs, signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
