/**
 * The options of the npm:openai client for one endpoint, shared by the chat, embedding and batch callers and by
 * `doctor`: base URL, key, timeout, no retries of its own (the caller's retry loop retries), and for Azure
 * OpenAI the `api-version` query and the `api-key` header.
 * @module
 */
import type { ClientOptions } from "openai";

/** What the client of one endpoint needs. */
export interface EndpointClientSettings {
  /** Base URL including the API prefix (Azure: `https://NAME.openai.azure.com/openai/deployments/DEP`). */
  baseURL: string;
  /** API key; local servers accept any value. */
  apiKey?: string;
  /** Request timeout, in milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Azure OpenAI's `api-version` (e.g. `2024-10-21`): sent as a query on every request, the key as `api-key`. */
  apiVersion?: string;
}

/** Returns the npm:openai client options of an endpoint (never retrying by itself). */
export function endpointClientOptions(settings: EndpointClientSettings): ClientOptions {
  const apiKey = settings.apiKey || "not-needed";
  return {
    baseURL: settings.baseURL,
    apiKey,
    maxRetries: 0,
    timeout: settings.timeoutMs ?? 120_000,
    ...(settings.apiVersion
      ? { defaultQuery: { "api-version": settings.apiVersion }, defaultHeaders: { "api-key": apiKey } }
      : {}),
  };
}
