/**
 * Tests of paired outcomes (the same items under two conditions or two models), each with an effect size:
 * Wilcoxon's signed-rank test with the matched-pairs rank-biserial r, McNemar's exact test with the
 * conditional odds ratio, and the paired t test with Cohen's d_z. The difference is always `other − base`.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { clopperPearsonInterval } from "./clopper_pearson.ts";
import { type McNemar, mcnemarExact } from "./compare.ts";
import { normalCdf, tCdf, tQuantile } from "./distributions.ts";

/** Largest number of non-zero differences for which the signed-rank test is exact (when |d| has no ties). */
export const EXACT_SIGNED_RANK_MAX = 25;

/** Wilcoxon's signed-rank test of paired values. */
export interface SignedRankTest {
  /** Non-zero differences, the n of the test. */
  n: number;
  /** Zero differences, dropped before ranking (Wilcoxon's method, not Pratt's). */
  zeros: number;
  /** Sum of the ranks of |d| over positive differences (other > base); R's V. */
  wPlus: number;
  /** Sum of the ranks over negative differences. */
  wMinus: number;
  /** Two-sided p-value (1 without non-zero differences). */
  p: number;
  /** How p was computed. */
  method: "exact" | "normal approximation";
  /** Matched-pairs rank-biserial correlation (W+ − W−)/(W+ + W−), in [−1, 1]; `null` when n = 0. */
  rankBiserial: number | null;
}

/** McNemar's exact test with the conditional odds ratio and the risk difference. */
export interface McNemarWithEffect extends McNemar {
  /** c / b: odds that a discordant pair favours the condition (Infinity when b = 0 < c, `null` when b = c = 0). */
  oddsRatio: number | null;
  /** Exact 95% interval of c / b from the Clopper–Pearson interval of c out of b + c (`null` when b = c = 0). */
  oddsRatioCi95: [number, number] | null;
  /** (c − b) / pairs: the difference of the two rates (`null` without pairs). */
  riskDifference: number | null;
}

/** The paired t test with Cohen's d_z. */
export interface PairedMeanTest {
  /** Mean of other − base, with the paired t 95% interval (mean ± t_{n−1} · s_d/√n); n = pairs. */
  difference: Estimate;
  /** Standard deviation of the differences (divisor n − 1); `null` for fewer than 2 pairs. */
  sdDifference: number | null;
  /** Cohen's d_z = mean difference / s_d; `null` when s_d is 0 or undefined. */
  cohensDz: number | null;
  /** t = mean / (s_d/√n) with n − 1 degrees of freedom; `null` when s_d is 0 or undefined. */
  t: number | null;
  /** Two-sided p-value of t; `null` with t. */
  p: number | null;
}

/** Returns other[i] − base[i], after checking that both have the same length and only finite numbers. */
function differences(base: readonly number[], other: readonly number[], caller: string): number[] {
  if (base.length !== other.length) {
    throw new Error(`${caller}: ${base.length} baseline values but ${other.length} paired values`);
  }
  return base.map((b, i) => {
    const d = other[i] - b;
    if (!Number.isFinite(d)) throw new Error(`${caller}: pair ${i} is not two finite numbers`);
    return d;
  });
}

/** Returns the average ranks (1-based, ties get the mean of their ranks) of `values` and the tie group sizes. */
function averageRanks(values: readonly number[]): { ranks: number[]; ties: number[] } {
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Array<number>(values.length);
  const ties: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && values[order[end + 1]] === values[order[start]]) end++;
    const rank = (start + end + 2) / 2;
    for (let k = start; k <= end; k++) ranks[order[k]] = rank;
    ties.push(end - start + 1);
    start = end + 1;
  }
  return { ranks, ties };
}

/** Returns P(W+ ≤ w) for the null distribution of W+ with n untied ranks (exact, by counting subsets). */
function signedRankCdf(w: number, n: number): number {
  const max = (n * (n + 1)) / 2;
  const counts = new Float64Array(max + 1);
  counts[0] = 1;
  for (let rank = 1; rank <= n; rank++) {
    for (let s = max; s >= rank; s--) counts[s] += counts[s - rank];
  }
  let below = 0;
  for (let s = 0; s <= Math.min(w, max); s++) below += counts[s];
  return below / 2 ** n;
}

/**
 * Returns Wilcoxon's signed-rank test of `other[i] − base[i]`. Zero differences are dropped before ranking
 * (Wilcoxon's method, as R's `wilcox.test` and SciPy's default; Pratt's method would rank them and then drop
 * them). |d| is ranked with average ranks for ties. The p-value is exact (the distribution of W+ by counting)
 * when at most {@linkcode EXACT_SIGNED_RANK_MAX} differences remain and |d| has no ties: 2·min(P(W+ ≤ w),
 * P(W+ ≥ w)), capped at 1; otherwise the normal approximation with the tie correction of the variance,
 * n(n+1)(2n+1)/24 − Σ(t³ − t)/48, and a continuity correction of ½ towards the mean (as R's default).
 * The effect size is the matched-pairs rank-biserial r = (W+ − W−)/(W+ + W−) (Kerby 2014): positive when the
 * condition tends to be higher. Throws if the two arrays differ in length or hold non-finite numbers.
 */
export function wilcoxonSignedRank(base: readonly number[], other: readonly number[]): SignedRankTest {
  const all = differences(base, other, "wilcoxonSignedRank");
  const nonZero = all.filter((d) => d !== 0);
  const n = nonZero.length;
  const zeros = all.length - n;
  if (n === 0) {
    return { n, zeros, wPlus: 0, wMinus: 0, p: 1, method: "exact", rankBiserial: null };
  }
  const { ranks, ties } = averageRanks(nonZero.map(Math.abs));
  let wPlus = 0;
  nonZero.forEach((d, i) => {
    if (d > 0) wPlus += ranks[i];
  });
  const total = (n * (n + 1)) / 2;
  const wMinus = total - wPlus;
  const rankBiserial = (wPlus - wMinus) / total;
  if (n <= EXACT_SIGNED_RANK_MAX && ties.every((t) => t === 1)) {
    const lower = signedRankCdf(wPlus, n);
    const upper = 1 - signedRankCdf(wPlus - 1, n);
    return {
      n,
      zeros,
      wPlus,
      wMinus,
      p: Math.min(1, 2 * Math.min(lower, upper)),
      method: "exact",
      rankBiserial,
    };
  }
  const mean = total / 2;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - ties.reduce((s, t) => s + t ** 3 - t, 0) / 48;
  const z = Math.max(0, Math.abs(wPlus - mean) - 0.5) / Math.sqrt(variance);
  return {
    n,
    zeros,
    wPlus,
    wMinus,
    p: Math.min(1, 2 * normalCdf(-z)),
    method: "normal approximation",
    rankBiserial,
  };
}

/**
 * Returns McNemar's exact test of paired 0/1 outcomes (`mcnemarExact` of `lib/stats/compare.ts`: b = right
 * under the baseline only, c = under the condition only) with its effect size, the conditional odds ratio
 * c / b: among the pairs on which the two disagree, the odds that the condition is the one that is right.
 * Its exact 95% interval maps the Clopper–Pearson interval [π_lo, π_hi] of c out of b + c through
 * π / (1 − π), which is the interval the exact test inverts. The risk difference (c − b) / pairs is the
 * difference of the two rates (its interval is the paired bootstrap's, in `pairedDifference`). Throws if the
 * arrays differ in length or hold a value other than 0 or 1.
 */
export function mcnemarWithEffect(base: readonly number[], other: readonly number[]): McNemarWithEffect {
  differences(base, other, "mcnemarWithEffect");
  const i = [...base, ...other].findIndex((v) => v !== 0 && v !== 1);
  if (i >= 0) throw new Error(`mcnemarWithEffect: outcomes are 0 or 1, got ${[...base, ...other][i]}`);
  const test = mcnemarExact(base, other);
  const { b, c } = test;
  const riskDifference = base.length === 0 ? null : (c - b) / base.length;
  if (b + c === 0) return { ...test, oddsRatio: null, oddsRatioCi95: null, riskDifference };
  const [lo, hi] = clopperPearsonInterval(c, b + c)!;
  const odds = (pi: number) => (pi >= 1 ? Infinity : pi / (1 - pi));
  return {
    ...test,
    oddsRatio: b === 0 ? Infinity : c / b,
    oddsRatioCi95: [odds(lo), odds(hi)],
    riskDifference,
  };
}

/**
 * Returns the paired t test of `other[i] − base[i]`: the mean difference with its t interval, the SD of the
 * differences, Cohen's d_z = mean / SD (the standardized mean of the differences, which is what the paired
 * test's power depends on: t = d_z·√n), t and its two-sided p-value. Throws like {@linkcode wilcoxonSignedRank}.
 */
export function pairedMeanDifference(base: readonly number[], other: readonly number[]): PairedMeanTest {
  const d = differences(base, other, "pairedMeanDifference");
  const n = d.length;
  if (n === 0) {
    return {
      difference: { value: null, ci95: null, n: 0 },
      sdDifference: null,
      cohensDz: null,
      t: null,
      p: null,
    };
  }
  const mean = d.reduce((s, v) => s + v, 0) / n;
  if (n < 2) {
    return {
      difference: { value: mean, ci95: null, n },
      sdDifference: null,
      cohensDz: null,
      t: null,
      p: null,
    };
  }
  const sd = Math.sqrt(d.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  const se = sd / Math.sqrt(n);
  const half = tQuantile(0.975, n - 1) * se;
  const difference: Estimate = { value: mean, ci95: [mean - half, mean + half], n };
  if (sd === 0) return { difference, sdDifference: 0, cohensDz: null, t: null, p: null };
  const t = mean / se;
  return {
    difference,
    sdDifference: sd,
    cohensDz: mean / sd,
    t,
    p: Math.min(1, 2 * tCdf(-Math.abs(t), n - 1)),
  };
}
