/**
 * Input-length buckets (the paper's Figure 6): each sample is placed in one of k equal-count buckets by the
 * length of its input, within its group (e.g. within each scenario, shortest = 1), measured in characters or in
 * tokens (js-tiktoken, cl100k_base). Metrics per bucket come with n and a 95% CI, chosen as the run's summary
 * chose it for the metric (Wilson for a rate, a cluster bootstrap over the task's clusters, ...).
 * @module
 */
import { loadedTokenCounter, type TokenCounter } from "../providers/flow/token_estimate.ts";
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { FigureSpec } from "../report/figures.ts";
import { ciErrorBars, PALETTE, paperLayout } from "../report/figures.ts";
import type { SampleRow } from "../core/summary.ts";
import { formatEstimate } from "../report/tables.ts";
import { type Table } from "../core/report_spec.ts";
import { estimateMetric, type MetricDesign } from "../report/summary.ts";
import type { ChosenInterval } from "../stats/interval_choice.ts";

/** How length is measured. */
export type LengthMeasure = "chars" | "tokens";

/** A `--buckets length:K` request. */
export interface BucketSpec {
  /** Number of equal-count buckets (10 = deciles). */
  k: number;
}

/** Parses `length:10`. Throws {@linkcode ConfigError}. */
export function parseBucketSpec(text: string): BucketSpec {
  const m = text.match(/^length:(\d+)$/);
  const k = m ? Number(m[1]) : NaN;
  if (!m || k < 2 || k > 100) {
    throw new ConfigError(`--buckets expects length:K with 2 <= K <= 100, got "${text}"`);
  }
  return { k };
}

/**
 * Returns the length of `text` in characters (code points), or in tokens as `count` (default: the counter
 * `loadTokenCounter` has loaded) counts them.
 */
function textLength(text: string, measure: LengthMeasure, count = loadedTokenCounter()): number {
  if (measure === "chars") return [...text].length;
  if (!count) throw new Error("internal: token buckets need the token counter (await loadTokenCounter())");
  return count(text);
}

/**
 * Returns each sample's bucket (1..k) by input length within its `within` group: samples sorted by length
 * (ties by id) and cut into k runs of equal size (sizes differ by at most one).
 */
export function lengthBuckets(
  samples: readonly Sample[],
  k: number,
  measure: LengthMeasure,
  within?: string,
  count?: TokenCounter,
): Map<string, number> {
  const groups = Map.groupBy(samples, (s) => (within ? String(s.fields[within] ?? "") : ""));
  const out = new Map<string, number>();
  for (const members of groups.values()) {
    const sorted = members
      .map((s) => ({ id: s.id, length: textLength(s.input, measure, count) }))
      .sort((a, b) => a.length - b.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    sorted.forEach((s, i) => out.set(s.id, Math.floor((i * k) / sorted.length) + 1));
  }
  return out;
}

/** One series of a bucket analysis: a condition's (or model's) per-sample rows. */
export interface BucketSeries {
  /** Legend label. */
  label: string;
  /** Per-sample metric values. */
  rows: readonly SampleRow[];
}

/** A plain mean's interval, for callers that do not say what the metric is. */
const PLAIN_MEAN: MetricDesign = { kind: "mean" };

/**
 * Returns the metric in buckets 1..k of `rows`, each estimate's interval as `design` says (seeded by
 * `seed(bucket)`).
 */
function perBucket(
  rows: readonly SampleRow[],
  buckets: ReadonlyMap<string, number>,
  options: { k: number; metric: string; design?: MetricDesign },
  seed: (b: number) => string,
): ChosenInterval[] {
  const byBucket = Map.groupBy(rows, (r) => buckets.get(r.id) ?? 0);
  return Array.from(
    { length: options.k },
    (_, i) =>
      estimateMetric(byBucket.get(i + 1) ?? [], options.metric, options.design ?? PLAIN_MEAN, seed(i + 1)),
  );
}

/**
 * Returns the metric per bucket of each group of `within` and pooled over all samples, for one series;
 * `design` is how the run's summary chose the metric's interval (default: a plain mean).
 */
export function bucketTable(
  series: BucketSeries,
  buckets: ReadonlyMap<string, number>,
  options: {
    k: number;
    metric: string;
    percent: boolean;
    within?: string;
    measure: LengthMeasure;
    design?: MetricDesign;
  },
): Table {
  const { within } = options;
  const groups = within ? Map.groupBy(series.rows, (r) => String(r.fields[within] ?? "")) : new Map();
  const methods = new Set<string>();
  const row = (label: string, rows: readonly SampleRow[], key: string) => [
    label,
    ...perBucket(rows, buckets, options, (b) => `${series.label}:${key}:${b}`).map((est) => {
      if (!est.n) return "–";
      methods.add(est.method);
      return `${formatEstimate(est, options.percent, 1)} n=${est.n}`;
    }),
  ];
  const { k } = options;
  const range = Array.from({ length: k }, (_, i) => i + 1);
  const rows = [
    ...[...groups].map(([g, rows]) => row(g, rows, g)),
    row("all (pooled)", series.rows, "all"),
  ];
  return {
    title: `${series.label}: ${options.metric} by input-length bucket (${options.measure}, ${k} buckets${
      within ? ` within each ${within}` : ""
    }; 1 = shortest)`,
    columns: [within ?? "group", ...range.map((b) => `${b}`)],
    rows,
    notes: [
      `buckets are equal-count cuts of the samples sorted by input length in ${options.measure}${
        options.measure === "tokens" ? " (js-tiktoken cl100k_base)" : ""
      }${within ? `, made separately within each ${within}` : ""}`,
      `values with 95% CI (${[...methods].join(", ") || "none"}) and n`,
    ],
  };
}

/** Returns the line chart of the pooled metric per bucket, one line per series, with 95% CI error bars. */
export function bucketFigure(
  series: readonly BucketSeries[],
  buckets: ReadonlyMap<string, number>,
  options: {
    k: number;
    metric: string;
    percent: boolean;
    measure: LengthMeasure;
    title: string;
    design?: MetricDesign;
  },
): FigureSpec {
  const scale = options.percent ? 100 : 1;
  const range = Array.from({ length: options.k }, (_, i) => i + 1);
  const data = series.map((s, i) => {
    // The same seeds as the table's pooled row, so figure and table show the same intervals.
    const est = perBucket(s.rows, buckets, options, (b) => `${s.label}:all:${b}`);
    return {
      type: "scatter",
      mode: "lines+markers",
      name: s.label,
      x: range,
      y: est.map((e) => (e.value === null ? null : e.value * scale)),
      error_y: {
        ...ciErrorBars(est, scale),
        thickness: 1.2,
        width: 3,
      },
      line: { color: PALETTE[i % PALETTE.length] },
      marker: { color: PALETTE[i % PALETTE.length] },
    };
  });
  return {
    data,
    layout: paperLayout({
      title: { text: options.title, font: { size: 16 } },
      xaxis: { title: { text: `input-length bucket (${options.measure}; 1 = shortest)` }, dtick: 1 },
      yaxis: {
        title: { text: `${options.metric}${options.percent ? " (%)" : ""}, 95% CI` },
        gridcolor: "#e5e5e5",
      },
      legend: { orientation: "h", y: -0.25 },
    }),
    width: 760,
    height: 460,
  };
}
