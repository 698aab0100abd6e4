/**
 * PerMedCQA aggregation. An answer is **acceptable** when its verdicts vote so: each verdict is acceptable or
 * not (Correct, or Partially_correct with Negligible or Moderate impact), each judge's runs vote, then a jury's
 * judges vote; a tie is not acceptable. The rubric fields' distributions use each field's own consensus (most
 * frequent category over runs, then judges; a tie goes to the more severe category), so every shown category
 * is one some judging gave. Answers without any valid verdict are left out of every rate (counted as
 * unscored). Rows carry one 0/1 value per category of every rubric field, so each category's share gets its n
 * and CI overall and per ICD-11 category, question type, sex, age band, source and ICD-11 × type cell.
 * @module
 */
import { isFinalAnswerError } from "../../core/answer_errors.ts";
import type { NamedValue, StoredScore } from "../../core/records.ts";
import type { RunView } from "../../core/task.ts";
import {
  CI_METHOD,
  type RunLabels,
  type SampleRow,
  type Summary,
  summaryLabels,
} from "../../core/summary.ts";
import { judgedValue } from "../../judges/jury.ts";
import { modeOf } from "../../metrics/reducers.ts";
import type { PerMedCqaLabels } from "./labels.ts";
import { type Rater, raterAgreement } from "../../judges/rater_agreement.ts";
import { datasetCounts } from "../../report/dataset_counts.ts";
import { answeredCount, OFFLINE_NOTE, summarize } from "../../report/summary.ts";
import {
  ACCEPTABLE_RULE,
  CLINICAL_IMPACT,
  CONFIDENCE,
  CORRECTNESS,
  isAcceptable,
  MEDJUDGE,
  RUBRIC_FIELDS,
} from "./scorer.ts";
import { AGE_BANDS, GROUP_FIELDS, SEXES, SOURCES, UNKNOWN_AGE } from "./schema.ts";

/** Prefix of the human rating scorers PerMedCQA reads (`human:physicians`). */
export const HUMAN_PREFIX = "human:";

/** Coverage from most to least overlap with the expert answer (the order ties are broken in). */
const COVERAGE_SEVERITY = ["Equal", "Expert_subset", "Model_subset", "Overlap_none"] as const;

/** Each field's categories from least to most severe, for tie-breaking. */
const SEVERITY: Record<string, readonly string[]> = {
  correctness: CORRECTNESS,
  coverage: COVERAGE_SEVERITY,
  clinical_impact: CLINICAL_IMPACT,
  judge_confidence: CONFIDENCE,
};

/** A verdict's categorical fields, by value name. */
export type RubricValues = Record<string, string>;

/** Returns the most frequent of `values`; a tie goes to the category latest in `severity`. */
export function consensus(values: readonly string[], severity: readonly string[]): string | null {
  const mostSevere = (tied: readonly NonNullable<NamedValue>[]) =>
    tied.reduce((a, b) => (severity.indexOf(String(b)) > severity.indexOf(String(a)) ? b : a));
  return modeOf(values, mostSevere) as string | null;
}

/** Returns the field-by-field consensus of several verdicts (`null` when there are none). */
export function consensusVerdict(verdicts: readonly RubricValues[]): RubricValues | null {
  if (verdicts.length === 0) return null;
  const out: RubricValues = {};
  for (const field of RUBRIC_FIELDS) {
    out[field.name] = consensus(verdicts.map((v) => v[field.name]), SEVERITY[field.name])!;
  }
  return out;
}

/** Returns the rubric values of a valid stored score, or `null`. */
function rubricValues(score: StoredScore): RubricValues | null {
  if (!score.valid || !score.values) return null;
  const out: RubricValues = {};
  for (const field of RUBRIC_FIELDS) {
    const v = score.values[field.name];
    if (typeof v !== "string") return null;
    out[field.name] = v;
  }
  return out;
}

/** One judge's (or the jury's) reading of an answer: each field's consensus and the acceptable vote. */
export interface AnswerVerdict {
  /** Each rubric field's consensus category. */
  fields: RubricValues;
  /** 1 when the verdicts vote acceptable, else 0. */
  acceptable: number;
}

/** One answer's MedJudge result: each judge's over its runs, and the jury's. */
export interface JudgedAnswer {
  /** Each judge's reading over its runs (`null` when it gave no valid verdict). */
  byJudge: Map<string, AnswerVerdict | null>;
  /** The jury's reading over its judges (`null` when no judge gave a valid verdict). */
  verdict: AnswerVerdict | null;
}

/** Returns the MedJudge result of one answer from its stored scores (runs above `runs` ignored). */
export function judgeAnswer(scores: readonly StoredScore[], runs: number): JudgedAnswer {
  const own = scores.filter((s) => s.scorer === MEDJUDGE.name && s.run <= runs);
  // The acceptable vote is the scorer's own reducer and jury rule (as the jury report reads it).
  const votes = judgedValue(own, MEDJUDGE.spec, runs);
  const fieldsByJudge = new Map<string, RubricValues | null>();
  for (const [judge, list] of Map.groupBy(own, (s) => s.judge ?? "")) {
    fieldsByJudge.set(judge, consensusVerdict(list.map(rubricValues).filter((v) => v !== null)));
  }
  const byJudge = new Map<string, AnswerVerdict | null>();
  for (const [judge, fields] of fieldsByJudge) {
    const acceptable = votes.byJudge.get(judge);
    byJudge.set(judge, fields && typeof acceptable === "number" ? { fields, acceptable } : null);
  }
  const fields = consensusVerdict([...fieldsByJudge.values()].filter((v) => v !== null));
  const verdict = fields && typeof votes.value === "number" ? { fields, acceptable: votes.value } : null;
  return { byJudge, verdict };
}

/** Metric name of one category of one field, e.g. `correctness:Correct`. */
export function levelMetric(field: string, level: string): string {
  return `${field}:${level}`;
}

/** Every metric a row carries: `acceptable`, then one per category of each rubric field. */
export const METRICS: readonly string[] = [
  "acceptable",
  ...RUBRIC_FIELDS.flatMap((f) => f.levels.map((l) => levelMetric(f.name, l))),
];

/** Returns each answer's `acceptable` and per-category 0/1 values (all `null` when unscored). */
export function perMedCqaRows(view: RunView, labels: RunLabels): SampleRow[] {
  return view.samples.map((sample) => {
    const { verdict } = judgeAnswer(view.scores.get(sample.id) ?? [], labels.judgeRuns);
    // A question longer than the model's context got no answer: not acceptable, and it stays in n.
    const output = view.outputs.get(sample.id);
    const cut = output !== undefined && !output.answered && isFinalAnswerError(output.error);
    const values: Record<string, number | null> = {
      acceptable: verdict ? verdict.acceptable : cut ? 0 : null,
    };
    for (const field of RUBRIC_FIELDS) {
      for (const level of field.levels) {
        values[levelMetric(field.name, level)] = verdict
          ? (verdict.fields[field.name] === level ? 1 : 0)
          : null;
      }
    }
    return { id: sample.id, fields: sample.fields, values };
  });
}

/** Label of a jury's consensus among the raters. */
export const JURY_RATER = "jury";

/**
 * Returns the raters of a run: each judge (its reading over runs), the jury when there are several judges,
 * and each human rater of `human:*`. Values are the rubric fields plus `acceptable` (acceptable/problematic).
 */
export function perMedCqaRaters(view: RunView, judgeRuns: number): Rater[] {
  const raters = new Map<
    string,
    { kind: "judge" | "human"; values: Map<string, Record<string, NamedValue>> }
  >();
  const put = (label: string, kind: "judge" | "human", id: string, values: Record<string, NamedValue>) => {
    if (!raters.has(label)) raters.set(label, { kind, values: new Map() });
    raters.get(label)!.values.set(id, values);
  };
  const asValues = (v: AnswerVerdict) => ({
    ...v.fields,
    acceptable: v.acceptable ? "acceptable" : "problematic",
  });
  for (const sample of view.samples) {
    const scores = view.scores.get(sample.id) ?? [];
    const judged = judgeAnswer(scores, judgeRuns);
    for (const [judge, verdict] of judged.byJudge) {
      if (verdict) put(judge, "judge", sample.id, asValues(verdict));
    }
    if (judged.byJudge.size > 1 && judged.verdict) {
      put(JURY_RATER, "judge", sample.id, asValues(judged.verdict));
    }
    for (const score of scores.filter((s) => s.scorer.startsWith(HUMAN_PREFIX) && s.valid && s.values)) {
      const { correctness, clinical_impact } = score.values!;
      const acceptable = typeof correctness === "string" && typeof clinical_impact === "string"
        ? (isAcceptable(correctness, clinical_impact) ? "acceptable" : "problematic")
        : null;
      put(score.judge || score.scorer, "human", sample.id, { ...score.values!, acceptable });
    }
  }
  return [...raters].map(([label, r]) => ({ label, kind: r.kind, values: r.values }));
}

/** The fields judges and physicians are compared on. */
export const AGREEMENT_FIELDS = [
  { name: "acceptable", levels: ["acceptable", "problematic"], ordinal: false },
  { name: "correctness", levels: CORRECTNESS, ordinal: true },
  { name: "coverage", levels: COVERAGE_SEVERITY, ordinal: false },
  { name: "clinical_impact", levels: CLINICAL_IMPACT, ordinal: true },
] as const;

/** Fields the dataset statistics count by. */
export const DATASET_FIELDS = ["icd11", "question_type", "sex", "age_band", "source"] as const;

/** Cells of the ICD-11 × question-type table with fewer answers than this are flagged. */
export const SMALL_CELL = 10;

/** Group orders: ICD-11 in chapter order, types as in the paper's table, sexes, age bands and sources. */
export function groupOrder(labels: PerMedCqaLabels): Record<string, readonly string[]> {
  return {
    icd11: labels.icd.entries.map((e) => e.id),
    question_type: labels.types.entries.map((e) => e.id),
    sex: SEXES,
    age_band: [...AGE_BANDS.map((b) => b.label), UNKNOWN_AGE],
    source: SOURCES,
  };
}

/** Returns the PerMedCQA summary of a run from its rows. */
export function aggregatePerMedCqa(
  rows: readonly SampleRow[],
  view: RunView,
  labels: RunLabels,
  tables: PerMedCqaLabels,
): Summary {
  const seed = `${labels.benchmark}:${labels.condition}`;
  const order = groupOrder(tables);
  // Every metric is a 0/1 vote (acceptable, or a field's consensus category): Wilson intervals. The judge's
  // runs vote rather than average, so there are no repeats for a two-level bootstrap; the questions are
  // independent (no cluster id in the data).
  const design = { seed, order, proportions: METRICS };
  const main = summarize(rows, METRICS, GROUP_FIELDS.filter((f) => f !== "icd11_x_type"), design);
  // The cross table shows the headline rate only: one estimate per cell keeps large runs fast.
  const cross = summarize(rows, ["acceptable"], ["icd11_x_type"], design);
  const scores = [...view.scores.values()].flat();
  const all = scores.filter((s) => s.scorer === MEDJUDGE.name);
  const answered = answeredCount(view);
  const humanRated = new Set(scores.filter((s) => s.scorer.startsWith(HUMAN_PREFIX)).map((s) => s.sampleId));
  // Raters are read only when there is a human to compare the judges with.
  const agreement = humanRated.size
    ? raterAgreement(perMedCqaRaters(view, labels.judgeRuns), AGREEMENT_FIELDS, seed)
    : undefined;
  const notes = [
    ACCEPTABLE_RULE,
    `acceptable: each verdict votes; each judge's ${labels.judgeRuns} run(s), then the judges, by majority; a tie is not acceptable`,
    "rubric distributions: per field, the most frequent category over runs, then over judges; a tie goes to the more severe category",
    "answers without a valid verdict (judge errors, answer errors) are left out of every rate",
    `ICD-11 × question-type cells with fewer than ${SMALL_CELL} answers are flagged as small`,
  ];
  if (labels.offline) notes.push(OFFLINE_NOTE);
  return {
    ...summaryLabels(labels),
    n: main.n,
    metrics: main.metrics,
    groups: { ...main.groups, ...cross.groups },
    counts: {
      samples: view.samples.length,
      answered,
      answer_errors: view.samples.length - answered,
      judgings: all.length,
      judge_errors: all.filter((s) => !s.valid).length,
      unscored: rows.filter((r) => r.values.acceptable === null).length,
      human_rated: humanRated.size,
      ...datasetCounts(view.samples, DATASET_FIELDS),
    },
    ci_method: CI_METHOD,
    ...main.design,
    notes,
    ...(agreement ? { agreement } : {}),
  };
}
