/**
 * How large a difference a benchmark can detect, from what its metric's variance is taken to be: two paired
 * runs (the observed discordance, or SD of the differences), one run (its rate or SD, the two models taken as
 * independent) or a stated conservative default (p = 0.5 for a rate; half the scale for a bounded score).
 * Every number comes from lib/stats/power.ts (normal approximations, two-sided α = 0.05, 80% power): the
 * minimum detectable difference paired and unpaired, the power to detect a given difference (the power at
 * which that module's minimum detectable difference equals it), and the n needed for given differences.
 * @module
 */
import { aspectMax, totalMax } from "../benchmarks/medgpteval/rubric.ts";
import {
  pairedBinaryDetectable,
  pairedMeanDetectable,
  pairsForBinary,
  pairsForMean,
  perGroupForMeans,
  perGroupForProportions,
  type PowerSettings,
  twoMeansDetectable,
  twoProportionsDetectable,
} from "../stats/power.ts";

/** Significance level unless told otherwise. */
export const DEFAULT_ALPHA = 0.05;

/** Power unless told otherwise. */
export const DEFAULT_POWER = 0.8;

/** What the variance of a metric is taken from, and its numbers. */
export type PowerBasis =
  | {
    /** A rate (0/1 values): the baseline rate and the share of items on which two models disagree. */
    kind: "rate";
    /** The rate p (the unpaired design's baseline, moved towards ½ by the difference). */
    rate: number;
    /** Discordance ψ: the share of items one model gets right and the other wrong. */
    discordance: number;
    /** Where the numbers come from, one line. */
    source: string;
  }
  | {
    /** A graded metric: SDs of the two models' values and of their per-item differences. */
    kind: "mean";
    /** SD of model A's values. */
    sd1: number;
    /** SD of model B's values. */
    sd2: number;
    /** SD of the per-item differences B − A. */
    sdDifference: number;
    /** Where the numbers come from, one line. */
    source: string;
  };

/** How a metric's differences are spoken of: points of a rate, or of a bounded score's range. */
export interface MetricScale {
  /** `true` for rates (and means in [0, 1]) shown in %. */
  percent: boolean;
  /** The range of a bounded score, when known (e.g. MedGPTEval's total: 0–16). */
  range?: [number, number];
}

/** Ranges of the bounded scores the benchmarks report, by benchmark and metric. */
export const SCORE_RANGES: Readonly<Record<string, Readonly<Record<string, [number, number]>>>> = {
  medgpteval: {
    total: [0, totalMax("dialogue")],
    medical: [0, aspectMax("medical")],
    social: [0, aspectMax("social")],
    contextual: [0, aspectMax("contextual")],
  },
  "llmeval-med": { mean_score: [1, 5] },
};

/** Returns the scale of `metric` of `benchmark` (`percent` as its tables show it, its range when known). */
export function metricScale(benchmark: string, metric: { name: string; percent: boolean }): MetricScale {
  const range = SCORE_RANGES[benchmark]?.[metric.name];
  return { percent: metric.percent, ...(range ? { range } : {}) };
}

/** Returns one point of the scale: 0.01 of a rate (a percentage point), else 1% of the range (0.01 unknown). */
export function pointOf(scale: MetricScale): number {
  if (scale.percent || !scale.range) return 0.01;
  return (scale.range[1] - scale.range[0]) / 100;
}

/** Returns the mean of `values`. */
function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/** Returns the sample SD (divisor n − 1) of `values`, 0 for fewer than 2. */
function sampleSd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
}

/** Returns `true` when every value is 0 or 1. */
function isBinary(values: readonly number[]): boolean {
  return values.every((v) => v === 0 || v === 1);
}

/**
 * Returns the conservative default of a metric without a run: for a rate (or a mean in [0, 1]) p = 0.5, the
 * largest variance a value in [0, 1] can have, and discordance ψ = 2p(1 − p) = 0.5, two models whose outcomes
 * are independent (models that agree more need fewer pairs); for a bounded score SD = half its range, the
 * largest SD a value in it can have, and SD of the differences √2·SD (independent models). `undefined` when
 * the scale is neither.
 */
export function defaultBasis(scale: MetricScale): PowerBasis | undefined {
  if (scale.percent) {
    return {
      kind: "rate",
      rate: 0.5,
      discordance: 0.5,
      source: "conservative default: p = 0.5 (the largest variance of a rate); paired: discordance " +
        "ψ = 2p(1 − p) = 0.5 (two models whose outcomes are independent; models that agree more need fewer items)",
    };
  }
  if (!scale.range) return undefined;
  const sd = (scale.range[1] - scale.range[0]) / 2;
  return {
    kind: "mean",
    sd1: sd,
    sd2: sd,
    sdDifference: Math.SQRT2 * sd,
    source:
      `conservative default: SD = ${sd} (half the ${scale.range[0]}–${scale.range[1]} range: the largest ` +
      `SD a score in it can have); paired: SD of the differences √2·SD = ${(Math.SQRT2 * sd).toFixed(2)} ` +
      "(two independent models)",
  };
}

/**
 * Returns the basis one run's values give: a rate p and ψ = 2p(1 − p) for 0/1 values, else their SD for both
 * models and √2·SD for the differences (a second model, independent of the first, taken to vary alike).
 * Throws with fewer than 2 values.
 */
export function singleRunBasis(values: readonly number[], source: string): PowerBasis {
  if (values.length < 2) throw new Error(`singleRunBasis: needs at least 2 values, got ${values.length}`);
  if (isBinary(values)) {
    const rate = mean(values);
    return {
      kind: "rate",
      rate,
      discordance: 2 * rate * (1 - rate),
      source: `${source}: rate p = ${rate.toFixed(3)} over ${values.length} items; paired: discordance ` +
        `ψ = 2p(1 − p) = ${(2 * rate * (1 - rate)).toFixed(3)} (a second model independent of this one)`,
    };
  }
  const sd = sampleSd(values);
  return {
    kind: "mean",
    sd1: sd,
    sd2: sd,
    sdDifference: Math.SQRT2 * sd,
    source: `${source}: SD ${sd.toFixed(3)} over ${values.length} items; paired: SD of the differences ` +
      `√2·SD = ${(Math.SQRT2 * sd).toFixed(3)} (a second model independent of this one)`,
  };
}

/**
 * Returns the basis two runs on the same items give (`base[i]` and `other[i]` the same item), as
 * `benchmarkPower` of lib/stats/power.ts reads them: for 0/1 values the base run's rate and the observed
 * discordance, else both SDs and the SD of the differences. Throws with fewer than 2 pairs.
 */
export function pairedRunsBasis(
  base: readonly number[],
  other: readonly number[],
  source: string,
): PowerBasis {
  if (base.length !== other.length || base.length < 2) {
    throw new Error(`pairedRunsBasis: needs at least 2 pairs, got ${base.length} and ${other.length} values`);
  }
  if (isBinary(base) && isBinary(other)) {
    const rate = mean(base);
    const discordance = base.filter((v, i) => v !== other[i]).length / base.length;
    return {
      kind: "rate",
      rate,
      discordance,
      source: `${source}: rate p = ${rate.toFixed(3)} (the first run); discordance ψ = ${
        discordance.toFixed(3)
      } observed over ${base.length} paired items`,
    };
  }
  const sdDifference = sampleSd(base.map((v, i) => other[i] - v));
  const [sd1, sd2] = [sampleSd(base), sampleSd(other)];
  return {
    kind: "mean",
    sd1,
    sd2,
    sdDifference,
    source: `${source}: SDs ${sd1.toFixed(3)} and ${sd2.toFixed(3)}, SD of the differences ${
      sdDifference.toFixed(3)
    }, observed over ${base.length} paired items`,
  };
}

/** Paired and unpaired values of one quantity (`null`: not detectable, or not possible at this basis). */
export interface DesignPair {
  /** The same items under both models. */
  paired: number | null;
  /** Two independent samples of n items each. */
  unpaired: number | null;
}

/** What a benchmark can detect at its n. */
export interface PowerAnswer {
  /** Items (per model). */
  n: number;
  /** What the variance is taken from. */
  basis: PowerBasis;
  /** Two-sided significance level. */
  alpha: number;
  /** The power the detectable difference and the n needed are computed for. */
  power: number;
  /** Minimum detectable difference at n, in the metric's units. */
  detectable: DesignPair;
  /** When asked about a difference: the power to detect it at n, and the items 80% power (`power`) needs. */
  delta?: { difference: number; power: DesignPair; needed: DesignPair };
  /** Items needed (pairs; per model unpaired) to detect each difference at `power`. */
  needed: ({ difference: number } & DesignPair)[];
}

/** Returns `p` moved by `d` towards ½, within [0, 1] (the conservative direction for two rates). */
function towardsHalf(p: number, d: number): number {
  return p <= 0.5 ? Math.min(1, p + d) : Math.max(0, p - d);
}

/** Returns the minimum detectable differences at n under `settings`. */
function detectableAt(basis: PowerBasis, n: number, settings: PowerSettings): DesignPair {
  if (basis.kind === "rate") {
    return {
      paired: pairedBinaryDetectable(basis.discordance, n, settings),
      unpaired: twoProportionsDetectable(basis.rate, n, settings),
    };
  }
  return {
    paired: pairedMeanDetectable(basis.sdDifference, n, settings),
    unpaired: twoMeansDetectable(basis.sd1, n, basis.sd2, n, settings),
  };
}

/** Returns the items needed to detect `difference` at `settings`. */
function neededFor(basis: PowerBasis, difference: number, settings: PowerSettings): DesignPair {
  if (basis.kind === "rate") {
    const other = towardsHalf(basis.rate, difference);
    return {
      paired: basis.discordance > 0 ? pairsForBinary(basis.discordance, difference, settings) : null,
      unpaired: other === basis.rate ? null : perGroupForProportions(basis.rate, other, settings),
    };
  }
  return {
    paired: basis.sdDifference > 0 ? pairsForMean(basis.sdDifference, difference, settings) : null,
    unpaired: basis.sd1 > 0 || basis.sd2 > 0
      ? perGroupForMeans(basis.sd1, basis.sd2, difference, settings)
      : null,
  };
}

/**
 * Returns the power to detect `difference` at level `alpha`: the power setting at which `detectable` (a
 * minimum detectable difference of lib/stats/power.ts, increasing with power) equals it, found by bisection
 * between α/2 and 1. `null` when no power detects it (a paired rate difference beyond the discordance).
 */
function powerToDetect(
  difference: number,
  alpha: number,
  detectable: (settings: PowerSettings) => number | null,
): number | null {
  const at = (power: number) => detectable({ alpha, power }) ?? Infinity;
  let lo = alpha / 2 + 1e-9, hi = 1 - 1e-9;
  if (at(hi) <= difference) return hi;
  if (at(lo) >= difference) return lo;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (at(mid) <= difference) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Returns what a benchmark of n items can detect on `basis`: the minimum detectable difference at
 * `options.power` (default 80%), paired and unpaired; the power to detect `options.delta` and the items that
 * power needs for it, when given; and the items needed for each of `options.differences`.
 */
export function powerAnswer(
  basis: PowerBasis,
  n: number,
  options: { differences: readonly number[]; delta?: number; alpha?: number; power?: number },
): PowerAnswer {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const power = options.power ?? DEFAULT_POWER;
  const settings = { alpha, power };
  const answer: PowerAnswer = {
    n,
    basis,
    alpha,
    power,
    detectable: detectableAt(basis, n, settings),
    needed: options.differences.map((difference) => ({
      difference,
      ...neededFor(basis, difference, settings),
    })),
  };
  const delta = options.delta;
  if (delta !== undefined) {
    const impossible = basis.kind === "rate" && delta > basis.discordance;
    answer.delta = {
      difference: delta,
      power: {
        paired: impossible ? null : powerToDetect(delta, alpha, (s) => detectableAt(basis, n, s).paired),
        unpaired: powerToDetect(delta, alpha, (s) => detectableAt(basis, n, s).unpaired),
      },
      needed: neededFor(basis, delta, settings),
    };
  }
  return answer;
}
