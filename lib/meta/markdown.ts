/**
 * `meta.md`: the meta-evaluation of a run as Markdown tables — the verdicts first, then per judge scorer and
 * human scorer its judges' errors and abstentions, and per field the agreement with the humans' reference
 * (leave-one-rater-out), every pair of raters, the breakdown per group of items, the judges' repeat stability
 * and the calibration on held-out items. Every rate has its n and 95% CI; a footnote names the interval
 * methods.
 * @module
 */
import type { Cell, Table } from "../core/report_spec.ts";
import type { Estimate } from "../core/summary.ts";
import { formatEstimate, toMarkdown } from "../report/tables.ts";
import type { FieldReport, MetaReport, MetricReport } from "./analyze.ts";
import { META_CI_METHOD, metricName } from "./analyze.ts";
import type { SeriesResult } from "./comparisons.ts";
import { type Statistic, STATISTIC_LABELS } from "./pair_stats.ts";

/** The footnote every table points to: how each interval is computed. */
export const INTERVAL_FOOTNOTE = `[^ci]: ${META_CI_METHOD}`;

/** Returns a rate as `61.23 [55.10, 67.00]` percent with its n. */
function rate(estimate: Estimate | undefined): string {
  return estimate && estimate.value !== null ? `${formatEstimate(estimate, true, 1)} (n=${estimate.n})` : "–";
}

/** Returns a statistic with its CI, or `–`. */
function stat(estimate: Estimate | undefined | null, percent = false): string {
  return formatEstimate(estimate ?? undefined, percent, percent ? 1 : 2);
}

/** Returns the column header of a statistic. */
function header(statistic: Statistic): string {
  return statistic === "percent" ? "agreement %" : STATISTIC_LABELS[statistic];
}

/** Returns the statistic cells of a series in the field's order. */
function statisticCells(field: FieldReport, series: SeriesResult | null): Cell[] {
  return field.statistics.map((s) => series ? stat(series.statistics[s], s === "percent") : "–");
}

/** The table of the humans' reference: the ceiling, then each rater, every statistic. */
function referenceTable(field: FieldReport): Table {
  const reference = field.versus[0]?.reference ?? "leave-one-out";
  const rows: Cell[][] = [];
  if (field.ceiling) {
    rows.push([
      "humans (ceiling)",
      field.ceiling.items,
      field.ceiling.pairs,
      ...statisticCells(field, field.ceiling),
    ]);
  }
  for (const v of field.versus) {
    rows.push([v.rater, v.own.items, v.own.pairs, ...statisticCells(field, v.own)]);
  }
  return {
    title: `${field.field.name}: agreement with the humans' ${
      reference === "leave-one-out" ? "leave-one-rater-out reference" : "rating (one human)"
    }[^ci]`,
    columns: ["rater", "items", "pairs", ...field.statistics.map(header)],
    rows,
    notes: [
      reference === "leave-one-out"
        ? "each pair: a held-out human's (or the judge's) code against the reading of the other humans of the item"
        : "one human rated: no human ceiling",
      "balanced F1: macro mean of the two classes' F1, the reference as truth",
    ].slice(0, field.statistics.includes("f1") ? 2 : 1),
  };
}

/** The table of verdicts of a field: each rater against the ceiling on the same pairs. */
function verdictTable(field: FieldReport): Table {
  const label = STATISTIC_LABELS[field.primary];
  return {
    title: `${field.field.name}: each judge against the human ceiling (${label})[^ci]`,
    columns: ["rater", "items", `rater ${label}`, `ceiling ${label} (same pairs)`, "difference", "verdict"],
    rows: field.versus.map((v) => [
      v.rater,
      v.own.items,
      stat(v.own.statistics[field.primary]),
      stat(v.ceiling?.statistics[field.primary]),
      stat(v.difference),
      v.verdict.kind,
    ]),
    notes: [
      "difference = rater − ceiling on the same leave-one-out pairs; below/above when its 95% CI excludes 0",
    ],
  };
}

/** The table of every pair of raters. */
function pairTable(field: FieldReport): Table {
  return {
    title: `${field.field.name}: each pair of raters[^ci]`,
    columns: ["rater A", "rater B (reference)", "items", ...field.statistics.map(header)],
    rows: field.pairs.map((p) => [p.a, p.b, p.result.items, ...statisticCells(field, p.result)]),
    notes: [],
  };
}

/** The breakdown of a field per group of items (the primary statistic). */
function groupTable(field: FieldReport, groupField: string): Table {
  const label = STATISTIC_LABELS[field.primary];
  const groups = field.groups.filter((g) => g.groupField === groupField);
  const raters = field.versus.map((v) => v.rater);
  return {
    title: `${field.field.name} by ${groupField} (${label})[^ci]`,
    columns: [groupField, "items", "ceiling", ...raters.flatMap((r) => [r, `${r}: verdict`])],
    rows: groups.map((g) => [
      g.group,
      g.items,
      stat(g.ceiling?.statistics[field.primary]),
      ...g.versus.flatMap((v) => [stat(v.own.statistics[field.primary]), v.verdict.kind]),
    ]),
    notes: ["ceiling: all humans on the group's items; verdict: on the rater's own leave-one-out pairs"],
  };
}

/** The repeat stability of each judge. */
function stabilityTable(field: FieldReport): Table {
  return {
    title: `${field.field.name}: each judge against itself across repeats[^ci]`,
    columns: [
      "judge",
      "repeats",
      "items",
      "α",
      "κ (repeat 1 vs 2)",
      "all repeats agree %",
      "repeat share of variance %",
    ],
    rows: field.stability.map((s) => [
      s.judge,
      s.repeats,
      s.items,
      stat(s.alpha),
      stat(s.kappa),
      rate(s.allAgree ?? undefined),
      s.variance ? rate(s.variance.repeatShare) : "–",
    ]),
    notes: [
      "repeat share = σ²_repeat / (σ²_item + σ²_repeat), one-way random effects of the item × repeat matrix",
    ],
  };
}

/** The calibration's evaluation on held-out items, overall and per group. */
function calibrationTable(field: FieldReport): Table | undefined {
  const c = field.calibration;
  if (!c?.overall) return undefined;
  const row = (name: string, group: string, e: NonNullable<typeof c.overall>): Cell[] => [
    name,
    group,
    e.items,
    stat(e.humanMean),
    stat(e.rawMean),
    stat(e.calibratedMean),
    stat(e.rawError),
    stat(e.calibratedError),
    stat(e.errorChange),
  ];
  const rows = [row("all", "", c.overall)];
  for (const [groupField, groups] of Object.entries(c.byGroup)) {
    for (const [group, e] of Object.entries(groups)) rows.push(row(groupField, group, e));
  }
  return {
    title:
      `${field.field.name}: isotonic calibration of the ${c.source} onto the human mean, held-out items[^ci]`,
    columns: [
      "group field",
      "group",
      "items",
      "human mean",
      "raw mean",
      "calibrated mean",
      "raw MAE",
      "calibrated MAE",
      "MAE change",
    ],
    rows,
    notes: [
      `fitted on ${c.labelled} items (${
        Math.round(c.fraction * 100)
      }% of the rated items, seeded), evaluated on ` +
      `${c.heldOut}; MAE = mean |judge − human mean|; the curves are in calibration_curves.csv`,
    ],
  };
}

/** Returns the errors and abstentions table of a metric. */
function failureTable(metric: MetricReport): Table {
  const fields = metric.fields.map((f) => f.field.name);
  return {
    title: `${metricName(metric)}: judge errors and abstentions[^ci]`,
    columns: ["judge", "judgings", "errors %", ...fields.map((f) => `abstains on ${f} %`)],
    rows: metric.failures.overall.map((f) => [
      f.judge,
      f.errors.n,
      rate(f.errors),
      ...fields.map((name) => rate(f.abstentions[name])),
    ]),
    notes: [
      "error: a judging stored as invalid (no reply validated); abstention: a valid judging without a value for the field",
      `over the ${metric.judged} items the scorer judged (per group in meta.json)`,
    ],
  };
}

/** Returns the Markdown of one field. */
function fieldMarkdown(metric: MetricReport, field: FieldReport): string {
  const f = field.field;
  const parts = [
    `### ${f.name} (${f.level}${f.ownScales ? ", two scales" : ""})`,
    "",
    `${f.description}.${f.labels ? ` Codes: ${f.labels.map((l, i) => `${i} = ${l}`).join(", ")}.` : ""}`,
    "",
    toMarkdown(verdictTable(field)),
    toMarkdown(referenceTable(field)),
    toMarkdown(pairTable(field)),
    ...metric.groupFields.map((g) => toMarkdown(groupTable(field, g))),
  ];
  if (field.stability.length) parts.push(toMarkdown(stabilityTable(field)));
  const calibration = calibrationTable(field);
  if (calibration) parts.push(toMarkdown(calibration));
  return parts.join("\n");
}

/** Returns `meta.md` of a report. */
export function metaMarkdown(report: MetaReport): string {
  const lines = [
    `# Judge meta-evaluation: ${report.run}`,
    "",
    `benchmark ${report.benchmark} · seed "${report.seed}" · ${report.resamples} bootstrap resamples · ` +
    `calibration fitted on ${Math.round(report.calibrate * 100)}% of the rated items`,
    "",
    "## Verdicts",
    "",
    ...report.verdicts.map((v) => `- ${v}`),
    "",
  ];
  for (const metric of report.metrics) {
    lines.push(
      `## ${metricName(metric)}`,
      "",
      `judges: ${metric.judges.join(", ")}; humans: ${
        metric.humans.join(", ")
      }; ${metric.items} items rated by ` +
        `humans, ${metric.judged} judged` +
        (metric.groupFields.length ? `; broken down by ${metric.groupFields.join(", ")}` : ""),
      "",
      toMarkdown(failureTable(metric)),
      ...metric.fields.map((f) => fieldMarkdown(metric, f)),
    );
  }
  lines.push("", INTERVAL_FOOTNOTE, "");
  return lines.join("\n");
}

/** Returns the console summary of a report: what was compared, then every verdict line. */
export function consoleSummary(report: MetaReport): string[] {
  const lines = [`meta ${report.run} (${report.benchmark}):`];
  for (const metric of report.metrics) {
    lines.push(
      `  ${
        metricName(metric)
      }: ${metric.judges.length} judge(s), ${metric.humans.length} human(s), ${metric.items} rated items`,
    );
    for (const field of metric.fields) {
      for (const v of field.versus) lines.push(`    ${field.field.name}: ${v.verdict.text}`);
    }
  }
  return lines;
}
