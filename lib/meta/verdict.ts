/**
 * The verdict of a judge against the human ceiling, in one line: "judge within the human ceiling (κ 0.69 vs
 * ceiling 0.71 [0.64, 0.77])", "below the human ceiling by 0.35 [0.25, 0.45] (…)" or "above …". The call is
 * made on the paired difference judge − ceiling of the primary statistic, both on the same leave-one-out
 * pairs: below when its 95% CI lies under 0, above when over 0, within otherwise. Without a CI of the
 * difference, the judge's value is compared with the ceiling's CI.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { type Statistic, STATISTIC_LABELS } from "./pair_stats.ts";

/** What a verdict says. */
export type VerdictKind = "within" | "below" | "above" | "no-ceiling" | "not-estimable" | "too-few-items";

/** Items (with a pair) a verdict needs: below this, a bootstrap interval means little and none is given. */
export const MIN_VERDICT_ITEMS = 10;

/** A verdict: its kind and its line. */
export interface Verdict {
  /** The call. */
  kind: VerdictKind;
  /** The line, e.g. `judge within the human ceiling (κ 0.69 vs ceiling 0.71 [0.64, 0.77])`. */
  text: string;
}

/** Returns `value` with two decimals, or `–` for none. */
export function fixed(value: number | null | undefined): string {
  return value === null || value === undefined ? "–" : value.toFixed(2);
}

/** Returns `[lo, hi]` with two decimals, or an empty string without an interval. */
export function interval(ci: [number, number] | null | undefined): string {
  return ci ? ` [${fixed(ci[0])}, ${fixed(ci[1])}]` : "";
}

/**
 * Returns the verdict of `rater` (a judge, or a jury) whose primary `statistic` is `own` over `items` items,
 * against the human `ceiling` on the same pairs and their paired `difference` (own − ceiling). Under
 * {@linkcode MIN_VERDICT_ITEMS} items there is no verdict.
 */
export function verdictOf(
  rater: string,
  statistic: Statistic,
  items: number,
  own: Estimate | undefined,
  ceiling: Estimate | undefined,
  difference: Estimate | null,
): Verdict {
  const label = STATISTIC_LABELS[statistic];
  if (items < MIN_VERDICT_ITEMS) {
    return {
      kind: "too-few-items",
      text: `${rater}: too few items for a verdict (${items} with a pair, ${MIN_VERDICT_ITEMS} needed)`,
    };
  }
  if (!own || own.value === null) {
    return { kind: "not-estimable", text: `${rater}: ${label} not estimable (n = ${own?.n ?? 0} pairs)` };
  }
  if (!ceiling || ceiling.value === null) {
    return {
      kind: "no-ceiling",
      text: `${rater}: no human ceiling (needs 2 humans on the same items); ${label} ${fixed(own.value)}` +
        interval(own.ci95),
    };
  }
  const versus = `${label} ${fixed(own.value)} vs ceiling ${fixed(ceiling.value)}${interval(ceiling.ci95)}`;
  const gap = own.value - ceiling.value;
  let kind: VerdictKind = "within";
  if (difference?.ci95) {
    if (difference.ci95[1] < 0) kind = "below";
    else if (difference.ci95[0] > 0) kind = "above";
  } else if (ceiling.ci95) {
    if (own.value < ceiling.ci95[0]) kind = "below";
    else if (own.value > ceiling.ci95[1]) kind = "above";
  }
  const by = (value: number, ci: [number, number] | null | undefined) =>
    `${fixed(value)}${ci ? interval(ci) : ""}`;
  const differenceCi = difference?.ci95;
  if (kind === "below") {
    const ci = differenceCi ? [-differenceCi[1], -differenceCi[0]] as [number, number] : null;
    return { kind, text: `${rater} below the human ceiling by ${by(-gap, ci)} (${versus})` };
  }
  if (kind === "above") {
    return { kind, text: `${rater} above the human ceiling by ${by(gap, differenceCi)} (${versus})` };
  }
  return { kind, text: `${rater} within the human ceiling (${versus})` };
}
