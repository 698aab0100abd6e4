/**
 * Percentile bootstrap confidence intervals, seeded for reproducibility.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { mulberry32Next, mulberry32Value, seedFrom } from "./rng.ts";

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

/**
 * Resamples drawn from the numbers of `mulberry32(seed)` (lib/stats/rng.ts), stepped on the stream's own state:
 * `mean(values)` is exactly `resampleMean(values, random)` for a `random = mulberry32(seed)` that has given as
 * many numbers as this stream so far, at about a third of the cost (no closure called per draw). A bootstrap of
 * n values draws n numbers per resample, so this is where its time goes.
 */
export class ResampleStream {
  #state: number;

  /** Starts the stream of `seed` (a 32-bit seed, e.g. from `seedFrom`). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Returns the mean of one resample of `values` (same size, drawn with replacement). */
  mean(values: Float64Array): number {
    const n = values.length;
    let a = this.#state;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      a = mulberry32Next(a);
      sum += values[Math.floor(mulberry32Value(a) * n)];
    }
    this.#state = a;
    return sum / n;
  }

  /** Returns the stream's next number, uniform in [0, 1) (one draw). */
  uniform(): number {
    this.#state = mulberry32Next(this.#state);
    return mulberry32Value(this.#state);
  }
}

/**
 * Returns how one group's resample means are drawn from a shared {@linkcode ResampleStream}. For 0/1 values a
 * resample's count of ones is Binomial(n, observed rate) exactly, so it is drawn as one such count (one number
 * of the stream, none when the rate is 0 or 1); other values are drawn one by one (n numbers). What
 * {@linkcode bootstrapMean} draws for one group, and `macroMean` (compare.ts) for each of several.
 */
export function groupResampler(values: readonly number[]): (stream: ResampleStream) => number {
  const n = values.length;
  const observed = mean(values);
  if (!values.every((v) => v === 0 || v === 1)) {
    const sample = Float64Array.from(values);
    return (stream) => stream.mean(sample);
  }
  if (observed === 0 || observed === 1) return () => observed;
  const cdf = binomialCdf(n, observed);
  return (stream) => inverseCdf(cdf, stream.uniform()) / n;
}

/** Returns the percentile interval at `level` (default 0.95) of bootstrap statistics (sorted in place). */
export function percentileInterval(stats: Float64Array, level = 0.95): [number, number] {
  stats.sort();
  const sorted = Array.from(stats);
  const alpha = (1 - level) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}

/**
 * Returns the cumulative distribution of Binomial(`n`, `p`) at 0..n. The weights are built outwards from the
 * mode, so large n does not underflow.
 */
export function binomialCdf(n: number, p: number): Float64Array {
  const weights = new Float64Array(n + 1);
  const mode = Math.min(n, Math.floor((n + 1) * p));
  weights[mode] = 1;
  const odds = p / (1 - p);
  for (let i = mode; i < n && weights[i] > 1e-300; i++) {
    weights[i + 1] = weights[i] * ((n - i) / (i + 1)) * odds;
  }
  for (let i = mode; i > 0 && weights[i] > 1e-300; i--) {
    weights[i - 1] = weights[i] * (i / (n - i + 1)) / odds;
  }
  const cdf = new Float64Array(n + 1);
  let total = 0;
  for (let i = 0; i <= n; i++) cdf[i] = total += weights[i];
  for (let i = 0; i <= n; i++) cdf[i] /= total;
  return cdf;
}

/** Returns the smallest k with `cdf[k] >= u` (inverse-CDF draw). */
function inverseCdf(cdf: Float64Array, u: number): number {
  let lo = 0, hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid] >= u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Returns the mean of `values` (a rate when values are 0/1) with a percentile-bootstrap 95% CI: `resamples`
 * resamples of size n drawn with replacement from a generator seeded by `seed`. For 0/1 values a resample's
 * count of ones is Binomial(n, observed rate) exactly, so each resample is drawn as one such count (one random
 * number instead of n): the same bootstrap distribution, at a cost that does not grow with n.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): Estimate {
  const n = values.length;
  if (n === 0) return { value: null, ci95: null, n: 0 };
  const stream = new ResampleStream(seedFrom(options.seed ?? "medeval"));
  const resample = groupResampler(values);
  const means = new Float64Array(options.resamples ?? RESAMPLES);
  for (let b = 0; b < means.length; b++) means[b] = resample(stream);
  return { value: mean(values), ci95: percentileInterval(means, options.level ?? 0.95), n };
}
