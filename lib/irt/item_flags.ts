/**
 * Flags on calibrated items whose estimates the data do not pin down: a standard error beyond a sane bound, or
 * none at all (information not invertible). A flagged estimate is never printed bare: `items.csv`, `fit.json` and
 * the items table carry the flag, and the fit warns with the items' names.
 * @module
 */
import type { FittedItem, IrtFit } from "./fit.ts";

/**
 * Largest standard error an estimate may have unflagged. For a and b, 3 logits: a 95% interval of ±5.9 spans
 * the whole ability grid [−6, 6], so the data say next to nothing about the parameter. For c, 0.25: ±0.49 spans
 * about the whole feasible range [0, 1).
 */
export const SE_BOUND = { a: 3, b: 3, c: 0.25 } as const;

function short(x: number): string {
  return Math.abs(x) >= 1e4 ? x.toExponential(1) : x.toPrecision(3);
}

/** Returns why an item's estimates are unreliable (empty when they are fine); `seComputed` = SEs were asked for. */
export function itemFlags(item: FittedItem, guessing: boolean, seComputed: boolean): string[] {
  if (!seComputed) return [];
  const flags: string[] = [];
  const checks: [keyof typeof SE_BOUND, number | null][] = [["a", item.se_a], ["b", item.se_b]];
  if (guessing) checks.push(["c", item.se_c]);
  for (const [name, se] of checks) {
    if (se === null || !Number.isFinite(se)) flags.push(`no SE(${name}): information not invertible`);
    else if (se > SE_BOUND[name]) flags.push(`SE(${name}) ${short(se)} > ${SE_BOUND[name]}`);
  }
  return flags;
}

/** Flags of every item of a fit, in item order, each joined into one string (`null` when unflagged). */
export function fitFlags(fit: IrtFit): (string | null)[] {
  return fit.items.map((item) => {
    const flags = itemFlags(item, fit.model === "3pl", fit.seMethod !== "none");
    return flags.length ? flags.join("; ") : null;
  });
}
