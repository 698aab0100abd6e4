/**
 * Every pair statistic of lib/meta/pair_stats.ts computed from the k × k contingency table of two raters'
 * codes instead of the pairs themselves — the same numbers (percent agreement, Cohen's κ, quadratic κ,
 * Krippendorff's α of pairs, Spearman's ρ with average ranks, balanced F1), at a cost that does not grow with
 * the pairs. A bootstrap then only adds each resampled item's cells to a table.
 * @module
 */
import type { Code, FieldLevel } from "./fields.ts";
import type { Statistic } from "./pair_stats.ts";

/** The categories of a table, in order (numbers ascending for every level but nominal). */
export interface TableScale {
  /** Category values; cell (i, j) counts pairs with A = `categories[i]`, B = `categories[j]`. */
  categories: readonly Code[];
  /** The field's level. */
  level: FieldLevel;
}

/** The row and column sums and the total of a table. */
interface Margins {
  rows: Float64Array;
  cols: Float64Array;
  n: number;
}

/** Returns the row and column sums and the total of a k × k table. */
function margins(table: Float64Array, k: number): Margins {
  const rows = new Float64Array(k), cols = new Float64Array(k);
  let n = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const c = table[i * k + j];
      rows[i] += c;
      cols[j] += c;
      n += c;
    }
  }
  return { rows, cols, n };
}

/** Cohen's κ, or quadratic-weighted κ over the ordered categories; `null` when undefined. */
function kappa(table: Float64Array, k: number, quadratic: boolean, m: Margins): number | null {
  const { rows, cols, n } = m;
  if (n === 0 || k < 2) return null;
  let used = 0;
  for (let i = 0; i < k; i++) if (rows[i] + cols[i] > 0) used++;
  if (!quadratic && used < 2) return null;
  let observed = 0, expected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = i === j ? 0 : quadratic ? ((i - j) / (k - 1)) ** 2 : 1;
      observed += w * table[i * k + j];
      expected += w * rows[i] * cols[j];
    }
  }
  if (expected === 0) return null;
  return 1 - (n * observed) / expected;
}

/** Krippendorff's α of the pairs (each pair a unit of two values) at `level`; `null` when undefined. */
function alpha(table: Float64Array, scale: TableScale): number | null {
  const k = scale.categories.length;
  const o = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      o[i * k + j] += table[i * k + j];
      o[j * k + i] += table[i * k + j];
    }
  }
  return alphaOfCoincidences(o, scale);
}

/**
 * Returns Krippendorff's α from a k × k coincidence matrix `o` of the categories of `scale` (each unit of m
 * values adds 1/(m − 1) for every ordered pair of its values): α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck
 * with nominal, ordinal (cumulative marginals) or interval (squared difference) δ²; `null` when undefined.
 */
export function alphaOfCoincidences(o: Float64Array, scale: TableScale): number | null {
  const k = scale.categories.length;
  const marginal = new Float64Array(k);
  let n = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) marginal[i] += o[i * k + j];
    n += marginal[i];
  }
  if (n === 0) return null;
  const cumulative = new Float64Array(k + 1);
  for (let i = 0; i < k; i++) cumulative[i + 1] = cumulative[i] + marginal[i];
  const delta = (c: number, d: number): number => {
    if (c === d) return 0;
    if (scale.level === "nominal" || scale.level === "binary") return 1;
    if (scale.level === "ordinal") {
      const lo = Math.min(c, d), hi = Math.max(c, d);
      return (cumulative[hi + 1] - cumulative[lo] - (marginal[lo] + marginal[hi]) / 2) ** 2;
    }
    return ((scale.categories[c] as number) - (scale.categories[d] as number)) ** 2;
  };
  let observed = 0, expected = 0;
  for (let c = 0; c < k; c++) {
    for (let d = 0; d < k; d++) {
      const dd = delta(c, d);
      if (dd === 0) continue;
      observed += o[c * k + d] * dd;
      expected += marginal[c] * marginal[d] * dd;
    }
  }
  if (expected === 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}

/** Spearman's ρ from the table (average ranks of tied categories); `null` under 2 pairs or a constant side. */
function spearman(table: Float64Array, k: number, m: Margins): number | null {
  const { rows, cols, n } = m;
  if (n < 2) return null;
  const mean = (n + 1) / 2;
  const rankA = new Float64Array(k), rankB = new Float64Array(k);
  let before = 0, beforeB = 0;
  for (let i = 0; i < k; i++) {
    rankA[i] = before + (rows[i] + 1) / 2 - mean;
    rankB[i] = beforeB + (cols[i] + 1) / 2 - mean;
    before += rows[i];
    beforeB += cols[i];
  }
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < k; i++) {
    sxx += rows[i] * rankA[i] ** 2;
    syy += cols[i] * rankB[i] ** 2;
    for (let j = 0; j < k; j++) sxy += table[i * k + j] * rankA[i] * rankB[j];
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** Balanced F1 of a binary table (categories 0, 1; B the reference); `null` when a class occurs on neither side. */
function balancedF1(table: Float64Array): number | null {
  const tn = table[0], fp = table[2], fn = table[1], tp = table[3];
  const positive = 2 * tp + fp + fn, negative = 2 * tn + fp + fn;
  if (positive === 0 || negative === 0) return null;
  return ((2 * tp) / positive + (2 * tn) / negative) / 2;
}

/** Returns one statistic of the k × k table `table` of the categories of `scale`, or `null` when undefined. */
export function tableStatistic(statistic: Statistic, table: Float64Array, scale: TableScale): number | null {
  return tableStatistics([statistic], table, scale)[0];
}

/** Returns each of `statistics` of the k × k table `table` of the categories of `scale` (`null`: undefined). */
export function tableStatistics(
  statistics: readonly Statistic[],
  table: Float64Array,
  scale: TableScale,
): (number | null)[] {
  const k = scale.categories.length;
  const m = margins(table, k);
  return statistics.map((statistic) => snap(tableValue(statistic, table, scale, k, m)));
}

/** Returns `value` with rounding noise around 0 removed (a κ of exactly no agreement is 0, not −2e-16). */
export function snap(value: number | null): number | null {
  return value !== null && Math.abs(value) < 1e-12 ? 0 : value;
}

/** Returns one statistic of a table whose margins are `m`. */
function tableValue(
  statistic: Statistic,
  table: Float64Array,
  scale: TableScale,
  k: number,
  m: Margins,
): number | null {
  switch (statistic) {
    case "percent": {
      let same = 0;
      for (let i = 0; i < k; i++) same += table[i * k + i];
      return m.n === 0 ? null : same / m.n;
    }
    case "kappa":
      return kappa(table, k, false, m);
    case "qkappa":
      return kappa(table, k, true, m);
    case "alpha":
      return alpha(table, scale);
    case "rho":
      return spearman(table, k, m);
    case "f1":
      return balancedF1(table);
  }
}
