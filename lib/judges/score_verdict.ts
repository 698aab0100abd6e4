/**
 * The most common judge verdict: one whole-number score on a declared scale (1–5 by default) with a reason.
 * The reply is read by {@linkcode parseJudgeReply}: the requested JSON object, or a score stated in text on the
 * judge's own scale — never a number on another scale, a citation or a count.
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../core/chat.ts";
import type { Sample } from "../core/sample.ts";
import type { Reducer } from "../metrics/reducers.ts";
import { type JudgeScorer, judgeScorer, type JuryRule } from "./judge_scorer.ts";
import { parseJudgeReply } from "./parse_score.ts";

/** Returns the zod schema of a score verdict on `min`–`max`. */
export function scoreVerdictSchema(min: number, max: number) {
  return z.object({
    score: z.number().int().min(min).max(max),
    reason: z.string(),
    read: z.enum(["json", "text"]),
  });
}

/** A score verdict: the score, the judge's reason, and how the score was read (`json` or stated `text`). */
export type ScoreVerdict = z.infer<ReturnType<typeof scoreVerdictSchema>>;

/** Options of {@linkcode scoreJudgeScorer}. */
export interface ScoreJudgeOptions {
  /** Scorer name (default `judge`). */
  name?: string;
  /** Builds the judge's messages for a sample and an answer. */
  prompt: (sample: Sample, answer: string) => ChatMessage[];
  /** The prompt templates, by name. */
  templates: Record<string, string>;
  /** The scale (default 1–5). */
  scale?: { min: number; max: number };
  /** Reducer over repeated judgings (default `mean`). */
  reduce?: Reducer;
  /** How a jury's judges combine (default `mean`). */
  jury?: JuryRule;
}

/** Returns a judge scorer whose verdict is one score on a scale; `offline:overlap` can stand in for the judge. */
export function scoreJudgeScorer(options: ScoreJudgeOptions): JudgeScorer<ScoreVerdict> {
  const { min, max } = options.scale ?? { min: 1, max: 5 };
  return judgeScorer({
    name: options.name ?? "judge",
    prompt: options.prompt,
    templates: options.templates,
    verdict: scoreVerdictSchema(min, max),
    expects: `a ${min}-${max} score`,
    read: (reply) => {
      const parsed = parseJudgeReply(reply, min, max);
      return parsed ? { score: parsed.score, reason: parsed.reason, read: parsed.method } : undefined;
    },
    value: (v) => v.score,
    reason: (v) => v.reason,
    reduce: options.reduce ?? "mean",
    jury: options.jury ?? "mean",
    agreement: "interval",
    offline: ["offline:overlap"],
  });
}
