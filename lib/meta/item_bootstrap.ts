/**
 * A seeded bootstrap over items: items are drawn with replacement (each with everything it carries — several
 * pairs when several humans rated it), a vector of statistics is computed on every resample, and each gets its
 * 95% percentile interval. Statistics undefined on a resample (a κ of one category) are left out of that
 * statistic's interval, as lib/stats does.
 * @module
 */
import { percentileInterval, RESAMPLES } from "../stats/bootstrap.ts";
import { mulberry32, seedFrom } from "../stats/rng.ts";

/** Options of {@linkcode itemBootstrap}. */
export interface ItemBootstrapOptions {
  /** Seed text; the same text gives the same intervals. */
  seed: string;
  /** Resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** Returns a resample of `items` of the same size, drawn with replacement using `random`. */
export function resampleItems<T>(items: readonly T[], random: () => number): T[] {
  return Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]);
}

/**
 * Returns each statistic of `items` with its percentile-bootstrap 95% interval over resamples of the items
 * (`null` when the statistic is undefined on the items, there are fewer than 2 items, or no resample defines
 * it).
 */
export function itemBootstrap<T>(
  items: readonly T[],
  statistics: (items: readonly T[]) => readonly (number | null)[],
  options: ItemBootstrapOptions,
): { value: number | null; ci95: [number, number] | null }[] {
  const observed = statistics(items);
  const resamples = options.resamples ?? RESAMPLES;
  if (items.length < 2 || observed.every((v) => v === null)) {
    return observed.map((value) => ({ value, ci95: null }));
  }
  const random = mulberry32(seedFrom(options.seed));
  const draws = observed.map(() => new Float64Array(resamples));
  const defined = observed.map(() => 0);
  // One array holds each resample in turn: the statistics read it and keep nothing of it.
  const sample = new Array<T>(items.length);
  const n = items.length;
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) sample[i] = items[Math.floor(random() * n)];
    const values = statistics(sample);
    values.forEach((v, k) => {
      if (v !== null && Number.isFinite(v)) draws[k][defined[k]++] = v;
    });
  }
  return observed.map((value, k) => ({
    value,
    ci95: value !== null && defined[k] > 0 ? percentileInterval(draws[k].subarray(0, defined[k])) : null,
  }));
}
