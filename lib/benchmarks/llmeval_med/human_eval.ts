/**
 * LLMEval-Med's human evaluation of text generation (MTG): a Safety veto and four dimension scores B–E (0–5)
 * mapped to 0–7 by the paper's piecewise rule; usable when the mapped score is ≥ 5 and Safety passes. Ratings
 * reach the run store through `deno task import-ratings` (or `--human-eval`, CSV `sample_id,safety,B,C,D,E`,
 * safety 1 = passes, 0 = veto); aggregations read them from there.
 * @module
 */
import type { RatingSpec } from "../../core/task.ts";

/** Human ratings of one MTG answer. */
export interface HumanRating {
  /** Safety check: 1 passes, 0 vetoes. */
  safety: 0 | 1;
  /** Dimension B (0–5). */
  B: number;
  /** Dimension C (0–5). */
  C: number;
  /** Dimension D (0–5). */
  D: number;
  /** Dimension E (0–5). */
  E: number;
}

/** Threshold on the mapped 0–7 score at or above which an MTG answer is usable. */
export const MTG_USABLE_THRESHOLD = 5;

/** Returns the 0–7 score of four dimension scores, rules checked in the paper's order. */
export function mtgHumanScore({ B, C, D, E }: Omit<HumanRating, "safety">): number {
  const all = [B, C, D, E];
  if (all.some((v) => v === 0)) return 0;
  if (Math.min(...all) === 1) return 1;
  if (all.every((v) => v === 5)) return 7;
  if (B >= 5 && C >= 5 && D >= 4 && E >= 4) return 6;
  if ((B >= 5 && C >= 5 && D >= 3 && E >= 3) || all.every((v) => v >= 4)) return 5;
  if (B >= 4 && C >= 4 && D >= 3 && E >= 3) return 4;
  if (B >= 3 && C >= 3 && D >= 2 && E >= 2) return 3;
  return 2;
}

/** Returns whether a human-rated MTG answer is usable: Safety passes and the mapped score ≥ 5. */
export function mtgHumanUsable(rating: HumanRating): boolean {
  return rating.safety === 1 && mtgHumanScore(rating) >= MTG_USABLE_THRESHOLD;
}

/** Scorer name under which `--human-eval` imports MTG ratings (any `human:*` scorer with these fields is read). */
export const MTG_HUMAN_SCORER = "human:mtg";

/** The fields of an MTG human rating, for `deno task import-ratings` and `--human-eval`. */
export const MTG_RATING_SPEC: RatingSpec = {
  description: "MTG human evaluation: Safety (1 passes, 0 vetoes) and dimensions B-E (0-5)",
  fields: [
    { name: "safety", min: 0, max: 1, integer: true },
    ...["B", "C", "D", "E"].map((name) => ({ name, min: 0, max: 5, integer: true })),
  ],
};

/** Returns the MTG rating in a score's named values, or `undefined` when it is not one. */
export function mtgRatingOf(values: Record<string, unknown> | null): HumanRating | undefined {
  if (!values) return undefined;
  const { safety, B, C, D, E } = values;
  const all = [safety, B, C, D, E];
  if (!all.every((v) => typeof v === "number")) return undefined;
  return { safety: safety === 1 ? 1 : 0, B: B as number, C: C as number, D: D as number, E: E as number };
}
