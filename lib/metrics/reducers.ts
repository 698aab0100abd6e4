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

/** Chooses one value among the most frequent ones when several tie. */
export type TieBreak = (tied: readonly NonNullable<NamedValue>[]) => NamedValue;

/** No majority: a tie gives `null`, never a coin toss. */
export const NO_MAJORITY: TieBreak = (tied) => (tied.length === 1 ? tied[0] : null);

/** A tie goes to the smallest number (for a 0/1 verdict such as "acceptable", a tie is not acceptable). */
export const LOWEST: TieBreak = (tied) => Math.min(...tied.map(Number));

/**
 * Returns the most frequent present value (numbers or categories); when several tie, what `tie` chooses
 * (default {@linkcode NO_MAJORITY}). `null` when there is none.
 */
export function modeOf(values: readonly NamedValue[], tie: TieBreak = NO_MAJORITY): NamedValue {
  const counts = new Map<NonNullable<NamedValue>, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size === 0) return null;
  const top = Math.max(...counts.values());
  return tie([...counts].filter(([, c]) => c === top).map(([v]) => v));
}

/** Returns the most frequent present number; a tie goes to the smallest. `null` when there is none. */
export function modeLowOf(values: readonly NamedValue[]): number | null {
  return modeOf(numbers(values, "mode-low"), LOWEST) as number | null;
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
