/**
 * Turns what a call throws into a redacted {@linkcode ProviderError} that says whether waiting and sending again
 * can help: timeouts, dropped connections, 408/409/429 and 5xx can; context limits, exhausted quotas, other
 * client errors and aborts cannot.
 * @module
 */
import { redact } from "./redact.ts";
import { parseRetryAfter } from "./retry.ts";
import {
  EndpointAbortError,
  EndpointConnectionError,
  EndpointHttpError,
  EndpointTimeoutError,
} from "./endpoint_http.ts";
import { ProviderError } from "../types.ts";

/** What an error answer said: its status, the error's `code`, the message and the headers. */
export interface StatusErrorInfo {
  /** The HTTP status (`undefined` when the answer had none). */
  status: number | undefined;
  /** The error object's `code`, if a string. */
  code: string | undefined;
  /** The message, as the server worded it (prefixed with the status). */
  message: string;
  /** The answer's headers (`Retry-After`). */
  headers: Headers | undefined;
}

/**
 * Returns the error of a request longer than the model's context (OpenAI's `context_length_exceeded`, vLLM's
 * "This model's maximum context length is N tokens"): never retryable, its message names the reason and the
 * limit when the server states it; `undefined` for any other error.
 */
function contextLimitError(err: StatusErrorInfo): ProviderError | undefined {
  const limit = err.message.match(/maximum context length is (\d+) tokens/i)?.[1];
  if (err.code !== "context_length_exceeded" && limit === undefined) return undefined;
  const reason = `context length exceeded${limit ? ` (the model's limit is ${limit} tokens)` : ""}`;
  return new ProviderError(redact(`${reason}: HTTP ${err.status ?? "?"}: ${err.message}`), {
    status: err.status,
    retryable: false,
  });
}

/** Classifies an error answer: context limits, exhausted quotas and client errors are final, the rest retryable. */
export function statusError(err: StatusErrorInfo): ProviderError {
  const context = contextLimitError(err);
  if (context) return context;
  const status = err.status;
  // A 429 for an exhausted quota (billing) does not pass by waiting.
  const quota = status === 429 && err.code === "insufficient_quota";
  const retryable = !quota && (status === undefined || status === 408 || status === 409 || status === 429 ||
    status >= 500);
  const hint = status === 401 || status === 403
    ? " (check the API key environment variable)"
    : quota
    ? " (the account's quota is used up; waiting will not help)"
    : "";
  return new ProviderError(redact(`HTTP ${status ?? "?"}: ${err.message}${hint}`), {
    status,
    retryable,
    retryAfterMs: parseRetryAfter(err.headers),
  });
}

/** Turns anything a direct call ({@linkcode EndpointHttp}) throws into a classified {@linkcode ProviderError}. */
export function classifyError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof EndpointTimeoutError) return new ProviderError("request timed out", { retryable: true });
  if (err instanceof EndpointAbortError) return new ProviderError("request aborted", { retryable: false });
  if (err instanceof EndpointConnectionError) {
    return new ProviderError(redact(`connection failed: ${err.message}`), { retryable: true });
  }
  if (err instanceof EndpointHttpError) return statusError(err);
  if (err instanceof SyntaxError) {
    return new ProviderError(`malformed response body: ${err.message}`, { retryable: true });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(redact(`unexpected provider failure: ${message}`), { retryable: true });
}
