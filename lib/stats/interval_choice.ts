/**
 * Picks and computes the 95% interval of a metric from what the metric is: a proportion, a mean over clusters,
 * a judge-scored mean with judge repeats (clustered or not), or a plain mean.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { wilsonInterval } from "./agreement.ts";
import { bootstrapMean } from "./bootstrap.ts";
import { clopperPearsonInterval } from "./clopper_pearson.ts";
import { clusterBootstrapMean, type ClusterId, clusterTotals } from "./cluster_bootstrap.ts";
import { clusterRepeatsBootstrapMean } from "./cluster_repeats_bootstrap.ts";
import { expandedPercentileLevel } from "./expanded_percentile.ts";
import { twoLevelBootstrapMean } from "./two_level_bootstrap.ts";

/** Below this many values a proportion gets the Clopper–Pearson interval instead of Wilson's. */
export const SMALL_SAMPLE = 30;

/** Values that may come in clusters (several values of one conversation, dialogue or case). */
interface ClusterableValues {
  /** One value per sample. */
  values: readonly number[];
  /** The cluster of each value (same length as `values`); without it every value is its own unit. */
  clusters?: readonly ClusterId[];
  /** What a cluster is, for the method's name, e.g. `"conversations"` (default `"clusters"`). */
  clusterName?: string;
}

/** A rate: every value is 0 or 1. */
export interface ProportionMetric extends ClusterableValues {
  kind: "proportion";
}

/** A mean of any numbers (1–5 scores, ROUGE-1, a per-item difference between two conditions). */
export interface MeanMetric extends ClusterableValues {
  kind: "mean";
}

/**
 * A mean of judge scores, each item scored several times by the judge: one row of repeats per item, the items
 * possibly in clusters (the rounds of a conversation).
 */
export interface JudgedMeanMetric {
  kind: "judged mean";
  /** The judge's scores of each item, one entry per repeat (at least one). */
  repeats: readonly (readonly number[])[];
  /** The cluster of each item (same length as `repeats`); without it every item is its own unit. */
  clusters?: readonly ClusterId[];
  /** What a cluster is, for the method's name, e.g. `"conversations"` (default `"clusters"`). */
  clusterName?: string;
}

/** What a metric is, which decides its interval. */
export type MetricData = ProportionMetric | MeanMetric | JudgedMeanMetric;

/** Options of {@linkcode chooseInterval}. */
export interface IntervalChoiceOptions {
  /** Seed text of the bootstraps; the same text gives the same interval. */
  seed: string;
  /** Bootstrap resamples (default 2,000). */
  resamples?: number;
}

/** An estimate with the interval method that produced it. */
export interface ChosenInterval extends Estimate {
  /** Short human name of the method, for a table's footnote (e.g. `"Wilson"`). */
  method: string;
  /** Number of clusters, when the values are clustered. */
  clusters?: number;
}

/** Throws unless every value is 0 or 1. */
function checkBinary(values: readonly number[]): void {
  const i = values.findIndex((v) => v !== 0 && v !== 1);
  if (i >= 0) throw new Error(`chooseInterval: a proportion's values are 0 or 1, value ${i} is ${values[i]}`);
}

/** Returns the Wilson interval, or Clopper–Pearson below {@linkcode SMALL_SAMPLE} values, of 0/1 values. */
function proportionInterval(values: readonly number[]): ChosenInterval {
  const n = values.length;
  const successes = values.reduce((sum, v) => sum + v, 0);
  const value = n === 0 ? null : successes / n;
  if (n < SMALL_SAMPLE) {
    return { value, ci95: clopperPearsonInterval(successes, n), n, method: "Clopper–Pearson" };
  }
  return { value, ci95: wilsonInterval(successes, n), n, method: "Wilson" };
}

/** Returns the cluster bootstrap of clustered values. */
function clusteredInterval(data: ClusterableValues, options: IntervalChoiceOptions): ChosenInterval {
  const clusters = clusterTotals(data.values, data.clusters!).sums.length;
  const estimate = clusterBootstrapMean(data.values, data.clusters!, options);
  return { ...estimate, method: `cluster bootstrap (${data.clusterName ?? "clusters"})`, clusters };
}

/**
 * Returns the interval of a clustered rate: the cluster bootstrap, except at 0% or 100%, where every cluster
 * resample is the point; there the proportion rule is applied to the clusters, each counted once (method
 * "<Wilson or Clopper–Pearson> over <clusterName>"). That is conservative: the effective sample size of
 * clustered 0/1 values, n / (1 + (m̄ − 1)ρ), is at least n / m̄, the number of clusters, for ρ ≤ 1.
 */
function clusteredRateInterval(data: ClusterableValues, options: IntervalChoiceOptions): ChosenInterval {
  const { values } = data;
  if (values.length === 0 || values.some((v) => v !== values[0])) return clusteredInterval(data, options);
  const clusters = clusterTotals(values, data.clusters!).sums.length;
  const byCluster = proportionInterval(Array(clusters).fill(values[0]));
  const method = `${byCluster.method} over ${data.clusterName ?? "clusters"}`;
  return { ...byCluster, n: values.length, method, clusters };
}

/**
 * Returns the interval of a judge-scored mean: with clusters, the cluster bootstrap of clusters then judge
 * repeats (or of the item scores, when no item was scored twice); without, the two-level bootstrap (or the
 * expanded percentile bootstrap of the scores).
 */
function judgedMeanInterval(data: JudgedMeanMetric, options: IntervalChoiceOptions): ChosenInterval {
  const repeated = data.repeats.some((item) => item.length >= 2);
  if (data.clusters && repeated) {
    const { value, ci95, n, clusters } = clusterRepeatsBootstrapMean(data.repeats, data.clusters, options);
    return {
      value,
      ci95,
      n,
      method: `cluster bootstrap (${data.clusterName ?? "clusters"}, judge repeats)`,
      clusters,
    };
  }
  if (repeated) {
    const { value, ci95, n } = twoLevelBootstrapMean(data.repeats, options);
    return { value, ci95, n, method: "two-level bootstrap (items, judge repeats)" };
  }
  if (data.repeats.some((item) => item.length === 0)) {
    throw new Error("chooseInterval: every item of a judged mean needs at least one score");
  }
  const values = data.repeats.map((item) => item[0]);
  if (data.clusters) return clusteredInterval({ ...data, values }, options);
  return plainMeanInterval(values, options);
}

/** Returns the expanded percentile bootstrap of independent values (`ci95` `null` for fewer than 2). */
function plainMeanInterval(values: readonly number[], options: IntervalChoiceOptions): ChosenInterval {
  const method = "percentile bootstrap";
  if (values.length < 2) {
    const estimate = bootstrapMean(values, options);
    return { ...estimate, ci95: null, method };
  }
  const level = expandedPercentileLevel(values.length);
  return { ...bootstrapMean(values, { ...options, level }), method };
}

/**
 * Returns the metric's value with the 95% interval that fits what it is:
 *
 * - values with cluster ids (a proportion or a mean): the cluster bootstrap, clusters resampled
 *   ({@linkcode clusterBootstrapMean}), method "cluster bootstrap (<clusterName>)", with `clusters`; a clustered
 *   rate of 0% or 100% gets the proportion rule over its clusters, each counted once (method "Clopper–Pearson
 *   over <clusterName>" or "Wilson over <clusterName>"; n = values, with `clusters`);
 * - a judge-scored mean in clusters with at least one item scored twice: clusters then judge repeats
 *   ({@linkcode clusterRepeatsBootstrapMean}), method "cluster bootstrap (<clusterName>, judge repeats)",
 *   n = items, with `clusters`;
 * - a proportion: Wilson's score interval, or Clopper–Pearson (exact) with fewer than {@linkcode SMALL_SAMPLE}
 *   values: there Wilson's coverage dips to 84–90% for rates within a few points of 0 or 1, while
 *   Clopper–Pearson's never falls below 95% (it is conservative: 97–98% on average);
 * - a judge-scored mean with at least one item scored twice: the two-level bootstrap, items then judge repeats
 *   ({@linkcode twoLevelBootstrapMean}), method "two-level bootstrap (items, judge repeats)", n = items;
 * - any other mean (a judged mean with one score per item is the mean of those scores, clustered or not): the
 *   cluster bootstrap with cluster ids, else the percentile bootstrap of `bootstrapMean`, read at
 *   Hesterberg's expanded level for n values.
 *
 * Every bootstrap is seeded by `options.seed`. Throws if a proportion has a value other than 0 or 1, an item
 * of a judged mean has no score, or the cluster ids do not match the values (items) in number.
 */
export function chooseInterval(data: MetricData, options: IntervalChoiceOptions): ChosenInterval {
  if (data.kind === "judged mean") return judgedMeanInterval(data, options);
  if (data.kind === "proportion") {
    checkBinary(data.values);
    return data.clusters ? clusteredRateInterval(data, options) : proportionInterval(data.values);
  }
  if (data.clusters) return clusteredInterval(data, options);
  return plainMeanInterval(data.values, options);
}
