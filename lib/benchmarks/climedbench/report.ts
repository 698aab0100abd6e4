/**
 * CliMedBench tables in the paper's layout: Table 2 (one column per scenario under its metric, one row per
 * model or condition, plus the average) and the hallucination contrast FIT vs BKT.
 * @module
 */
import { type Summary, summaryName } from "../../core/summary.ts";
import { formatEstimate } from "../../report/tables.ts";
import { type Table } from "../../core/report_spec.ts";
import { METRIC_LABELS, SCENARIOS } from "./scenarios.ts";

/** Returns the paper's Table 2 layout: scenario columns with a metric row, values ×100 with 95% CI. */
function scenarioTable(summaries: readonly Summary[]): Table {
  const present = SCENARIOS.filter((sc) => summaries.some((s) => s.groups.scenario?.[sc.code]));
  return {
    title: "CliMedBench: results per scenario (×100, 95% CI), Table 2 layout",
    columns: ["Model", ...present.map((sc) => sc.code.replace(/^ID(\d)$/, "ID#$1")), "Average"],
    rows: [
      ["metric", ...present.map((sc) => METRIC_LABELS[sc.metric]), "macro"],
      [
        "n",
        ...present.map((sc) => summaries[0]?.groups.scenario?.[sc.code]?.score?.n ?? 0),
        summaries[0]?.n ?? 0,
      ],
      ...summaries.map((s) => [
        summaryName(s),
        ...present.map((sc) => formatEstimate(s.groups.scenario?.[sc.code]?.score, true, 1)),
        formatEstimate(s.metrics.macro_score, true, 1),
      ]),
    ],
    notes: [
      "Accuracy, Kendall's tau-b, ROUGE-1 F1 and similarity are all shown ×100 as in the paper; 95% CI in brackets",
      `values with 95% CI (${
        summaries[0]?.ci_method ?? ""
      }); the Average is the unweighted mean over the scenarios present`,
      ...(summaries.some((s) => s.offline)
        ? ["rows marked [offline] are offline stand-ins, not models"]
        : []),
      ...(summaries[0]?.notes.filter((n) =>
        n.startsWith("WTD similarity") || n.startsWith("OFFLINE similarity")
      ) ?? []),
    ],
  };
}

/** Returns the hallucination contrast: BKT vs FIT accuracy (same sources, erroneous reference in FIT). */
function hallucinationTable(summaries: readonly Summary[]): Table {
  const acc = (s: Summary, code: string) => s.groups.scenario?.[code]?.score;
  return {
    title: "CliMedBench: hallucination contrast, BKT vs FIT accuracy (%)",
    columns: ["Model", "BKT accuracy", "n (BKT)", "FIT accuracy", "n (FIT)", "BKT − FIT (points)"],
    rows: summaries.map((s) => [
      summaryName(s),
      formatEstimate(acc(s, "BKT"), true, 1),
      acc(s, "BKT")?.n ?? 0,
      formatEstimate(acc(s, "FIT"), true, 1),
      acc(s, "FIT")?.n ?? 0,
      formatEstimate(s.metrics.bkt_minus_fit, true, 1),
    ]),
    notes: [
      "FIT items come from the same exam sources as BKT but show an erroneous reference answer with the question",
      "difference with a two-sample bootstrap 95% CI (independent items)",
    ],
  };
}

/** Returns the CliMedBench-specific tables of one or more summaries. */
export function climedTables(summaries: readonly Summary[]): Record<string, Table> {
  return { table2: scenarioTable(summaries), hallucination: hallucinationTable(summaries) };
}
