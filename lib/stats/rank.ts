/**
 * Rank agreement between two scorings of the same examinees (e.g. a rapid assessment against the full
 * benchmark): Kendall's τ-b and Spearman's ρ, each with a 95% interval from Fisher's z with the variances of
 * Fieller, Hartley & Pearson (1957): 0.437/(n − 4) for τ and 1.060/(n − 3) for ρ.
 * @module
 */
import type { Estimate } from "../core/summary.ts";

/**
 * Kendall's τ-b of two paired rankings (ties allowed): (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)), where
 * n₀ = n(n−1)/2 and n₁, n₂ count pairs tied in `x` and in `y`. Returns 0 when either ranking is all ties
 * (τ-b undefined), and `null` for fewer than two items.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n !== y.length) throw new Error(`kendallTauB: lengths differ (${n} vs ${y.length})`);
  if (n < 2) return null;
  let concordant = 0, discordant = 0, tiesX = 0, tiesY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i] - x[j]);
      const dy = Math.sign(y[i] - y[j]);
      if (dx === 0) tiesX++;
      if (dy === 0) tiesY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((n0 - tiesX) * (n0 - tiesY));
  return denominator === 0 ? 0 : (concordant - discordant) / denominator;
}

/** Returns average ranks (1-based; ties share the mean of their positions). */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1][0] === order[start][0]) end++;
    for (let k = start; k <= end; k++) ranks[order[k][1]] = (start + end) / 2 + 1;
    start = end + 1;
  }
  return ranks;
}

/** Spearman's ρ: the Pearson correlation of the average ranks; `null` under two pairs or with a constant side. */
export function spearmanRho(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`spearmanRho: lengths differ (${x.length} vs ${y.length})`);
  if (x.length < 2) return null;
  const rx = averageRanks(x), ry = averageRanks(y);
  const mean = (x.length + 1) / 2;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) ** 2;
    syy += (ry[i] - mean) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

const Z95 = 1.959963984540054;

/** A correlation with its Fisher-z interval for variance `c / (n − k)`; no interval when n ≤ k. */
function fisherEstimate(r: number | null, n: number, c: number, k: number): Estimate {
  if (r === null) return { value: null, ci95: null, n };
  if (n <= k) return { value: r, ci95: null, n };
  const clipped = Math.max(-0.999999, Math.min(0.999999, r));
  const z = Math.atanh(clipped);
  const half = Z95 * Math.sqrt(c / (n - k));
  return { value: r, ci95: [Math.tanh(z - half), Math.tanh(z + half)], n };
}

/** Kendall's τ-b with a 95% Fisher-z interval (needs n ≥ 5 for the interval). */
export function kendallEstimate(x: readonly number[], y: readonly number[]): Estimate {
  return fisherEstimate(kendallTauB(x, y), x.length, 0.437, 4);
}

/** Spearman's ρ with a 95% Fisher-z interval (needs n ≥ 4 for the interval). */
export function spearmanEstimate(x: readonly number[], y: readonly number[]): Estimate {
  return fisherEstimate(spearmanRho(x, y), x.length, 1.06, 3);
}
