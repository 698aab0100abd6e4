/**
 * Reducers over repeated values of one sample — several judgings of one answer (epochs), or several judges of
 * a jury — into one value, as a scorer declares: `mean`, `median`, `mode`, `mode-low` (ties to the smallest),
 * `max` or `all-valid`. Missing values
 * (`null`: a judge error) are left out, except by `all-valid`, which gives `null` unless every value is present.
 * @module
 */
import type { NamedValue } from "../core/records.ts";
import { mean } from "../stats/bootstrap.ts";

/** The reducers a scorer can declare. */
export const REDUCERS = ["mean", "median", "mode", "mode-low", "max", "all-valid"] as const;

/** A reducer's name. */
export type Reducer = typeof REDUCERS[number];

/** Returns the numbers among `values`; throws when a present value is not a number. */
function numbers(values: readonly NamedValue[], reducer: string): number[] {
  const present = values.filter((v) => v !== null);
  for (const v of present) {
    if (typeof v !== "number") throw new Error(`reducer ${reducer} needs numbers, got "${v}"`);
  }
  return present as number[];
}

/** Returns the arithmetic mean of the present values, or `null` when there are none. */
export function meanOf(values: readonly NamedValue[]): number | null {
  const xs = numbers(values, "mean");
  return xs.length ? mean(xs) : null;
}

/** Returns the median of the present values (mean of the middle two for an even count), or `null`. */
export function medianOf(values: readonly NamedValue[]): number | null {
  const xs = numbers(values, "median").sort((a, b) => a - b);
  if (!xs.length) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** Returns the largest present value, or `null`. */
export function maxOf(values: readonly NamedValue[]): number | null {
  const xs = numbers(values, "max");
  return xs.length ? Math.max(...xs) : null;
}

/**
 * Returns the most frequent present value (numbers or categories); `null` when there is none or when the
 * most frequent values tie — a tie is no majority, never a coin toss.
 */
export function modeOf(values: readonly NamedValue[]): NamedValue {
  const counts = new Map<NamedValue, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: NamedValue = null;
  let bestCount = 0;
  let tie = false;
  for (const [value, count] of counts) {
    if (count > bestCount) [best, bestCount, tie] = [value, count, false];
    else if (count === bestCount) tie = true;
  }
  return tie ? null : best;
}

/**
 * Returns the most frequent present number; when several tie, the smallest of them (for a 0/1 verdict such as
 * "acceptable", a tie is not acceptable). `null` when there is none.
 */
export function modeLowOf(values: readonly NamedValue[]): number | null {
  const counts = new Map<number, number>();
  for (const v of numbers(values, "mode-low")) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | null = null;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && value < best!)) [best, bestCount] = [value, count];
  }
  return best;
}

/** Returns `values` reduced by `reducer`. */
export function reduceValues(values: readonly NamedValue[], reducer: Reducer): NamedValue {
  switch (reducer) {
    case "mean":
      return meanOf(values);
    case "median":
      return medianOf(values);
    case "mode":
      return modeOf(values);
    case "mode-low":
      return modeLowOf(values);
    case "max":
      return maxOf(values);
    case "all-valid":
      return values.length > 0 && values.every((v) => v !== null) ? meanOf(values) : null;
  }
}
