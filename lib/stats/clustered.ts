/**
 * Rates over clustered 0/1 outcomes, such as the ten variants of each question in a robustness set: variants of
 * one question are not independent, so the Wilson interval is computed on the effective sample size n / deff,
 * where the design effect deff = 1 + (m̄ − 1)·ρ uses the one-way ANOVA estimate of the intraclass correlation ρ
 * (truncated at 0; Kish's approximation).
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { wilsonInterval } from "./agreement.ts";

/** A rate over clusters of 0/1 outcomes, with what its interval accounts for. */
export interface ClusteredRate {
  /** The pooled rate (successes / outcomes), its 95% interval, and n = outcomes. */
  estimate: Estimate;
  /** Number of clusters with at least one outcome. */
  clusters: number;
  /** ANOVA intraclass correlation of the outcomes within clusters; `null` with fewer than 2 clusters. */
  icc: number | null;
  /** Design effect applied to n (1 when ρ ≤ 0 or cannot be estimated). */
  designEffect: number;
}

/**
 * Returns the one-way ANOVA estimate of the intraclass correlation of 0/1 outcomes grouped in clusters of any
 * sizes; `null` with fewer than 2 clusters or no within-cluster degrees of freedom, 0 when every outcome is equal.
 */
export function intraclassCorrelation(clusters: readonly (readonly number[])[]): number | null {
  const groups = clusters.filter((c) => c.length > 0);
  const k = groups.length;
  const total = groups.reduce((sum, c) => sum + c.length, 0);
  if (k < 2 || total - k < 1) return null;
  const sums = groups.map((c) => c.reduce((a, b) => a + b, 0));
  const p = sums.reduce((a, b) => a + b, 0) / total;
  let between = 0, within = 0;
  groups.forEach((c, i) => {
    const pi = sums[i] / c.length;
    between += c.length * (pi - p) ** 2;
    within += c.length * pi * (1 - pi);
  });
  const msb = between / (k - 1);
  const msw = within / (total - k);
  const m0 = (total - groups.reduce((sum, c) => sum + c.length ** 2, 0) / total) / (k - 1);
  const denominator = msb + (m0 - 1) * msw;
  return denominator === 0 ? 0 : (msb - msw) / denominator;
}

/** Returns the pooled rate of 0/1 outcomes grouped in `clusters`, with a design-effect-adjusted Wilson interval. */
export function clusteredRate(clusters: readonly (readonly number[])[]): ClusteredRate {
  const groups = clusters.filter((c) => c.length > 0);
  const n = groups.reduce((sum, c) => sum + c.length, 0);
  if (n === 0) {
    return { estimate: { value: null, ci95: null, n: 0 }, clusters: 0, icc: null, designEffect: 1 };
  }
  const successes = groups.reduce((sum, c) => sum + c.reduce((a, b) => a + b, 0), 0);
  const icc = intraclassCorrelation(groups);
  const designEffect = 1 + (n / groups.length - 1) * Math.max(0, icc ?? 0);
  const effective = n / designEffect;
  const rate = successes / n;
  return {
    estimate: { value: rate, ci95: wilsonInterval(rate * effective, effective), n },
    clusters: groups.length,
    icc,
    designEffect,
  };
}
