/**
 * The comparison of several models (or conditions) on the same items, metric by metric, overall and in every
 * group of every group field: each model's mean with the interval its summary would give it, its bootstrap
 * rank interval, every pair's paired difference and test with Holm and Benjamini–Hochberg adjusted p-values
 * over the pairs of one table (overall, or one group field), and the compact letter display those Holm
 * p-values give.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { MetricDisplay } from "../core/report_spec.ts";
import type { Estimate, SampleRow } from "../core/summary.ts";
import { estimateMetric, type MetricDesign, metricDesign } from "../report/summary.ts";
import { orderedKeys } from "../report/tables.ts";
import { compactLetterDisplay } from "../stats/letters.ts";
import { benjaminiHochbergAdjust, holmAdjust } from "../stats/multiplicity.ts";
import { bootstrapRankIntervals, type RankInterval } from "../stats/rank_intervals.ts";
import { higherIsBetter } from "./direction.ts";
import type { CompareEntry, CompareSet } from "./entries.ts";
import { type SharedItems, sharedItems } from "./items.ts";
import { comparePair, type ItemClusters, type PairResult } from "./pairwise.ts";

/** Significance level of the letters (two models share a letter unless their Holm-adjusted p is at most it). */
export const LETTER_ALPHA = 0.05;

/** One model in one table: its mean with interval, rank interval and letters. */
export interface ModelResult {
  /** Entry label. */
  label: string;
  /** Mean over the table's items with its 95% interval and n. */
  estimate: Estimate;
  /** How the interval was computed (as the summaries name it). */
  interval: string;
  /** Rank on these items and its 95% bootstrap interval. */
  rank: Pick<RankInterval, "rank" | "ranks" | "of" | "label">;
  /** Compact letters: models sharing a letter are not significantly different (Holm-adjusted). */
  letters: string;
}

/** The models and pairs of one scope: all items, or one group of a field. */
export interface ScopeResult {
  /** Group field, or `null` for all items. */
  field: string | null;
  /** Group key, or `null` for all items. */
  group: string | null;
  /** Items: samples of the scope with a value in every entry. */
  n: number;
  /** Every entry, in entry order. */
  models: ModelResult[];
  /** Every pair (A earlier than B in entry order). */
  pairs: PairResult[];
}

/** One metric compared. */
export interface MetricResult {
  /** The metric and how it is shown. */
  metric: MetricDisplay;
  /** `true` when every value is 0 or 1 (McNemar), else graded (Wilcoxon). */
  binary: boolean;
  /** `false` for error rates, where the lowest ranks first. */
  higherIsBetter: boolean;
  /** All shared items (its pairs are one family). */
  overall: ScopeResult;
  /** Per group field, its groups (the pairs of all groups of a field are one family). */
  fields: { field: string; scopes: ScopeResult[] }[];
}

/** A whole comparison. */
export interface Comparison {
  /** Benchmark name. */
  benchmark: string;
  /** Benchmark title. */
  title: string;
  /** The entries, in order. */
  entries: (Omit<CompareEntry, "rows"> & { samples: number })[];
  /** Samples every entry has (by id). */
  items: number;
  /** Significance level of the letters. */
  alpha: number;
  /** The metrics compared. */
  metrics: MetricResult[];
  /** Metrics of the report (or asked for) that no shared sample has a value of in every entry. */
  skipped: string[];
}

/** Options of {@linkcode compareModels}. */
export interface CompareOptions {
  /** Metrics to compare, by name (default the benchmark's report metrics). */
  metrics?: readonly string[];
  /** Metrics compared besides those, when the rows carry them (e.g. the metrics paper tables map to). */
  alsoMetrics?: readonly string[];
  /** Seed text of every bootstrap (default `compare`). */
  seed?: string;
}

/** Returns the numeric metrics the rows of `entries` carry, in first-seen order. */
function rowMetrics(entries: readonly CompareEntry[]): string[] {
  const names = new Set<string>();
  for (const entry of entries) {
    for (const row of entry.rows) {
      for (const [name, value] of Object.entries(row.values)) if (typeof value === "number") names.add(name);
    }
  }
  return [...names];
}

/**
 * Returns how each metric to compare is shown: `names` (a metric the rows lack is a one-line ConfigError), else
 * the report's metrics; then each of `also` the rows carry and the list lacks.
 */
function chosenMetrics(
  set: CompareSet,
  names: readonly string[] | undefined,
  also: readonly string[] = [],
): MetricDisplay[] {
  const carried = rowMetrics(set.entries);
  const display = (name: string) =>
    set.task.report.metrics.find((m) => m.name === name) ?? { name, label: name, percent: false };
  const chosen = names ? [...names] : set.task.report.metrics.map((m) => m.name);
  const extra = also.filter((m) => carried.includes(m) && !chosen.includes(m));
  for (const name of names ?? []) {
    if (!carried.includes(name)) {
      throw new ConfigError(
        `--metric ${name}: the runs' rows have no metric "${name}"; they have ${
          carried.join(", ") || "none"
        }`,
      );
    }
  }
  return [...chosen, ...new Set(extra)].map(display);
}

/** Per entry, its rows by sample id. */
type RowMaps = Map<string, SampleRow>[];

/** Returns the values of `metric` on `ids` from one entry's rows (every id has a value). */
function valuesOf(rows: Map<string, SampleRow>, ids: readonly string[], metric: string): number[] {
  return ids.map((id) => rows.get(id)!.values[metric]!);
}

/** Returns the scope's models and pairs (pairs not yet adjusted, letters not yet given). */
function scopeOf(
  set: CompareSet,
  maps: RowMaps,
  designs: readonly MetricDesign[],
  metric: MetricDisplay,
  binary: boolean,
  scope: { field: string | null; group: string | null; ids: string[] },
  seed: string,
): ScopeResult {
  const where = scope.field === null ? "all" : `${scope.field}=${scope.group}`;
  const base = `${seed}:${set.task.name}:${metric.name}:${where}`;
  const higher = higherIsBetter(set.task.name, metric.name);
  const values = set.entries.map((_, e) => valuesOf(maps[e], scope.ids, metric.name));
  const ranks = bootstrapRankIntervals(
    set.entries.map((entry, e) => ({ model: entry.label, values: values[e] })),
    { seed: `${base}:ranks`, higherIsBetter: higher },
  );
  const models = set.entries.map((entry, e) => {
    const rows = scope.ids.map((id) => maps[e].get(id)!);
    const chosen = estimateMetric(rows, metric.name, designs[e], `${base}:${entry.label}`);
    const { rank, ranks: interval, of, label } = ranks[e];
    return {
      label: entry.label,
      estimate: { value: chosen.value, ci95: chosen.ci95, n: chosen.n },
      interval: chosen.method,
      rank: { rank, ranks: interval, of, label },
      letters: "",
    };
  });
  const design = designs[0];
  const clusters: ItemClusters | undefined = design.clusters
    ? { ids: scope.ids.map((id) => maps[0].get(id)!.cluster ?? `\u0000${id}`), names: design.clusters }
    : undefined;
  const pairs: PairResult[] = [];
  set.entries.forEach((a, i) => {
    set.entries.slice(i + 1).forEach((b, k) => {
      const j = i + 1 + k;
      pairs.push(comparePair(
        { label: a.label, values: values[i] },
        { label: b.label, values: values[j] },
        { binary, seed: `${base}:${a.label}|${b.label}`, ...(clusters ? { clusters } : {}) },
      ));
    });
  });
  return { field: scope.field, group: scope.group, n: scope.ids.length, models, pairs };
}

/**
 * Adjusts the p-values of every pair of `scopes` as one family (Holm and Benjamini–Hochberg), then gives each
 * scope its letters from the Holm-adjusted p-values at {@linkcode LETTER_ALPHA}.
 */
function adjustFamily(scopes: readonly ScopeResult[], higher: boolean): void {
  const pairs = scopes.flatMap((s) => s.pairs);
  const raw = pairs.map((p) => p.p);
  const holm = holmAdjust(raw);
  const bh = benjaminiHochbergAdjust(raw);
  pairs.forEach((pair, i) => {
    pair.pHolm = holm[i];
    pair.pBh = bh[i];
  });
  for (const scope of scopes) {
    const significant = scope.pairs.filter((p) => p.pHolm <= LETTER_ALPHA).map((p) => [p.a, p.b] as const);
    const letters = compactLetterDisplay(
      scope.models.map((m) => ({ model: m.label, mean: m.estimate.value ?? 0 })),
      significant,
      { higherIsBetter: higher },
    );
    const byLabel = new Map(letters.map((l) => [l.model, l.letters]));
    for (const model of scope.models) model.letters = byLabel.get(model.label) ?? "";
  }
}

/**
 * Returns `true` when a metric's values are 0/1 (tested by McNemar): only 0s and 1s, and the metric declared a
 * proportion, shown in % (a rate), or holding both values (a 1–5 score that is 1 everywhere is not a rate).
 */
function isBinary(values: readonly number[], metric: MetricDisplay): boolean {
  if (!values.every((v) => v === 0 || v === 1)) return false;
  return metric.proportion === true || metric.percent || (values.includes(0) && values.includes(1));
}

/** Returns the metric's comparison, or `undefined` when no shared item has a value in every entry. */
function compareMetric(
  set: CompareSet,
  maps: RowMaps,
  items: SharedItems,
  metric: MetricDisplay,
  seed: string,
): MetricResult | undefined {
  const ids = items.ids.filter((id) => maps.every((m) => typeof m.get(id)!.values[metric.name] === "number"));
  if (ids.length === 0) return undefined;
  const binary = isBinary(maps.flatMap((m) => ids.map((id) => m.get(id)!.values[metric.name]!)), metric);
  const proportions = set.task.report.metrics.filter((m) => m.proportion).map((m) => m.name);
  const designs = maps.map((m) =>
    metricDesign(ids.map((id) => m.get(id)!), metric.name, {
      proportions,
      ...(set.task.clusters ? { clusters: set.task.clusters } : {}),
    })
  );
  const higher = higherIsBetter(set.task.name, metric.name);
  const overall = scopeOf(set, maps, designs, metric, binary, { field: null, group: null, ids }, seed);
  adjustFamily([overall], higher);
  const first = maps[0];
  const fields = set.task.groupFields.map((field) => {
    const keyOf = (id: string) => {
      const value = first.get(id)!.fields[field];
      return value === null || value === undefined ? undefined : String(value);
    };
    const keys = orderedKeys(ids.map(keyOf).filter((k) => k !== undefined), field, set.task.report.groups);
    const scopes = keys.map((group) =>
      scopeOf(set, maps, designs, metric, binary, {
        field,
        group,
        ids: ids.filter((id) => keyOf(id) === group),
      }, seed)
    );
    adjustFamily(scopes, higher);
    return { field, scopes };
  }).filter((f) => f.scopes.length > 0);
  return { metric, binary, higherIsBetter: higher, overall, fields };
}

/**
 * Compares the entries of `set` on the samples they all have (by id): for each metric (default the
 * benchmark's report metrics the rows carry), overall and per group of each group field, on the items with a
 * value in every entry. Throws a one-line {@linkcode ConfigError} when the entries share no sample or a metric
 * asked for is not in the rows.
 */
export function compareModels(set: CompareSet, options: CompareOptions = {}): Comparison {
  const items = sharedItems(set.entries);
  const metrics = chosenMetrics(set, options.metrics, options.alsoMetrics);
  const maps = set.entries.map((e) => new Map(e.rows.map((r) => [r.id, r])));
  const seed = options.seed ?? "compare";
  const results: MetricResult[] = [];
  const skipped: string[] = [];
  for (const metric of metrics) {
    const result = compareMetric(set, maps, items, metric, seed);
    if (result) results.push(result);
    else skipped.push(metric.name);
  }
  return {
    benchmark: set.task.name,
    title: set.task.title,
    entries: set.entries.map(({ rows, ...entry }, i) => ({
      ...entry,
      samples: items.counts[i] ?? rows.length,
    })),
    items: items.ids.length,
    alpha: LETTER_ALPHA,
    metrics: results,
    skipped,
  };
}
