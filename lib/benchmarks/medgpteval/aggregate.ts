/**
 * MedGPTEval aggregation. Each item (a whole dialogue, scored on its last round, or a case report) gets, per
 * aspect, the mean over runs and a jury's judges of that aspect's subtotal (the medical one vetoed per judging)
 * and of each indicator's score; its total is the sum of its kind's aspects. Items without a valid judging of
 * every aspect have no total. Means with n and 95% CIs per kind (Table 3: dialogues, Table 4: case reports).
 * @module
 */
import type { NamedValue, StoredScore } from "../../core/records.ts";
import {
  CI_METHOD,
  type RunLabels,
  type SampleRow,
  type Summary,
  summaryLabels,
} from "../../core/summary.ts";
import type { RunView } from "../../core/task.ts";
import { judgedValue } from "../../judges/jury.ts";
import { summarize } from "../../report/summary.ts";
import { itemOf } from "./load.ts";
import { ASPECTS, ASPECTS_OF, INDICATORS } from "./rubric.ts";
import { ASPECT_SCORERS, UNVETOED } from "./scorer.ts";

/** Metric name of the medical subtotal without the veto. */
export const MEDICAL_UNVETOED = "medical_unvetoed";

/** Every metric a row carries: total, aspect subtotals (medical vetoed and not), indicators. */
export const METRICS: readonly string[] = [
  "total",
  ...ASPECTS,
  MEDICAL_UNVETOED,
  ...INDICATORS.map((i) => i.name),
  "vetoed",
];

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

/** Returns each item's total, aspect subtotals and indicator means (`null` for rounds not scored). */
export function medGptEvalRows(view: RunView, labels: RunLabels): SampleRow[] {
  return view.samples.map((sample) => {
    const values: Record<string, number | null> = Object.fromEntries(METRICS.map((m) => [m, null]));
    const { kind, scored } = itemOf(sample);
    if (scored) {
      const scores = view.scores.get(sample.id) ?? [];
      for (const aspect of ASPECTS_OF[kind]) {
        values[aspect] = aspectValue(scores, aspect, labels.judgeRuns);
        for (const indicator of INDICATORS.filter((i) => i.aspect === aspect)) {
          values[indicator.name] = aspectValue(
            scores,
            aspect,
            labels.judgeRuns,
            (s) => s.values?.[indicator.name] ?? null,
          );
        }
      }
      values[MEDICAL_UNVETOED] = aspectValue(
        scores,
        "medical",
        labels.judgeRuns,
        (s) => s.values?.[UNVETOED] ?? null,
      );
      const medical = scores.filter((s) => s.scorer === "medical" && s.valid && s.run <= labels.judgeRuns);
      values.vetoed = medical.length
        ? medical.filter((s) => INDICATORS.some((i) => i.veto && s.values?.[i.name] === 0)).length /
          medical.length
        : null;
      const parts = ASPECTS_OF[kind].map((a) => values[a]);
      values.total = parts.every((p) => p !== null) ? parts.reduce((a, b) => a! + b!, 0) : null;
    }
    return { id: sample.id, fields: sample.fields, values };
  });
}

/** Returns the MedGPTEval summary of a run: every metric per kind (dialogue, case report) and overall. */
export function aggregateMedGptEval(rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary {
  const scored = rows.filter((r) => r.fields.scored === 1);
  const core = summarize(scored, METRICS, GROUP_FIELDS, {
    seed: `${labels.benchmark}:${labels.condition}`,
    order: { kind: ["dialogue", "case"] },
  });
  const judged = [...view.scores.values()].flat().filter((s) => ASPECTS.includes(s.scorer as never));
  const notes = [
    "a dialogue is judged as a whole on its last round; totals: dialogue max 16, case report max 13",
    "medical subtotal vetoed per judging (accuracy or logic 0 → 0); medical_unvetoed is the plain sum, as the paper's tables print it",
    `each value is the mean over ${labels.judgeRuns} judging(s) and the jury's judges; items missing a valid judging of an aspect have no total`,
    "vetoed = share of an item's medical judgings the veto zeroed",
  ];
  if (labels.offline) {
    notes.push("OFFLINE: model or judge are offline stand-ins; these are not model results");
  }
  return {
    ...summaryLabels(labels),
    n: core.n,
    metrics: core.metrics,
    groups: core.groups,
    counts: {
      items: scored.length,
      samples: view.samples.length,
      answered: [...view.outputs.values()].filter((o) => o.answered).length,
      judgings: judged.length,
      judge_errors: judged.filter((s) => !s.valid).length,
      no_total: scored.filter((r) => r.values.total === null).length,
    },
    ci_method: CI_METHOD,
    notes,
  };
}
