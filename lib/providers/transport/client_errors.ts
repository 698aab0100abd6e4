/**
 * Classifies what the npm:openai client throws (batch mode and `doctor` call through it) exactly as
 * {@linkcode classifyError} classifies direct calls.
 * @module
 */
import OpenAI from "openai";
import { classifyError, statusError } from "./classify_error.ts";
import { redact } from "./redact.ts";
import { ProviderError } from "../types.ts";

/** Turns anything the OpenAI client throws into a redacted, classified {@linkcode ProviderError}. */
export function classifyClientError(err: unknown): ProviderError {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError("request timed out", { retryable: true });
  }
  if (err instanceof OpenAI.APIUserAbortError) {
    return new ProviderError("request aborted", { retryable: false });
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new ProviderError(redact(`connection failed: ${err.message}`), { retryable: true });
  }
  if (err instanceof OpenAI.APIError) {
    return statusError({
      status: err.status,
      code: typeof err.code === "string" ? err.code : undefined,
      message: err.message,
      headers: err.headers as Headers | undefined,
    });
  }
  return classifyError(err);
}
