/**
 * The figure of a compared metric: each model's mean with its 95% interval and its letters, for all items and
 * for each group of the benchmark's first group field.
 * @module
 */
import { safeName } from "../core/fs.ts";
import type { FigureSpec } from "../core/report_spec.ts";
import { ciErrorBars, PALETTE, paperLayout } from "../report/figures.ts";
import type { Comparison, MetricResult } from "./analyze.ts";
import { metricHeading } from "./tables.ts";

/** The x label of the scope of all items. */
const ALL_ITEMS = "all items";

/**
 * Returns the figure of one metric: x = all items, then each group of the first group field; one trace per
 * model (markers with 95% CI error bars, grouped side by side) labelled with its letters.
 */
export function comparisonFigure(comparison: Comparison, result: MetricResult): FigureSpec {
  const scopes = [result.overall, ...(result.fields[0]?.scopes ?? [])];
  const x = scopes.map((s) => s.group ?? ALL_ITEMS);
  const k = result.metric.percent ? 100 : 1;
  const data = comparison.entries.map((entry, i) => {
    const models = scopes.map((s) => s.models.find((m) => m.label === entry.label)!);
    const estimates = models.map((m) => m.estimate);
    return {
      type: "scatter",
      mode: "markers+text",
      name: entry.label,
      x,
      y: estimates.map((e) => (e.value === null ? null : e.value * k)),
      error_y: { ...ciErrorBars(estimates, k), color: PALETTE[i % PALETTE.length], thickness: 1.5, width: 4 },
      marker: { color: PALETTE[i % PALETTE.length], size: 9 },
      text: models.map((m) => m.letters),
      textposition: "middle right",
      textfont: { size: 13 },
      customdata: models.map((m) => `n=${m.estimate.n}, ${m.rank.label}`),
      hovertemplate: "%{x}: %{y:.2f} (%{customdata}) %{text}<extra>%{fullData.name}</extra>",
    };
  });
  const field = result.fields[0]?.field;
  // Room above and below the intervals, so letters at 0% or 100% are not cut off.
  const ends = scopes.flatMap((s) => s.models.flatMap((m) => m.estimate.ci95 ?? [m.estimate.value ?? 0]))
    .map((v) => v * k);
  const [low, high] = [Math.min(...ends), Math.max(...ends)];
  const pad = Math.max((high - low) * 0.06, 0.05 * k);
  return {
    data,
    layout: paperLayout({
      title: {
        text: `${comparison.title}: ${metricHeading(result.metric)}${field ? ` by ${field}` : ""}`,
        font: { size: 16 },
      },
      scattermode: "group",
      yaxis: {
        title: { text: `${metricHeading(result.metric)}, 95% CI` },
        gridcolor: "#e5e5e5",
        zeroline: false,
        range: [low - pad, high + pad],
      },
      xaxis: { type: "category", tickangle: x.length > 8 ? -35 : 0, automargin: true },
      legend: { orientation: "h", y: -0.25 },
      annotations: [{
        text:
          `letters: same letter = not significantly different (paired tests, Holm-adjusted p > ${comparison.alpha})`,
        xref: "paper",
        yref: "paper",
        x: 0,
        y: 1.06,
        showarrow: false,
        font: { size: 11, color: "#444" },
        xanchor: "left",
      }],
    }),
    width: Math.min(1400, Math.max(640, 45 * x.length * Math.max(1, comparison.entries.length) + 200)),
    height: x.length > 8 ? 520 : 460,
  };
}

/** Returns every figure of a comparison by file name: `comparison_<metric>`. */
export function comparisonFigures(comparison: Comparison): Record<string, FigureSpec> {
  return Object.fromEntries(
    comparison.metrics.map((result) => [
      `comparison_${safeName(result.metric.name)}`,
      comparisonFigure(comparison, result),
    ]),
  );
}
