/**
 * PerMedCQA's own tables: the headline acceptable rate per ICD-11 category and per question type with names,
 * every rubric field's distribution side by side (models or conditions), the ICD-11 × question-type cross
 * table with each cell's n (small cells flagged), and the dataset's make-up (counts by ICD-11 category,
 * question type, sex, age band and source).
 * @module
 */
import type { Table } from "../../core/report_spec.ts";
import { type Summary, summaryName } from "../../core/summary.ts";
import { readDatasetCounts } from "../../report/dataset_counts.ts";
import { comparisonNotes, formatEstimate, orderedKeys, summaryNotes } from "../../report/tables.ts";
import { DATASET_FIELDS, groupOrder, levelMetric, SMALL_CELL } from "./aggregate.ts";
import type { PerMedCqaLabels } from "./labels.ts";
import { RUBRIC_FIELDS } from "./scorer.ts";

/** Returns a percentage estimate with its n: `62.5 [40.1, 80.2] (n=16)`. */
function cell(estimate: Summary["metrics"][string] | undefined): string {
  if (!estimate || estimate.n === 0) return "–";
  return `${formatEstimate(estimate, true, 1)} (n=${estimate.n})`;
}

/** Returns the display name of a group key of `field` (ICD-11 with its English name, types by name). */
export function groupName(labels: PerMedCqaLabels, field: string, key: string): string {
  if (field === "icd11") return `${key} ${labels.icd.byId.get(key)?.english ?? ""}`.trim();
  if (field === "question_type") return labels.types.byId.get(key)?.english ?? key;
  return key;
}

/** The acceptable rate per value of `field`, one column per summary. */
function acceptableBy(summaries: readonly Summary[], field: string, labels: PerMedCqaLabels): Table {
  const keys = orderedKeys(summaries.flatMap((s) => Object.keys(s.groups[field] ?? {})), field, {
    order: groupOrder(labels),
  });
  return {
    title: `PerMedCQA: acceptable answers (%) by ${field}`,
    columns: [field, ...summaries.map(summaryName)],
    rows: [
      ...keys.map((
        k,
      ) => [groupName(labels, field, k), ...summaries.map((s) => cell(s.groups[field]?.[k]?.acceptable))]),
      ["all", ...summaries.map((s) => cell(s.metrics.acceptable))],
    ],
    notes: comparisonNotes(summaries),
  };
}

/** Every rubric field's distribution, one column per summary. */
function rubricDistribution(summaries: readonly Summary[]): Table {
  return {
    title: "PerMedCQA: MedJudge verdicts, share of judged answers (%) per category",
    columns: ["field", "category", ...summaries.map(summaryName)],
    rows: RUBRIC_FIELDS.flatMap((f) =>
      f.levels.map((l) => [f.name, l, ...summaries.map((s) => cell(s.metrics[levelMetric(f.name, l)]))])
    ),
    notes: comparisonNotes(summaries),
  };
}

/** The ICD-11 × question-type table of one summary: acceptable % and n per cell, small cells flagged. */
function crossTable(summary: Summary, labels: PerMedCqaLabels): Table {
  const cells = summary.groups.icd11_x_type ?? {};
  const split = Object.keys(cells).map((k) => k.split(" × ") as [string, string]);
  const icds = labels.icd.entries.map((e) => e.id).filter((id) => split.some(([i]) => i === id));
  const types = labels.types.entries.map((e) => e.id).filter((id) => split.some(([, t]) => t === id));
  let small = 0;
  const rows = icds.map((icd) => [
    groupName(labels, "icd11", icd),
    ...types.map((type) => {
      const est = cells[`${icd} × ${type}`]?.acceptable;
      if (!est || est.n === 0) return "";
      const flag = est.n < SMALL_CELL ? "†" : "";
      if (flag) small++;
      return `${((est.value ?? 0) * 100).toFixed(0)} (n=${est.n})${flag}`;
    }),
  ]);
  return {
    title: `PerMedCQA — ${summaryName(summary)}: acceptable (%) by ICD-11 category × question type`,
    columns: ["ICD-11 category", ...types.map((t) => groupName(labels, "question_type", t))],
    rows,
    notes: [
      `cell = acceptable % (n judged answers); † = fewer than ${SMALL_CELL} answers (${small} cells): read with care`,
      "per-cell 95% CIs are in summary.json (groups.icd11_x_type)",
      ...summaryNotes(summary),
    ],
  };
}

/** The dataset's make-up from a summary's `dataset:` counts. */
export function datasetTable(counts: Readonly<Record<string, number>>, labels: PerMedCqaLabels): Table {
  const byField = readDatasetCounts(counts);
  const total = [...(byField.get("icd11")?.values() ?? [])].reduce((sum, n) => sum + n, 0);
  const rows = DATASET_FIELDS.flatMap((field) =>
    [...(byField.get(field) ?? [])].map(([key, n]) => [
      field,
      groupName(labels, field, key),
      n,
      total ? ((100 * n) / total).toFixed(1) : "–",
    ])
  );
  return {
    title: "PerMedCQA: questions by ICD-11 category, question type, sex, age band and source",
    columns: ["field", "value", "questions", "%"],
    rows,
    notes: [`${total} questions`],
  };
}

/** Returns PerMedCQA's tables over one or more summaries (models or conditions). */
export function perMedCqaTables(
  summaries: readonly Summary[],
  labels: PerMedCqaLabels,
): Record<string, Table> {
  if (summaries.length === 0) return {};
  const tables: Record<string, Table> = {
    acceptable_by_icd11: acceptableBy(summaries, "icd11", labels),
    acceptable_by_question_type: acceptableBy(summaries, "question_type", labels),
    rubric_distribution: rubricDistribution(summaries),
  };
  if (summaries.length === 1) {
    tables.icd11_x_type = crossTable(summaries[0], labels);
    tables.dataset = datasetTable(summaries[0].counts, labels);
  }
  return tables;
}
