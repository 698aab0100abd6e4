/**
 * Calibrating a judge's score onto the humans' scale: an isotonic regression (pool-adjacent-violators) of the
 * human mean score on the judge's (or the jury's) mean score, fitted on a seeded random share of the rated
 * items and applied to the rest. On the held-out items it reports the human mean, the raw and the calibrated
 * judge mean, and the mean absolute error of each against the human mean. Every interval carries the
 * uncertainty of the fit: each bootstrap replicate refits the map on a resample of the labelled items and
 * evaluates it on a resample of the held-out ones.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { percentileInterval, RESAMPLES } from "../stats/bootstrap.ts";
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { fitIsotonic, type IsotonicFit, predictIsotonic } from "./isotonic.ts";
import { resampleItems } from "./item_bootstrap.ts";

/** One rated item: the judge's mean score `x` and the humans' mean score `y`. */
export interface CalibrationPoint {
  /** Sample id. */
  id: string;
  /** Judge (or jury) mean score. */
  x: number;
  /** Human mean score. */
  y: number;
}

/** The calibration's effect on held-out items. */
export interface CalibrationEvaluation {
  /** Held-out items. */
  items: number;
  /** Mean human score. */
  humanMean: Estimate;
  /** Mean raw judge score. */
  rawMean: Estimate;
  /** Mean calibrated judge score. */
  calibratedMean: Estimate;
  /** Mean |raw − human|. */
  rawError: Estimate;
  /** Mean |calibrated − human|. */
  calibratedError: Estimate;
  /** calibratedError − rawError (negative: calibration helps). */
  errorChange: Estimate;
}

/** A fitted calibration map of one group of items (or of all). */
export interface CalibrationCurve {
  /** Group field, or `null` for all items. */
  groupField: string | null;
  /** Group value, or `null` for all items. */
  group: string | null;
  /** The map: at each distinct judge score, the calibrated score and the labelled items there. */
  points: { judge: number; calibrated: number; items: number }[];
}

/** The calibration of one field. */
export interface Calibration {
  /** Labelled items the map is fitted on. */
  labelled: number;
  /** Held-out items it is evaluated on. */
  heldOut: number;
  /** Evaluation on all held-out items (`null` with fewer than 2 labelled or 1 held-out item). */
  overall: CalibrationEvaluation | null;
  /** Evaluation on the held-out items of each group (the map fitted on all labelled items). */
  byGroup: Record<string, Record<string, CalibrationEvaluation>>;
  /** The map fitted on all labelled items, then on the labelled items of each group. */
  curves: CalibrationCurve[];
}

/** Options of {@linkcode calibrate}. */
export interface CalibrateOptions {
  /** Seed text of the bootstrap. */
  seed: string;
  /** Bootstrap resamples. */
  resamples?: number;
}

/**
 * Returns the labelled share of `ids`: a seeded shuffle, then the first `fraction` of them (at least one, and
 * at least one left out when there are two or more).
 */
export function splitItems(ids: readonly string[], fraction: number, seed: string): Set<string> {
  const random = mulberry32(seedFrom(seed));
  const shuffled = [...ids];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const size = Math.min(Math.max(1, Math.round(fraction * ids.length)), Math.max(1, ids.length - 1));
  return new Set(shuffled.slice(0, size));
}

/** The six numbers of an evaluation, in {@linkcode CalibrationEvaluation} order. */
function evaluation(fit: IsotonicFit, points: readonly CalibrationPoint[]): number[] {
  let human = 0, raw = 0, calibrated = 0, rawError = 0, calibratedError = 0;
  for (const p of points) {
    const c = predictIsotonic(fit, p.x);
    human += p.y;
    raw += p.x;
    calibrated += c;
    rawError += Math.abs(p.x - p.y);
    calibratedError += Math.abs(c - p.y);
  }
  const n = points.length;
  return [
    human / n,
    raw / n,
    calibrated / n,
    rawError / n,
    calibratedError / n,
    (calibratedError - rawError) / n,
  ];
}

/** Returns the points of `fit` as a curve of a group. */
function curveOf(fit: IsotonicFit, groupField: string | null, group: string | null): CalibrationCurve {
  return {
    groupField,
    group,
    points: fit.x.map((x, i) => ({ judge: x, calibrated: fit.y[i], items: fit.weight[i] })),
  };
}

/** Returns the evaluation of `observed` with the bootstrap draws of each of its numbers. */
function evaluationOf(
  observed: number[],
  draws: Float64Array[],
  used: number,
  items: number,
): CalibrationEvaluation {
  const estimate = (k: number): Estimate => ({
    value: observed[k],
    ci95: items >= 2 && used > 0 ? percentileInterval(draws[k].subarray(0, used)) : null,
    n: items,
  });
  return {
    items,
    humanMean: estimate(0),
    rawMean: estimate(1),
    calibratedMean: estimate(2),
    rawError: estimate(3),
    calibratedError: estimate(4),
    errorChange: estimate(5),
  };
}

/**
 * Fits the isotonic map on the `labelled` points, evaluates it on the others (overall and per group of
 * `groups`: group field → sample id → value) with bootstrap intervals that refit the map on every replicate,
 * and returns the map's curves overall and per group.
 */
export function calibrate(
  points: readonly CalibrationPoint[],
  labelled: ReadonlySet<string>,
  groups: ReadonlyMap<string, ReadonlyMap<string, string>>,
  options: CalibrateOptions,
): Calibration {
  const train = points.filter((p) => labelled.has(p.id));
  const test = points.filter((p) => !labelled.has(p.id));
  const curves: CalibrationCurve[] = [];
  const result: Calibration = {
    labelled: train.length,
    heldOut: test.length,
    overall: null,
    byGroup: {},
    curves,
  };
  if (train.length === 0) return result;
  const fit = fitIsotonic(train.map((p) => p.x), train.map((p) => p.y));
  curves.push(curveOf(fit, null, null));
  for (const [field, byId] of groups) {
    const values = [...new Set(train.map((p) => byId.get(p.id)).filter((v): v is string => v !== undefined))];
    for (const value of values) {
      const own = train.filter((p) => byId.get(p.id) === value);
      curves.push(curveOf(fitIsotonic(own.map((p) => p.x), own.map((p) => p.y)), field, value));
    }
  }
  if (train.length < 2 || test.length === 0) return result;
  const sets: { field: string | null; value: string | null; points: CalibrationPoint[] }[] = [
    { field: null, value: null, points: test },
  ];
  for (const [field, byId] of groups) {
    for (
      const value of new Set(test.map((p) => byId.get(p.id)).filter((v): v is string => v !== undefined))
    ) {
      sets.push({ field, value, points: test.filter((p) => byId.get(p.id) === value) });
    }
  }
  const resamples = options.resamples ?? RESAMPLES;
  const random = mulberry32(seedFrom(options.seed));
  const draws = sets.map(() => Array.from({ length: 6 }, () => new Float64Array(resamples)));
  for (let b = 0; b < resamples; b++) {
    const labelledResample = resampleItems(train, random);
    const refit = fitIsotonic(labelledResample.map((p) => p.x), labelledResample.map((p) => p.y));
    sets.forEach((set, s) => {
      evaluation(refit, resampleItems(set.points, random)).forEach((v, k) => draws[s][k][b] = v);
    });
  }
  sets.forEach((set, s) => {
    const evaluated = evaluationOf(evaluation(fit, set.points), draws[s], resamples, set.points.length);
    if (set.field === null) result.overall = evaluated;
    else (result.byGroup[set.field] ??= {})[set.value!] = evaluated;
  });
  return result;
}
