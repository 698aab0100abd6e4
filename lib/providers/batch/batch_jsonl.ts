/**
 * The files of the Batch API: request lines of a batch input file (one `/v1/chat/completions` request each,
 * named by its `custom_id`), the limits a file must stay within, and the parsing of output and error files
 * into one outcome per `custom_id`.
 * @module
 */
import { z } from "zod";
import type { ChatRequest, ChatResponse } from "../types.ts";
import { readChoice } from "../transport/reply_message.ts";
import { RequestShape } from "../transport/request_shape.ts";

/** The limits of one batch input file. */
export interface BatchFileLimits {
  /** Most request lines in one file. */
  maxRequests: number;
  /** Most bytes in one file (UTF-8, newlines included). */
  maxBytes: number;
}

/** The OpenAI Batch API's limits: 50,000 requests and 200 MB per input file. */
export const OPENAI_BATCH_LIMITS: BatchFileLimits = { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 };

/** The endpoint every line of a chat batch calls. */
export const CHAT_ENDPOINT = "/v1/chat/completions";

/** One encoded line of a batch input file. */
export interface BatchInputLine {
  /** Its `custom_id`. */
  customId: string;
  /** The line's JSON, without the newline. */
  json: string;
  /** Its size in the file, in bytes (newline included). */
  bytes: number;
}

const encoder = new TextEncoder();

/**
 * Returns the body of a chat completion for `model` in the shape of a model no profile matches (`max_tokens`,
 * temperature, seed, JSON mode when `jsonMode`). Batch mode builds its lines with the model's own shape.
 */
export function chatBody(model: string, request: ChatRequest, jsonMode: boolean): Record<string, unknown> {
  return new RequestShape().body(model, { ...request, jsonMode });
}

/** Returns the input-file line asking `body` of the chat endpoint under `customId`. */
export function batchInputLine(customId: string, body: Record<string, unknown>): BatchInputLine {
  const json = JSON.stringify({ custom_id: customId, method: "POST", url: CHAT_ENDPOINT, body });
  return { customId, json, bytes: encoder.encode(json).length + 1 };
}

/** Returns `true` when `line` can join a file of `count` lines and `bytes` bytes within `limits`. */
export function fitsInFile(
  count: number,
  bytes: number,
  line: BatchInputLine,
  limits: BatchFileLimits,
): boolean {
  return count + 1 <= limits.maxRequests && bytes + line.bytes <= limits.maxBytes;
}

/** Returns the text of a batch input file holding `lines`. */
export function batchFileText(lines: readonly BatchInputLine[]): string {
  return lines.map((l) => `${l.json}\n`).join("");
}

/** What one line of an output or error file says about its request. */
export type LineResult =
  | { ok: true; response: ChatResponse }
  | { ok: false; message: string; status: number | null; retryable: boolean };

const ErrorBody = z.object({ message: z.string().optional(), code: z.string().nullish() }).nullish();

const ResultLine = z.object({
  custom_id: z.string(),
  response: z.object({
    status_code: z.number(),
    body: z.unknown(),
  }).nullish(),
  error: ErrorBody,
});

const Completion = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({
    message: z.object({
      content: z.string().nullish(),
      refusal: z.string().nullish(),
      reasoning_content: z.unknown().optional(),
      reasoning: z.unknown().optional(),
    }).nullish(),
    finish_reason: z.string().nullish(),
  })).optional(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

const ErrorResponse = z.object({ error: ErrorBody });

/** Returns whether an HTTP status is worth another attempt (timeouts, conflicts, rate limits, server errors). */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Error codes of lines without a status that a later batch may well answer. */
const RETRYABLE_CODES = /expired|rate_limit|server_error|timeout|overloaded/i;

/**
 * Returns the outcome of every readable line of an output or error file, by `custom_id`. Lines that cannot be
 * read are skipped: their requests count as missing from the batch.
 */
export function parseBatchResults(text: string): Map<string, LineResult> {
  const results = new Map<string, LineResult>();
  for (const raw of text.split("\n")) {
    if (!raw.trim()) continue;
    let parsed;
    try {
      parsed = ResultLine.safeParse(JSON.parse(raw));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    results.set(parsed.data.custom_id, lineResult(parsed.data));
  }
  return results;
}

function lineResult(line: z.infer<typeof ResultLine>): LineResult {
  const status = line.response?.status_code ?? null;
  if (status === 200 && !line.error) {
    const completion = Completion.safeParse(line.response!.body);
    const choice = completion.success ? completion.data.choices?.[0] : undefined;
    const read = readChoice(choice);
    if (!completion.success || !read) {
      return { ok: false, message: "server answered without a message content", status, retryable: true };
    }
    const { usage, model } = completion.data;
    return {
      ok: true,
      response: {
        ...read,
        finishReason: choice!.finish_reason ?? undefined,
        usage: usage ? { prompt: usage.prompt_tokens, completion: usage.completion_tokens } : undefined,
        servedModel: model,
      },
    };
  }
  const bodyError = ErrorResponse.safeParse(line.response?.body);
  const error = line.error ?? (bodyError.success ? bodyError.data.error : undefined);
  const message = error?.message ?? error?.code ?? "no reason given";
  const retryable = status !== null
    ? retryableStatus(status)
    : RETRYABLE_CODES.test(`${error?.code ?? ""} ${message}`);
  return { ok: false, message: status !== null ? `HTTP ${status}: ${message}` : message, status, retryable };
}
