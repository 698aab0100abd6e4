/**
 * The tables and figures of one run, derived from its summary: one table per group field, a wide overview row
 * (the primary metric per value of the first group field plus the overall value, as papers print it), and a
 * bar chart with 95% CI error bars per group field.
 * @module
 */
import type { FigureSpec } from "./figures.ts";
import { ciErrorBars, PALETTE, paperLayout } from "./figures.ts";
import { type Summary, summaryName } from "../core/summary.ts";
import { safeName } from "../core/fs.ts";
import { readDatasetCounts } from "./dataset_counts.ts";
import { formatEstimate, groupTables, namedOutcomesLine, orderedKeys, summaryNotes } from "./tables.ts";
import type { GroupDisplay, MetricDisplay, ReportSpec, Table } from "../core/report_spec.ts";

/** Returns the overview table: one row for the run, the primary metric per first-field group, then overall. */
export function overviewTable(summaries: readonly Summary[], spec: ReportSpec): Table {
  const primary = spec.metrics[0];
  const overall = spec.overall ?? { name: primary.name, label: primary.label };
  const field = Object.keys(summaries[0]?.groups ?? {})[0];
  const keys = orderedKeys(summaries.flatMap((s) => Object.keys(s.groups[field] ?? {})), field, spec.groups);
  return {
    title: `${summaries[0]?.benchmark ?? ""}: ${primary.label}${primary.percent ? " (%)" : ""} by ${field}`,
    columns: ["model", ...keys, overall.label],
    rows: summaries.map((s) => [
      summaryName(s),
      ...keys.map((k) => formatEstimate(s.groups[field]?.[k]?.[primary.name], primary.percent)),
      formatEstimate(s.metrics[overall.name], primary.percent),
    ]),
    // Every row's model has its outcomes line (the first's is among its summary notes).
    notes: summaries.length
      ? [...summaryNotes(summaries[0]), ...summaries.slice(1).flatMap(namedOutcomesLine)]
      : [],
  };
}

/** Returns one table per jury of `summary`: each judge's mean with its CI, then the judges' agreement. */
export function juryTables(summary: Summary): Record<string, Table> {
  const tables: Record<string, Table> = {};
  for (const jury of summary.juries ?? []) {
    const { alpha, all_agree } = jury.agreement;
    tables[`jury_${safeName(jury.scorer)}`] = {
      title: `${summary.benchmark}: the judges of ${jury.scorer} (jury value = ${jury.aggregate})`,
      columns: ["judge", "n", "mean [95% CI]"],
      rows: jury.judges.map((
        j,
      ) => [j, jury.by_judge[j].mean.n, formatEstimate(jury.by_judge[j].mean, false)]),
      notes: [
        `Krippendorff's alpha (${jury.agreement.level}): ${
          formatEstimate(alpha, false, 3)
        }, n = ${alpha.n} samples`,
        `all judges agree: ${formatEstimate(all_agree, true)} % of ${all_agree.n} samples (Wilson 95% CI)`,
        `each judge's mean: 95% CI by ${
          jury.interval ?? "percentile bootstrap over samples"
        }, n = samples it scored`,
        ...summaryNotes(summary),
      ],
    };
  }
  return tables;
}

/** Returns the raters' agreement table of `summary` (judge vs humans, humans vs each other), if it has one. */
export function agreementTables(summary: Summary): Record<string, Table> {
  const rows = summary.agreement ?? [];
  if (rows.length === 0) return {};
  return {
    rater_agreement: {
      title: `${summary.benchmark}: agreement of judge(s) and human raters, by field`,
      columns: [
        "field",
        "rater A",
        "rater B",
        "pairs",
        "agreement % [95% CI]",
        "Cohen's κ [95% CI]",
        "quadratic κ [95% CI]",
      ],
      rows: rows.map((r) => [
        r.field,
        r.a,
        r.b,
        r.percent.n,
        formatEstimate(r.percent, true),
        formatEstimate(r.kappa, false, 3),
        r.weighted_kappa ? formatEstimate(r.weighted_kappa, false, 3) : "–",
      ]),
      notes: [
        "pairs = samples both raters rated; agreement with Wilson 95% CI; κ with a paired percentile bootstrap 95% CI (2000 resamples, seeded)",
        "quadratic-weighted κ for ordinal fields only",
        ...summaryNotes(summary),
      ],
    },
  };
}

/** Returns all tables of a run by file name (`overview`, `by_<field>`, juries, and the benchmark's own). */
export function runTables(summary: Summary, spec: ReportSpec): Record<string, Table> {
  return {
    overview: overviewTable([summary], spec),
    ...groupTables(summary, spec.metrics, spec.groups),
    ...juryTables(summary),
    ...agreementTables(summary),
    ...spec.tables?.([summary]),
  };
}

/** Returns a bar chart of `metric` per value of `field` for each summary, with 95% CI error bars. */
export function groupBarFigure(
  summaries: readonly Summary[],
  field: string,
  metric: MetricDisplay,
  display?: GroupDisplay,
): FigureSpec {
  const k = metric.percent ? 100 : 1;
  const keys = orderedKeys(summaries.flatMap((s) => Object.keys(s.groups[field] ?? {})), field, display);
  const data = summaries.map((s, i) => {
    const est = keys.map((key) => s.groups[field]?.[key]?.[metric.name]);
    return {
      type: "bar",
      name: summaryName(s),
      x: keys,
      y: est.map((e) => (e?.value ?? null) === null ? null : e!.value! * k),
      error_y: {
        ...ciErrorBars(est, k),
        color: "#333",
        thickness: 1.5,
        width: 4,
      },
      marker: { color: PALETTE[i % PALETTE.length] },
      text: est.map((e) => `n=${e?.n ?? 0}`),
      textposition: "none",
      hovertemplate: "%{x}: %{y:.2f} (%{text})<extra>%{fullData.name}</extra>",
    };
  });
  const offline = summaries.some((s) => s.offline) ? " — includes OFFLINE baselines" : "";
  return {
    data,
    layout: paperLayout({
      title: {
        text: `${summaries[0]?.benchmark ?? ""}: ${metric.label} by ${field}${offline}`,
        font: { size: 16 },
      },
      barmode: "group",
      yaxis: {
        title: { text: `${metric.label}${metric.percent ? " (%)" : ""}, 95% CI` },
        rangemode: "tozero",
        gridcolor: "#e5e5e5",
      },
      xaxis: {
        title: { text: field },
        type: "category",
        tickangle: keys.length > 8 ? -35 : 0,
        automargin: true,
      },
      legend: { orientation: "h", y: -0.25 },
    }),
    width: Math.min(1400, Math.max(640, 60 * keys.length * Math.max(1, summaries.length) + 160)),
    height: keys.length > 8 ? 520 : 440,
  };
}

/** Returns one bar chart of question counts per field of the summary's data-set counts. */
export function datasetFigures(summary: Summary, display?: GroupDisplay): Record<string, FigureSpec> {
  const byField = readDatasetCounts(summary.counts);
  const figures: Record<string, FigureSpec> = {};
  for (const [field, counts] of byField) {
    const keys = orderedKeys(counts.keys(), field, display);
    figures[`dataset_${field}`] = {
      data: [{
        type: "bar",
        x: keys,
        y: keys.map((k) => counts.get(k)),
        marker: { color: PALETTE[0] },
        hovertemplate: "%{x}: %{y} questions<extra></extra>",
      }],
      layout: paperLayout({
        title: { text: `${summary.benchmark}: questions by ${field}`, font: { size: 16 } },
        yaxis: { title: { text: "questions" }, rangemode: "tozero", gridcolor: "#e5e5e5" },
        xaxis: {
          title: { text: field },
          type: "category",
          tickangle: keys.length > 8 ? -35 : 0,
          automargin: true,
        },
      }),
      width: Math.min(1400, Math.max(560, 40 * keys.length + 160)),
      height: keys.length > 8 ? 480 : 400,
    };
  }
  return figures;
}

/** Returns the figures of a run: the primary metric by each group field with at most `maxGroups` values. */
export function runFigures(
  summaries: readonly Summary[],
  spec: ReportSpec,
  maxGroups = 30,
): Record<string, FigureSpec> {
  const figures: Record<string, FigureSpec> = {};
  const fields = Object.keys(summaries[0]?.groups ?? {});
  const metric = spec.metrics[0].name;
  for (const field of fields) {
    const count = new Set(summaries.flatMap((s) => Object.keys(s.groups[field] ?? {}))).size;
    if (count === 0 || count > maxGroups) continue;
    // Fields grouping other metrics (e.g. robustness rates) are drawn by the benchmark's own figures.
    if (!summaries.some((s) => Object.values(s.groups[field] ?? {}).some((est) => metric in est))) continue;
    figures[`${spec.metrics[0].name}_by_${field}`] = groupBarFigure(
      summaries,
      field,
      spec.metrics[0],
      spec.groups,
    );
  }
  Object.assign(figures, spec.figures?.(summaries) ?? {});
  return summaries[0] ? { ...figures, ...datasetFigures(summaries[0], spec.groups) } : figures;
}
