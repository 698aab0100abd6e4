/**
 * Percentile bootstrap confidence intervals, seeded for reproducibility.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** Options of {@linkcode bootstrapMean}. */
export interface BootstrapOptions {
  /** Number of resamples (default 2000). */
  resamples?: number;
  /** Seed text; the same text gives the same interval (default `"medeval"`). */
  seed?: string;
  /** Two-sided coverage (default 0.95). */
  level?: number;
}

/** Returns the arithmetic mean of `values` (NaN for none). */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Returns the `q`-quantile (0–1) of sorted `values` with linear interpolation (type 7, as numpy's default). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Resamples per bootstrap unless a caller asks for another number. */
export const RESAMPLES = 2000;

/** Returns the mean of one resample of `values` (same size, drawn with replacement using `random`). */
export function resampleMean(values: readonly number[], random: () => number): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)];
  return sum / values.length;
}

/** Returns the percentile interval at `level` (default 0.95) of bootstrap statistics (sorted in place). */
export function percentileInterval(stats: Float64Array, level = 0.95): [number, number] {
  stats.sort();
  const sorted = Array.from(stats);
  const alpha = (1 - level) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}

/**
 * Returns the mean of `values` (a rate when values are 0/1) with a percentile-bootstrap 95% CI: `resamples`
 * resamples of size n drawn with replacement from a generator seeded by `seed`.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Estimate {
  const n = values.length;
  if (n === 0) return { value: null, ci95: null, n: 0 };
  const random = mulberry32(seedFrom(options.seed ?? "medeval"));
  const means = new Float64Array(options.resamples ?? RESAMPLES);
  for (let b = 0; b < means.length; b++) means[b] = resampleMean(values, random);
  return { value: mean(values), ci95: percentileInterval(means, options.level ?? 0.95), n };
}
