/**
 * MedJudge as a structured judge scorer: the verdict is a JSON object with the rubric's three categorical
 * fields, the judge's confidence, its analysis and the facts missing or added, validated by zod (a reply that
 * does not validate is asked again, then stored as a judge error and never counted). The primary value is
 * "acceptable" (1/0) of each verdict: Correct, or Partially_correct whose clinical impact is Negligible or
 * Moderate. An answer's runs and a jury's judges then vote on it; a tie is not acceptable.
 * @module
 */
import { z } from "zod";
import { judgeScorer } from "../../judges/judge_scorer.ts";
import { buildMedJudgeMessages, TEMPLATES } from "./prompts.ts";

/** Correctness levels, best first. */
export const CORRECTNESS = ["Correct", "Partially_correct", "Incorrect", "Contradictory"] as const;
/** Coverage categories (nominal). */
export const COVERAGE = ["Equal", "Model_subset", "Expert_subset", "Overlap_none"] as const;
/** Clinical impact levels, least severe first. */
export const CLINICAL_IMPACT = ["Negligible", "Moderate", "Significant", "Critical"] as const;
/** Judge confidence levels, highest first. */
export const CONFIDENCE = ["High", "Medium", "Low"] as const;

/** The rubric's categorical fields: stored value name, verdict key, levels, and whether they are ordered. */
export const RUBRIC_FIELDS = [
  { name: "correctness", key: "Correctness", levels: CORRECTNESS, ordinal: true },
  { name: "coverage", key: "Coverage", levels: COVERAGE, ordinal: false },
  { name: "clinical_impact", key: "Clinical_impact", levels: CLINICAL_IMPACT, ordinal: true },
  { name: "judge_confidence", key: "Judge_confidence", levels: CONFIDENCE, ordinal: true },
] as const;

/** A rubric field. */
export type RubricField = typeof RUBRIC_FIELDS[number];

/** Returns an enum schema that also accepts case and space/underscore variants (`partially correct`). */
function level<const L extends readonly [string, ...string[]]>(levels: L) {
  const squash = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
  return z.preprocess(
    (v) => typeof v === "string" ? (levels.find((l) => squash(l) === squash(v)) ?? v) : v,
    z.enum(levels),
  );
}

/** A list of facts; a single string is read as a list of one, an empty string as none. */
const facts = z.union([
  z.array(z.string()),
  z.string().transform((s) => (s.trim() ? [s] : [])),
]);

/** zod schema of a MedJudge verdict. */
export const MedJudgeVerdictSchema = z.object({
  Brief_analysis: z.string(),
  Key_missing_facts: facts,
  Key_extra_facts: facts,
  Correctness: level(CORRECTNESS),
  Coverage: level(COVERAGE),
  Clinical_impact: level(CLINICAL_IMPACT),
  Judge_confidence: level(CONFIDENCE),
});

/** A MedJudge verdict. */
export type MedJudgeVerdict = z.infer<typeof MedJudgeVerdictSchema>;

/** The acceptable rule, as stated in tables. */
export const ACCEPTABLE_RULE =
  "acceptable = Correctness Correct, or Partially_correct with Clinical_impact Negligible or Moderate";

/** Returns `true` when a verdict's fields make the answer acceptable. */
export function isAcceptable(correctness: string, impact: string): boolean {
  return correctness === "Correct" ||
    (correctness === "Partially_correct" && (impact === "Negligible" || impact === "Moderate"));
}

/** The MedJudge scorer (stored as `medjudge`). */
export const MEDJUDGE = judgeScorer<MedJudgeVerdict>({
  name: "medjudge",
  prompt: buildMedJudgeMessages,
  templates: TEMPLATES,
  verdict: MedJudgeVerdictSchema,
  expects: "a MedJudge JSON verdict (Correctness, Coverage, Clinical_impact, Judge_confidence, ...)",
  value: (v) => (isAcceptable(v.Correctness, v.Clinical_impact) ? 1 : 0),
  values: {
    correctness: (v) => v.Correctness,
    coverage: (v) => v.Coverage,
    clinical_impact: (v) => v.Clinical_impact,
    judge_confidence: (v) => v.Judge_confidence,
  },
  reason: (v) => v.Brief_analysis,
  // A tie between runs or judges is not acceptable (the conservative reading).
  reduce: "mode-low",
  jury: "majority-low",
  agreement: "nominal",
  offline: ["offline:medjudge"],
  maxTokens: 2048,
});
