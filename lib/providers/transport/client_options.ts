/**
 * The options of the npm:openai client for one endpoint, shared by the chat, embedding and batch callers and by
 * `doctor`: base URL, key, timeout, no retries of its own (the caller's retry loop retries), and for Azure
 * OpenAI the `api-version` query and the `api-key` header. Also the longest timeout a timer can hold.
 * @module
 */
import type { ClientOptions } from "openai";

/**
 * The longest delay `setTimeout` honours, in milliseconds (2^31 − 1, about 24.8 days): a longer one does not
 * fit its 32-bit signed field and fires at once, so a request timeout above it would fail every call.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A request's timeout when none is set, in milliseconds (two minutes): a run's, and doctor's. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** The longest request timeout a user may set, in whole seconds (2147483, about 24.8 days). */
export const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * Returns `ms` capped at {@linkcode MAX_TIMER_MS}, for a timer armed with a user's duration (a request
 * timeout, a batch poll): flags are checked against {@linkcode MAX_TIMEOUT_SECONDS} before anything is sent,
 * but a caller that skips the check must still get a long wait rather than a timer that fires at once.
 */
export function timerDelayMs(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}

/** What the client of one endpoint needs. */
export interface EndpointClientSettings {
  /** Base URL including the API prefix (Azure: `https://NAME.openai.azure.com/openai/deployments/DEP`). */
  baseURL: string;
  /** API key; local servers accept any value. */
  apiKey?: string;
  /** Request timeout, in milliseconds (default {@linkcode DEFAULT_TIMEOUT_MS}; above {@linkcode MAX_TIMER_MS} it is capped there). */
  timeoutMs?: number;
  /** Azure OpenAI's `api-version` (e.g. `2024-10-21`): sent as a query on every request, the key as `api-key`. */
  apiVersion?: string;
}

/**
 * Returns the npm:openai client options of an endpoint (never retrying by itself); the timeout is capped at
 * {@linkcode MAX_TIMER_MS}, since the client arms a `setTimeout` with it.
 */
export function endpointClientOptions(settings: EndpointClientSettings): ClientOptions {
  const apiKey = settings.apiKey || "not-needed";
  return {
    baseURL: settings.baseURL,
    apiKey,
    maxRetries: 0,
    timeout: timerDelayMs(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    ...(settings.apiVersion
      ? { defaultQuery: { "api-version": settings.apiVersion }, defaultHeaders: { "api-key": apiKey } }
      : {}),
  };
}
