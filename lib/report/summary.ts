/**
 * Summaries computed from per-sample rows: every metric with its n and 95% CI, overall and per value of each
 * group field. Each metric's interval is chosen from what the metric is (`chooseInterval` in
 * `lib/stats/interval_choice.ts`): Wilson's (Clopper–Pearson's below 30 values) for a declared proportion, the
 * cluster bootstrap when its values share the task's clusters (clusters then judge repeats for a judge-scored
 * mean whose rows carry repeats), the two-level bootstrap (items, judge repeats) for such a mean unclustered,
 * else the expanded percentile bootstrap. What a metric is gets decided once, from all rows, and every group
 * uses the same; `summary.intervals` records it.
 * @module
 */
import type {
  ClusterNames,
  Estimate,
  IntervalInfo,
  METRIC_KINDS,
  SampleRow,
  Summary,
} from "../core/summary.ts";
import type { RunView } from "../core/task.ts";
import { chooseInterval, type ChosenInterval } from "../stats/interval_choice.ts";

/** What a metric is, for its interval. */
export type MetricKind = typeof METRIC_KINDS[number];

/** How one metric's intervals are computed: decided once from all rows, applied overall and to every group. */
export interface MetricDesign {
  /** `proportion` (declared 0/1), `judged mean` (some row carries two or more judge repeats), else `mean`. */
  kind: MetricKind;
  /** The clusters resampled, when some cluster holds two or more of the metric's values. */
  clusters?: ClusterNames;
}

/** What {@linkcode summarize} is told about the rows beyond their values. */
export interface SummarizeOptions {
  /** Seed text of the bootstraps (per metric: `<seed>:all:<metric>`, `<seed>:<field>=<key>:<metric>`). */
  seed: string;
  /** Group keys in display order, by field. */
  order?: Record<string, readonly string[]>;
  /** Metrics whose values are 0 or 1 by definition (rates); the others are means. */
  proportions?: readonly string[];
  /** What the rows' `cluster` ids are (the task's clusters); without it the ids are not used. */
  clusters?: ClusterNames;
}

/** The parts of a summary {@linkcode summarize} computes. */
export interface SummaryCore extends Pick<Summary, "n" | "metrics" | "groups"> {
  /** How the intervals were chosen: spread into the summary (`intervals`, and `clustered_by` when clustered). */
  design: { intervals: Record<string, IntervalInfo>; clustered_by?: ClusterNames };
}

/** Returns `true` when `v` is a value (not `null` or absent). */
function isValue(v: number | null | undefined): v is number {
  return v !== null && v !== undefined;
}

/** Returns the rows with a value for `metric`. */
function withValue(rows: readonly SampleRow[], metric: string): SampleRow[] {
  return rows.filter((r) => isValue(r.values[metric]));
}

/** Returns `true` when two of `rows` share a cluster id. */
function sharesCluster(rows: readonly SampleRow[]): boolean {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.cluster === undefined) continue;
    if (seen.has(row.cluster)) return true;
    seen.add(row.cluster);
  }
  return false;
}

/** Returns the judge repeats of `row` for `metric`: its repeats, or its value alone when it has none. */
function repeatsOf(row: SampleRow, metric: string): number[] {
  const repeats = row.repeats?.[metric];
  return repeats && repeats.length ? repeats : [row.values[metric]!];
}

/**
 * Returns how `metric`'s intervals are computed, from all `rows`: a proportion when declared one, a judged mean
 * when some row with a value carries two or more judge repeats, else a mean; clustered when `clusters` is given
 * and two rows with a value share a cluster id.
 */
export function metricDesign(
  rows: readonly SampleRow[],
  metric: string,
  design: Pick<SummarizeOptions, "proportions" | "clusters"> = {},
): MetricDesign {
  return presentDesign(withValue(rows, metric), metric, design);
}

/** {@linkcode metricDesign} of the rows with a value for `metric` (`present`). */
function presentDesign(
  present: readonly SampleRow[],
  metric: string,
  design: Pick<SummarizeOptions, "proportions" | "clusters">,
): MetricDesign {
  const kind: MetricKind = design.proportions?.includes(metric)
    ? "proportion"
    : present.some((r) => (r.repeats?.[metric]?.length ?? 0) >= 2)
    ? "judged mean"
    : "mean";
  return design.clusters && sharesCluster(present) ? { kind, clusters: design.clusters } : { kind };
}

/**
 * Returns `metric`'s estimate over `rows` with the interval `design` calls for (bootstraps seeded by `seed`),
 * from the rows with a value: n = those rows; `clusters` = their clusters when clustered (a row without a
 * cluster id is a cluster of its own). The clusters are resampled only where two of these rows share one;
 * otherwise the rows get the interval of their kind unclustered. A judged mean keeps its judge repeats either
 * way; a clustered rate of 0% or 100% gets the interval `chooseInterval` gives it (the rate's rule over its
 * clusters).
 */
export function estimateMetric(
  rows: readonly SampleRow[],
  metric: string,
  design: MetricDesign,
  seed: string,
): ChosenInterval {
  const column = valueColumn(rows, metric);
  return estimatePresent(rows, presentAt(rows.map((_, i) => i), column), metric, design, seed);
}

/** The rows with a value for one metric: their indices (`at`) and their values, in the same order. */
interface PresentValues {
  at: number[];
  values: number[];
}

/**
 * {@linkcode estimateMetric} of the rows of `all` with a value for `metric` (`present`); the rows themselves are
 * read only for clusters or judge repeats.
 */
function estimatePresent(
  all: readonly SampleRow[],
  { at, values }: PresentValues,
  metric: string,
  design: MetricDesign,
  seed: string,
): ChosenInterval {
  const options = { seed };
  const rows = design.clusters || design.kind === "judged mean" ? rowsAt(all, at) : [];
  // Where no two of these rows share a cluster (a group of one-round conversations) the values are independent.
  const clustered = design.clusters && sharesCluster(rows)
    ? {
      // A NUL-prefixed sample id cannot equal a cluster id a task declares.
      clusters: rows.map((r) => r.cluster ?? `\u0000${r.id}`),
      clusterName: design.clusters.name,
    }
    : {};
  if (design.kind === "judged mean") {
    return chooseInterval({
      kind: "judged mean",
      repeats: rows.map((r) => repeatsOf(r, metric)),
      ...clustered,
    }, options);
  }
  return chooseInterval({ kind: design.kind, values, ...clustered }, options);
}

/** Returns the estimate part of a chosen interval (what `summary.json` holds per cell). */
function estimateOf(chosen: ChosenInterval): Estimate {
  return { value: chosen.value, ci95: chosen.ci95, n: chosen.n };
}

/** Returns the most judge repeats of one row of `metric` among the rows with a value for it (`present`). */
function mostRepeats(present: readonly SampleRow[], metric: string): number {
  let most = 0;
  for (const row of present) most = Math.max(most, row.repeats?.[metric]?.length ?? 1);
  return most;
}

/**
 * Returns the summary's record of how a metric's intervals were computed; `repeats` is the most judge repeats
 * of one row, recorded for a judged mean.
 */
function intervalInfo(
  design: MetricDesign,
  overall: ChosenInterval,
  groupMethods: ReadonlySet<string>,
  repeats: number | undefined,
): IntervalInfo {
  const others = [...groupMethods].filter((m) => m !== overall.method);
  return {
    kind: design.kind,
    method: overall.method,
    n: overall.n,
    ...(design.clusters ? { clusters: overall.clusters ?? 0 } : {}),
    ...(design.kind === "judged mean" ? { repeats } : {}),
    ...(others.length ? { group_methods: others } : {}),
  };
}

/**
 * Returns the row indices of each value of `field` (null values left out), each list in row order. Groups are
 * ordered by `order` when given, else by first appearance.
 */
function groupIndices(
  rows: readonly SampleRow[],
  field: string,
  order: readonly string[] = [],
): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (let i = 0; i < rows.length; i++) {
    const value = rows[i].fields[field];
    if (value === null || value === undefined) continue;
    const key = String(value);
    const at = byKey.get(key);
    if (at) at.push(i);
    else byKey.set(key, [i]);
  }
  const keys = [...order.filter((k) => byKey.has(k)), ...[...byKey.keys()].filter((k) => !order.includes(k))];
  return new Map(keys.map((key) => [key, byKey.get(key)!]));
}

/** One metric's value in each row (`null` where it has none), read once for every group. */
function valueColumn(rows: readonly SampleRow[], metric: string): (number | null)[] {
  return rows.map((r) => r.values[metric] ?? null);
}

/** The row indices among `at` with a value in `column`, and those values, in the order of `at`. */
function presentAt(at: readonly number[], column: readonly (number | null)[]): PresentValues {
  const present: PresentValues = { at: [], values: [] };
  for (const i of at) {
    const value = column[i];
    if (value === null) continue;
    present.at.push(i);
    present.values.push(value);
  }
  return present;
}

/** The rows at the indices `at`. */
function rowsAt(rows: readonly SampleRow[], at: readonly number[]): SampleRow[] {
  return at.map((i) => rows[i]);
}

/**
 * Returns `{ n, metrics, groups, design }` of a summary: each metric's estimate overall and per value of each
 * group field, its interval chosen by {@linkcode metricDesign} from all rows, and `design.intervals` saying how
 * (with `design.clustered_by` when some metric resampled clusters).
 */
export function summarize(
  rows: readonly SampleRow[],
  metricNames: readonly string[],
  groupFields: readonly string[],
  options: SummarizeOptions,
): SummaryCore {
  // Each metric's values are read from the rows once; a group's are then picked by row index.
  const columns = new Map(metricNames.map((m) => [m, valueColumn(rows, m)]));
  const all = rows.map((_, i) => i);
  const overall = new Map(metricNames.map((m) => [m, presentAt(all, columns.get(m)!)]));
  // A design reads its rows only for judge repeats and clusters: without either, none are made for it.
  const readsRows = options.clusters !== undefined || rows.some((r) => r.repeats !== undefined);
  const designs = new Map(
    metricNames.map((m) => [m, presentDesign(readsRows ? rowsAt(rows, overall.get(m)!.at) : [], m, options)]),
  );
  const used = new Map(metricNames.map((m) => [m, new Set<string>()]));
  const groups: Summary["groups"] = {};
  for (const field of groupFields) {
    groups[field] = {};
    for (const [key, at] of groupIndices(rows, field, options.order?.[field])) {
      const cell: Record<string, Estimate> = {};
      for (const metric of metricNames) {
        const chosen = estimatePresent(
          rows,
          presentAt(at, columns.get(metric)!),
          metric,
          designs.get(metric)!,
          `${options.seed}:${field}=${key}:${metric}`,
        );
        if (chosen.n) used.get(metric)!.add(chosen.method);
        cell[metric] = estimateOf(chosen);
      }
      groups[field][key] = cell;
    }
  }
  const metrics: Record<string, Estimate> = {};
  const intervals: Record<string, IntervalInfo> = {};
  for (const metric of metricNames) {
    const design = designs.get(metric)!;
    const present = overall.get(metric)!;
    const chosen = estimatePresent(rows, present, metric, design, `${options.seed}:all:${metric}`);
    metrics[metric] = estimateOf(chosen);
    const repeats = design.kind === "judged mean" ? mostRepeats(rowsAt(rows, present.at), metric) : undefined;
    intervals[metric] = intervalInfo(design, chosen, used.get(metric)!, repeats);
  }
  const clustered = [...designs.values()].some((d) => d.clusters);
  return {
    n: rows.length,
    metrics,
    groups,
    design: {
      intervals,
      ...(clustered && options.clusters
        ? { clustered_by: { name: options.clusters.name, unit: options.clusters.unit } }
        : {}),
    },
  };
}

/**
 * Returns how `metric`'s intervals were computed in `summary` (for intervals over other row sets, such as length
 * buckets, to use the same), or a plain mean for a summary of an earlier version or a metric it lacks.
 */
export function designOf(summary: Pick<Summary, "intervals" | "clustered_by">, metric: string): MetricDesign {
  const info = summary.intervals?.[metric];
  if (!info) return { kind: "mean" };
  return info.clusters !== undefined && summary.clustered_by
    ? { kind: info.kind, clusters: summary.clustered_by }
    : { kind: info.kind };
}

/** The note of every summary whose run used an offline stand-in (model, judge, translator or rephraser). */
export const OFFLINE_NOTE =
  "OFFLINE: the model or a judge, translator or rephraser is an offline stand-in; these are not model results";

/** Returns how many samples of a run view were answered. */
export function answeredCount(view: Pick<RunView, "outputs">): number {
  let answered = 0;
  for (const output of view.outputs.values()) if (output.answered) answered++;
  return answered;
}
