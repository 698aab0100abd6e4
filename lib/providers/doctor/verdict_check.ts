/**
 * The verdict checks of `deno task doctor --benchmark NAME`: one request per judge scorer of the benchmark, sent
 * to the judge's endpoint in the shape the probes learned, and its reply read by the scorer's own reader. A reply
 * without a verdict the scorer reads (prose, a verdict cut by the token limit, a verdict only in the reasoning
 * field) is a failed check: the run would store it as a judge error. `lib/providers/` imports no benchmark and
 * no judge, so the caller builds each request and its reader ({@linkcode VerdictCheck}).
 * @module
 */
import type { ChatMessage } from "../../core/chat.ts";
import type { NamedValue } from "../../core/records.ts";
import type { ModelProfile } from "../transport/profiles.ts";
import type { VerdictFinding } from "./observation.ts";

/** What a scorer's reader found in a reply: the verdict's primary value and its further values. */
export interface VerdictRead {
  /** The primary value (`null` when the verdict has none). */
  value: number | null;
  /** Further values by name (empty when the scorer declares none). */
  values: Record<string, NamedValue>;
}

/** One judge scorer's check: the request it would send for a shipped sample, and how it reads the reply. */
export interface VerdictCheck {
  /** The benchmark's name. */
  benchmark: string;
  /** The judge scorer's name. */
  scorer: string;
  /** What a valid verdict is, e.g. `a 1-5 score` (the scorer's own words). */
  expects: string;
  /** The id of the sample the prompt was built from. */
  sample: string;
  /** The judge's messages, from the scorer's own prompt builder. */
  messages: ChatMessage[];
  /** The token limit a run would ask for. */
  maxTokens: number;
  /** The seed of a run's first judging; absent when the judge's profile sends none ({@linkcode asProfileSends}). */
  seed?: number;
  /** Whether the scorer asks for JSON mode. */
  jsonMode: boolean;
  /** The token-limit parameter a run starts with (the judge's profile's); default `max_tokens`. */
  tokenLimit?: "max_tokens" | "max_completion_tokens";
  /** Returns the verdict the scorer reads in the reply's content, or `undefined`. */
  read(reply: string): VerdictRead | undefined;
}

/** A judge's answer to a check's request, as the probes read it; or why the call failed. */
export type VerdictReply =
  | {
    ok: true;
    /** The content (`""` when the server sent none). */
    text: string;
    finishReason?: string;
    /** The reasoning the message carried apart from the content, and its field. */
    reasoning?: { field: string; text: string };
    /** The token-limit parameter sent (`null`: none). */
    tokenLimit: string | null;
  }
  | { ok: false; detail: string };

/**
 * `checks` as a run would send them to a judge of `profile`: with its token-limit parameter, and without the
 * seed, or without JSON mode, where the profile turns them off (a run's request shape starts from the judge's
 * profile).
 */
export function asProfileSends(
  checks: readonly VerdictCheck[],
  profile: Pick<ModelProfile, "seed" | "json_mode" | "token_limit">,
): VerdictCheck[] {
  return checks.map((check) => {
    const { seed, ...rest } = check;
    return {
      ...rest,
      ...(profile.seed && seed !== undefined ? { seed } : {}),
      jsonMode: check.jsonMode && profile.json_mode,
      tokenLimit: profile.token_limit,
    };
  });
}

/** Characters of a reply shown when no verdict was read. */
export const REPLY_START_CHARS = 80;

/** The least token limit suggested for a judge whose reply was cut (reasoning judges need room). */
const JUDGE_ROOM = 4096;

/** Returns the first {@linkcode REPLY_START_CHARS} characters of `text`, whitespace collapsed, `…` when cut. */
export function replyStart(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length > REPLY_START_CHARS ? `${chars.slice(0, REPLY_START_CHARS).join("")}…` : flat;
}

/** `4`, or `1 (correctness Correct, coverage Equal)` when the verdict has further values. */
function valueText(read: VerdictRead): string {
  const values = Object.entries(read.values).map(([name, value]) => `${name} ${value}`).join(", ");
  return `${read.value ?? "no value"}${values ? ` (${values})` : ""}`;
}

/** Returns the finding of one check from the judge's reply. */
export function verdictFinding(check: VerdictCheck, reply: VerdictReply): VerdictFinding {
  const base = {
    benchmark: check.benchmark,
    scorer: check.scorer,
    sample: check.sample,
    maxTokens: check.maxTokens,
  };
  if (!reply.ok) {
    return { ...base, status: "failed", detail: `NOT read: the call failed: ${reply.detail}` };
  }
  const finishReason = reply.finishReason ? { finishReason: reply.finishReason } : {};
  const cut = reply.finishReason === "length";
  const limit = reply.tokenLimit ? ` (${reply.tokenLimit} ${check.maxTokens})` : "";
  const room = `give the judge room: --role-opt judge.max-tokens=${
    Math.max(JUDGE_ROOM, 2 * check.maxTokens)
  }`;
  const read = check.read(reply.text);
  if (read) {
    const risk = cut
      ? `; but the reply was cut by the token limit${limit}: longer ones lose their verdict; ${room}`
      : "";
    return {
      ...base,
      status: "read",
      value: read.value,
      values: read.values,
      ...finishReason,
      detail: `read, value ${valueText(read)}, on sample ${check.sample}${risk}`,
    };
  }
  const start = replyStart(reply.text);
  const parts = [start ? `the reply starts "${start}"` : "the reply is empty"];
  if (cut) {
    parts.unshift(`cut by the token limit${limit}, finish_reason length`);
    parts.push(room);
  } else if (reply.finishReason && reply.finishReason !== "stop") {
    parts.push(`finish_reason ${reply.finishReason}`);
  }
  if (reply.reasoning && check.read(reply.reasoning.text)) {
    parts.push(
      `a verdict is in the message's ${reply.reasoning.field} field, which is not read as the reply`,
    );
  }
  return {
    ...base,
    status: "not read",
    ...finishReason,
    replyStart: start,
    detail: `NOT read (expects ${check.expects}): ${parts.join("; ")}`,
  };
}

/** Sends each check's request with `send`, one after the other, and returns their findings in order. */
export async function checkVerdicts(
  checks: readonly VerdictCheck[],
  send: (check: VerdictCheck) => Promise<VerdictReply>,
): Promise<VerdictFinding[]> {
  const findings: VerdictFinding[] = [];
  for (const check of checks) findings.push(verdictFinding(check, await send(check)));
  return findings;
}
