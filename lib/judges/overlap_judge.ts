/**
 * An offline lexical judge: maps the character-bigram F1 between answer and reference (or checklist) onto the
 * 1–5 scale. It needs no model and is deterministic; it is NOT a substitute for an LLM judge and every result it
 * produces is labelled offline. Its use is a smoke test of the pipeline and a floor/ceiling sanity check.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import { charNgrams } from "../text/tokenize.ts";
import type { Judge, Verdict } from "./judge.ts";

/** Returns the F1 (0–1) of the character-bigram multisets of `a` and `b` (0 when either is empty). */
export function bigramF1(a: string, b: string): number {
  const ga = charNgrams(a, 2);
  const gb = charNgrams(b, 2);
  if (ga.length === 0 || gb.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const g of gb) counts.set(g, (counts.get(g) ?? 0) + 1);
  let overlap = 0;
  for (const g of ga) {
    const c = counts.get(g) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(g, c - 1);
    }
  }
  const precision = overlap / ga.length;
  const recall = overlap / gb.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
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
