/**
 * The cluster bootstrap of a judge-scored mean whose items come in clusters (the rounds of a conversation, each
 * judged several times): clusters are resampled, then each drawn item's judge repeats are resampled within it,
 * so both the dependence within a cluster and the judge's noise enter the interval, the noise counted once.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { percentileInterval, RESAMPLES } from "./bootstrap.ts";
import { type ClusterId, clusterTotals } from "./cluster_bootstrap.ts";
import { expandedPercentileLevel } from "./expanded_percentile.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** Options of {@linkcode clusterRepeatsBootstrapMean}. */
export interface ClusterRepeatsOptions {
  /** Seed text; the same text gives the same interval. */
  seed: string;
  /** Number of resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** A clustered judge-scored mean with its interval and how its variance splits. */
export interface ClusterRepeatsEstimate extends Estimate {
  /** Number of clusters. */
  clusters: number;
  /** Number of judge scores over all items. */
  scores: number;
  /**
   * Share of the clustered variance of the mean that is judge noise: Σ_i s²_i / r_i over the items (s²_i the
   * unbiased variance of item i's r_i repeats) divided by Σ_c (S_c − m_c·ȳ)² (S_c, m_c the sum of the item
   * means and the number of items of cluster c); 0 when no item has two repeats, capped at 1. `null` with
   * fewer than 2 clusters.
   */
  judgeShare: number | null;
}

/** Most repeats of an item whose r^r equally likely resampled means are listed in advance (4^4 = 256). */
const LISTED_REPEATS = 4;

/** One cluster as values to draw from: its adjusted total and what its items' repeats add when resampled. */
interface AdjustedCluster {
  /** m_c·ȳ + a·(S_c − m_c·ȳ): the cluster's total of item means, shrunk towards the mean. */
  centre: number;
  /** Number of items. */
  items: number;
  /** Per item with distinct repeats, at most {@linkcode LISTED_REPEATS}: its equally likely resampled means. */
  listed: Float64Array[];
  /** Per item with distinct repeats, more than {@linkcode LISTED_REPEATS}: d_i·(y_ij − ȳ_i) for each repeat j. */
  deviations: Float64Array[];
}

/** Returns the mean of `values`. */
function meanOf(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Throws unless every item has at least one repeat (each a finite number) and the cluster ids match in number. */
function checkInput(repeats: readonly (readonly number[])[], clusters: readonly ClusterId[]): void {
  if (repeats.length !== clusters.length) {
    throw new Error(
      `clusterRepeatsBootstrapMean: ${repeats.length} items but ${clusters.length} cluster ids`,
    );
  }
  repeats.forEach((item, i) => {
    if (item.length === 0) throw new Error(`clusterRepeatsBootstrapMean: item ${i} has no judge score`);
    item.forEach((v, j) => {
      if (!Number.isFinite(v)) {
        throw new Error(`clusterRepeatsBootstrapMean: item ${i}, repeat ${j} is not a finite number: ${v}`);
      }
    });
  });
}

/** Returns the item indices of each cluster, clusters in order of first appearance (as `clusterTotals`). */
function membersOf(clusters: readonly ClusterId[]): number[][] {
  const index = new Map<ClusterId, number[]>();
  clusters.forEach((id, i) => {
    const members = index.get(id);
    if (members) members.push(i);
    else index.set(id, [i]);
  });
  return [...index.values()];
}

/**
 * Returns the r^r equally likely means of r draws with replacement from an item's r `deviations` (the j-th
 * draw of outcome t is digit j of t in base r), so that one uniform number resamples the item's repeats.
 */
function resampledMeans(deviations: Float64Array): Float64Array {
  const r = deviations.length;
  const means = new Float64Array(r ** r);
  for (let t = 0; t < means.length; t++) {
    let digits = t, sum = 0;
    for (let j = 0; j < r; j++) {
      sum += deviations[digits % r];
      digits = Math.floor(digits / r);
    }
    means[t] = sum / r;
  }
  return means;
}

/** Returns Σ s²_i / r_i over the items with two or more repeats: the judge noise the item means carry. */
function judgeNoise(repeats: readonly (readonly number[])[], itemMeans: readonly number[]): number {
  let noise = 0;
  repeats.forEach((item, i) => {
    if (item.length < 2) return;
    let ss = 0;
    for (const v of item) ss += (v - itemMeans[i]) ** 2;
    noise += ss / (item.length - 1) / item.length;
  });
  return noise;
}

/**
 * Returns the clusters adjusted so that resampling clusters and then repeats reproduces the cluster bootstrap's
 * variance of the mean instead of counting the judge noise twice. Item i's repeat deviations become
 * d_i·(y_ij − ȳ_i), d_i = √(r_i/(r_i−1)), so the mean of r_i repeats drawn from them varies by s²_i/r_i; each
 * cluster's total of item means becomes m_c·ȳ + a·(S_c − m_c·ȳ), a = √(max(0, 1 − J/V)), with V = Σ_c (S_c −
 * m_c·ȳ)² (what the cluster bootstrap's spread rests on) and J = Σ_i s²_i/r_i (the judge noise in it). The
 * resampled mean then varies by (a²V + J)/N² = V/N², the cluster bootstrap's; when J > V, a = 0 and it varies
 * by J/N². This is the shrinkage of the two-level bootstrap (Davison & Hinkley 1997, §3.8) applied to
 * clusters of items.
 */
function adjustClusters(
  repeats: readonly (readonly number[])[],
  itemMeans: readonly number[],
  members: readonly (readonly number[])[],
  mean: number,
): { adjusted: AdjustedCluster[]; judgeShare: number } {
  const totals = members.map((items) => items.reduce((s, i) => s + itemMeans[i], 0));
  const residuals = totals.map((total, k) => total - members[k].length * mean);
  const between = residuals.reduce((s, r) => s + r * r, 0);
  const judge = judgeNoise(repeats, itemMeans);
  const a = between > 0 ? Math.sqrt(Math.max(0, 1 - judge / between)) : 0;
  const adjusted = members.map((items, k): AdjustedCluster => {
    // Items whose repeats agree add nothing when resampled (and an item of one repeat has no spread).
    const deviations = items
      .filter((i) => repeats[i].some((v) => v !== repeats[i][0]))
      .map((i) => {
        const d = Math.sqrt(repeats[i].length / (repeats[i].length - 1));
        return Float64Array.from(repeats[i], (v) => d * (v - itemMeans[i]));
      });
    return {
      centre: items.length * mean + a * residuals[k],
      items: items.length,
      listed: deviations.filter((d) => d.length <= LISTED_REPEATS).map(resampledMeans),
      deviations: deviations.filter((d) => d.length > LISTED_REPEATS),
    };
  });
  const judgeShare = between > 0 ? Math.min(1, judge / between) : judge > 0 ? 1 : 0;
  return { adjusted, judgeShare };
}

/**
 * Returns the mean of the item means (each item's judge repeats averaged, every item weighing the same; over
 * clusters, Σ item means / N items, so a long conversation weighs by its rounds) with a 95% interval from a
 * bootstrap at two levels: each resample draws the C clusters with replacement and, for every item of a drawn
 * cluster, its r_i repeats with replacement from its own (adjusted) repeats. Items are not resampled within a
 * cluster: the cluster totals already carry the spread between a cluster's items, and drawing them again
 * would count it twice (as the judge noise would be, were the values not first adjusted, see
 * {@linkcode adjustClusters}). The interval is read at Hesterberg's expanded level for m = C
 * ({@linkcode expandedPercentileLevel}). n = items; `ci95` is `null` with fewer than 2 clusters. Throws on an
 * item without scores, a score that is not a finite number, or cluster ids that do not match the items in
 * number.
 */
export function clusterRepeatsBootstrapMean(
  repeats: readonly (readonly number[])[],
  clusters: readonly ClusterId[],
  options: ClusterRepeatsOptions,
): ClusterRepeatsEstimate {
  checkInput(repeats, clusters);
  const n = repeats.length;
  const scores = repeats.reduce((sum, item) => sum + item.length, 0);
  if (n === 0) return { value: null, ci95: null, n: 0, clusters: 0, scores, judgeShare: null };
  const itemMeans = repeats.map(meanOf);
  const totals = clusterTotals(itemMeans, clusters);
  const c = totals.sums.length;
  const value = totals.sums.reduce((s, v) => s + v, 0) / n;
  if (c < 2) return { value, ci95: null, n, clusters: c, scores, judgeShare: null };
  const { adjusted, judgeShare } = adjustClusters(repeats, itemMeans, membersOf(clusters), value);
  const random = mulberry32(seedFrom(options.seed));
  const means = new Float64Array(options.resamples ?? RESAMPLES);
  for (let b = 0; b < means.length; b++) {
    let total = 0, items = 0;
    for (let j = 0; j < c; j++) {
      const cluster = adjusted[Math.floor(random() * c)];
      total += cluster.centre;
      items += cluster.items;
      for (let q = 0; q < cluster.listed.length; q++) {
        const outcomes = cluster.listed[q];
        total += outcomes[Math.floor(random() * outcomes.length)];
      }
      for (let q = 0; q < cluster.deviations.length; q++) {
        const deviations = cluster.deviations[q];
        const r = deviations.length;
        let drawn = 0;
        for (let t = 0; t < r; t++) drawn += deviations[Math.floor(random() * r)];
        total += drawn / r;
      }
    }
    means[b] = total / items;
  }
  const ci95 = percentileInterval(means, expandedPercentileLevel(c));
  return { value, ci95, n, clusters: c, scores, judgeShare };
}
