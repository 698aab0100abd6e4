/**
 * Bootstrap intervals for the rank of each of K models scored on the same items: how sure a leaderboard's
 * order is.
 * @module
 */
import { RESAMPLES } from "./bootstrap.ts";
import { mulberry32, seedFrom } from "./rng.ts";

/** One model's per-item values, item i being the same item for every model. */
export interface ModelValues {
  /** Model label. */
  model: string;
  /** One value per item (a 0/1 outcome, a score). */
  values: readonly number[];
}

/** Options of {@linkcode bootstrapRankIntervals}. */
export interface RankIntervalOptions {
  /** Seed text; the same text gives the same intervals. */
  seed: string;
  /** Number of resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
  /** Whether a higher mean ranks first (default `true`). */
  higherIsBetter?: boolean;
}

/** A model's rank with its bootstrap interval. */
export interface RankInterval {
  /** Model label. */
  model: string;
  /** Mean over all items. */
  mean: number;
  /** Rank on all items: 1 + the number of models with a better mean (tied models share the better rank). */
  rank: number;
  /** 95% interval of the rank: [2.5% quantile, 97.5% quantile] over resamples, ties counted both ways. */
  ranks: [number, number];
  /** Number of models ranked (K). */
  of: number;
  /** `"rank 1 of 5"` or `"ranks 1–2 of 5"`. */
  label: string;
}

/** Returns true when two means are equal up to rounding (so identical models tie in every resample). */
function tied(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Throws unless there is a model and an item, every model has the same number of finite values, and labels are unique. */
function checkModels(models: readonly ModelValues[]): void {
  if (models.length === 0) throw new Error("bootstrapRankIntervals: no model to rank");
  const n = models[0].values.length;
  if (n === 0) throw new Error("bootstrapRankIntervals: no items to rank the models on");
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m.model)) throw new Error(`bootstrapRankIntervals: model "${m.model}" appears twice`);
    seen.add(m.model);
    if (m.values.length !== n) {
      throw new Error(
        `bootstrapRankIntervals: model "${m.model}" has ${m.values.length} values, "${
          models[0].model
        }" has ${n}`,
      );
    }
    const i = m.values.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) {
      throw new Error(`bootstrapRankIntervals: model "${m.model}", item ${i} is not a finite number`);
    }
  }
}

/**
 * Adds each model's best and worst possible rank given `means` to the histograms: best = 1 + the number of
 * models strictly better, worst = the number of models better or tied (itself included).
 */
function countRanks(means: Float64Array, sign: number, best: Int32Array[], worst: Int32Array[]): void {
  const k = means.length;
  for (let a = 0; a < k; a++) {
    let better = 0, ties = 0;
    for (let b = 0; b < k; b++) {
      if (b === a) continue;
      if (tied(means[a], means[b])) ties++;
      else if (sign * (means[b] - means[a]) > 0) better++;
    }
    best[a][better + 1]++;
    worst[a][better + ties + 1]++;
  }
}

/** Returns the smallest rank r with at least `share` of the histogram at ranks ≤ r. */
function histogramQuantile(histogram: Int32Array, total: number, share: number): number {
  let cumulative = 0;
  for (let r = 1; r < histogram.length; r++) {
    cumulative += histogram[r];
    if (cumulative >= share * total) return r;
  }
  return histogram.length - 1;
}

/**
 * Returns each model's rank with a 95% bootstrap interval, in input order. Each resample draws n item
 * indices with replacement once and applies them to every model (the items are shared, so the models'
 * scores stay paired), ranks the models by their resampled means and records each model's rank. Ties count
 * both ways: the lower end is the 2.5% quantile of the best rank a model could take (1 + models strictly
 * better), the upper end the 97.5% quantile of the worst (models better or tied), so two identical models
 * both get "ranks 1–2". The label reads "ranks 1–2 of 5", or "rank 1 of 5" when the interval is one rank.
 * Throws if there is no model or no item, the models have different numbers of values, a value is not finite or a
 * label repeats.
 */
export function bootstrapRankIntervals(
  models: readonly ModelValues[],
  options: RankIntervalOptions,
): RankInterval[] {
  checkModels(models);
  const k = models.length;
  const n = models[0].values.length;
  const sign = options.higherIsBetter === false ? -1 : 1;
  const observed = Float64Array.from(models, (m) => m.values.reduce((s, v) => s + v, 0) / n);
  const resamples = options.resamples ?? RESAMPLES;
  const best = models.map(() => new Int32Array(k + 1));
  const worst = models.map(() => new Int32Array(k + 1));
  const random = mulberry32(seedFrom(options.seed));
  const indices = new Int32Array(n);
  const means = new Float64Array(k);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    for (let a = 0; a < k; a++) {
      const values = models[a].values;
      let sum = 0;
      for (let i = 0; i < n; i++) sum += values[indices[i]];
      means[a] = sum / n;
    }
    countRanks(means, sign, best, worst);
  }
  const observedBest = models.map(() => new Int32Array(k + 1));
  countRanks(observed, sign, observedBest, models.map(() => new Int32Array(k + 1)));
  return models.map((m, a) => {
    const rank = observedBest[a].findIndex((count) => count > 0);
    const ranks: [number, number] = [
      histogramQuantile(best[a], resamples, 0.025),
      histogramQuantile(worst[a], resamples, 0.975),
    ];
    const label = ranks[0] === ranks[1]
      ? `rank ${ranks[0]} of ${k}`
      : `ranks ${ranks[0]}–${ranks[1]} of ${k}`;
    return { model: m.model, mean: observed[a], rank, ranks, of: k, label };
  });
}
