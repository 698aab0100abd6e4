/**
 * MedGPTEval's tables in the layout of the paper's Tables 3 (multi-turn dialogues) and 4 (case reports): the
 * total, each aspect's subtotal and its indicators' means, one column per model, each with its 95% CI and n.
 * @module
 */
import type { Table } from "../../core/report_spec.ts";
import { type Summary, summaryName } from "../../core/summary.ts";
import { comparisonNotes, formatEstimate } from "../../report/tables.ts";
import { EXPERT_PREFIX, MEDICAL_UNVETOED } from "./aggregate.ts";
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
  const rows = [row(`Total score (maximum score: ${totalMax(kind)})`, "total")];
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
    notes: comparisonNotes(summaries),
  };
}

/** Returns the tables of the paper's layouts for the kinds the summaries hold. */
export function medGptEvalTables(summaries: readonly Summary[]): Record<string, Table> {
  const tables: Record<string, Table> = {};
  for (const kind of ["dialogue", "case"] as const) {
    if (summaries.some((s) => (s.groups.kind?.[kind]?.total?.n ?? 0) > 0)) {
      tables[PAPER_TABLE[kind]] = kindTable(summaries, kind);
    }
  }
  return tables;
}
