/**
 * How much of a judge's score varies between its repeats of one item rather than between items: a one-way
 * random-effects decomposition of the item × repeat matrix (items are the groups, repeats the replicates).
 * With a items, N scores, n_i scores of item i: MS_between = Σ n_i (ȳ_i − ȳ)² / (a − 1), MS_within =
 * Σ (y_ij − ȳ_i)² / (N − a), n₀ = (N − Σ n_i² / N) / (a − 1); σ²_repeat = MS_within, σ²_item =
 * max(0, (MS_between − MS_within) / n₀); the repeat share is σ²_repeat / (σ²_item + σ²_repeat).
 * @module
 */

/** The variance components of an item × repeat matrix. */
export interface VarianceComponents {
  /** Items with at least one score. */
  items: number;
  /** Scores in all. */
  scores: number;
  /** σ²_item: variance between items' true scores (truncated at 0). */
  itemVariance: number;
  /** σ²_repeat: variance between repeats of one item. */
  repeatVariance: number;
  /** σ²_repeat / (σ²_item + σ²_repeat); `null` when both are 0 (every score the same). */
  repeatShare: number | null;
}

/**
 * Returns the one-way random-effects variance components of `rows` (one row per item: its repeats' scores,
 * missing ones left out), or `null` when they are not estimable: fewer than 2 items with a score, or no item
 * with 2 scores.
 */
export function varianceComponents(rows: readonly (readonly number[])[]): VarianceComponents | null {
  const groups = rows.filter((r) => r.length > 0);
  const a = groups.length;
  const n = groups.reduce((s, r) => s + r.length, 0);
  if (a < 2 || n <= a) return null;
  const grand = groups.reduce((s, r) => s + r.reduce((t, v) => t + v, 0), 0) / n;
  let between = 0, within = 0, squares = 0;
  for (const row of groups) {
    const mean = row.reduce((t, v) => t + v, 0) / row.length;
    between += row.length * (mean - grand) ** 2;
    for (const v of row) within += (v - mean) ** 2;
    squares += row.length ** 2;
  }
  const msBetween = between / (a - 1);
  const msWithin = within / (n - a);
  const n0 = (n - squares / n) / (a - 1);
  const itemVariance = Math.max(0, (msBetween - msWithin) / n0);
  const total = itemVariance + msWithin;
  return {
    items: a,
    scores: n,
    itemVariance,
    repeatVariance: msWithin,
    repeatShare: total > 0 ? msWithin / total : null,
  };
}
