/**
 * The Clopper–Pearson ("exact") interval of a binomial proportion.
 * @module
 */
import { betaQuantile } from "./distributions.ts";

/**
 * Returns the two-sided Clopper–Pearson interval at `level` (default 0.95) of `successes` out of `n`: the
 * α/2 quantile of Beta(k, n − k + 1) and the 1 − α/2 quantile of Beta(k + 1, n − k), 0 when k = 0 and 1 when
 * k = n. It inverts two one-sided exact binomial tests, so its coverage is at least `level` for every true
 * proportion (usually more). `null` when n = 0. Throws unless 0 ≤ successes ≤ n are integers.
 */
export function clopperPearsonInterval(successes: number, n: number, level = 0.95): [number, number] | null {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new Error(`clopperPearsonInterval: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`);
  }
  if (n === 0) return null;
  const alpha = 1 - level;
  const lo = successes === 0 ? 0 : betaQuantile(alpha / 2, successes, n - successes + 1);
  const hi = successes === n ? 1 : betaQuantile(1 - alpha / 2, successes + 1, n - successes);
  return [lo, hi];
}
