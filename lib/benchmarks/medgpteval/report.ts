/**
 * MedGPTEval's tables in the layout of the paper's Tables 3 (multi-turn dialogues) and 4 (case reports): the
 * total, each aspect's subtotal and its indicators' means, one column per model, each with its 95% CI and n;
 * and of its Table 5 (robustness): R1–R3 rates per model, anomaly category and data set.
 * @module
 */
import {
  CATEGORY_FIELD,
  ROBUSTNESS_CATEGORIES,
  ROBUSTNESS_SETS,
  type RobustnessCategory,
  SET_FIELD,
} from "../../robustness/sets.ts";
import { RATE_METRICS, ROBUSTNESS_NOTE } from "../../robustness/rates.ts";
import type { Cell, Table } from "../../core/report_spec.ts";
import type { Estimate } from "../../core/summary.ts";
import { CLASS_LABELS, CONSISTENCY_CLASSES } from "../../robustness/consistency.ts";
import { type Summary, summaryName } from "../../core/summary.ts";
import { comparisonNotes, formatEstimate } from "../../report/tables.ts";
import { EXPERT_PREFIX, MEDICAL_UNVETOED, RUBRIC_NOTES, TOTAL_UNVETOED } from "./aggregate.ts";
import { ASPECT_LABELS } from "./prompts.ts";
import { aspectMax, ASPECTS_OF, INDICATORS, type ItemKind, totalMax } from "./rubric.ts";

/** The paper's table of each kind. */
export const PAPER_TABLE: Readonly<Record<ItemKind, string>> = { dialogue: "table3", case: "table4" };

/** Returns the Table 3 or 4 layout for `kind`: rows = total, aspects and indicators; a column per summary. */
export function kindTable(summaries: readonly Summary[], kind: ItemKind): Table {
  const cell = (s: Summary, metric: string) => {
    const est = s.groups.kind?.[kind]?.[metric];
    return est && est.n > 0 ? `${formatEstimate(est, false)} (n=${est.n})` : "–";
  };
  // A run with imported expert scores shows them in a column of their own beside its judges'.
  const columns = summaries.flatMap((s) => [
    { summary: s, prefix: "", label: summaryName(s) },
    ...((s.groups.kind?.[kind]?.[`${EXPERT_PREFIX}total`]?.n ?? 0) > 0
      ? [{ summary: s, prefix: EXPERT_PREFIX, label: `${summaryName(s)} · experts` }]
      : []),
  ]);
  const row = (
    label: string,
    metric: string,
  ) => [label, ...columns.map((c) => cell(c.summary, c.prefix + metric))];
  const rows = [
    row(`Total score (maximum score: ${totalMax(kind)})`, "total"),
    row("  without the veto (as the paper prints it)", TOTAL_UNVETOED),
  ];
  for (const aspect of ASPECTS_OF[kind]) {
    rows.push(row(`${ASPECT_LABELS[aspect]} (maximum score: ${aspectMax(aspect)})`, aspect));
    if (aspect === "medical") rows.push(row("  without the veto (as the paper prints it)", MEDICAL_UNVETOED));
    for (const indicator of INDICATORS.filter((i) => i.aspect === aspect)) {
      rows.push(row(`  ${indicator.label}`, indicator.name));
    }
  }
  return {
    title: `MedGPTEval: content performance on ${
      kind === "dialogue" ? "multiple-turn dialogues" : "case reports"
    } (mean [95% CI] (n))`,
    columns: ["Evaluation indicators", ...columns.map((c) => c.label)],
    rows,
    notes: comparisonNotes(summaries).filter((n) => !n.includes(ROBUSTNESS_NOTE)),
  };
}

/** Returns a rate as the robustness table prints it: percent, interval and n. */
function rateCell(est: Estimate | undefined): string {
  return est && est.n > 0 ? `${formatEstimate(est, true, 1)} (n=${est.n})` : "–";
}

/**
 * Returns the Table 5 layout: per model, each anomaly category with its sets' R1, R2 and R3 rates (percent,
 * 95% interval, n), and input errors C–E also pooled.
 */
export function robustnessTable(summaries: readonly Summary[]): Table {
  const rows: Cell[][] = [];
  for (const summary of summaries.filter((s) => s.groups[SET_FIELD])) {
    rows.push([summaryName(summary), "", "", ""]);
    for (const category of Object.keys(ROBUSTNESS_CATEGORIES) as RobustnessCategory[]) {
      const sets = ROBUSTNESS_SETS.filter((set) =>
        set.category === category && summary.groups[SET_FIELD][set.id]
      );
      if (sets.length === 0) continue;
      rows.push([`  ${category} (${ROBUSTNESS_CATEGORIES[category]})`, "", "", ""]);
      for (const set of sets) {
        const est = summary.groups[SET_FIELD][set.id];
        rows.push([`    Data set ${set.id}: ${set.label}`, ...RATE_METRICS.map((m) => rateCell(est[m]))]);
      }
      if (sets.length > 1) {
        const pooled = summary.groups[CATEGORY_FIELD]?.[category] ?? {};
        rows.push([
          `    Data sets ${sets.map((s) => s.id).join("+")} pooled`,
          ...RATE_METRICS.map((m) => rateCell(pooled[m])),
        ]);
      }
    }
  }
  return {
    title: "MedGPTEval: robustness on the rewritten first-round questions (% [95% CI] (n))",
    columns: [
      "Model, anomaly category and data set",
      ...CONSISTENCY_CLASSES.map((cls) => `${cls} ${CLASS_LABELS[cls]} (%)`),
    ],
    rows,
    // The rubric's notes are about Tables 3 and 4.
    notes: comparisonNotes(summaries).filter((n) => !RUBRIC_NOTES.some((r) => n.includes(r))),
  };
}

/** Returns the tables of the paper's layouts for the kinds and robustness sets the summaries hold. */
export function medGptEvalTables(summaries: readonly Summary[]): Record<string, Table> {
  const tables: Record<string, Table> = {};
  for (const kind of ["dialogue", "case"] as const) {
    if (summaries.some((s) => (s.groups.kind?.[kind]?.total?.n ?? 0) > 0)) {
      tables[PAPER_TABLE[kind]] = kindTable(summaries, kind);
    }
  }
  if (summaries.some((s) => s.groups[SET_FIELD])) tables.table5 = robustnessTable(summaries);
  return tables;
}
