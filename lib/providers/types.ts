/**
 * The one interface behind which chat models, judges and offline baselines sit.
 * @module
 */
import type { EndpointClientSettings } from "./transport/client_options.ts";
import type { ChatMessage, GenerationParams, TokenUsage } from "../core/chat.ts";
import type { Sample } from "../core/sample.ts";

/** Requests a provider has in flight when its role sets no concurrency (the `concurrency` role key's default). */
export const DEFAULT_CONCURRENCY = 8;

/** A request to a chat provider. */
export interface ChatRequest extends GenerationParams {
  /** The conversation to continue. */
  messages: ChatMessage[];
  /**
   * The sample being answered. Never sent over the wire; offline baselines (reference answer, retrieval) read
   * it instead of the messages.
   */
  sample?: Sample;
  /** The answer being judged. Never sent over the wire; offline judges read it instead of the messages. */
  answer?: string;
}

/** A provider's answer. */
export interface ChatResponse {
  /** The assistant's reply text. */
  text: string;
  /** Why generation stopped (`stop`, `length`, `content_filter`, ...), if reported. */
  finishReason?: string;
  /** The server's refusal text (a `refusal` field), if given; the text is then usually empty. */
  refusal?: string;
  /** Reasoning the server gave apart from the answer (`reasoning_content` or `reasoning`); never in `text`. */
  reasoning?: string;
  /** Token usage, if reported. */
  usage?: TokenUsage;
  /** The model name the server says it used. */
  servedModel?: string;
  /** Which endpoint (of a pool) or batch served it, e.g. `10.0.0.2:8000/v1` or `batch:batch_abc`. */
  endpoint?: string;
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
  /** Returns the embedding of `text`, for providers that serve `/embeddings`. Throws {@linkcode ProviderError}. */
  embed?(text: string, options?: CallOptions): Promise<number[]>;
  /**
   * The endpoint batch mode submits to (base URL, key, timeout, API version), for OpenAI-compatible chat
   * endpoints (a batch lives on the server that made it); absent or `undefined` for anything else.
   */
  batchEndpoint?(): EndpointClientSettings | undefined;
  /**
   * The wire shape of its chat requests (token-limit parameter, parameters sent, extra body parameters), for
   * models served over HTTP; absent for offline stand-ins.
   */
  readonly shape?: RequestShaper;
}

/** What a 400 refusing a request says, as the OpenAI client (or a batch's error line) reports it. */
export interface RefusalInfo {
  /** HTTP status. */
  status?: number;
  /** `error.code`, e.g. `unsupported_parameter`, `unsupported_value`. */
  code?: string | null;
  /** `error.param`, e.g. `max_tokens`. */
  param?: string | null;
  /** `error.message`. */
  message: string;
}

/** How a role's requests to one model were put on the wire, as the run's manifest records it (`request_shapes`). */
export interface RequestShapeRecord {
  /** The profile pattern that matched the model (`*`: none did, the default profile). */
  profile: string;
  /** The token-limit parameter (`max_tokens` or `max_completion_tokens`). */
  token_limit: string;
  /** Body parameters sent besides `model` and `messages`, e.g. `max_tokens`, `temperature`, `seed`, extras. */
  sent: string[];
  /** Parameters the role asked for but that were left out (by the profile, or after the server refused them). */
  left_out: string[];
  /** The extra body parameters (`--role-opt NAME.KEY=VALUE`), as sent. */
  extra_body?: Record<string, unknown>;
  /** Azure OpenAI's `api-version`, when the endpoint takes one. */
  api_version?: string;
  /** What was changed on the way, e.g. `max_tokens: max_completion_tokens` or a temperature capped. */
  adaptations?: string[];
}

/**
 * The wire shape of one model's chat requests (`transport/request_shape.ts`), shared by its live and batch
 * calls, so both send the same body.
 */
export interface RequestShaper {
  /** Extra body parameters sent with every request (part of each call's key when there are any). */
  readonly extraBody: Readonly<Record<string, unknown>>;
  /**
   * Returns the body of `request` to `model` in the current shape, noted as sent; `onAdapt` is told once of a
   * value the profile changed (a temperature above its ceiling, capped).
   */
  body(
    model: string,
    request: ChatRequest,
    onAdapt?: (adaptation: Adaptation) => void,
  ): Record<string, unknown>;
  /**
   * Learns from a 400 refusing `body`: the adaptation made; `"outdated"` when another refusal already made it
   * (send again in the current shape, nothing new learned); or `undefined` when the error stands.
   */
  adapt(body: Record<string, unknown>, info: RefusalInfo): RefusalLesson | undefined;
  /** What the run's manifest records of the shape. */
  record(): RequestShapeRecord;
}

/**
 * What a refusal taught a request shape: the change it made, or `"outdated"` when the refused body predates a
 * change another refusal made (the request is sent again in the current shape).
 */
export type RefusalLesson = Adaptation | "outdated";

/** One change of a model's request shape, learned from a 400. */
export interface Adaptation {
  /** The parameter the server refused, e.g. `max_tokens`, `temperature`, `seed`, `response_format`. */
  parameter: string;
  /** What is sent from now on, e.g. `max_completion_tokens` or `left out`. */
  now: string;
  /** The server's message (no secrets: it quotes the request's parameters). */
  reason: string;
}

/** Per-call options of {@linkcode ChatProvider.complete}. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
  /** The run store key of this call; sent as the `x-medeval-call` header so server logs can be traced. */
  callKey?: string;
  /** Told when the request's shape was changed after the server refused a parameter (once per change). */
  onAdapt?: (adaptation: Adaptation) => void;
  /**
   * Told when the request waits a second or more for an endpoint to take it (a rate limit, a pause after a
   * 429, a benched endpoint), with how long and why, e.g. `waiting 59.9s for host/v1: the --rpm cap`, and the
   * wait in milliseconds.
   */
  onHold?: (note: string, waitMs: number) => void;
}

/**
 * A call not sent because the run must stop (a spending limit reached): not a failure of the sample, which a
 * resumed run asks.
 */
export class StopError extends Error {
  /** Creates the error; `reason` says which limit was reached. */
  constructor(readonly reason: string) {
    super(`not sent: ${reason}`);
    this.name = "StopError";
  }
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
