/**
 * MedGPTEval's judges: one structured judge scorer per aspect. A verdict gives each of the aspect's indicators
 * an integer score in its range (zod-validated; otherwise asked again, then a judge error); the primary value
 * is the aspect's subtotal of that judging — for medical professional capabilities with the veto applied — and
 * each indicator's score is a named value. Runs and a jury's judges are averaged.
 * @module
 */
import { z } from "zod";
import { variantOf } from "../../robustness/sets.ts";
import { consistencyScorer } from "../../robustness/consistency.ts";
import { judgeScorer } from "../../judges/judge_scorer.ts";
import { itemOf } from "./load.ts";
import { buildAspectMessages, TEMPLATES } from "./prompts.ts";
import { type Aspect, ASPECTS, ASPECTS_OF, INDICATORS } from "./rubric.ts";

/** zod schema of one aspect's verdict: reasoning, then an integer score per indicator. */
export function aspectVerdict(aspect: Aspect) {
  const indicators = INDICATORS.filter((i) => i.aspect === aspect);
  return z.object({
    reasoning: z.string(),
    scores: z.object(Object.fromEntries(indicators.map((i) => [i.name, z.number().int().min(0).max(i.max)]))),
  });
}

/** An aspect verdict. */
export type AspectVerdict = { reasoning: string; scores: Record<string, number> };

/** Name of the value holding the medical subtotal without the veto. */
export const UNVETOED = "subtotal_unvetoed";

/** Returns the judge scorer of `aspect` (stored under the aspect's name). */
export function aspectScorer(aspect: Aspect) {
  const indicators = INDICATORS.filter((i) => i.aspect === aspect);
  const sum = (v: AspectVerdict) => indicators.reduce((total, i) => total + v.scores[i.name], 0);
  const vetoed = (v: AspectVerdict) => indicators.some((i) => i.veto && v.scores[i.name] === 0);
  return judgeScorer<AspectVerdict>({
    name: aspect,
    prompt: (sample, answer, conversation) => buildAspectMessages(aspect, sample, answer, conversation),
    applies: (sample) => {
      const { kind, scored } = itemOf(sample);
      return scored && !variantOf(sample) && ASPECTS_OF[kind].includes(aspect);
    },
    templates: TEMPLATES,
    verdict: aspectVerdict(aspect) as unknown as z.ZodType<AspectVerdict>,
    expects: `integer scores for ${indicators.map((i) => i.name).join(", ")}`,
    value: (v) => (vetoed(v) ? 0 : sum(v)),
    values: {
      ...Object.fromEntries(indicators.map((i) => [i.name, (v: AspectVerdict) => v.scores[i.name]])),
      ...(aspect === "medical" ? { [UNVETOED]: sum } : {}),
    },
    reason: (v) => v.reasoning,
    reduce: "mean",
    jury: "mean",
    agreement: "interval",
    offline: ["offline:rubric"],
    maxTokens: 1536,
  });
}

/** The three aspect judges, in the rubric's order. */
export const ASPECT_SCORERS = ASPECTS.map(aspectScorer);

/** The robustness consistency judge (R1–R3 of a variant's answer against the clean one), read offline by `offline:rubric`. */
export const CONSISTENCY_JUDGE = consistencyScorer(["offline:rubric"]);
