/**
 * The summary of a run: every metric with its n and 95% CI, overall and per group. Its zod schema is the
 * contract of `summary.json`.
 * @module
 */
import { z } from "zod";
import type { GroupValue } from "./sample.ts";

/** A point estimate with its sample size and 95% confidence interval. */
export interface Estimate {
  /** The statistic on the full sample; `null` when there is no data. */
  value: number | null;
  /** 95% interval `[lo, hi]`; `null` when there is no data. */
  ci95: [number, number] | null;
  /** Number of observations the estimate rests on. */
  n: number;
}

/** Labels written into every summary, so offline results can never pass for model results. */
export interface RunLabels {
  /** Benchmark name. */
  benchmark: string;
  /** Model label. */
  model: string;
  /** Judge label (judges joined by ` + ` for a jury), or `null` for benchmarks without one. */
  judge: string | null;
  /** Experimental condition. */
  condition: string;
  /** `true` when the model or a judge is an offline stand-in. */
  offline: boolean;
  /** Judge runs per answer. */
  judgeRuns: number;
}

/** zod schema of an {@linkcode Estimate}. */
export const EstimateSchema = z.object({
  value: z.number().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  n: z.number().int().min(0),
});

/** The kinds of metric an interval is chosen for (`lib/stats/interval_choice.ts`). */
export const METRIC_KINDS = ["proportion", "mean", "judged mean"] as const;

/**
 * zod schema of how one metric's intervals were computed (`summary.intervals`), written once per metric: the
 * kind it was declared or found to be, the method of its overall interval (as `chooseInterval` names it), the
 * items (and clusters) that interval rests on, and any other method a group needed.
 */
export const IntervalInfoSchema = z.object({
  /** `proportion` (0/1 by declaration), `judged mean` (rows carry judge repeats), else `mean`. */
  kind: z.enum(METRIC_KINDS),
  /** Method of the overall interval, e.g. `Wilson`, `cluster bootstrap (conversations)`. */
  method: z.string(),
  /** Items with a value (the overall estimate's n). */
  n: z.number().int().min(0),
  /** Clusters among those items, when the metric's intervals resample clusters. */
  clusters: z.number().int().min(0).optional(),
  /** Most judge repeats of one item, when the rows carry repeats (more than one run). */
  repeats: z.number().int().min(0).optional(),
  /** Methods some groups used instead of `method` (Clopper–Pearson for a group of fewer than 30, ...). */
  group_methods: z.array(z.string()).optional(),
});

/** How one metric's intervals were computed, as `summary.intervals` holds it. */
export type IntervalInfo = z.infer<typeof IntervalInfoSchema>;

/** zod schema of what a summary's clusters are (`summary.clustered_by`). */
export const ClusterNamesSchema = z.object({
  /** What a cluster is, plural, e.g. `conversations`. */
  name: z.string().min(1),
  /** What the clustered items are, plural, e.g. `rounds`. */
  unit: z.string().min(1),
});

/** What a task's clusters and their members are called (plural nouns, for footnotes). */
export type ClusterNames = z.infer<typeof ClusterNamesSchema>;

/** zod schema of one row of a summary's token and cost accounting. */
export const UsageRowSchema = z.object({
  role: z.string(),
  model: z.string(),
  batch: z.boolean(),
  calls: z.number().int().min(0),
  /** Prompt tokens reported; `null` (unknown) when no call of the row reported usage. */
  prompt_tokens: z.number().int().min(0).nullable(),
  /** Completion tokens reported; `null` (unknown) when no call of the row reported usage. */
  completion_tokens: z.number().int().min(0).nullable(),
  /** Calls whose server reported no token usage (not counted in the tokens). */
  calls_without_usage: z.number().int().min(0),
  /** Cost in `currency`; `null` when the model has no price or some call reported no usage (unknown). */
  cost: z.number().nullable(),
  currency: z.string(),
});

/** One row of a summary's token and cost accounting (calls of one role and model in one condition). */
export type UsageRow = z.infer<typeof UsageRowSchema>;

const Count = z.number().int().min(0);

/** zod schema of one role and model's answer outcomes (`summary.outcomes_by_role`). */
export const RoleOutcomeSchema = z.object({
  role: z.string(),
  model: z.string(),
  calls: Count,
  truncated: Count,
  refused: Count,
  empty: Count,
  context_errors: Count,
  failed: Count,
  judge_errors: Count.optional(),
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
  /**
   * `false` when some samples are not scored yet (not asked, not judged, or failed for good; counted in
   * `counts`): rates then count the scored samples only. Absent in summaries of earlier versions.
   */
  complete: z.boolean().optional(),
  metrics: z.record(z.string(), EstimateSchema),
  groups: z.record(z.string(), z.record(z.string(), z.record(z.string(), EstimateSchema))),
  counts: z.record(z.string(), z.number()),
  ci_method: z.string(),
  /**
   * How each metric's intervals were computed (kind, method, items, clusters, judge repeats). Absent in
   * summaries of earlier versions, whose every interval is `ci_method`'s percentile bootstrap.
   */
  intervals: z.record(z.string(), IntervalInfoSchema).optional(),
  /** What the task's clusters are, when some metric's intervals resample them. */
  clustered_by: ClusterNamesSchema.optional(),
  notes: z.array(z.string()),
  juries: z.array(z.lazy(() => JurySchema)).optional(),
  agreement: z.array(z.lazy(() => RaterAgreementSchema)).optional(),
  /** Tokens and cost of the calls this condition made, by role and model. */
  usage: z.array(UsageRowSchema).optional(),
  /** How the answers of each role and model ended (truncated, refused, empty, context-limit errors). */
  outcomes_by_role: z.array(RoleOutcomeSchema).optional(),
});

/** The content of `summary.json`. */
export type Summary = z.infer<typeof SummarySchema>;

/**
 * One sample's contribution to the metrics: its group values, its value per metric (`null` = excluded), and
 * what the interval choice needs beyond the values: the sample's cluster and its judge repeats.
 */
export interface SampleRow {
  /** Sample id. */
  id: string;
  /** Values the sample is grouped by. */
  fields: Record<string, GroupValue>;
  /** Per-metric value: 0/1 for rates, a number for means, `null` when the sample does not count for it. */
  values: Record<string, number | null>;
  /**
   * The cluster the sample belongs to under the task's clusters (`Task.clusters`: e.g. its conversation);
   * absent: a cluster of its own.
   */
  cluster?: string;
  /**
   * A judge-scored metric's value per judge run, for metrics judged more than once: their mean is the
   * metric's value (absent for a metric, or the whole field, when the judge ran once).
   */
  repeats?: Record<string, number[]>;
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

/** How CIs are computed, written into every summary (each metric's own method is in `summary.intervals`). */
export const CI_METHOD =
  "chosen per metric (intervals): Wilson for rates (Clopper–Pearson below 30), a cluster bootstrap over the " +
  "task's clusters, a two-level bootstrap (items, judge repeats) for judge scores run several times, else the " +
  "expanded percentile bootstrap; 2000 resamples, seeded";

/** zod schema of a jury's report in a summary: each judge's own estimates and how far the judges agree. */
export const JurySchema = z.object({
  scorer: z.string(),
  judges: z.array(z.string()),
  aggregate: z.enum(["mean", "majority", "majority-low"]),
  by_judge: z.record(z.string(), z.record(z.string(), EstimateSchema)),
  /** Method of the judges' mean intervals (absent in summaries of earlier versions: percentile bootstrap). */
  interval: z.string().optional(),
  agreement: z.object({
    level: z.enum(["nominal", "ordinal", "interval"]),
    alpha: EstimateSchema,
    all_agree: EstimateSchema,
  }),
});

/** zod schema of one pair of raters' agreement on one field (judge vs human, or human vs human). */
export const RaterAgreementSchema = z.object({
  field: z.string(),
  level: z.enum(["nominal", "ordinal"]),
  a: z.string(),
  b: z.string(),
  kind: z.enum(["judge-human", "human-human"]),
  percent: EstimateSchema,
  kappa: EstimateSchema,
  weighted_kappa: EstimateSchema.nullable(),
});

/** One pair of raters' agreement on one field, as `summary.json` holds it. */
export type RaterAgreement = z.infer<typeof RaterAgreementSchema>;

/** Returns the labels `summary` was computed with (what a benchmark's rows are computed with again). */
export function labelsOf(summary: Summary): RunLabels {
  return {
    benchmark: summary.benchmark,
    model: summary.model,
    judge: summary.judge,
    condition: summary.condition,
    offline: summary.offline,
    judgeRuns: summary.judge_runs,
  };
}
