/**
 * Summaries computed from per-sample rows: every metric with its n and 95% bootstrap CI, overall and per value
 * of each group field.
 * @module
 */
import type { Estimate, SampleRow, Summary } from "../core/summary.ts";
import type { RunView } from "../core/task.ts";
import { bootstrapMean } from "../stats/bootstrap.ts";

/** Returns each metric's estimate over `rows` (bootstrap seeded by `seed` and the metric name). */
function estimateMetrics(
  rows: readonly SampleRow[],
  metricNames: readonly string[],
  seed: string,
): Record<string, Estimate> {
  const out: Record<string, Estimate> = {};
  for (const metric of metricNames) {
    const values = rows.map((r) => r.values[metric]).filter((v): v is number =>
      v !== null && v !== undefined
    );
    out[metric] = bootstrapMean(values, { seed: `${seed}:${metric}` });
  }
  return out;
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

/** Returns `{ n, metrics, groups }` of a summary: estimates overall and per value of each group field. */
export function summarize(
  rows: readonly SampleRow[],
  metricNames: readonly string[],
  groupFields: readonly string[],
  options: { seed: string; order?: Record<string, readonly string[]> },
): Pick<Summary, "n" | "metrics" | "groups"> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const groups: Summary["groups"] = {};
  for (const field of groupFields) {
    groups[field] = {};
    for (const [key, ids] of groupIds(rows, field, options.order?.[field])) {
      const members = ids.map((id) => byId.get(id)!);
      groups[field][key] = estimateMetrics(members, metricNames, `${options.seed}:${field}=${key}`);
    }
  }
  return { n: rows.length, metrics: estimateMetrics(rows, metricNames, `${options.seed}:all`), groups };
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
