/**
 * Judge scorers: a scorer that owns its judge. It is declared with its prompt builder, a zod schema of the
 * verdict (a 1–5 score is one schema; a JSON rubric with enums and lists is another), the value(s) it reports,
 * a reducer over repeated judgings and how a jury's judges are combined. Every judge of the run's `judge` role
 * grades every answer `--judge-runs` times (distinct, seeded calls through the run store); a reply that does
 * not validate is asked again, then stored as a judge error — never read as a number. The parsed verdict is
 * stored whole with each score.
 * @module
 */
import type { z } from "zod";
import type { ChatMessage } from "../core/chat.ts";
import type { NamedValue } from "../core/records.ts";
import type { Sample } from "../core/sample.ts";
import type { ScoreContext, Scorer, ScoreValue } from "../core/task.ts";
import type { Reducer } from "../metrics/reducers.ts";
import { afterReasoning } from "../text/reasoning.ts";
import { jsonObjectIn } from "./reply_json.ts";

/**
 * How a jury's judges are combined into one value per sample: the mean of their values, the majority value
 * (a tie gives no value), or the majority with a tie going to the smallest value (`majority-low`).
 */
export type JuryRule = "mean" | "majority" | "majority-low";

/** Measurement level of a judge scorer's primary value, for the judges' agreement (Krippendorff's α). */
export type AgreementLevel = "nominal" | "ordinal" | "interval";

/** The declaration of a judge scorer. */
export interface JudgeScorerSpec<V> {
  /** Name under which its scores are stored, e.g. `judge`, `medjudge`. */
  name: string;
  /** The role whose models judge (default `judge`). */
  role?: string;
  /**
   * Builds the judge's messages for a sample and an answer (and the conversation so far, when there is one, and
   * what the solver recorded for the answer).
   */
  prompt: (
    sample: Sample,
    answer: string,
    conversation?: readonly ChatMessage[],
    detail?: Readonly<Record<string, unknown>>,
  ) => ChatMessage[];
  /** Whether a sample's answer is judged at all (e.g. only the last round of a dialogue); default every one. */
  applies?: (sample: Sample) => boolean;
  /** The prompt templates, by name (hashed into the manifest). */
  templates: Record<string, string>;
  /** zod schema of a valid verdict. */
  verdict: z.ZodType<V>;
  /** What a valid verdict is, for judge-error reasons, e.g. `a 1-5 score`. */
  expects: string;
  /** Returns the candidate verdict in a reply after any reasoning block, or `undefined` (default: its JSON object). */
  read?: (reply: string) => unknown;
  /** The primary value of a verdict (the one tables show first); `null` when it has none. */
  value: (verdict: V) => number | null;
  /** Further values by name (rubric fields: numbers or categories). */
  values?: Record<string, (verdict: V) => NamedValue>;
  /** The judge's reason, for tables and logs. */
  reason?: (verdict: V) => string;
  /** How repeated judgings of one answer by one judge reduce to one value. */
  reduce: Reducer;
  /** How a jury's judges combine (see {@linkcode JuryRule}). */
  jury: JuryRule;
  /** Level of the primary value for the judges' agreement. */
  agreement: AgreementLevel;
  /** Offline stand-ins (`offline:*` judge names) whose replies this scorer can read. */
  offline?: readonly string[];
  /** Judge calls per verdict before a reply that does not validate becomes a judge error (default 3). */
  maxAttempts?: number;
  /** Upper bound on judge tokens (default 1024). */
  maxTokens?: number;
  /** Ask for JSON mode (default `true`; servers that refuse it are asked again without it). */
  jsonMode?: boolean;
}

/** A scorer that owns its judge, with its declaration kept for aggregations (reducer, jury rule). */
export interface JudgeScorer<V = unknown> extends Scorer {
  /** Its declaration. */
  readonly spec: JudgeScorerSpec<V>;
}

/** Returns `true` when `scorer` is a {@linkcode JudgeScorer}. */
export function isJudgeScorer(scorer: Scorer): scorer is JudgeScorer {
  return "spec" in scorer && (scorer as JudgeScorer).spec !== undefined;
}

/** What one judge said about one answer in one run, after re-asks. */
interface Judging<V> {
  verdict: V | null;
  callKey: string;
  attempts: number;
  lastReply: string;
}

/** A judge's token limit when neither the user (`--role-opt judge.max-tokens=N`) nor the scorer sets one. */
export const DEFAULT_JUDGE_MAX_TOKENS = 1024;

/**
 * Returns the verdict `spec` reads in a judge's reply (its reader, default the first JSON object, on what follows
 * any reasoning; then its schema), or `null` when the reply holds none: how a run and `doctor --benchmark` read
 * a judge's reply.
 */
export function validVerdict<V>(spec: JudgeScorerSpec<V>, reply: string): V | null {
  // Whatever the reader, a reasoning model's thinking is not part of its verdict.
  const candidate = (spec.read ?? jsonObjectIn)(afterReasoning(reply));
  if (candidate === undefined || candidate === null) return null;
  const parsed = spec.verdict.safeParse(candidate);
  return parsed.success ? parsed.data : null;
}

/**
 * Asks judge `member` about one answer in run `run`; a reply that does not validate is asked again (a distinct
 * call: new repeat number and seed) up to `maxAttempts` times. Run r, attempt a uses seed
 * `base + (r - 1) + 1000 (a - 1)` and repeat `100 r + a`, so every judging is reproducible and resumable.
 */
async function judgeOnce<V>(
  spec: JudgeScorerSpec<V>,
  ctx: ScoreContext,
  messages: ChatMessage[],
  answer: string,
  member: number,
  run: number,
): Promise<Judging<V>> {
  const role = spec.role ?? "judge";
  const base = ctx.defaults(role).seed ?? 0;
  const maxAttempts = spec.maxAttempts ?? 3;
  let last = { callKey: "", text: "" };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const reply = await ctx.generate(role, {
      messages,
      member,
      repeat: run * 100 + attempt,
      seed: base + (run - 1) + 1000 * (attempt - 1),
      // A limit the user set for the role (`--role-opt judge.max-tokens=N`) wins over the scorer's own.
      maxTokens: ctx.defaults(role).maxTokens ?? spec.maxTokens ?? DEFAULT_JUDGE_MAX_TOKENS,
      jsonMode: spec.jsonMode ?? true,
      answer,
    });
    last = reply;
    const verdict = validVerdict(spec, reply.text);
    if (verdict !== null) {
      return { verdict, callKey: reply.callKey, attempts: attempt, lastReply: reply.text };
    }
  }
  return { verdict: null, callKey: last.callKey, attempts: maxAttempts, lastReply: last.text };
}

/** Returns the stored form of one judging. */
function toScore<V>(spec: JudgeScorerSpec<V>, judging: Judging<V>, judge: string, run: number): ScoreValue {
  const { verdict } = judging;
  if (verdict === null) {
    return {
      judge,
      run,
      value: null,
      values: null,
      valid: false,
      reason: `no valid verdict (${spec.expects}) in ${judging.attempts} replies; last: ${
        judging.lastReply.slice(0, 200)
      }`,
      callKey: judging.callKey,
      detail: { attempts: judging.attempts },
    };
  }
  const values = spec.values
    ? Object.fromEntries(Object.entries(spec.values).map(([name, pick]) => [name, pick(verdict)]))
    : null;
  return {
    judge,
    run,
    value: spec.value(verdict),
    values,
    valid: true,
    reason: spec.reason?.(verdict) ?? null,
    callKey: judging.callKey,
    detail: { verdict, attempts: judging.attempts },
  };
}

/** Returns a scorer that asks every judge of its role `judgeRuns` times per answer, concurrently. */
export function judgeScorer<V>(spec: JudgeScorerSpec<V>): JudgeScorer<V> {
  const role = spec.role ?? "judge";
  return {
    name: spec.name,
    roles: [role],
    templates: spec.templates,
    offline: spec.offline ?? [],
    spec,
    units: (ctx, sample) => (spec.applies?.(sample) ?? true) ? ctx.judgeRuns * ctx.members(role).length : 0,
    async score({ sample, answer, conversation, detail }, ctx) {
      if (!(spec.applies?.(sample) ?? true)) return [];
      const messages = spec.prompt(sample, answer, conversation, detail);
      const runs = Array.from({ length: ctx.judgeRuns }, (_, i) => i + 1);
      const jobs = ctx.members(role).flatMap((member, m) =>
        runs.map(async (run) =>
          toScore(spec, await judgeOnce(spec, ctx, messages, answer, m, run), member.label, run)
        )
      );
      return await Promise.all(jobs);
    },
  };
}
