/**
 * What `deno task doctor` saw of one endpoint: each capability as a short status (for scripts and tests) and a
 * detail line (for people). Built by `probe.ts`, judged against the model's profile by `advice.ts`, printed by
 * `format.ts`. Holds no key: only the name of the variable the key came from.
 * @module
 */
import type { NamedValue } from "../../core/records.ts";

/** Whether `/models` answered and listed the model. */
export interface ModelsFinding {
  /** `listed`: the server answered with a list; `failed`: it did not (the detail says why). */
  status: "listed" | "failed";
  /** How many model ids the list had. */
  count?: number;
  /** Whether the model's name is among them. */
  includesModel?: boolean;
  /** The listed id nearest the model's name, when the name is not listed and one is near. */
  closest?: string;
  /** One line for people. */
  detail: string;
}

/** The first chat call: whether the endpoint answers at all. */
export interface ChatFinding {
  /** `true` when a chat completion came back (after any documented 400 was learned from). */
  ok: boolean;
  /** The model name the server says it used. */
  servedModel?: string;
  /** The reply's `finish_reason`. */
  finishReason?: string;
  /** How long the call took, in milliseconds. */
  latencyMs?: number;
  /** HTTP status of the failure, when the server answered one. */
  httpStatus?: number;
  /** One line for people (the failure, redacted, when `ok` is `false`). */
  detail: string;
}

/** A capability's finding: a status from a fixed set and a line for people. */
export interface Finding<S extends string> {
  /** The status (`not run` when the chat call failed before the probe). */
  status: S | "not run";
  /** One line for people. */
  detail: string;
}

/** The token-limit parameter the server takes. */
export type TokenLimitStatus = "max_tokens" | "max_completion_tokens" | "neither";
/** Whether `temperature: 0` is accepted (`default only`: the documented 400 `unsupported_value`). */
export type TemperatureStatus = "accepted" | "default only" | "failed";
/** Whether two identical calls with a seed gave the same text. */
export type SeedStatus = "honoured" | "not honoured" | "refused" | "failed";
/** What the server did with `response_format: {type: "json_object"}`. */
export type JsonModeStatus = "honoured" | "ignored" | "refused" | "failed";
/** Where the server put reasoning, if any was seen. */
export type ReasoningStatus = "reasoning_content" | "reasoning" | "think tags" | "none seen";
/** Whether the replies carried `usage`. */
export type UsageStatus = "present" | "partial" | "missing";

/**
 * What came of one verdict check (`--benchmark`): `read` (the scorer's own reader found a valid verdict in the
 * reply), `not read` (a reply came, without a verdict the scorer reads), `failed` (the call itself failed).
 */
export type VerdictStatus = "read" | "not read" | "failed";

/** One judge scorer's verdict check: its one request to the judge, and whether the verdict was read. */
export interface VerdictFinding {
  /** The benchmark's name. */
  benchmark: string;
  /** The judge scorer's name (as its scores are stored), e.g. `judge`, `medjudge`, `medical`. */
  scorer: string;
  /** The id of the shipped sample the prompt was built from. */
  sample: string;
  /** Whether the verdict was read. */
  status: VerdictStatus;
  /** The verdict's primary value, when read. */
  value?: number | null;
  /** The verdict's further values by name, when read (rubric fields). */
  values?: Record<string, NamedValue>;
  /** The token limit the request asked for. */
  maxTokens: number;
  /** The reply's `finish_reason`. */
  finishReason?: string;
  /** The first characters of the reply, whitespace collapsed, when no verdict was read. */
  replyStart?: string;
  /** One line for people. */
  detail: string;
}

/** Latency of the successful chat calls. */
export interface LatencyFinding {
  /** Successful chat calls measured. */
  calls: number;
  /** Median, in milliseconds (`null` when no call succeeded). */
  p50Ms: number | null;
  /** 95th percentile, in milliseconds (`null` when no call succeeded). */
  p95Ms: number | null;
}

/** Everything the probes saw of one endpoint. */
export interface EndpointObservation {
  /** Which role the endpoint serves in an evaluation. */
  role: "model" | "judge";
  /** The model name sent. */
  model: string;
  /** The base URL as given, less any credentials in it. */
  baseUrl: string;
  /** `model @ host/path`, no credentials. */
  endpoint: string;
  /** The environment variable the key came from. */
  apiKeyEnv: string;
  /** Whether that variable was set (a local server needs none). */
  keySet: boolean;
  /** Azure OpenAI's `api-version`, when given. */
  apiVersion?: string;
  /** `GET /models`. */
  models: ModelsFinding;
  /** The first chat call. */
  chat: ChatFinding;
  /** `max_tokens`, or `max_completion_tokens` after OpenAI's documented 400. */
  tokenLimit: Finding<TokenLimitStatus>;
  /** `temperature: 0`. */
  temperature: Finding<TemperatureStatus>;
  /** Two identical calls with `seed` (and temperature 0 when accepted). */
  seed: Finding<SeedStatus>;
  /** `response_format: {type: "json_object"}`. */
  jsonMode: Finding<JsonModeStatus>;
  /** `reasoning_content`, `reasoning` or `<think>` in any reply. */
  reasoning: Finding<ReasoningStatus>;
  /** `usage` on the replies. */
  usage: Finding<UsageStatus>;
  /** Replies cut by the token limit (`finish_reason: "length"`). */
  cutReplies: number;
  /** Latency over the successful chat calls. */
  latency: LatencyFinding;
  /** The rate-limit headers last seen (`x-ratelimit-*`, `retry-after`), by lower-case name. */
  rateLimits: Record<string, string>;
  /** HTTP requests sent (refused ones included, verdict checks included). */
  requests: number;
  /** The verdict checks of `--benchmark`, one per judge scorer (the judge only; absent when not asked). */
  verdicts?: VerdictFinding[];
}
