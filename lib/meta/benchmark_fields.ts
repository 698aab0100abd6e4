/**
 * What a benchmark's own rules add to the fields a judge and human raters share by name: LLMEval-Med's judge
 * gives a 1–5 score and its humans rate MTG answers on Safety and dimensions B–E, so they meet only through the
 * paper's rules — `usable` (judge: mean score over runs ≥ 4; humans: Safety passes and the MTG score ≥ 5) and
 * `score` (judge 1–5 against the human MTG score 0–7: two scales, so rank agreement and calibration only);
 * PerMedCQA adds `acceptable` (Correct, or Partially_correct with Negligible or Moderate impact) and says that
 * Coverage is nominal although its categories are listed in an order.
 * @module
 */
import type { StoredScore } from "../core/records.ts";
import { USABLE_THRESHOLD } from "../benchmarks/llmeval_med/aggregate.ts";
import { mtgHumanScore, mtgHumanUsable, mtgRatingOf } from "../benchmarks/llmeval_med/human_eval.ts";
import { LLMEVAL_MED_JUDGE } from "../benchmarks/llmeval_med/scorer.ts";
import { isAcceptable, MEDJUDGE } from "../benchmarks/permedcqa/scorer.ts";
import type { MetaField } from "./fields.ts";

/** A benchmark's additions to the fields compared by name. */
export interface BenchmarkFields {
  /** Shared fields whose declared categories have no order (nominal). */
  nominal?: readonly string[];
  /** Fields the benchmark's rules derive for the judge scorer `judgeScorer` (none for other scorers). */
  derived?(judgeScorer: string): MetaField[];
}

/** Returns the mean of the valid primary values of `judgings`, or `null` when none has one. */
function meanValue(judgings: readonly StoredScore[]): number | null {
  const values = judgings.map((s) => s.value).filter((v): v is number => v !== null);
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}

/** LLMEval-Med's `usable` and `score`, where the judge's 1–5 score meets the MTG human rating. */
function llmEvalMedFields(): MetaField[] {
  return [
    {
      name: "usable",
      level: "binary",
      levels: [0, 1],
      ownScales: false,
      description:
        `judge: mean score over runs >= ${USABLE_THRESHOLD}; human: Safety passes and MTG score >= 5`,
      judge: (score) => score.value === null ? null : (score.value >= USABLE_THRESHOLD ? 1 : 0),
      reading: (judgings) => {
        const mean = meanValue(judgings);
        return mean === null ? null : (mean >= USABLE_THRESHOLD ? 1 : 0);
      },
      human: (values) => {
        const rating = mtgRatingOf(values);
        return rating ? (mtgHumanUsable(rating) ? 1 : 0) : null;
      },
    },
    {
      name: "score",
      level: "interval",
      ownScales: true,
      description: "judge: 1-5 score (mean over runs); human: MTG score 0-7 (the paper's piecewise rule)",
      judge: (score) => score.value,
      reading: meanValue,
      human: (values) => {
        const rating = mtgRatingOf(values);
        return rating ? mtgHumanScore(rating) : null;
      },
    },
  ];
}

/** PerMedCQA's `acceptable`, from the Correctness and Clinical_impact of a verdict or a physician's rating. */
function perMedCqaFields(): MetaField[] {
  const acceptable = (values: Readonly<Record<string, unknown>> | null) => {
    const { correctness, clinical_impact } = values ?? {};
    if (typeof correctness !== "string" || typeof clinical_impact !== "string") return null;
    return isAcceptable(correctness, clinical_impact) ? 1 : 0;
  };
  return [{
    name: "acceptable",
    level: "binary",
    levels: [0, 1],
    ownScales: false,
    description: "Correct, or Partially_correct with Clinical_impact Negligible or Moderate (both sides)",
    judge: (score) => acceptable(score.values),
    human: (values) => acceptable(values),
  }];
}

/** Each benchmark's additions, by registry name. */
export const BENCHMARK_FIELDS: Readonly<Record<string, BenchmarkFields>> = {
  "llmeval-med": {
    derived: (judgeScorer) => judgeScorer === LLMEVAL_MED_JUDGE.name ? llmEvalMedFields() : [],
  },
  permedcqa: {
    nominal: ["coverage"],
    derived: (judgeScorer) => judgeScorer === MEDJUDGE.name ? perMedCqaFields() : [],
  },
};
