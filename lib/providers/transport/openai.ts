/**
 * Chat provider for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, SGLang), via npm:openai.
 * @module
 */
import OpenAI from "openai";
import { redact, registerSecret } from "./redact.ts";
import { parseRetryAfter } from "./retry.ts";
import { RequestShape } from "./request_shape.ts";
import { endpointClientOptions } from "./client_options.ts";
import { type ChoiceLike, readChoice } from "./reply_message.ts";
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
  /**
   * The model's request shape (its profile, and what the server taught it), shared by the endpoints of a pool
   * (default: the shape of a model no profile matches).
   */
  shape?: RequestShape;
  /** Azure OpenAI's `api-version`: sent as a query on every request, with the key in an `api-key` header. */
  apiVersion?: string;
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
  /** The request shape: token-limit parameter, parameters sent, JSON mode; adapted on documented 400s. */
  readonly shape: RequestShape;

  /** Creates a provider; the API key is registered for redaction. */
  constructor(config: OpenAIProviderConfig) {
    registerSecret(config.apiKey);
    this.model = config.model;
    this.concurrency = config.concurrency ?? DEFAULT_CONCURRENCY;
    this.#timeoutMs = config.timeoutMs ?? 120_000;
    this.label = endpointLabel(config.model, config.baseURL);
    this.shape = config.shape ?? new RequestShape();
    this.client = new OpenAI(endpointClientOptions({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeoutMs: this.#timeoutMs,
      apiVersion: config.apiVersion,
    }));
  }

  /** The client batch mode submits through (its base URL, key and timeout; no retries of its own). */
  batchClient(): OpenAI | undefined {
    return this.client;
  }

  /**
   * Sends one chat completion request in the model's request shape; a documented 400 for an unsupported
   * parameter or value changes the shape once (told to `options.onAdapt`, as is a temperature the profile
   * capped) and the request is sent again in the new shape. Other failures become classified
   * {@linkcode ProviderError}s.
   */
  async complete(request: ChatRequest, options: EndpointCallOptions = {}): Promise<ChatResponse> {
    let sent: Record<string, unknown> = {};
    try {
      const { data: completion, response } = await this.shape.send(this.model, request, (body) => {
        sent = body;
        return this.client.chat.completions.create(body as unknown as ChatCompletionBody, {
          signal: options.signal,
          headers: options.callKey ? { "x-medeval-call": options.callKey } : undefined,
        }).withResponse();
      }, options.onAdapt);
      options.onHeaders?.(response.headers);
      const choice = completion.choices?.[0];
      const read = readChoice(choice as ChoiceLike | undefined);
      if (!choice || !read) {
        throw new ProviderError("server answered without a message content", { retryable: true });
      }
      return {
        ...read,
        finishReason: choice.finish_reason ?? undefined,
        usage: completion.usage
          ? { prompt: completion.usage.prompt_tokens, completion: completion.usage.completion_tokens }
          : undefined,
        servedModel: completion.model,
      };
    } catch (err) {
      reportErrorHeaders(err, options);
      if (err instanceof OpenAI.APIError) {
        const adaptation = this.shape.adapt(sent, {
          status: err.status,
          code: typeof err.code === "string" ? err.code : undefined,
          param: err.param,
          message: err.message,
        });
        if (adaptation) {
          options.onAdapt?.({ ...adaptation, reason: redact(adaptation.reason) });
          return this.complete(request, options);
        }
      }
      throw classifyError(err);
    }
  }
}

/** The body type of a non-streaming chat completion, as the client declares it. */
type ChatCompletionBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

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

/**
 * Returns the error of a request longer than the model's context (OpenAI's `context_length_exceeded`, vLLM's
 * "This model's maximum context length is N tokens"): never retryable, its message names the reason and the
 * limit when the server states it; `undefined` for any other error.
 */
function contextLimitError(err: InstanceType<typeof OpenAI.APIError>): ProviderError | undefined {
  const limit = err.message.match(/maximum context length is (\d+) tokens/i)?.[1];
  if (err.code !== "context_length_exceeded" && limit === undefined) return undefined;
  const reason = `context length exceeded${limit ? ` (the model's limit is ${limit} tokens)` : ""}`;
  return new ProviderError(redact(`${reason}: HTTP ${err.status ?? "?"}: ${err.message}`), {
    status: err.status,
    retryable: false,
  });
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
      retryAfterMs: parseRetryAfter(err.headers as Headers | undefined),
    });
  }
  if (err instanceof SyntaxError) {
    return new ProviderError(`malformed response body: ${err.message}`, { retryable: true });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(redact(`unexpected provider failure: ${message}`), { retryable: true });
}
