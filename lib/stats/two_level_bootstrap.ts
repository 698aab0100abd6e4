/**
 * The two-level bootstrap of a judge-scored mean: items are resampled, then each drawn item's judge repeats are
 * resampled within it, so both the spread between items and the judge's noise enter the interval.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { percentileInterval, RESAMPLES } from "./bootstrap.ts";
import { expandedPercentileLevel } from "./expanded_percentile.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** Options of {@linkcode twoLevelBootstrapMean}. */
export interface TwoLevelOptions {
  /** Seed text; the same text gives the same interval. */
  seed: string;
  /** Number of resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** A judge-scored mean with its interval and how its variance splits. */
export interface TwoLevelEstimate extends Estimate {
  /** Number of judge scores over all items. */
  scores: number;
  /**
   * Share of the variance of the item means that is judge noise: mean over items of s²_i / r_i (the unbiased
   * within-item variance over the item's repeats) divided by the variance of the item means; 0 when no item
   * has two repeats, capped at 1. `null` with fewer than 2 items.
   */
  judgeShare: number | null;
}

/** Items as adjusted values to draw from: each item's centre and its repeats' scaled deviations. */
interface AdjustedItems {
  centres: Float64Array;
  deviations: Float64Array[];
}

/** Returns the mean of `values`. */
function meanOf(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s / values.length;
}

/** Throws unless every item has at least one repeat and every score is a finite number. */
function checkRepeats(repeats: readonly (readonly number[])[]): void {
  repeats.forEach((item, i) => {
    if (item.length === 0) throw new Error(`twoLevelBootstrapMean: item ${i} has no judge score`);
    item.forEach((v, j) => {
      if (!Number.isFinite(v)) {
        throw new Error(`twoLevelBootstrapMean: item ${i}, repeat ${j} is not a finite number: ${v}`);
      }
    });
  });
}

/**
 * Returns the items with values adjusted so that drawing at both levels reproduces the variance of the item
 * means instead of counting the judge noise twice: item i's repeat j becomes ȳ + c·(ȳ_i − ȳ) + d_i·(y_ij − ȳ_i),
 * with d_i = √(r_i/(r_i−1)) (the drawn repeats' mean then varies by s²_i/r_i, the unbiased judge noise of the
 * item mean) and c = √(max(0, 1 − W/B)), B the variance of the item means (divisor n) and W the mean of
 * s²_i/r_i (the judge noise the item means already carry). The resampled mean then varies by B/n, as an
 * ordinary bootstrap of the item means would, split between items (c²B) and judge (W); when the judge noise
 * W exceeds B (the items' own spread is estimated below 0), c = 0 and they vary by W/n. This is the variance-
 * matching adjustment of two-stage resampling in Davison & Hinkley (1997, Bootstrap Methods and their
 * Application, §3.8).
 */
function adjustItems(repeats: readonly (readonly number[])[], itemMeans: readonly number[]) {
  const n = repeats.length;
  const grand = meanOf(itemMeans);
  let between = 0, judge = 0;
  for (let i = 0; i < n; i++) {
    between += (itemMeans[i] - grand) ** 2;
    const r = repeats[i].length;
    if (r >= 2) {
      let ss = 0;
      for (const v of repeats[i]) ss += (v - itemMeans[i]) ** 2;
      judge += ss / (r - 1) / r;
    }
  }
  between /= n;
  judge /= n;
  const c = between > 0 ? Math.sqrt(Math.max(0, 1 - judge / between)) : 0;
  const adjusted: AdjustedItems = {
    centres: Float64Array.from(itemMeans, (m) => grand + c * (m - grand)),
    deviations: repeats.map((item, i) => {
      const d = item.length >= 2 ? Math.sqrt(item.length / (item.length - 1)) : 0;
      return Float64Array.from(item, (v) => d * (v - itemMeans[i]));
    }),
  };
  const judgeShare = between > 0 ? Math.min(1, judge / between) : judge > 0 ? 1 : 0;
  return { adjusted, judgeShare };
}

/**
 * Returns the mean of the item means (each item's judge repeats averaged, every item weighing the same) with a
 * two-level bootstrap 95% interval: each resample draws n items with replacement and, for each drawn item,
 * its r_i repeats with replacement from its own (adjusted, see below) repeats. Resampling naively at both
 * levels would count the judge noise twice — the item means already contain it — and over-cover; the values
 * are therefore first shrunk as Davison & Hinkley (1997, §3.8) describe, so the resampled means vary by the
 * variance of the item means. The interval is read at Hesterberg's expanded level for m = n items
 * ({@linkcode expandedPercentileLevel}). n = items; `ci95` is `null` with fewer than 2 items. Throws on an item
 * without scores or a score that is not a finite number.
 */
export function twoLevelBootstrapMean(
  repeats: readonly (readonly number[])[],
  options: TwoLevelOptions,
): TwoLevelEstimate {
  checkRepeats(repeats);
  const n = repeats.length;
  const scores = repeats.reduce((sum, item) => sum + item.length, 0);
  if (n === 0) return { value: null, ci95: null, n: 0, scores, judgeShare: null };
  const itemMeans = repeats.map(meanOf);
  const value = meanOf(itemMeans);
  if (n < 2) return { value, ci95: null, n, scores, judgeShare: null };
  const { adjusted, judgeShare } = adjustItems(repeats, itemMeans);
  const random = mulberry32(seedFrom(options.seed));
  const means = new Float64Array(options.resamples ?? RESAMPLES);
  for (let b = 0; b < means.length; b++) {
    let total = 0;
    for (let j = 0; j < n; j++) {
      const k = Math.floor(random() * n);
      const deviations = adjusted.deviations[k];
      const r = deviations.length;
      let drawn = 0;
      for (let t = 0; t < r; t++) drawn += deviations[Math.floor(random() * r)];
      total += adjusted.centres[k] + drawn / r;
    }
    means[b] = total / n;
  }
  return { value, ci95: percentileInterval(means, expandedPercentileLevel(n)), n, scores, judgeShare };
}
