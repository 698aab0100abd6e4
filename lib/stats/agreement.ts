/**
 * Inter-rater agreement: Krippendorff's alpha (nominal, ordinal, interval; with a seeded unit-bootstrap
 * 95% CI), the intraclass correlations ICC(2,1) and ICC(2,k), Fleiss' kappa, Cohen's kappa (unweighted and
 * linear/quadratic weighted, with a seeded pair-bootstrap 95% CI), and percent agreement with a Wilson 95%
 * interval. Pure functions.
 *
 * Ratings come as units (items), one row per unit with one entry per rater; `null` marks a missing rating.
 * Categories are compared strictly, so `1` and `"1"` are different categories.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { percentileInterval, RESAMPLES } from "./bootstrap.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** One present rating: a category label or a number. */
export type Value = number | string;

/** One rating as given by a rater; `null` when the rater did not rate the unit. */
export type Rating = Value | null;

/** Level of measurement of the ratings; it fixes the difference function of Krippendorff's alpha. */
export type AlphaLevel = "nominal" | "ordinal" | "interval";

/** Options of {@linkcode alphaWithCi}. */
export interface AlphaCiOptions {
  /** Seed text; the same text gives the same interval. */
  seed: string;
  /** Number of bootstrap resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** The two Shrout & Fleiss (1979) case-2 intraclass correlations. */
export interface Icc {
  /** ICC(2,1): reliability of a single rater's score. */
  single: number;
  /** ICC(2,k): reliability of the mean of the k raters' scores. */
  average: number;
}

/** Disagreement weights of {@linkcode weightedKappa}: |i − j| / (k − 1) or (i − j)² / (k − 1)². */
export type KappaWeights = "linear" | "quadratic";

/** Options of {@linkcode kappaWithCi}. */
export interface KappaCiOptions {
  /** Ordered categories (index = rank); required with `weights`, optional otherwise. */
  levels?: readonly Value[];
  /** Weighting of disagreements; without it the kappa is Cohen's unweighted kappa. */
  weights?: KappaWeights;
  /** Seed text; the same text gives the same interval. */
  seed: string;
  /** Number of bootstrap resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** Returns how often each value occurs in `values`. */
function countValues<T>(values: Iterable<T>): Map<T, number> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** Returns the sum of `values`. */
function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Returns the present ratings of every unit that has at least two of them (the pairable units). */
function pairableUnits(units: readonly (readonly Rating[])[]): Value[][] {
  return units.map((unit) => unit.filter((v): v is Value => v !== null)).filter((unit) => unit.length >= 2);
}

// ---------------------------------------------------------------------------------------------------------
// Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability")
// ---------------------------------------------------------------------------------------------------------

/** Pairable units recoded as indices into `categories` (sorted by value for ordinal and interval data). */
interface CodedUnits {
  units: number[][];
  categories: Value[];
  level: AlphaLevel;
}

/** Returns the distinct values of `units` (for ordinal and interval data: checked numbers, sorted). */
function categoriesOf(units: readonly (readonly Value[])[], level: AlphaLevel): Value[] {
  const distinct = [...new Set(units.flat())];
  if (level === "nominal") return distinct;
  for (const v of distinct) {
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new Error(`krippendorffAlpha: ${level} ratings must be finite numbers, got ${JSON.stringify(v)}`);
    }
  }
  return (distinct as number[]).sort((a, b) => a - b);
}

/** Returns the pairable units of `units` recoded as category indices. */
function codeUnits(units: readonly (readonly Rating[])[], level: AlphaLevel): CodedUnits {
  const pairable = pairableUnits(units);
  const categories = categoriesOf(pairable, level);
  const index = new Map(categories.map((c, i) => [c, i]));
  return { units: pairable.map((unit) => unit.map((v) => index.get(v)!)), categories, level };
}

/** Adds one unit's pairs to the coincidence matrix `o`: each ordered pair of its m values adds 1/(m − 1). */
function addUnitPairs(o: number[][], unit: readonly number[]): void {
  const weight = 1 / (unit.length - 1);
  const counts = countValues(unit);
  for (const [c, nc] of counts) {
    for (const [k, nk] of counts) o[c][k] += nc * (c === k ? nk - 1 : nk) * weight;
  }
}

/** Returns the coincidence matrix o[c][k] of units coded as indices 0 … size − 1. */
function coincidenceMatrix(units: readonly (readonly number[])[], size: number): number[][] {
  const o = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  for (const unit of units) addUnitPairs(o, unit);
  return o;
}

/** Ordinal δ²: (n_c + … + n_k − (n_c + n_k)/2)², summing the marginals from category c to k in rank order. */
function ordinalDifference(c: number, k: number, marginals: readonly number[]): number {
  const lo = Math.min(c, k), hi = Math.max(c, k);
  let between = 0;
  for (let g = lo; g <= hi; g++) between += marginals[g];
  return (between - (marginals[lo] + marginals[hi]) / 2) ** 2;
}

/** Returns the squared difference δ²(c, k) between categories with indices c and k at `level`. */
function squaredDifference(c: number, k: number, coded: CodedUnits, marginals: readonly number[]): number {
  if (coded.level === "nominal") return c === k ? 0 : 1;
  if (coded.level === "ordinal") return ordinalDifference(c, k, marginals);
  return ((coded.categories[c] as number) - (coded.categories[k] as number)) ** 2;
}

/**
 * Returns α = 1 − D_o / D_e = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck for the given coded units, or `null`
 * when there are no pairable units or the expected disagreement is 0.
 */
function alphaOfCoded(units: readonly (readonly number[])[], coded: CodedUnits): number | null {
  const o = coincidenceMatrix(units, coded.categories.length);
  const marginals = o.map(sum);
  const n = sum(marginals);
  let observed = 0, expected = 0;
  for (let c = 0; c < o.length; c++) {
    for (let k = 0; k < o.length; k++) {
      const delta = squaredDifference(c, k, coded, marginals);
      observed += o[c][k] * delta;
      expected += marginals[c] * marginals[k] * delta;
    }
  }
  if (n === 0 || expected === 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}

/**
 * Returns Krippendorff's alpha of `units` (one row per unit, one entry per rater, `null` = missing) at the
 * given level of measurement, from the coincidence matrix: nominal δ² = [c ≠ k], ordinal δ² from cumulative
 * marginal frequencies, interval δ² = (c − k)². Units with fewer than two ratings are dropped.
 *
 * Returns `null` when alpha is undefined: no pairable unit, or expected disagreement 0 (every rating has the
 * same value). When raters agree within every unit and the units differ, alpha is 1.
 * Throws if ordinal or interval ratings are not finite numbers.
 */
export function krippendorffAlpha(units: readonly (readonly Rating[])[], level: AlphaLevel): number | null {
  const coded = codeUnits(units, level);
  return alphaOfCoded(coded.units, coded);
}

/** Returns a resample of `units` of the same size, drawn with replacement using `random`. */
function resampleUnits<T>(units: readonly T[], random: () => number): T[] {
  return Array.from({ length: units.length }, () => units[Math.floor(random() * units.length)]);
}

/**
 * Returns the 95% percentile interval of a statistic over seeded resamples (`statistic` draws one resample with
 * the generator it is given); resamples where the statistic is undefined are skipped, `null` when all are.
 */
function bootstrapInterval(
  options: { seed: string; resamples?: number },
  statistic: (random: () => number) => number | null,
): [number, number] | null {
  const random = mulberry32(seedFrom(options.seed));
  const stats = new Float64Array(options.resamples ?? RESAMPLES);
  let defined = 0;
  for (let b = 0; b < stats.length; b++) {
    const value = statistic(random);
    if (value !== null && Number.isFinite(value)) stats[defined++] = value;
  }
  return defined > 0 ? percentileInterval(stats.subarray(0, defined)) : null;
}

/**
 * Returns Krippendorff's alpha with a 95% percentile-bootstrap CI over units (`resamples` resamples of the
 * pairable units, drawn with replacement from a generator seeded by `seed`); n = number of pairable units.
 * Resamples on which alpha is undefined are left out of the interval; `ci95` is `null` when alpha itself is
 * undefined or no resample defines it.
 */
export function alphaWithCi(
  units: readonly (readonly Rating[])[],
  level: AlphaLevel,
  options: AlphaCiOptions,
): Estimate {
  const coded = codeUnits(units, level);
  const n = coded.units.length;
  const value = alphaOfCoded(coded.units, coded);
  if (value === null) return { value: null, ci95: null, n };
  const ci95 = bootstrapInterval(
    options,
    (random) => alphaOfCoded(resampleUnits(coded.units, random), coded),
  );
  return { value, ci95, n };
}

// ---------------------------------------------------------------------------------------------------------
// Intraclass correlation (Shrout & Fleiss 1979, case 2)
// ---------------------------------------------------------------------------------------------------------

/** Throws unless `matrix` is a complete, rectangular targets × raters matrix with at least 2 × 2 numbers. */
function checkCompleteMatrix(matrix: readonly (readonly number[])[]): void {
  if (matrix.length < 2) {
    throw new Error(`iccTwoWayRandom: needs at least 2 targets (rows), got ${matrix.length}`);
  }
  const raters = matrix[0].length;
  if (raters < 2) throw new Error(`iccTwoWayRandom: needs at least 2 raters (columns), got ${raters}`);
  matrix.forEach((row, i) => {
    if (row.length !== raters) {
      throw new Error(
        `iccTwoWayRandom: matrix is not rectangular: row ${i} has ${row.length} ratings, row 0 has ${raters}`,
      );
    }
    row.forEach((v, j) => {
      if (typeof v !== "number" || !Number.isFinite(v)) {
        throw new Error(`iccTwoWayRandom: missing or non-numeric rating at row ${i}, column ${j}: ${v}`);
      }
    });
  });
}

/** Mean squares of the two-way ANOVA of a targets × raters matrix. */
interface MeanSquares {
  /** Between targets (BMS). */
  targets: number;
  /** Between raters (JMS). */
  raters: number;
  /** Residual (EMS). */
  error: number;
}

/** Returns the between-targets, between-raters and residual mean squares of a complete n × k matrix. */
function twoWayMeanSquares(matrix: readonly (readonly number[])[]): MeanSquares {
  const n = matrix.length, k = matrix[0].length;
  const grand = sum(matrix.map(sum)) / (n * k);
  const rowMeans = matrix.map((row) => sum(row) / k);
  const colMeans = matrix[0].map((_, j) => sum(matrix.map((row) => row[j])) / n);
  const ssTargets = k * sum(rowMeans.map((m) => (m - grand) ** 2));
  const ssRaters = n * sum(colMeans.map((m) => (m - grand) ** 2));
  const ssTotal = sum(matrix.flatMap((row) => row.map((v) => (v - grand) ** 2)));
  return {
    targets: ssTargets / (n - 1),
    raters: ssRaters / (k - 1),
    error: (ssTotal - ssTargets - ssRaters) / ((n - 1) * (k - 1)),
  };
}

/**
 * Returns ICC(2,1) and ICC(2,k) of Shrout & Fleiss (1979): two-way random effects, absolute agreement, from a
 * complete targets × raters matrix:
 * ICC(2,1) = (BMS − EMS) / (BMS + (k − 1) EMS + k (JMS − EMS) / n),
 * ICC(2,k) = (BMS − EMS) / (BMS + (JMS − EMS) / n).
 * Both are NaN (0/0) when every rating is the same. Throws if the matrix is not rectangular, has fewer than
 * 2 rows or 2 columns, or has a missing (null, undefined, NaN) rating.
 */
export function iccTwoWayRandom(matrix: readonly (readonly number[])[]): Icc {
  checkCompleteMatrix(matrix);
  const n = matrix.length, k = matrix[0].length;
  const ms = twoWayMeanSquares(matrix);
  return {
    single: (ms.targets - ms.error) / (ms.targets + (k - 1) * ms.error + (k * (ms.raters - ms.error)) / n),
    average: (ms.targets - ms.error) / (ms.targets + (ms.raters - ms.error) / n),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Kappas
// ---------------------------------------------------------------------------------------------------------

/**
 * Returns Fleiss' kappa for complete categorical ratings, every unit rated by the same number of raters:
 * κ = (P̄ − P_e) / (1 − P_e). Returns `null` when undefined: no units, fewer than 2 raters per unit, or a
 * single category used throughout (P_e = 1). Throws if units have different numbers of ratings or a rating is
 * missing.
 */
export function fleissKappa(units: readonly (readonly Value[])[]): number | null {
  if (units.length === 0) return null;
  const raters = units[0].length;
  units.forEach((unit, i) => {
    if (unit.length !== raters) {
      throw new Error(
        `fleissKappa: unit ${i} has ${unit.length} ratings, unit 0 has ${raters}; all must be equal`,
      );
    }
    if (unit.some((v) => v === null || v === undefined)) {
      throw new Error(`fleissKappa: unit ${i} has a missing rating`);
    }
  });
  if (raters < 2) return null;
  const totals = countValues(units.flat());
  if (totals.size < 2) return null;
  const unitAgreement = units.map((unit) => {
    let agreeingPairs = 0;
    for (const count of countValues(unit).values()) agreeingPairs += count * (count - 1);
    return agreeingPairs / (raters * (raters - 1));
  });
  const observed = sum(unitAgreement) / units.length;
  const expected = sum([...totals.values()].map((t) => (t / (units.length * raters)) ** 2));
  return (observed - expected) / (1 - expected);
}

/**
 * Returns Cohen's kappa of two raters, `a[i]` and `b[i]` rating the same unit: κ = (p_o − p_e) / (1 − p_e).
 * Pairs with a `null` on either side are dropped. Returns `null` when undefined: no complete pair, or both
 * raters using one and the same category throughout (p_e = 1). Throws if `a` and `b` differ in length.
 */
export function cohenKappa(a: readonly Rating[], b: readonly Rating[]): number | null {
  if (a.length !== b.length) throw new Error(`cohenKappa: ${a.length} vs ${b.length} ratings`);
  const pairs = a.flatMap((x, i) => (x === null || b[i] === null ? [] : [[x, b[i]!] as const]));
  const n = pairs.length;
  const countsA = countValues(pairs.map(([x]) => x));
  const countsB = countValues(pairs.map(([, y]) => y));
  if (n === 0 || new Set([...countsA.keys(), ...countsB.keys()]).size < 2) return null;
  const observed = pairs.filter(([x, y]) => x === y).length / n;
  let expected = 0;
  for (const [category, countA] of countsA) expected += (countA / n) * ((countsB.get(category) ?? 0) / n);
  return (observed - expected) / (1 - expected);
}

// ---------------------------------------------------------------------------------------------------------
// Weighted kappa (Cohen 1968) and kappa with a bootstrap CI
// ---------------------------------------------------------------------------------------------------------

/** Two raters' ratings as category indices: pair t is (`first[t]`, `second[t]`), categories 0 … size − 1. */
interface CodedPairs {
  first: Int32Array;
  second: Int32Array;
  size: number;
}

/** Returns the complete pairs (both ratings present) of `a` and `b`; throws if their lengths differ. */
function completePairs(a: readonly Rating[], b: readonly Rating[], caller: string): [Value, Value][] {
  if (a.length !== b.length) throw new Error(`${caller}: ${a.length} vs ${b.length} ratings`);
  return a.flatMap((x, i) => (x === null || b[i] === null ? [] : [[x, b[i]!] as [Value, Value]]));
}

/** Returns each level's index; throws on a repeated level. */
function levelIndex(levels: readonly Value[], caller: string): Map<Value, number> {
  const index = new Map<Value, number>();
  levels.forEach((level, i) => {
    if (index.has(level)) throw new Error(`${caller}: level ${JSON.stringify(level)} is listed twice`);
    index.set(level, i);
  });
  return index;
}

/** Throws unless every present rating of `a` and `b` is one of the levels in `index`. */
function checkLevels(
  a: readonly Rating[],
  b: readonly Rating[],
  index: ReadonlyMap<Value, number>,
  caller: string,
): void {
  for (const v of [...a, ...b]) {
    if (v !== null && !index.has(v)) {
      throw new Error(
        `${caller}: value ${JSON.stringify(v)} is not one of the levels ${JSON.stringify([...index.keys()])}`,
      );
    }
  }
}

/** Returns `pairs` coded through `index`. */
function codePairs(pairs: readonly [Value, Value][], index: ReadonlyMap<Value, number>): CodedPairs {
  return {
    first: Int32Array.from(pairs, ([x]) => index.get(x)!),
    second: Int32Array.from(pairs, ([, y]) => index.get(y)!),
    size: index.size,
  };
}

/** Returns the k × k disagreement weights: nominal [i ≠ j], linear |i − j|/(k − 1), quadratic (i − j)²/(k − 1)². */
function disagreementWeights(k: number, weights: KappaWeights | "nominal"): number[][] {
  return Array.from({ length: k }, (_, i) =>
    Array.from({ length: k }, (_, j) => {
      if (i === j) return 0;
      if (weights === "nominal") return 1;
      const d = Math.abs(i - j) / (k - 1);
      return weights === "linear" ? d : d * d;
    }));
}

/**
 * Returns κ_w = 1 − Σ w·O / Σ w·E over n pairs, the t-th being pair `pick(t)` of `coded`, from counts:
 * κ_w = 1 − n Σ w_ij c_ij / Σ w_ij r_i s_j (c = pair counts, r and s = the raters' marginal counts).
 * Returns `null` when n = 0 or the expected disagreement Σ w·E is 0.
 */
function kappaOfCoded(
  coded: CodedPairs,
  w: readonly (readonly number[])[],
  n: number,
  pick: (t: number) => number,
): number | null {
  const k = coded.size;
  const cells = new Float64Array(k * k), rows = new Float64Array(k), cols = new Float64Array(k);
  for (let t = 0; t < n; t++) {
    const p = pick(t), i = coded.first[p], j = coded.second[p];
    cells[i * k + j]++;
    rows[i]++;
    cols[j]++;
  }
  let observed = 0, expected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      observed += w[i][j] * cells[i * k + j];
      expected += w[i][j] * rows[i] * cols[j];
    }
  }
  if (n === 0 || expected === 0) return null;
  return 1 - (n * observed) / expected;
}

/**
 * Returns Cohen's (1968) weighted kappa of two raters over the ordered categories `levels` (a level's index is
 * its rank): κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij, with O the observed and E the chance-expected (product of
 * marginals) proportions, and disagreement weights w_ij = |i − j| / (k − 1) ("linear") or
 * (i − j)² / (k − 1)² ("quadratic"). With k = 2 levels both equal unweighted Cohen's kappa.
 *
 * Pairs with a `null` on either side are dropped. Returns `null` when there is no complete pair or the
 * expected disagreement is 0 (e.g. both raters use one and the same level throughout, or k < 2).
 * Throws if `a` and `b` differ in length, a level is listed twice, or a present rating is not in `levels`
 * (the error names the value).
 */
export function weightedKappa(
  a: readonly Rating[],
  b: readonly Rating[],
  levels: readonly Value[],
  weights: KappaWeights,
): number | null {
  const index = levelIndex(levels, "weightedKappa");
  checkLevels(a, b, index, "weightedKappa");
  const coded = codePairs(completePairs(a, b, "weightedKappa"), index);
  return kappaOfCoded(coded, disagreementWeights(index.size, weights), coded.first.length, (t) => t);
}

/** Returns the category index of `a` and `b` for {@linkcode kappaWithCi} and the weights to use with it. */
function kappaSetup(
  a: readonly Rating[],
  b: readonly Rating[],
  options: KappaCiOptions,
): { index: Map<Value, number>; weights: KappaWeights | "nominal" } {
  if (options.weights && !options.levels) throw new Error("kappaWithCi: weights need ordered levels");
  if (options.levels) {
    const index = levelIndex(options.levels, "kappaWithCi");
    checkLevels(a, b, index, "kappaWithCi");
    return { index, weights: options.weights ?? "nominal" };
  }
  const categories = new Set(completePairs(a, b, "kappaWithCi").flat());
  return { index: new Map([...categories].map((c, i) => [c, i])), weights: "nominal" };
}

/**
 * Returns a kappa of two raters with a 95% percentile-bootstrap CI over complete pairs: Cohen's unweighted
 * kappa (as {@linkcode cohenKappa}), or {@linkcode weightedKappa} when `weights` and `levels` are given.
 * `resamples` resamples of the n complete pairs are drawn with replacement from a generator seeded by `seed`;
 * resamples on which kappa is undefined are left out. n = number of complete pairs; `value` is `null` when
 * kappa is undefined, `ci95` is `null` then, when n < 2, or when no resample defines kappa.
 * Throws if `weights` is given without `levels`, or in the cases where {@linkcode weightedKappa} throws.
 */
export function kappaWithCi(a: readonly Rating[], b: readonly Rating[], options: KappaCiOptions): Estimate {
  const { index, weights } = kappaSetup(a, b, options);
  const coded = codePairs(completePairs(a, b, "kappaWithCi"), index);
  const w = disagreementWeights(index.size, weights);
  const n = coded.first.length;
  const value = kappaOfCoded(coded, w, n, (t) => t);
  if (value === null || n < 2) return { value, ci95: null, n };
  const ci95 = bootstrapInterval(
    options,
    (random) => kappaOfCoded(coded, w, n, () => Math.floor(random() * n)),
  );
  return { value, ci95, n };
}

// ---------------------------------------------------------------------------------------------------------
// Percent agreement
// ---------------------------------------------------------------------------------------------------------

/** Returns the Wilson score interval of `successes` out of `n` (two-sided, z = 1.96); `null` when n = 0. */
export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const halfWidth = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, center - halfWidth), Math.min(1, center + halfWidth)];
}

/**
 * Returns the share of pairable units (at least two ratings) on which all present raters give the same
 * value, with its Wilson 95% interval; n = number of pairable units (`value` and `ci95` are `null` when there
 * is none).
 */
export function percentAgreement(units: readonly (readonly Rating[])[]): Estimate {
  const pairable = pairableUnits(units);
  const n = pairable.length;
  const agreeing = pairable.filter((unit) => unit.every((v) => v === unit[0])).length;
  return { value: n === 0 ? null : agreeing / n, ci95: wilsonInterval(agreeing, n), n };
}

/**
 * Returns the share of complete pairs (both ratings present) on which raters `a` and `b` give the same value,
 * with its Wilson 95% interval; n = number of complete pairs (`value` and `ci95` are `null` when there is
 * none). Throws if `a` and `b` differ in length.
 */
export function pairAgreement(a: readonly Rating[], b: readonly Rating[]): Estimate {
  const pairs = completePairs(a, b, "pairAgreement");
  const n = pairs.length;
  const agreeing = pairs.filter(([x, y]) => x === y).length;
  return { value: n === 0 ? null : agreeing / n, ci95: wilsonInterval(agreeing, n), n };
}
