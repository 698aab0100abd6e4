/**
 * Adjusted p-values for many tests at once: Holm's step-down (family-wise error) and Benjamini–Hochberg's
 * step-up (false discovery rate). Both return the adjusted p-values in the order they were given, as R's
 * `p.adjust` does.
 * @module
 */

/** Throws unless every p-value is a number in [0, 1]. */
function checkPValues(p: readonly number[], caller: string): void {
  const i = p.findIndex((v) => !(v >= 0 && v <= 1));
  if (i >= 0) throw new Error(`${caller}: p-value ${i} is not a number in [0, 1]: ${p[i]}`);
}

/** Returns the indices of `p` sorted by ascending p (ties keep their input order). */
function ascendingOrder(p: readonly number[]): number[] {
  return p.map((_, i) => i).sort((a, b) => p[a] - p[b] || a - b);
}

/**
 * Returns Holm's adjusted p-values: with p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted p₍ᵢ₎ is max over j ≤ i of
 * min(1, (m − j + 1)·p₍ⱼ₎), so they never decrease along the sorted order and never exceed 1. Rejecting where
 * the adjusted p ≤ α controls the family-wise error rate at α under any dependence. Throws on a p outside [0, 1].
 */
export function holmAdjust(p: readonly number[]): number[] {
  checkPValues(p, "holmAdjust");
  const m = p.length;
  const adjusted = new Array<number>(m);
  let running = 0;
  ascendingOrder(p).forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p[index]));
    adjusted[index] = running;
  });
  return adjusted;
}

/**
 * Returns Benjamini–Hochberg adjusted p-values (q-values): the adjusted p₍ᵢ₎ is min over j ≥ i of
 * min(1, m/j · p₍ⱼ₎), monotone along the sorted order and capped at 1. Rejecting where it is ≤ α controls the
 * false discovery rate at α for independent or positively dependent tests. Throws on a p outside [0, 1].
 */
export function benjaminiHochbergAdjust(p: readonly number[]): number[] {
  checkPValues(p, "benjaminiHochbergAdjust");
  const m = p.length;
  const adjusted = new Array<number>(m);
  const order = ascendingOrder(p);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const index = order[rank];
    running = Math.min(running, (m / (rank + 1)) * p[index]);
    adjusted[index] = running;
  }
  return adjusted;
}
