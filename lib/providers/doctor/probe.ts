/**
 * The probes of `deno task doctor`: a fixed, small number of requests to one OpenAI-compatible endpoint —
 * `GET /models`, a plain chat call, `temperature: 0`, two identical calls with a `seed`, JSON mode, and plain
 * calls up to the number asked for — sent with the raw npm:openai client so that headers and message fields the
 * provider layer hides are seen. A documented 400 naming a parameter (read as eval's request shape reads it) is
 * learned once: the parameter is dropped (or `max_tokens` swapped for `max_completion_tokens`) and never sent
 * again. Every error text is redacted.
 * @module
 */
import OpenAI from "openai";
import type { ChatMessage } from "../../core/chat.ts";
import { closestName } from "../../core/closest.ts";
import { quantileSorted } from "../../stats/bootstrap.ts";
import { DEFAULT_TIMEOUT_MS, endpointClientOptions } from "../transport/client_options.ts";
import { endpointLabel } from "../transport/openai.ts";
import { classifyClientError as classifyError } from "../transport/client_errors.ts";
import { redact } from "../transport/redact.ts";
import { adaptableRefusal } from "../transport/request_shape.ts";
import type { ProviderError } from "../types.ts";
import type {
  ChatFinding,
  EndpointObservation,
  Finding,
  JsonModeStatus,
  ModelsFinding,
  ReasoningStatus,
  SeedStatus,
  TemperatureStatus,
  TokenLimitStatus,
  UsageStatus,
} from "./observation.ts";
import { checkVerdicts, type VerdictCheck, type VerdictReply } from "./verdict_check.ts";

/** What to probe: one endpoint serving one model. */
export interface ProbeTarget {
  /** Which role the endpoint serves in an evaluation. */
  role: "model" | "judge";
  /** The model name sent. */
  model: string;
  /** Base URL including the API prefix, e.g. `http://localhost:8000/v1`. */
  baseUrl: string;
  /** The API key (registered for redaction by the caller; never put in the observation). */
  apiKey?: string;
  /** The environment variable the key came from (named in the report). */
  apiKeyEnv: string;
  /** Azure OpenAI's `api-version`. */
  apiVersion?: string;
  /** Successful chat calls to make in all, probes included (default {@linkcode DEFAULT_PROBE_CALLS}). */
  calls?: number;
  /** Timeout of each request, in milliseconds (default {@linkcode DEFAULT_TIMEOUT_MS}, as a run's). */
  timeoutMs?: number;
  /** Waits before a failed request is tried again (default: a timer). */
  wait?: (ms: number) => Promise<void>;
  /** Verdict checks (`--benchmark`) sent after the probes, in the shape they learned; none by default. */
  verdictChecks?: readonly VerdictCheck[];
}

/** The chat calls the probes themselves make: plain, temperature, seed twice, JSON mode. */
export const PROBE_CHAT_CALLS = 5;

/** Successful chat calls made by default (the probes and one more plain call). */
export const DEFAULT_PROBE_CALLS = 6;

/** The token limit every probe asks for: room for a short answer, and for a reasoning model's thinking. */
export const PROBE_MAX_TOKENS = 400;

/** The seed of the two identical seeded calls. */
const PROBE_SEED = 7;

const PLAIN_PROMPT = "In one short sentence: what does the heart do?";
const SEED_PROMPT = "Write one sentence about an organ of the human body of your choice.";
const JSON_PROMPT = 'Answer in JSON as {"organ": "..."}: which organ filters the blood?';

/** The rate-limit headers the report shows, when an answer carries them. */
export const RATE_LIMIT_HEADERS = [
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
  "retry-after",
  "retry-after-ms",
] as const;

/** One chat reply as the probes read it. */
interface ProbeReply {
  /** The content (`""` when the server sent none). */
  text: string;
  finishReason?: string;
  servedModel?: string;
  /** The message field that carried reasoning, if any. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** The reasoning that field carried. */
  reasoning?: string;
  /** `<think>` appeared in the content. */
  thinkTags: boolean;
  /** The completion carried `usage` with token counts. */
  usage: boolean;
  latencyMs: number;
}

/** The outcome of one probe call: its reply, or its failure; with the body last sent either way. */
type ProbeAttempt =
  | { ok: true; reply: ProbeReply; sent: Record<string, unknown> }
  | { ok: false; error: ProviderError; sent: Record<string, unknown>; cause?: string };

/**
 * Returns the parameter a refusal of `body` names, read exactly as eval's request shape reads it (the documented
 * `unsupported_parameter` / `unsupported_value` 400s, or the parameter quoted in the message), when `body` sent
 * it; else `undefined`.
 */
function refusedParameter(body: Record<string, unknown>, err: InstanceType<typeof OpenAI.APIError>) {
  return adaptableRefusal(body, {
    status: err.status,
    code: typeof err.code === "string" ? err.code : undefined,
    param: err.param,
    message: err.message,
  });
}

/** A refusal in a few words: `HTTP 400 unsupported_parameter`, else the status and the start of the message. */
function refusalReason(err: InstanceType<typeof OpenAI.APIError>): string {
  if (typeof err.code === "string" && err.code) return `HTTP ${err.status} ${err.code}`;
  const message = err.message.replace(/^\d{3}\s+/, "");
  return redact(`HTTP ${err.status}: ${message.length > 80 ? `${message.slice(0, 77)}...` : message}`);
}

/** Returns `url` without credentials (`https://user:pass@host/v1` → `https://host/v1`), for printing. */
export function printableUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

/** Reads the first choice of a completion; `undefined` when it has no message. */
function readReply(completion: unknown, latencyMs: number): ProbeReply | undefined {
  const data = completion as {
    model?: string;
    choices?: { message?: Record<string, unknown> | null; finish_reason?: string | null }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  };
  const choice = data.choices?.[0];
  const message = choice?.message;
  if (!message) return undefined;
  const text = typeof message.content === "string" ? message.content : "";
  const reasoningField = (["reasoning_content", "reasoning"] as const).find((field) =>
    typeof message[field] === "string" && (message[field] as string).length > 0
  );
  return {
    text,
    finishReason: choice.finish_reason ?? undefined,
    servedModel: data.model,
    reasoningField,
    ...(reasoningField ? { reasoning: message[reasoningField] as string } : {}),
    thinkTags: /<think>/i.test(text),
    usage: typeof data.usage?.prompt_tokens === "number" && typeof data.usage?.completion_tokens === "number",
    latencyMs: Math.round(latencyMs),
  };
}

/** Returns the cause of a connection failure (the client's own message only says "Connection error."). */
function connectionCause(err: unknown): string | undefined {
  if (!(err instanceof OpenAI.APIConnectionError)) return undefined;
  const cause = (err as { cause?: unknown }).cause;
  const text = cause instanceof Error ? cause.message : undefined;
  return text ? redact(text.replace(/\/\/[^/@\s]+@/g, "//***@")) : undefined;
}

/** The requests to one endpoint: what the server refused so far, and every reply and rate-limit header seen. */
class ProbeSession {
  /** Parameters the server refused, with its (redacted) message. */
  readonly refused = new Map<string, string>();
  /** The token-limit parameter sent (`null` when the server refused both). */
  tokenLimit: "max_tokens" | "max_completion_tokens" | null = "max_tokens";
  /** Every successful reply, in order. */
  readonly replies: ProbeReply[] = [];
  /** The rate-limit headers last seen. */
  readonly rateLimits: Record<string, string> = {};
  /** HTTP requests sent. */
  requests = 0;

  constructor(
    readonly client: OpenAI,
    readonly model: string,
    readonly wait: (ms: number) => Promise<void>,
  ) {}

  /** Keeps the rate-limit headers of an answer. */
  noteHeaders(headers: Headers | undefined): void {
    if (!(headers instanceof Headers)) return;
    for (const name of RATE_LIMIT_HEADERS) {
      const value = headers.get(name);
      if (value !== null) this.rateLimits[name] = value;
    }
  }

  /**
   * The body of a chat call with `prompt` (a user message, or the messages) and the `extra` fields, less every
   * parameter refused so far, asking for at most `maxTokens` new tokens.
   */
  body(
    prompt: string | readonly ChatMessage[],
    extra: Record<string, unknown>,
    maxTokens = PROBE_MAX_TOKENS,
  ): Record<string, unknown> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: typeof prompt === "string" ? [{ role: "user", content: prompt }] : prompt,
    };
    if (this.tokenLimit) body[this.tokenLimit] = maxTokens;
    for (const [key, value] of Object.entries(extra)) if (!this.refused.has(key)) body[key] = value;
    return body;
  }

  /** Learns a refused parameter: it is never sent again (a refused token-limit parameter is swapped once). */
  learn(parameter: string, reason: string): void {
    this.refused.set(parameter, reason);
    if (parameter === "max_tokens" || parameter === "max_completion_tokens") {
      const other = parameter === "max_tokens" ? "max_completion_tokens" : "max_tokens";
      this.tokenLimit = this.refused.has(other) ? null : other;
    }
  }

  /**
   * Sends one chat call: a refused parameter is learned and the call sent again without it; a failure worth
   * another attempt (429, 5xx, timeout, broken connection) is tried once more.
   */
  async chat(
    prompt: string | readonly ChatMessage[],
    extra: Record<string, unknown> = {},
    maxTokens?: number,
  ): Promise<ProbeAttempt> {
    let retried = false;
    for (;;) {
      const body = this.body(prompt, extra, maxTokens);
      const started = performance.now();
      this.requests++;
      try {
        const { data, response } = await this.client.chat.completions.create(
          body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
        ).withResponse();
        this.noteHeaders(response.headers);
        const reply = readReply(data, performance.now() - started);
        if (!reply) throw new SyntaxError("the completion has no message");
        this.replies.push(reply);
        return { ok: true, reply, sent: body };
      } catch (err) {
        if (err instanceof OpenAI.APIError) this.noteHeaders(err.headers as Headers | undefined);
        const parameter = err instanceof OpenAI.APIError ? refusedParameter(body, err) : undefined;
        if (parameter && !this.refused.has(parameter)) {
          this.learn(parameter, refusalReason(err as InstanceType<typeof OpenAI.APIError>));
          continue;
        }
        const error = classifyError(err);
        if (error.retryable && !retried) {
          retried = true;
          await this.wait(Math.min(error.retryAfterMs ?? 1000, 5000));
          continue;
        }
        return { ok: false, error, sent: body, cause: connectionCause(err) };
      }
    }
  }
}

/** `GET /models`: whether the server lists models, and the model among them. */
async function probeModels(session: ProbeSession): Promise<ModelsFinding> {
  session.requests++;
  try {
    const { data: page, response } = await session.client.models.list().withResponse();
    session.noteHeaders(response.headers);
    const ids = page.data.map((model) => model.id);
    const includesModel = ids.includes(session.model);
    const closest = includesModel ? undefined : closestName(session.model, ids);
    const detail = includesModel
      ? `listed: ${ids.length} model(s), ${session.model} among them`
      : `listed: ${ids.length} model(s), ${session.model} NOT among them${
        closest
          ? ` (closest: ${closest})`
          : ids.length && ids.length <= 5
          ? ` (listed: ${ids.join(", ")})`
          : ""
      }`;
    return { status: "listed", count: ids.length, includesModel, ...(closest ? { closest } : {}), detail };
  } catch (err) {
    if (err instanceof OpenAI.APIError) session.noteHeaders(err.headers as Headers | undefined);
    return { status: "failed", detail: `not listed: ${classifyError(err).message}` };
  }
}

/** A one-line explanation of a failed first chat call, with what to check. */
function chatFailure(attempt: Extract<ProbeAttempt, { ok: false }>, target: ProbeTarget, keySet: boolean) {
  const { error } = attempt;
  let hint = "";
  if (error.status === 401 || error.status === 403) {
    hint = keySet ? `; the key comes from $${target.apiKeyEnv}` : `; $${target.apiKeyEnv} is not set`;
  } else if (error.status === 404) {
    const azure = /\/openai\/deployments\/|\.openai\.azure\.com/i.test(target.baseUrl);
    hint = azure && !target.apiVersion
      ? `; Azure OpenAI needs ${
        target.role === "judge" ? "--judge-api-version" : "--api-version"
      } (e.g. 2024-10-21)`
      : "; check --base-url (it usually ends in /v1) and --model";
  } else if (error.status === undefined && /connection failed/.test(error.message)) {
    hint = attempt.cause && !error.message.includes(attempt.cause) ? ` (${attempt.cause})` : "";
    hint += "; is a server listening at --base-url, and does its host name resolve?";
  }
  return redact(`${error.message}${hint}`);
}

/** Every capability finding of an endpoint whose first chat call failed: nothing was probed. */
function notRun<S extends string>(): Finding<S> {
  return { status: "not run", detail: "not run: the chat call failed" };
}

function tokenLimitFinding(session: ProbeSession): Finding<TokenLimitStatus> {
  const refusedMax = session.refused.get("max_tokens");
  if (session.tokenLimit === "max_tokens") return { status: "max_tokens", detail: "max_tokens accepted" };
  if (session.tokenLimit === "max_completion_tokens") {
    return {
      status: "max_completion_tokens",
      detail: `max_tokens refused (${refusedMax}): max_completion_tokens needed, and accepted`,
    };
  }
  return {
    status: "neither",
    detail: "max_tokens and max_completion_tokens both refused: requests are sent without a token limit",
  };
}

function temperatureFinding(session: ProbeSession, attempt: ProbeAttempt): Finding<TemperatureStatus> {
  const refusal = session.refused.get("temperature");
  if (refusal) {
    return { status: "default only", detail: `0 refused (${refusal}): only the default is accepted` };
  }
  if (!attempt.ok) return { status: "failed", detail: `not known: ${attempt.error.message}` };
  return { status: "accepted", detail: "0 accepted" };
}

function seedFinding(
  session: ProbeSession,
  first: ProbeAttempt,
  second: ProbeAttempt | undefined,
  temperatureZero: boolean,
): Finding<SeedStatus> {
  const refusal = session.refused.get("seed");
  if (refusal) return { status: "refused", detail: `seed refused (${refusal})` };
  const failed = [first, second].find((a) => a && !a.ok);
  if (failed && !failed.ok) return { status: "failed", detail: `not known: ${failed.error.message}` };
  if (!first.ok || !second?.ok) return { status: "failed", detail: "not known" };
  const how = temperatureZero ? "temperature 0" : "temperature at the server's default";
  if (first.reply.text === second.reply.text) {
    return { status: "honoured", detail: `honoured: two identical seeded calls gave the same text (${how})` };
  }
  return {
    status: "not honoured",
    detail: `not honoured: replies differ (two identical seeded calls, ${how})`,
  };
}

function jsonModeFinding(session: ProbeSession, attempt: ProbeAttempt): Finding<JsonModeStatus> {
  const refusal = session.refused.get("response_format");
  if (refusal) return { status: "refused", detail: `response_format refused (${refusal})` };
  if (!attempt.ok) return { status: "failed", detail: `not known: ${attempt.error.message}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(attempt.reply.text.trim());
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === "object") {
    return { status: "honoured", detail: "honoured: json_object accepted and the reply parses as JSON" };
  }
  return { status: "ignored", detail: "ignored: json_object accepted but the reply is not bare JSON" };
}

function reasoningFinding(replies: readonly ProbeReply[]): Finding<ReasoningStatus> {
  const field = replies.find((r) => r.reasoningField)?.reasoningField;
  if (field) return { status: field, detail: `in the message's ${field} field, apart from the answer` };
  if (replies.some((r) => r.thinkTags)) {
    return { status: "think tags", detail: "<think> in the content: the answer text carries the reasoning" };
  }
  return { status: "none seen", detail: "none seen" };
}

function usageFinding(replies: readonly ProbeReply[]): Finding<UsageStatus> {
  const withUsage = replies.filter((r) => r.usage).length;
  if (withUsage === replies.length) {
    return { status: "present", detail: `present on all ${withUsage} replies` };
  }
  const missing = 'token counts and costs will say "unknown"';
  if (withUsage === 0) return { status: "missing", detail: `missing on every reply: ${missing}` };
  return {
    status: "partial",
    detail: `missing on ${replies.length - withUsage} of ${replies.length}: ${missing}`,
  };
}

/**
 * Sends one verdict check's request as a run's first judging would go: the scorer's messages, token limit, seed
 * and JSON mode (with the token-limit parameter, seed and JSON mode as the judge's profile sends them), less
 * what the server refused to the probes.
 */
async function sendVerdictCheck(session: ProbeSession, check: VerdictCheck): Promise<VerdictReply> {
  // The run's token-limit parameter, unless the probes saw the server refuse it (a run would then swap it too).
  if (check.tokenLimit && session.tokenLimit !== null && !session.refused.has(check.tokenLimit)) {
    session.tokenLimit = check.tokenLimit;
  }
  const extra = {
    ...(check.seed !== undefined ? { seed: check.seed } : {}),
    ...(check.jsonMode ? { response_format: { type: "json_object" } } : {}),
  };
  const attempt = await session.chat(check.messages, extra, check.maxTokens);
  if (!attempt.ok) return { ok: false, detail: redact(attempt.error.message) };
  const { reply } = attempt;
  return {
    ok: true,
    text: reply.text,
    ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
    ...(reply.reasoningField && reply.reasoning
      ? { reasoning: { field: reply.reasoningField, text: reply.reasoning } }
      : {}),
    tokenLimit: session.tokenLimit,
  };
}

/** Probes one endpoint; never throws for what the server answers (failures are in the observation). */
export async function probeEndpoint(target: ProbeTarget): Promise<EndpointObservation> {
  const client = new OpenAI(endpointClientOptions({
    baseURL: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    apiVersion: target.apiVersion,
  }));
  const wait = target.wait ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const session = new ProbeSession(client, target.model, wait);
  const keySet = Boolean(target.apiKey);
  const base = {
    role: target.role,
    model: target.model,
    baseUrl: printableUrl(target.baseUrl),
    endpoint: endpointLabel(target.model, target.baseUrl),
    apiKeyEnv: target.apiKeyEnv,
    keySet,
    ...(target.apiVersion ? { apiVersion: target.apiVersion } : {}),
  };
  const models = await probeModels(session);
  const plain = await session.chat(PLAIN_PROMPT);
  if (!plain.ok) {
    const chat: ChatFinding = {
      ok: false,
      ...(plain.error.status !== undefined ? { httpStatus: plain.error.status } : {}),
      detail: chatFailure(plain, target, keySet),
    };
    return {
      ...base,
      models,
      chat,
      tokenLimit: notRun(),
      temperature: notRun(),
      seed: notRun(),
      jsonMode: notRun(),
      reasoning: notRun(),
      usage: notRun(),
      cutReplies: 0,
      latency: { calls: 0, p50Ms: null, p95Ms: null },
      rateLimits: session.rateLimits,
      requests: session.requests,
    };
  }
  const tokenLimit = tokenLimitFinding(session);
  const temperatureAttempt = await session.chat(PLAIN_PROMPT, { temperature: 0 });
  const temperature = temperatureFinding(session, temperatureAttempt);
  const temperatureZero = temperature.status === "accepted";
  const seeded = { seed: PROBE_SEED, ...(temperatureZero ? { temperature: 0 } : {}) };
  const first = await session.chat(SEED_PROMPT, seeded);
  const second = first.ok && "seed" in first.sent ? await session.chat(SEED_PROMPT, seeded) : undefined;
  const seed = seedFinding(session, first, second, temperatureZero);
  const jsonMode = jsonModeFinding(
    session,
    await session.chat(JSON_PROMPT, { response_format: { type: "json_object" } }),
  );
  const calls = target.calls ?? DEFAULT_PROBE_CALLS;
  for (let extra = 0; extra < calls && session.replies.length < calls; extra++) {
    if (!(await session.chat(PLAIN_PROMPT)).ok) break;
  }
  // The verdict checks' replies count in no probe figure (latency, usage, cut replies); their requests count.
  const replies = [...session.replies];
  const verdicts = target.verdictChecks
    ? await checkVerdicts(target.verdictChecks, (check) => sendVerdictCheck(session, check))
    : undefined;
  const sorted = replies.map((r) => r.latencyMs).sort((a, b) => a - b);
  return {
    ...base,
    models,
    chat: {
      ok: true,
      servedModel: plain.reply.servedModel,
      finishReason: plain.reply.finishReason,
      latencyMs: plain.reply.latencyMs,
      detail: `ok: served as ${plain.reply.servedModel ?? "(not named)"}, finish_reason ${
        plain.reply.finishReason ?? "(none)"
      }, ${plain.reply.latencyMs} ms`,
    },
    tokenLimit,
    temperature,
    seed,
    jsonMode,
    reasoning: reasoningFinding(replies),
    usage: usageFinding(replies),
    cutReplies: replies.filter((r) => r.finishReason === "length").length,
    latency: {
      calls: sorted.length,
      p50Ms: Math.round(quantileSorted(sorted, 0.5)),
      p95Ms: Math.round(quantileSorted(sorted, 0.95)),
    },
    rateLimits: session.rateLimits,
    requests: session.requests,
    ...(verdicts ? { verdicts } : {}),
  };
}
