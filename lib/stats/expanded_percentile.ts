/**
 * Hesterberg's expanded percentile interval: the percentile bootstrap is too narrow in small samples (its
 * spread uses divisor n, and it uses normal rather than t quantiles), so it is read at a wider level.
 * @module
 */
import { normalCdf, tQuantile } from "./distributions.ts";

/**
 * Returns the nominal level at which to read a percentile-bootstrap distribution so that a `level` interval
 * (default 0.95) does not under-cover in small samples: 1 − 2·Φ(−√(m/(m−1)) · t_{m−1, (1+level)/2}), with m
 * the number of independent units resampled (items, or clusters). Hesterberg (2015, "What teachers should know
 * about the bootstrap", The American Statistician 69:371–386) calls this the expanded percentile interval;
 * for m = 10 it reads the 0.86% and 99.14% quantiles instead of 2.5% and 97.5%, for m = 1,000 practically
 * the same ones. Returns NaN for m < 2 (no interval rests on one unit).
 */
export function expandedPercentileLevel(units: number, level = 0.95): number {
  if (units < 2) return NaN;
  const z = Math.sqrt(units / (units - 1)) * tQuantile((1 + level) / 2, units - 1);
  return 1 - 2 * normalCdf(-z);
}
