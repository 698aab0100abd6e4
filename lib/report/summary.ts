/**
 * The summary of a run: every metric with its n and 95% bootstrap CI, overall and per group. Its zod schema
 * is the contract of `summary.json`.
 * @module
 */
import { z } from "zod";
import type { GroupValue } from "../core/sample.ts";
import type { RunLabels } from "../core/task.ts";
import { bootstrapMean, type Estimate } from "../stats/bootstrap.ts";

/** zod schema of an {@linkcode Estimate}. */
export const EstimateSchema = z.object({
  value: z.number().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  n: z.number().int().min(0),
});

/** zod schema of `summary.json`. Rates are fractions in [0, 1]. */
export const SummarySchema = z.object({
  benchmark: z.string(),
  model: z.string(),
  judge: z.string().nullable(),
  condition: z.string(),
  offline: z.boolean(),
  judge_runs: z.number().int().min(0),
  n: z.number().int().min(0),
  metrics: z.record(z.string(), EstimateSchema),
  groups: z.record(z.string(), z.record(z.string(), z.record(z.string(), EstimateSchema))),
  counts: z.record(z.string(), z.number()),
  ci_method: z.string(),
  notes: z.array(z.string()),
});

/** The content of `summary.json`. */
export type Summary = z.infer<typeof SummarySchema>;

/** One sample's contribution to the metrics: its group values and its value per metric (`null` = excluded). */
export interface SampleRow {
  /** Sample id. */
  id: string;
  /** Values the sample is grouped by. */
  fields: Record<string, GroupValue>;
  /** Per-metric value: 0/1 for rates, a number for means, `null` when the sample does not count for it. */
  values: Record<string, number | null>;
}

/** Returns the label fields every summary starts with (benchmark, model, judge, condition, offline, judge runs). */
export function summaryLabels(
  labels: RunLabels,
): Pick<Summary, "benchmark" | "model" | "judge" | "condition" | "offline" | "judge_runs"> {
  return {
    benchmark: labels.benchmark,
    model: labels.model,
    judge: labels.judge,
    condition: labels.condition,
    offline: labels.offline,
    judge_runs: labels.judgeRuns,
  };
}

/** Returns how a summary is named in tables and legends: model, condition unless `default`, `[offline]`. */
export function summaryName(summary: Pick<Summary, "model" | "condition" | "offline">): string {
  const condition = summary.condition === "default" ? "" : ` · ${summary.condition}`;
  return `${summary.model}${condition}${summary.offline ? " [offline]" : ""}`;
}

/** How CIs are computed, written into every summary. */
export const CI_METHOD = "percentile bootstrap over samples, 2000 resamples, seeded";

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
