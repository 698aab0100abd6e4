/**
 * From stored judgings to one value per sample, and a jury's report. Each judge's judgings of an answer reduce
 * by the scorer's reducer (mean over runs, mode, ...); a jury's judges then combine by the scorer's rule (mean,
 * or majority). The report gives each judge's own mean and how far the judges agree (Krippendorff's α with a
 * bootstrap CI, and the share of samples on which all agree). For the interval of a judge-scored mean, the
 * judge's value of each run ({@linkcode judgedRepeats}).
 * @module
 */
import type { NamedValue, StoredScore } from "../core/records.ts";
import type { Estimate, Summary } from "../core/summary.ts";
import type { ClusterSpec, RunView } from "../core/task.ts";
import { type Reducer, reduceValues } from "../metrics/reducers.ts";
import { alphaWithCi, percentAgreement } from "../stats/agreement.ts";
import { chooseInterval } from "../stats/interval_choice.ts";
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

/**
 * Returns one sample's judged value run by run, for the two-level bootstrap: for each run 1..`runs`, the mean
 * over the judges of their valid values of that run. Only for scorers that average runs and judges (`reduce`
 * and `jury` both `mean`), where the mean of these repeats is the judged value: with one judge a run without a
 * valid value is left out; with a jury, a run some judge has no valid value for makes the repeats unequal to
 * the value, and then there are none. `undefined` with fewer than 2 runs, for other scorers, or when fewer than
 * 2 runs have a value.
 */
export function judgedRepeats(
  scores: readonly StoredScore[],
  spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury">,
  runs: number,
  pick: (score: StoredScore) => NamedValue = (s) => s.value,
): number[] | undefined {
  if (runs < 2 || spec.reduce !== "mean" || spec.jury !== "mean") return undefined;
  const byJudge = Map.groupBy(scores.filter((s) => s.run <= runs), judgeKey);
  const repeats: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const values = [...byJudge.values()].map((list) => {
      const s = list.find((x) => x.run === run);
      const v = s && s.valid ? pick(s) : null;
      return typeof v === "number" ? v : null;
    });
    const valid = values.filter((v) => v !== null);
    if (valid.length === 0) continue;
    if (valid.length < values.length) return undefined;
    repeats.push(valid.reduce((a, b) => a + b, 0) / valid.length);
  }
  return repeats.length >= 2 ? repeats : undefined;
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
 * Returns one judge's mean of its per-sample values with the interval that fits it (`chooseInterval`): the
 * cluster bootstrap over `clusters` when two of its samples share one; else, for a scorer that averages runs,
 * the two-level bootstrap of its runs (items, judge repeats) when it judged some sample twice; else the
 * expanded percentile bootstrap. A judge's mean of a nominal verdict (0/1 acceptable) is read as a mean: the
 * scorer does not declare its value binary.
 */
function judgeMean(
  scores: readonly StoredScore[][],
  samples: RunView["samples"],
  judge: string,
  options: { spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury">; runs: number; seed: string },
  clusters?: ClusterSpec,
): Estimate & { method: string } {
  const ids: string[] = [], repeats: number[][] = [];
  scores.forEach((list, i) => {
    const own = list.filter((s) => judgeKey(s) === judge);
    const value = judgedValue(own, options.spec, options.runs).value;
    if (typeof value !== "number") return;
    ids.push(clusters?.of(samples[i]) ?? `\u0000${samples[i].id}`);
    repeats.push(judgedRepeats(own, options.spec, options.runs) ?? [value]);
  });
  const shared = clusters !== undefined && new Set(ids).size < ids.length;
  const chosen = shared
    ? chooseInterval({ kind: "judged mean", repeats, clusters: ids, clusterName: clusters.name }, options)
    : chooseInterval({ kind: "judged mean", repeats }, options);
  return { value: chosen.value, ci95: chosen.ci95, n: chosen.n, method: chosen.method };
}

/**
 * Returns the jury report of `scorer` for a summary, or `undefined` when one judge (or none) scored: each
 * judge's mean of its per-sample values with a 95% CI ({@linkcode judgeMean}; `clusters`: the task's), and the
 * judges' agreement over samples.
 */
export function juryReport(
  view: RunView,
  scorer: string,
  spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury" | "agreement">,
  runs: number,
  seed: string,
  clusters?: ClusterSpec,
): NonNullable<Summary["juries"]>[number] | undefined {
  const judges = judgesOf(view, scorer);
  if (judges.length < 2) return undefined;
  const scores = scorerScores(view, scorer);
  const perSample = scores.map((list) => judgedValue(list, spec, runs).byJudge);
  const units = perSample.map((byJudge) => judges.map((j) => byJudge.get(j) ?? null));
  const byJudge: Record<string, Record<string, Estimate>> = {};
  const methods = new Set<string>();
  for (const judge of judges) {
    const { method, ...mean } = judgeMean(scores, view.samples, judge, {
      spec,
      runs,
      seed: `${seed}:${scorer}:${judge}`,
    }, clusters);
    byJudge[judge] = { mean };
    methods.add(method);
  }
  return {
    scorer,
    judges,
    aggregate: spec.jury,
    interval: [...methods].join(", "),
    by_judge: byJudge,
    agreement: {
      level: spec.agreement,
      alpha: alphaWithCi(units, spec.agreement, { seed: `${seed}:${scorer}:alpha` }),
      all_agree: percentAgreement(units),
    },
  };
}
