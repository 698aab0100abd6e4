/**
 * Which way is better for a metric: higher for every score and rate the benchmarks report, except the error
 * rates listed here, where the lowest value ranks first and gets the letter "a".
 * @module
 */

/** Metrics where a lower value is better, by benchmark. */
export const LOWER_IS_BETTER: Readonly<Record<string, readonly string[]>> = {
  /** The share of choice answers no option could be read from. */
  climedbench: ["extraction_failure"],
  /** The share of an item's medical judgings the veto set to 0. */
  medgpteval: ["vetoed"],
};

/** Returns `true` unless `metric` of `benchmark` is one where lower is better. */
export function higherIsBetter(benchmark: string, metric: string): boolean {
  return !(LOWER_IS_BETTER[benchmark]?.includes(metric) ?? false);
}
