/**
 * Chat provider for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, SGLang), via npm:openai.
 * @module
 */
import OpenAI from "openai";
import { redact, registerSecret } from "./redact.ts";
import { parseRetryAfter } from "./retry.ts";
import {
  type CallOptions,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  DEFAULT_CONCURRENCY,
  ProviderError,
} from "../types.ts";

/** Settings of an OpenAI-compatible endpoint. */
export interface OpenAIProviderConfig {
  /** Model name the server knows, e.g. `gpt-4o`, `qwen2.5-7b-instruct`. */
  model: string;
  /** Base URL including the API prefix, e.g. `http://localhost:8000/v1`. */
  baseURL: string;
  /** API key; local servers accept any value. Registered for redaction and never printed. */
  apiKey?: string;
  /** Request timeout, in milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
}

/** Per-call options of an OpenAI-compatible endpoint: the common ones, and a listener for the answer's headers. */
export interface EndpointCallOptions extends CallOptions {
  /** Receives the HTTP headers of every answer, successful or not (rate-limit headers come on both). */
  onHeaders?: (headers: Headers) => void;
}

/** Returns `host/path` of `baseURL` (credentials in the URL left out), e.g. `10.0.0.2:8000/v1`. */
export function endpointName(baseURL: string): string {
  const url = new URL(baseURL);
  return `${url.host}${url.pathname.replace(/\/$/, "")}`;
}

/** Returns `model @ host/path` for a model served at `baseURL` (credentials in the URL left out). */
export function endpointLabel(model: string, baseURL: string): string {
  return `${model} @ ${endpointName(baseURL)}`;
}

/** Calls `/chat/completions` of an OpenAI-compatible server. Does not retry: the caller's retry loop does. */
export class OpenAIProvider implements ChatProvider {
  /** Model name sent to the server. */
  readonly model: string;
  /** `model @ host` (no credentials). */
  readonly label: string;
  /** Always `false`: this calls a real model. */
  readonly offline = false;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** The OpenAI client (no retries of its own: the caller's retry loop retries). */
  protected readonly client: OpenAI;
  readonly #timeoutMs: number;
  /** Set once the server has refused JSON mode, so later requests stop asking for it. */
  #jsonModeRefused = false;

  /** Creates a provider; the API key is registered for redaction. */
  constructor(config: OpenAIProviderConfig) {
    registerSecret(config.apiKey);
    this.model = config.model;
    this.concurrency = config.concurrency ?? DEFAULT_CONCURRENCY;
    this.#timeoutMs = config.timeoutMs ?? 120_000;
    this.label = endpointLabel(config.model, config.baseURL);
    this.client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey || "not-needed",
      maxRetries: 0,
      timeout: this.#timeoutMs,
    });
  }

  /** The client batch mode submits through (its base URL, key and timeout; no retries of its own). */
  batchClient(): OpenAI | undefined {
    return this.client;
  }

  /** Sends one chat completion request; failures become classified {@linkcode ProviderError}s. */
  async complete(request: ChatRequest, options: EndpointCallOptions = {}): Promise<ChatResponse> {
    const jsonMode = request.jsonMode && !this.#jsonModeRefused;
    try {
      const { data: completion, response } = await this.client.chat.completions.create({
        model: this.model,
        messages: request.messages,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        ...(request.seed !== undefined ? { seed: request.seed } : {}),
        ...(jsonMode ? { response_format: { type: "json_object" as const } } : {}),
      }, {
        signal: options.signal,
        headers: options.callKey ? { "x-medeval-call": options.callKey } : undefined,
      }).withResponse();
      options.onHeaders?.(response.headers);
      const choice = completion.choices?.[0];
      if (!choice || typeof choice.message?.content !== "string") {
        throw new ProviderError("server answered without a message content", { retryable: true });
      }
      return {
        text: choice.message.content,
        finishReason: choice.finish_reason ?? undefined,
        usage: completion.usage
          ? { prompt: completion.usage.prompt_tokens, completion: completion.usage.completion_tokens }
          : undefined,
        servedModel: completion.model,
      };
    } catch (err) {
      reportErrorHeaders(err, options);
      if (
        jsonMode && err instanceof OpenAI.APIError && err.status === 400 &&
        /response_format|json/i.test(err.message)
      ) {
        // The server does not offer JSON mode: remember that and ask again without it.
        this.#jsonModeRefused = true;
        return this.complete(request, options);
      }
      throw classifyError(err);
    }
  }
}

/** Calls `/embeddings` of the same kind of server (`--embed-model`). */
export class OpenAIEmbeddingProvider extends OpenAIProvider {
  /** Embeddings are not batched: `undefined`. */
  override batchClient(): OpenAI | undefined {
    return undefined;
  }

  /** Returns the embedding of `text`; failures become classified {@linkcode ProviderError}s. */
  async embed(text: string, options: EndpointCallOptions = {}): Promise<number[]> {
    try {
      const { data, response } = await this.client.embeddings.create({ model: this.model, input: text }, {
        signal: options.signal,
        headers: options.callKey ? { "x-medeval-call": options.callKey } : undefined,
      }).withResponse();
      options.onHeaders?.(response.headers);
      const vector = data.data?.[0]?.embedding;
      if (!Array.isArray(vector)) {
        throw new ProviderError("server answered without an embedding", { retryable: true });
      }
      return vector;
    } catch (err) {
      reportErrorHeaders(err, options);
      throw classifyError(err);
    }
  }
}

/** Hands the headers of an error answer (429s carry `Retry-After` and `x-ratelimit-*`) to the listener. */
function reportErrorHeaders(err: unknown, options: EndpointCallOptions): void {
  if (err instanceof OpenAI.APIError && err.headers instanceof Headers) options.onHeaders?.(err.headers);
}

/** Turns anything the OpenAI client throws into a redacted, classified {@linkcode ProviderError}. */
export function classifyError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
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
      retryAfterMs: parseRetryAfter(err.headers as Headers | undefined),
    });
  }
  if (err instanceof SyntaxError) {
    return new ProviderError(`malformed response body: ${err.message}`, { retryable: true });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(redact(`unexpected provider failure: ${message}`), { retryable: true });
}
