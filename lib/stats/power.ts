/**
 * Power of a benchmark: the smallest difference it can detect at its n (80% power, α = 0.05 two-sided by
 * default) and the n it would need to detect a given difference, paired (the same items under both
 * conditions) and unpaired (two independent samples). Normal approximations throughout; the formulas are in
 * docs/statistics.md.
 * @module
 */
import { normalQuantile } from "./distributions.ts";

/** Significance level and power of a design. */
export interface PowerSettings {
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Probability of detecting the difference (default 0.8). */
  power?: number;
}

/** Returns z_{1−α/2} + z_{power} for `settings`, after checking both are in (0, 1). */
function zSum(settings: PowerSettings): number {
  const alpha = settings.alpha ?? 0.05;
  const power = settings.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new Error(`power: alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new Error(`power: power must be in (0, 1), got ${power}`);
  return normalQuantile(1 - alpha / 2) + normalQuantile(power);
}

/** Returns z_{1−α/2} and z_{power} separately. */
function zParts(settings: PowerSettings): [number, number] {
  const total = zSum(settings);
  const zAlpha = normalQuantile(1 - (settings.alpha ?? 0.05) / 2);
  return [zAlpha, total - zAlpha];
}

/** Returns the smallest x in (0, hi] with f(x) ≤ 0 for a decreasing f, by bisection; `null` if f(hi) > 0. */
function smallestRoot(f: (x: number) => number, hi: number): number | null {
  if (f(hi) > 0) return null;
  let lo = 0;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Minimum detectable paired difference of means: (z_{1−α/2} + z_power) · s_d / √n. */
export function pairedMeanDetectable(
  sdDifference: number,
  pairs: number,
  settings: PowerSettings = {},
): number {
  return (zSum(settings) * sdDifference) / Math.sqrt(pairs);
}

/** Pairs needed to detect a mean difference δ: ⌈((z_{1−α/2} + z_power) · s_d / δ)²⌉. */
export function pairsForMean(sdDifference: number, difference: number, settings: PowerSettings = {}): number {
  return Math.ceil(((zSum(settings) * sdDifference) / Math.abs(difference)) ** 2);
}

/** Minimum detectable difference of two independent means: (z_{1−α/2} + z_power) · √(s₁²/n₁ + s₂²/n₂). */
export function twoMeansDetectable(
  sd1: number,
  n1: number,
  sd2: number,
  n2: number,
  settings: PowerSettings = {},
): number {
  return zSum(settings) * Math.sqrt(sd1 ** 2 / n1 + sd2 ** 2 / n2);
}

/** n per group to detect a difference δ of two independent means: ⌈(z_{1−α/2} + z_power)² (s₁² + s₂²) / δ²⌉. */
export function perGroupForMeans(
  sd1: number,
  sd2: number,
  difference: number,
  settings: PowerSettings = {},
): number {
  return Math.ceil((zSum(settings) ** 2 * (sd1 ** 2 + sd2 ** 2)) / difference ** 2);
}

/** n per group (unrounded) to tell proportion p₁ from p₂ with independent samples. */
function perGroupForProportionsExact(p1: number, p2: number, settings: PowerSettings): number {
  const [zAlpha, zPower] = zParts(settings);
  const pooled = (p1 + p2) / 2;
  const top = zAlpha * Math.sqrt(2 * pooled * (1 - pooled)) +
    zPower * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return (top / (p2 - p1)) ** 2;
}

/**
 * n per group to tell proportion p₁ from p₂ with two independent samples (Fleiss' formula without continuity
 * correction, as R's `power.prop.test`): ⌈[z_{1−α/2} √(2 p̄ q̄) + z_power √(p₁q₁ + p₂q₂)]² / (p₂ − p₁)²⌉,
 * p̄ = (p₁ + p₂)/2. Throws unless both are in [0, 1] and differ.
 */
export function perGroupForProportions(p1: number, p2: number, settings: PowerSettings = {}): number {
  if (!(p1 >= 0 && p1 <= 1 && p2 >= 0 && p2 <= 1) || p1 === p2) {
    throw new Error(`perGroupForProportions: need two different proportions in [0, 1], got ${p1} and ${p2}`);
  }
  return Math.ceil(perGroupForProportionsExact(p1, p2, settings));
}

/**
 * Minimum detectable difference from a rate p with two independent samples of n each: the smallest δ for
 * which {@linkcode perGroupForProportions}(p, p ± δ) ≤ n, δ taken towards ½ (where the variance, and so the
 * detectable difference, is larger: the conservative direction). `null` if no δ within [0, 1] is detectable.
 */
export function twoProportionsDetectable(
  p: number,
  perGroup: number,
  settings: PowerSettings = {},
): number | null {
  const direction = p <= 0.5 ? 1 : -1;
  const room = direction > 0 ? 1 - p : p;
  return smallestRoot(
    (delta) => perGroupForProportionsExact(p, p + direction * delta, settings) - perGroup,
    room,
  );
}

/** Pairs (unrounded) Connor's formula needs for discordance ψ and difference δ. */
function pairsForBinaryExact(discordance: number, difference: number, settings: PowerSettings): number {
  const [zAlpha, zPower] = zParts(settings);
  const top = zAlpha * Math.sqrt(discordance) +
    zPower * Math.sqrt(Math.max(0, discordance - difference ** 2));
  return (top / difference) ** 2;
}

/**
 * Pairs needed to detect a difference δ = p₀₁ − p₁₀ between paired rates (McNemar's test) when a share ψ of
 * pairs is discordant (Connor 1987, Biometrics 43:207–211): ⌈[z_{1−α/2} √ψ + z_power √(ψ − δ²)]² / δ²⌉.
 * `null` when |δ| > ψ (a difference larger than the discordance is impossible). Throws unless 0 < ψ ≤ 1.
 */
export function pairsForBinary(
  discordance: number,
  difference: number,
  settings: PowerSettings = {},
): number | null {
  if (!(discordance > 0 && discordance <= 1)) {
    throw new Error(`pairsForBinary: discordance must be in (0, 1], got ${discordance}`);
  }
  if (Math.abs(difference) > discordance || difference === 0) return null;
  return Math.ceil(pairsForBinaryExact(discordance, difference, settings));
}

/**
 * Minimum detectable difference of paired rates at n pairs and discordance ψ: the smallest δ ≤ ψ with
 * Connor's n ≤ pairs; `null` when even δ = ψ (every discordant pair going one way) is not detectable, or ψ = 0.
 */
export function pairedBinaryDetectable(
  discordance: number,
  pairs: number,
  settings: PowerSettings = {},
): number | null {
  if (!(discordance > 0)) return null;
  return smallestRoot((delta) => pairsForBinaryExact(discordance, delta, settings) - pairs, discordance);
}

/** What {@linkcode benchmarkPower} found for one difference to detect. */
export interface NeededN {
  /** The difference to detect (in the metric's units: 0.02 = 2 points of a rate). */
  difference: number;
  /** Pairs needed with a paired design (`null`: not possible at the observed discordance). */
  paired: number | null;
  /** n per group needed with two independent samples. */
  unpaired: number;
}

/** The power of a benchmark from two paired runs of it. */
export interface PowerReport {
  /** Number of pairs (items scored under both conditions). */
  n: number;
  /** Whether every value is 0 or 1 (then rates and discordance are used). */
  binary: boolean;
  /** Paired: the SD of the differences, or for 0/1 values the discordance rate ψ. */
  pairedBasis: { sdDifference: number } | { discordance: number };
  /** Minimum detectable difference with the paired design at n pairs (`null`: none is). */
  pairedDetectable: number | null;
  /** Minimum detectable difference of two independent samples of n each (`null`: none is). */
  unpairedDetectable: number | null;
  /** n needed for each difference asked about. */
  needed: NeededN[];
}

/** Returns the sample SD (divisor n − 1) of `values`. */
function sampleSd(values: readonly number[]): number {
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}

/**
 * Returns the power of a benchmark from the per-item values of two runs on the same n items (`base[i]` and
 * `other[i]` the same item): the minimum detectable difference at this n, paired (from the SD of the
 * differences, or for 0/1 values the discordance rate and Connor's formula) and unpaired (two means with the
 * runs' SDs, or two proportions from the baseline rate towards ½), and the n needed to detect each of
 * `differences` (default 0.02 and 0.05). Throws with fewer than 2 pairs or arrays of different lengths.
 */
export function benchmarkPower(
  base: readonly number[],
  other: readonly number[],
  differences: readonly number[] = [0.02, 0.05],
  settings: PowerSettings = {},
): PowerReport {
  const n = base.length;
  if (n !== other.length) {
    throw new Error(`benchmarkPower: ${n} baseline values but ${other.length} paired values`);
  }
  if (n < 2) throw new Error(`benchmarkPower: needs at least 2 pairs, got ${n}`);
  const binary = [...base, ...other].every((v) => v === 0 || v === 1);
  if (binary) {
    const discordance = base.filter((v, i) => v !== other[i]).length / n;
    const rate = base.reduce((s, v) => s + v, 0) / n;
    const towardsHalf = (d: number) => (rate <= 0.5 ? Math.min(1, rate + d) : Math.max(0, rate - d));
    return {
      n,
      binary,
      pairedBasis: { discordance },
      pairedDetectable: pairedBinaryDetectable(discordance, n, settings),
      unpairedDetectable: twoProportionsDetectable(rate, n, settings),
      needed: differences.map((d) => ({
        difference: d,
        paired: discordance > 0 ? pairsForBinary(discordance, d, settings) : null,
        unpaired: perGroupForProportions(rate, towardsHalf(d), settings),
      })),
    };
  }
  const sdDifference = sampleSd(base.map((v, i) => other[i] - v));
  const sd1 = sampleSd(base), sd2 = sampleSd(other);
  return {
    n,
    binary,
    pairedBasis: { sdDifference },
    pairedDetectable: pairedMeanDetectable(sdDifference, n, settings),
    unpairedDetectable: twoMeansDetectable(sd1, n, sd2, n, settings),
    needed: differences.map((d) => ({
      difference: d,
      paired: pairsForMean(sdDifference, d, settings),
      unpaired: perGroupForMeans(sd1, sd2, d, settings),
    })),
  };
}
