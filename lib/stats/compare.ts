/**
 * Differences between conditions and groups, each with a 95% CI: paired (same samples under two conditions,
 * with McNemar's exact test for 0/1 outcomes), independent (two different sample sets), and the macro mean of
 * several groups (stratified bootstrap). All bootstraps are seeded.
 * @module
 */
import {
  bootstrapMean,
  groupResampler,
  mean,
  percentileInterval,
  RESAMPLES,
  ResampleStream,
} from "./bootstrap.ts";
import { type Estimate } from "../core/summary.ts";
import { seedFrom } from "./rng.ts";

/** McNemar's exact test on paired 0/1 outcomes. */
export interface McNemar {
  /** Pairs 1 under the baseline and 0 under the condition. */
  b: number;
  /** Pairs 0 under the baseline and 1 under the condition. */
  c: number;
  /** Two-sided exact binomial p-value of b vs c (1 when there are no discordant pairs). */
  p: number;
}

/** Returns McNemar's exact two-sided test for paired 0/1 outcomes `base[i]` vs `other[i]`. */
export function mcnemarExact(base: readonly number[], other: readonly number[]): McNemar {
  let b = 0, c = 0;
  for (let i = 0; i < base.length; i++) {
    if (base[i] === 1 && other[i] === 0) b++;
    if (base[i] === 0 && other[i] === 1) c++;
  }
  const n = b + c;
  if (n === 0) return { b, c, p: 1 };
  // P(X <= min(b, c)) for X ~ Binomial(n, 1/2), summed in log space to stay exact for large n.
  let logTerm = -n * Math.LN2; // k = 0
  let tail = Math.exp(logTerm);
  for (let k = 1; k <= Math.min(b, c); k++) {
    logTerm += Math.log(n - k + 1) - Math.log(k);
    tail += Math.exp(logTerm);
  }
  return { b, c, p: Math.min(1, 2 * tail) };
}

/** A paired comparison of one metric between a baseline and a condition. */
export interface PairedComparison {
  /** Mean under the baseline over the paired samples. */
  base: number | null;
  /** Mean under the condition over the paired samples. */
  other: number | null;
  /** Condition − baseline, with its paired-bootstrap 95% CI and the number of pairs. */
  diff: Estimate;
  /** McNemar's exact test, when every value is 0 or 1. */
  mcnemar: McNemar | null;
}

/** Returns condition − baseline over paired values (`base[i]` and `other[i]` are the same sample). */
export function pairedDifference(
  base: readonly number[],
  other: readonly number[],
  seed = "medeval",
): PairedComparison {
  const n = base.length;
  if (n !== other.length) throw new Error(`pairedDifference: ${n} vs ${other.length} values`);
  if (n === 0) return { base: null, other: null, diff: { value: null, ci95: null, n: 0 }, mcnemar: null };
  const d = base.map((v, i) => other[i] - v);
  const binary = [...base, ...other].every((v) => v === 0 || v === 1);
  return {
    base: mean(base),
    other: mean(other),
    diff: bootstrapMean(d, { seed }),
    mcnemar: binary ? mcnemarExact(base, other) : null,
  };
}

/** Returns mean(b) − mean(a) for two independent samples, with a two-sample bootstrap 95% CI (n = |a| + |b|). */
export function independentDifference(
  a: readonly number[],
  b: readonly number[],
  seed = "medeval",
): Estimate {
  if (a.length === 0 || b.length === 0) return { value: null, ci95: null, n: a.length + b.length };
  const stream = new ResampleStream(seedFrom(seed));
  const [first, second] = [Float64Array.from(b), Float64Array.from(a)];
  const stats = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) stats[r] = stream.mean(first) - stream.mean(second);
  return { value: mean(b) - mean(a), ci95: percentileInterval(stats), n: a.length + b.length };
}

/**
 * Returns the unweighted mean of the group means (a paper's "average over scenarios"), with a 95% CI from a
 * bootstrap that resamples within each group (a group of 0/1 values as one binomial count per resample, see
 * {@linkcode groupResampler}). Empty groups are left out; n = all values.
 */
export function macroMean(groups: readonly (readonly number[])[], seed = "medeval"): Estimate {
  const present = groups.filter((g) => g.length > 0);
  const n = present.reduce((sum, g) => sum + g.length, 0);
  if (present.length === 0) return { value: null, ci95: null, n: 0 };
  const stream = new ResampleStream(seedFrom(seed));
  const resamplers = present.map(groupResampler);
  const stats = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) {
    let total = 0;
    for (const resample of resamplers) total += resample(stream);
    stats[r] = total / present.length;
  }
  return { value: mean(present.map((g) => mean(g))), ci95: percentileInterval(stats), n };
}
