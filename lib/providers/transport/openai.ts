/**
 * Chat provider for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, SGLang): chat completions
 * and embeddings go over {@linkcode EndpointHttp} (one `fetch` each; batch mode reads the endpoint's settings).
 * @module
 */
import { EndpointHttp, EndpointHttpError } from "./endpoint_http.ts";
import { classifyError } from "./classify_error.ts";
import { redact, registerSecret } from "./redact.ts";
import { RequestShape } from "./request_shape.ts";
import { DEFAULT_TIMEOUT_MS, type EndpointClientSettings } from "./client_options.ts";
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
  /** Posts the endpoint's chat completions and embeddings. */
  protected readonly http: EndpointHttp;
  /** The endpoint's base URL, key, timeout and API version (what batch mode submits to). */
  readonly #settings: EndpointClientSettings;
  /** The request shape: token-limit parameter, parameters sent, JSON mode; adapted on documented 400s. */
  readonly shape: RequestShape;

  /** Creates a provider; the API key is registered for redaction. */
  constructor(config: OpenAIProviderConfig) {
    registerSecret(config.apiKey);
    this.model = config.model;
    this.concurrency = config.concurrency ?? DEFAULT_CONCURRENCY;
    this.label = endpointLabel(config.model, config.baseURL);
    this.shape = config.shape ?? new RequestShape();
    this.#settings = {
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      apiVersion: config.apiVersion,
    };
    this.http = new EndpointHttp(this.#settings);
  }

  /** The endpoint batch mode submits to: base URL, key, timeout and API version. */
  batchEndpoint(): EndpointClientSettings | undefined {
    return this.#settings;
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
      const { data, headers } = await this.shape.send(this.model, request, (body) => {
        sent = body;
        return this.http.post("/chat/completions", body, {
          signal: options.signal,
          headers: options.callKey ? { "x-medeval-call": options.callKey } : undefined,
        });
      }, options.onAdapt);
      options.onHeaders?.(headers);
      const completion = (data ?? {}) as ChatCompletionLike;
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
        servedModel: typeof completion.model === "string" ? completion.model : undefined,
      };
    } catch (err) {
      reportErrorHeaders(err, options);
      if (err instanceof EndpointHttpError) {
        const lesson = this.shape.adapt(sent, {
          status: err.status,
          code: err.code,
          param: err.param,
          message: err.message,
        });
        if (lesson) {
          if (lesson !== "outdated") options.onAdapt?.({ ...lesson, reason: redact(lesson.reason) });
          return this.complete(request, options);
        }
      }
      throw classifyError(err);
    }
  }
}

/** The parts of a chat completion this reads (servers differ in what else they send, and in what they omit). */
interface ChatCompletionLike {
  choices?: (ChoiceLike & { finish_reason?: string | null })[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  model?: unknown;
}

/** Calls `/embeddings` of the same kind of server (`--embed-model`). */
export class OpenAIEmbeddingProvider extends OpenAIProvider {
  /** Embeddings are not batched: `undefined`. */
  override batchEndpoint(): EndpointClientSettings | undefined {
    return undefined;
  }

  /** Returns the embedding of `text`; failures become classified {@linkcode ProviderError}s. */
  async embed(text: string, options: EndpointCallOptions = {}): Promise<number[]> {
    try {
      const { data, headers } = await this.http.post("/embeddings", { model: this.model, input: text }, {
        signal: options.signal,
        headers: options.callKey ? { "x-medeval-call": options.callKey } : undefined,
      });
      options.onHeaders?.(headers);
      const vector = (data as { data?: { embedding?: unknown }[] } | null)?.data?.[0]?.embedding;
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
  if (err instanceof EndpointHttpError) options.onHeaders?.(err.headers);
}
