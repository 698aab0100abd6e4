/**
 * From stored judgings to one value per sample, and a jury's report. Each judge's judgings of an answer reduce
 * by the scorer's reducer (mean over runs, mode, ...); a jury's judges then combine by the scorer's rule (mean,
 * or majority). The report gives each judge's own mean and how far the judges agree (Krippendorff's α with a
 * bootstrap CI, and the share of samples on which all agree).
 * @module
 */
import type { NamedValue, StoredScore } from "../core/records.ts";
import type { Summary } from "../core/summary.ts";
import type { RunView } from "../core/task.ts";
import { type Reducer, reduceValues } from "../metrics/reducers.ts";
import { alphaWithCi, percentAgreement } from "../stats/agreement.ts";
import { bootstrapMean } from "../stats/bootstrap.ts";
import type { JudgeScorerSpec, JuryRule } from "./judge_scorer.ts";

/** The reducer each jury rule combines judges with. */
const JURY_REDUCER: Readonly<Record<JuryRule, Reducer>> = {
  mean: "mean",
  majority: "mode",
  "majority-low": "mode-low",
};

/** What a judge scorer says about one sample. */
export interface JudgedValue {
  /** The jury's value (the one judge's, when there is one); `null` when no judge gave a valid verdict. */
  value: NamedValue;
  /** Each judge's reduced value, by judge label. */
  byJudge: Map<string, NamedValue>;
}

/** Returns the judge of a score as a key (`""` for scores without one). */
function judgeKey(score: StoredScore): string {
  return score.judge ?? "";
}

/**
 * Returns the value of one sample from its stored scores of one judge scorer (runs above `runs` ignored;
 * judge errors count as missing). `pick` chooses the value (default the primary value).
 */
export function judgedValue(
  scores: readonly StoredScore[],
  spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury">,
  runs: number,
  pick: (score: StoredScore) => NamedValue = (s) => s.value,
): JudgedValue {
  const byJudge = new Map<string, NamedValue>();
  const own = scores.filter((s) => s.run <= runs);
  for (const [judge, list] of Map.groupBy(own, judgeKey)) {
    const values = Array.from({ length: runs }, (_, i) => {
      const s = list.find((x) => x.run === i + 1);
      return s && s.valid ? pick(s) : null;
    });
    byJudge.set(judge, reduceValues(values, spec.reduce));
  }
  const judged = [...byJudge.values()];
  const value = byJudge.size <= 1 ? (judged[0] ?? null) : reduceValues(judged, JURY_REDUCER[spec.jury]);
  return { value, byJudge };
}

/** Returns the scores of `scorer` for each sample of `view`, in sample order. */
export function scorerScores(view: RunView, scorer: string): StoredScore[][] {
  return view.samples.map((s) => (view.scores.get(s.id) ?? []).filter((x) => x.scorer === scorer));
}

/** Returns the judges (labels) that scored with `scorer` in `view`, in order of first appearance. */
export function judgesOf(view: RunView, scorer: string): string[] {
  return [...new Set(scorerScores(view, scorer).flat().map(judgeKey))];
}

/**
 * Returns the jury report of `scorer` for a summary, or `undefined` when one judge (or none) scored: each
 * judge's mean of its per-sample values with a 95% CI, and the judges' agreement over samples.
 */
export function juryReport(
  view: RunView,
  scorer: string,
  spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury" | "agreement">,
  runs: number,
  seed: string,
): NonNullable<Summary["juries"]>[number] | undefined {
  const judges = judgesOf(view, scorer);
  if (judges.length < 2) return undefined;
  const perSample = scorerScores(view, scorer).map((scores) => judgedValue(scores, spec, runs).byJudge);
  const units = perSample.map((byJudge) => judges.map((j) => byJudge.get(j) ?? null));
  const byJudge: Record<string, Record<string, ReturnType<typeof bootstrapMean>>> = {};
  for (const [i, judge] of judges.entries()) {
    const values = units.map((u) => u[i]).filter((v): v is number => typeof v === "number");
    byJudge[judge] = { mean: bootstrapMean(values, { seed: `${seed}:${scorer}:${judge}` }) };
  }
  return {
    scorer,
    judges,
    aggregate: spec.jury,
    by_judge: byJudge,
    agreement: {
      level: spec.agreement,
      alpha: alphaWithCi(units, spec.agreement, { seed: `${seed}:${scorer}:alpha` }),
      all_agree: percentAgreement(units),
    },
  };
}
