/**
 * MedGPTEval aggregation. Each item (a whole dialogue, scored on its last round, or a case report) gets, per
 * aspect, the mean over runs and a jury's judges of that aspect's subtotal (the medical one vetoed per judging)
 * and of each indicator's score; its total is the sum of its kind's aspects. Items without a valid judging of
 * every aspect have no total. Means with n and 95% CIs per kind (Table 3: dialogues, Table 4: case reports).
 * With several judge runs each item's row carries the judges' subtotals, totals and indicator scores per run
 * (two-level bootstrap). Items are not clustered: a dialogue is one item (judged whole on its last round), and
 * the robustness variants of a question are rated apart (`lib/robustness/rates.ts`, design-effect Wilson).
 * @module
 */
import type { NamedValue, StoredScore } from "../../core/records.ts";
import {
  CI_METHOD,
  type Estimate,
  type RunLabels,
  type SampleRow,
  type Summary,
  summaryLabels,
} from "../../core/summary.ts";
import { variantOf } from "../../robustness/sets.ts";
import { classValues, RATE_METRICS, robustnessRates } from "../../robustness/rates.ts";
import { alphaWithCi } from "../../stats/agreement.ts";
import type { RunView } from "../../core/task.ts";
import { judgedRepeats, judgedValue } from "../../judges/jury.ts";
import { answeredCount, OFFLINE_NOTE, summarize } from "../../report/summary.ts";
import { itemOf } from "./load.ts";
import { expertAgreement, expertTotals } from "./experts.ts";
import {
  ASPECTS,
  ASPECTS_OF,
  INDICATORS,
  indicatorsFor,
  type ItemKind,
  type RatingTotals,
} from "./rubric.ts";
import { ASPECT_SCORERS, CONSISTENCY_JUDGE, UNVETOED } from "./scorer.ts";

/** Metric name of the medical subtotal without the veto. */
export const MEDICAL_UNVETOED = "medical_unvetoed";

/** Metric name of the total without the veto (the paper's tables print subtotals and totals this way). */
export const TOTAL_UNVETOED = "total_unvetoed";

/** The judges' metrics of a row: total, aspect subtotals (medical vetoed and not), indicators, vetoed share. */
export const JUDGE_METRICS: readonly string[] = [
  "total",
  TOTAL_UNVETOED,
  ...ASPECTS,
  MEDICAL_UNVETOED,
  ...INDICATORS.map((i) => i.name),
  "vetoed",
];

/** Prefix of the experts' metrics (`expert:total`, `expert:accuracy`, ...). */
export const EXPERT_PREFIX = "expert:";

/** Every metric a row carries: the judges', then the same from the experts' scores. */
export const METRICS: readonly string[] = [
  ...JUDGE_METRICS,
  ...JUDGE_METRICS.map((m) => `${EXPERT_PREFIX}${m}`),
];

/** The rubric's notes (or how they start), which the robustness table leaves out. */
export const RUBRIC_NOTES = [
  "a dialogue is judged as a whole on its last round; totals: dialogue max 16, case report max 13",
  "medical subtotal vetoed per judging (accuracy or logic 0 → 0)",
  "items missing a valid judging of an aspect have no total",
  "vetoed = share of an item's medical judgings the veto zeroed",
] as const;

/** Fields MedGPTEval results are grouped by. */
export const GROUP_FIELDS = ["kind", "disease_type", "question_category"] as const;

/** Returns the mean over runs and judges of one named value (or the primary value) of an aspect's scores. */
function aspectValue(
  scores: readonly StoredScore[],
  aspect: string,
  runs: number,
  pick?: (s: StoredScore) => NamedValue,
): number | null {
  const scorer = ASPECT_SCORERS.find((s) => s.name === aspect)!;
  const value = judgedValue(scores.filter((s) => s.scorer === aspect), scorer.spec, runs, pick).value;
  return typeof value === "number" ? value : null;
}

/** Returns the per-run values of one named value (or the primary value) of an aspect's scores, if repeated. */
function aspectRepeats(
  scores: readonly StoredScore[],
  aspect: string,
  runs: number,
  pick?: (s: StoredScore) => NamedValue,
): number[] | undefined {
  const scorer = ASPECT_SCORERS.find((s) => s.name === aspect)!;
  return judgedRepeats(scores.filter((s) => s.scorer === aspect), scorer.spec, runs, pick);
}

/** Returns run-by-run sums of `parts` when every part has a value in each of the `runs` runs, else `undefined`. */
function summedRepeats(parts: readonly (number[] | undefined)[], runs: number): number[] | undefined {
  if (parts.some((p) => p === undefined || p.length !== runs)) return undefined;
  return Array.from({ length: runs }, (_, r) => parts.reduce((sum, p) => sum + p![r], 0));
}

/**
 * Returns each item's total, aspect subtotals and indicator means (`null` for rounds not scored), and each
 * robustness variant's class as 0/1 values `r1`, `r2`, `r3`.
 */
export function medGptEvalRows(view: RunView, labels: RunLabels): SampleRow[] {
  const experts = expertTotals(view);
  return view.samples.map((sample) => {
    if (variantOf(sample)) {
      const scores = view.scores.get(sample.id) ?? [];
      return {
        id: sample.id,
        fields: sample.fields,
        values: classValues(scores, CONSISTENCY_JUDGE.spec, labels.judgeRuns),
      };
    }
    const values: Record<string, number | null> = Object.fromEntries(METRICS.map((m) => [m, null]));
    const repeats: Record<string, number[]> = {};
    const { kind, scored } = itemOf(sample);
    if (scored) {
      const scores = view.scores.get(sample.id) ?? [];
      const runs = labels.judgeRuns;
      const put = (metric: string, aspect: string, pick?: (s: StoredScore) => NamedValue) => {
        values[metric] = aspectValue(scores, aspect, runs, pick);
        const perRun = values[metric] === null ? undefined : aspectRepeats(scores, aspect, runs, pick);
        if (perRun) repeats[metric] = perRun;
      };
      for (const aspect of ASPECTS_OF[kind]) {
        put(aspect, aspect);
        for (const indicator of INDICATORS.filter((i) => i.aspect === aspect)) {
          put(indicator.name, aspect, (s) => s.values?.[indicator.name] ?? null);
        }
      }
      put(MEDICAL_UNVETOED, "medical", (s) => s.values?.[UNVETOED] ?? null);
      const medical = scores.filter((s) => s.scorer === "medical" && s.valid && s.run <= labels.judgeRuns);
      values.vetoed = medical.length
        ? medical.filter((s) => INDICATORS.some((i) => i.veto && s.values?.[i.name] === 0)).length /
          medical.length
        : null;
      const sum = (parts: (number | null)[]) =>
        parts.every((p) => p !== null) ? parts.reduce((a, b) => a! + b!, 0) : null;
      values.total = sum(ASPECTS_OF[kind].map((a) => values[a]));
      values[TOTAL_UNVETOED] = sum(
        ASPECTS_OF[kind].map((a) => values[a === "medical" ? MEDICAL_UNVETOED : a]),
      );
      const totals = [
        ["total", ASPECTS_OF[kind]],
        [TOTAL_UNVETOED, ASPECTS_OF[kind].map((a) => a === "medical" ? MEDICAL_UNVETOED : a)],
      ] as const;
      for (const [metric, parts] of totals) {
        const perRun = values[metric] === null
          ? undefined
          : summedRepeats(parts.map((p) => repeats[p]), runs);
        if (perRun) repeats[metric] = perRun;
      }
      Object.assign(values, expertValues(experts.get(sample.id), kind));
    }
    const row: SampleRow = { id: sample.id, fields: sample.fields, values };
    return Object.keys(repeats).length ? { ...row, repeats } : row;
  });
}

/** Returns the experts' means of one item (every rating summed with the veto, then averaged). */
function expertValues(
  byRater: Map<string, RatingTotals> | undefined,
  kind: ItemKind,
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const ratings = [...(byRater?.values() ?? [])];
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  out[`${EXPERT_PREFIX}total`] = mean(ratings.map((r) => r.total));
  out[`${EXPERT_PREFIX}${TOTAL_UNVETOED}`] = mean(
    ratings.map((r) => r.total - r.aspects.medical! + r.medicalUnvetoed),
  );
  for (const aspect of ASPECTS_OF[kind]) {
    out[`${EXPERT_PREFIX}${aspect}`] = mean(ratings.map((r) => r.aspects[aspect]!));
  }
  out[`${EXPERT_PREFIX}${MEDICAL_UNVETOED}`] = mean(ratings.map((r) => r.medicalUnvetoed));
  out[`${EXPERT_PREFIX}vetoed`] = mean(ratings.map((r) => (r.vetoed ? 1 : 0)));
  for (const indicator of indicatorsFor(kind)) {
    out[`${EXPERT_PREFIX}${indicator.name}`] = mean(ratings.map((r) => r.scores[indicator.name]));
  }
  return out;
}

/** The judges' totals against the experts' mean totals over the items both scored (Krippendorff's α, interval). */
function judgeVsExperts(rows: readonly SampleRow[], seed: string): Estimate {
  const units = rows.filter((r) => r.values.total !== null && r.values[`${EXPERT_PREFIX}total`] !== null)
    .map((r) => [r.values.total!, r.values[`${EXPERT_PREFIX}total`]!]);
  return alphaWithCi(units, "interval", { seed: `${seed}:judge-experts` });
}

/** Returns the MedGPTEval summary of a run: every metric per kind (dialogue, case report) and overall. */
export function aggregateMedGptEval(rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary {
  const scored = rows.filter((r) => r.fields.scored === 1 && !(RATE_METRICS[0] in r.values));
  const robustness = robustnessRates(rows);
  const seed = `${labels.benchmark}:${labels.condition}`;
  const withExperts = scored.some((r) => r.values[`${EXPERT_PREFIX}total`] !== null);
  const metrics = withExperts ? METRICS : JUDGE_METRICS;
  const core = summarize(scored, metrics, GROUP_FIELDS, { seed, order: { kind: ["dialogue", "case"] } });
  const agreement = expertAgreement(expertTotals(view), seed);
  if (withExperts) {
    Object.assign(core.metrics, agreement, { "judge_expert_alpha:total": judgeVsExperts(scored, seed) });
  }
  const judged = [...view.scores.values()].flat().filter((s) => ASPECTS.includes(s.scorer as never));
  const notes = [
    RUBRIC_NOTES[0],
    `${
      RUBRIC_NOTES[1]
    }; medical_unvetoed and total_unvetoed are the plain sums, as the paper's tables print them`,
    `each value is the mean over ${labels.judgeRuns} judging(s) and the jury's judges; ${RUBRIC_NOTES[2]}`,
    RUBRIC_NOTES[3],
  ];
  notes.push(...robustness.notes);
  if (labels.offline) notes.push(OFFLINE_NOTE);
  return {
    ...summaryLabels(labels),
    n: core.n,
    metrics: core.metrics,
    groups: { ...core.groups, ...robustness.groups },
    counts: {
      items: scored.length,
      samples: view.samples.length,
      answered: answeredCount(view),
      judgings: judged.length,
      judge_errors: judged.filter((s) => !s.valid).length,
      no_total: scored.filter((r) => r.values.total === null).length,
      ...robustness.counts,
    },
    ci_method: CI_METHOD,
    ...core.design,
    notes,
  };
}
