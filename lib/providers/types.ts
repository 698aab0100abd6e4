/**
 * The one interface behind which chat models, judges and offline baselines sit.
 * @module
 */
import type { Sample } from "../core/sample.ts";

/** One chat message in the OpenAI format. */
export interface ChatMessage {
  /** Who speaks. */
  role: "system" | "user" | "assistant";
  /** What is said. */
  content: string;
}

/** Sampling parameters of a request; they are part of the cache key. */
export interface GenerationParams {
  /** Sampling temperature; omitted = the server's default. */
  temperature?: number;
  /** Upper bound on new tokens. */
  maxTokens?: number;
  /** Sampling seed, for servers that honour it. */
  seed?: number;
  /** Ask for a JSON object reply (OpenAI `response_format: json_object`). */
  jsonMode?: boolean;
}

/** A request to a chat provider. */
export interface ChatRequest extends GenerationParams {
  /** The conversation to continue. */
  messages: ChatMessage[];
  /**
   * The sample being answered. Never sent over the wire; offline baselines (reference answer, retrieval) read
   * it instead of the messages.
   */
  sample?: Sample;
}

/** Token counts reported by the server, when it reports them. */
export interface TokenUsage {
  /** Prompt tokens. */
  prompt: number;
  /** Completion tokens. */
  completion: number;
}

/** A provider's answer. */
export interface ChatResponse {
  /** The assistant's reply text. */
  text: string;
  /** Why generation stopped (`stop`, `length`, ...), if reported. */
  finishReason?: string;
  /** Token usage, if reported. */
  usage?: TokenUsage;
  /** The model name the server says it used. */
  servedModel?: string;
}

/** Anything that answers chat requests: an OpenAI-compatible endpoint or an offline baseline. */
export interface ChatProvider {
  /** Model name as the user gave it, e.g. `gpt-4o` or `offline:reference`. */
  readonly model: string;
  /** Human-readable identity for manifests and tables, never containing a secret. */
  readonly label: string;
  /** `true` for baselines that call no model; their results are labelled as offline everywhere. */
  readonly offline: boolean;
  /** Most requests this provider should have in flight at once. */
  readonly concurrency: number;
  /** Answers one request. Throws {@linkcode ProviderError} on failure. */
  complete(request: ChatRequest, options?: CallOptions): Promise<ChatResponse>;
}

/** Per-call options of {@linkcode ChatProvider.complete}. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
  /** The run store key of this call; sent as the `x-medeval-call` header so server logs can be traced. */
  callKey?: string;
}

/** A failed provider call, classified so the retry loop knows whether to try again and when. */
export class ProviderError extends Error {
  /** HTTP status, if the server answered. */
  readonly status?: number;
  /** `true` when trying again may succeed (429, 5xx, timeouts, broken connections, malformed bodies). */
  readonly retryable: boolean;
  /** Delay the server asked for (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;

  /** Creates a classified provider error; `message` must already be free of secrets. */
  constructor(message: string, opts: { status?: number; retryable: boolean; retryAfterMs?: number }) {
    super(message);
    this.name = "ProviderError";
    this.status = opts.status;
    this.retryable = opts.retryable;
    this.retryAfterMs = opts.retryAfterMs;
  }
}
