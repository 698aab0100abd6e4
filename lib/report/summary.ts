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
  const present = withValue(rows, metric);
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
  const present = withValue(rows, metric);
  const options = { seed };
  // Where no two of these rows share a cluster (a group of one-round conversations) the values are independent.
  const clustered = design.clusters && sharesCluster(present)
    ? {
      // A NUL-prefixed sample id cannot equal a cluster id a task declares.
      clusters: present.map((r) => r.cluster ?? `\u0000${r.id}`),
      clusterName: design.clusters.name,
    }
    : {};
  if (design.kind === "judged mean") {
    return chooseInterval({
      kind: "judged mean",
      repeats: present.map((r) => repeatsOf(r, metric)),
      ...clustered,
    }, options);
  }
  return chooseInterval(
    { kind: design.kind, values: present.map((r) => r.values[metric]!), ...clustered },
    options,
  );
}

/** Returns the estimate part of a chosen interval (what `summary.json` holds per cell). */
function estimateOf(chosen: ChosenInterval): Estimate {
  return { value: chosen.value, ci95: chosen.ci95, n: chosen.n };
}

/** Returns the most judge repeats of one row of `metric`. */
function mostRepeats(rows: readonly SampleRow[], metric: string): number {
  let most = 0;
  for (const row of withValue(rows, metric)) most = Math.max(most, row.repeats?.[metric]?.length ?? 1);
  return most;
}

/** Returns the summary's record of how `metric`'s intervals were computed. */
function intervalInfo(
  rows: readonly SampleRow[],
  metric: string,
  design: MetricDesign,
  overall: ChosenInterval,
  groupMethods: ReadonlySet<string>,
): IntervalInfo {
  const others = [...groupMethods].filter((m) => m !== overall.method);
  return {
    kind: design.kind,
    method: overall.method,
    n: overall.n,
    ...(design.clusters ? { clusters: overall.clusters ?? 0 } : {}),
    ...(design.kind === "judged mean" ? { repeats: mostRepeats(rows, metric) } : {}),
    ...(others.length ? { group_methods: others } : {}),
  };
}

/**
 * Returns the sample ids of each value of `field` (null values left out). Groups are ordered by `order` when
 * given, else by first appearance.
 */
function groupIds(
  rows: readonly SampleRow[],
  field: string,
  order: readonly string[] = [],
): Map<string, string[]> {
  const present = rows.filter((r) => r.fields[field] !== null && r.fields[field] !== undefined);
  const byKey = Map.groupBy(present, (r) => String(r.fields[field]));
  const keys = [...order.filter((k) => byKey.has(k)), ...[...byKey.keys()].filter((k) => !order.includes(k))];
  return new Map(keys.map((key) => [key, byKey.get(key)!.map((r) => r.id)]));
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
  const byId = new Map(rows.map((r) => [r.id, r]));
  const designs = new Map(metricNames.map((m) => [m, metricDesign(rows, m, options)]));
  const used = new Map(metricNames.map((m) => [m, new Set<string>()]));
  const groups: Summary["groups"] = {};
  for (const field of groupFields) {
    groups[field] = {};
    for (const [key, ids] of groupIds(rows, field, options.order?.[field])) {
      const members = ids.map((id) => byId.get(id)!);
      const cell: Record<string, Estimate> = {};
      for (const metric of metricNames) {
        const chosen = estimateMetric(
          members,
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
    const overall = estimateMetric(rows, metric, design, `${options.seed}:all:${metric}`);
    metrics[metric] = estimateOf(overall);
    intervals[metric] = intervalInfo(rows, metric, design, overall, used.get(metric)!);
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
