/**
 * Intervals for a mean over clustered values (the rounds of one conversation, the variants of one question):
 * the cluster bootstrap, which resamples whole clusters, and Miller's clustered standard error with a t
 * interval. Both count clusters, not values, as the independent units.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { percentileInterval, RESAMPLES } from "./bootstrap.ts";
import { tQuantile } from "./distributions.ts";
import { expandedPercentileLevel } from "./expanded_percentile.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** A cluster identifier (conversation id, question id, examinee). */
export type ClusterId = string | number;

/** Values summed per cluster, in the order the clusters first appear. */
export interface ClusterTotals {
  /** Sum of the values of each cluster. */
  sums: number[];
  /** Number of values of each cluster. */
  counts: number[];
}

/** Options of {@linkcode clusterBootstrapMean}. */
export interface ClusterBootstrapOptions {
  /** Seed text; the same text gives the same interval. */
  seed: string;
  /** Number of resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/**
 * Returns the sum and count of values per cluster, clusters in order of first appearance. Throws if `values`
 * and `clusters` differ in length or a value is not a finite number.
 */
export function clusterTotals(values: readonly number[], clusters: readonly ClusterId[]): ClusterTotals {
  if (values.length !== clusters.length) {
    throw new Error(`clusterTotals: ${values.length} values but ${clusters.length} cluster ids`);
  }
  const index = new Map<ClusterId, number>();
  const sums: number[] = [], counts: number[] = [];
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) throw new Error(`clusterTotals: value ${i} is not a finite number: ${v}`);
    let k = index.get(clusters[i]);
    if (k === undefined) {
      k = sums.length;
      index.set(clusters[i], k);
      sums.push(0);
      counts.push(0);
    }
    sums[k] += v;
    counts[k]++;
  });
  return { sums, counts };
}

/** Returns Σ sums / Σ counts (the mean of all values: a ratio estimator over clusters). */
function ratioMean(totals: ClusterTotals): number {
  let s = 0, m = 0;
  for (let k = 0; k < totals.sums.length; k++) {
    s += totals.sums[k];
    m += totals.counts[k];
  }
  return s / m;
}

/**
 * Returns the mean of all values with a cluster-bootstrap 95% interval: each resample draws C clusters with
 * replacement (C = number of clusters) and takes the mean of all values in them (Σ sums / Σ counts, so large
 * clusters weigh more, as they do in the estimate). The interval is read from the resampled means at
 * Hesterberg's expanded level for m = C ({@linkcode expandedPercentileLevel}), which corrects the plain
 * percentile interval's under-coverage when clusters are few (C/(C−1) and t_{C−1}; at C = 10 the plain one
 * covers about 89%, see docs/statistics.md). n = number of values; `ci95` is `null` with fewer than 2 clusters.
 */
export function clusterBootstrapMean(
  values: readonly number[],
  clusters: readonly ClusterId[],
  options: ClusterBootstrapOptions,
): Estimate {
  const totals = clusterTotals(values, clusters);
  const n = values.length;
  const c = totals.sums.length;
  if (n === 0) return { value: null, ci95: null, n: 0 };
  const value = ratioMean(totals);
  if (c < 2) return { value, ci95: null, n };
  const random = mulberry32(seedFrom(options.seed));
  const means = new Float64Array(options.resamples ?? RESAMPLES);
  for (let b = 0; b < means.length; b++) {
    let s = 0, m = 0;
    for (let j = 0; j < c; j++) {
      const k = Math.floor(random() * c);
      s += totals.sums[k];
      m += totals.counts[k];
    }
    means[b] = s / m;
  }
  return { value, ci95: percentileInterval(means, expandedPercentileLevel(c)), n };
}

/**
 * Returns the clustered standard error of the mean of all values: √(C/(C−1) · Σ_c (S_c − m_c·ȳ)²) / N, with
 * S_c and m_c the sum and size of cluster c, ȳ the mean and N the number of values. This is Miller (2024,
 * "Adding error bars to evals", Appendix A) with the small-sample factor C/(C−1) that inspect_ai's
 * `stderr(cluster=)` applies; for equal cluster sizes it is the standard error of the C cluster means. NaN
 * with fewer than 2 clusters.
 */
export function clusteredStandardError(totals: ClusterTotals): number {
  const c = totals.sums.length;
  if (c < 2) return NaN;
  const mean = ratioMean(totals);
  let squares = 0, n = 0;
  for (let k = 0; k < c; k++) {
    squares += (totals.sums[k] - totals.counts[k] * mean) ** 2;
    n += totals.counts[k];
  }
  return Math.sqrt((c / (c - 1)) * squares) / n;
}

/**
 * Returns the mean of all values with the interval ȳ ± t_{C−1, 0.975} · {@linkcode clusteredStandardError}
 * (deterministic, no resampling). n = number of values; `ci95` is `null` with fewer than 2 clusters.
 */
export function clusteredTInterval(values: readonly number[], clusters: readonly ClusterId[]): Estimate {
  const totals = clusterTotals(values, clusters);
  const n = values.length;
  const c = totals.sums.length;
  if (n === 0) return { value: null, ci95: null, n: 0 };
  const value = ratioMean(totals);
  if (c < 2) return { value, ci95: null, n };
  const half = tQuantile(0.975, c - 1) * clusteredStandardError(totals);
  return { value, ci95: [value - half, value + half], n };
}
