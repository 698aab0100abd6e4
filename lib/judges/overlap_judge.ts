/**
 * An offline lexical judge: maps the character-bigram F1 between answer and reference (or checklist) onto the
 * 1–5 scale. It needs no model and is deterministic; it is NOT a substitute for an LLM judge and every result it
 * produces is labelled offline. Its use is a smoke test of the pipeline and a floor/ceiling sanity check.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import { clippedOverlap } from "../metrics/rouge.ts";
import { charNgrams } from "../text/tokenize.ts";
import type { Judge, Verdict } from "./judge.ts";

/** Returns the F1 (0–1) of the character-bigram multisets of `a` and `b` (0 when either is empty). */
export function bigramF1(a: string, b: string): number {
  return clippedOverlap(charNgrams(a, 2), charNgrams(b, 2)).f1;
}

/** Score thresholds on bigram F1: ≥0.8 → 5, ≥0.6 → 4, ≥0.4 → 3, ≥0.2 → 2, else 1. */
export const OVERLAP_THRESHOLDS = [0.8, 0.6, 0.4, 0.2] as const;

/** Returns the 1–5 score for a bigram F1 value. */
export function overlapScore(f1: number): number {
  const index = OVERLAP_THRESHOLDS.findIndex((t) => f1 >= t);
  return index === -1 ? 1 : 5 - index;
}

/** The offline lexical judge (`offline:overlap`). */
export class OverlapJudge implements Judge {
  /** Label that says what it is. */
  readonly label = "offline:overlap (lexical bigram F1, not an LLM judge)";
  /** Always `true`. */
  readonly offline = true;

  /** Grades against the reference, or the checklist when there is no reference; neither → judge error. */
  grade(sample: Sample, answer: string): Promise<Verdict> {
    const checklist = typeof sample.extra.checklist === "string" ? sample.extra.checklist : null;
    const target = sample.reference ?? checklist;
    if (!target) {
      return Promise.resolve({
        score: null,
        reason: "no reference or checklist to compare with",
        callKey: null,
        attempts: 0,
        method: "error",
      });
    }
    const f1 = bigramF1(answer, target);
    return Promise.resolve({
      score: overlapScore(f1),
      reason: `bigram F1 ${f1.toFixed(3)} against the ${sample.reference ? "reference" : "checklist"}`,
      callKey: null,
      attempts: 0,
      method: "offline",
    });
  }
}
