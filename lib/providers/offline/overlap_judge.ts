/**
 * An offline lexical judge: maps the character-bigram F1 between answer and reference (or checklist) onto the
 * 1–5 scale. It needs no model and is deterministic; it is NOT a substitute for an LLM judge and every result it
 * produces is labelled offline. Its use is a smoke test of the pipeline and a floor/ceiling sanity check.
 * @module
 */
import { clippedOverlap } from "../../metrics/rouge.ts";
import { OfflineProvider } from "./offline_provider.ts";
import type { ChatRequest, ChatResponse } from "../types.ts";
import { charNgrams } from "../../text/tokenize.ts";

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

/**
 * The offline lexical judge (`offline:overlap`), served like any judge model through the caller: it reads the
 * sample and the answer from the request (never sent anywhere) and replies with a JSON score verdict.
 */
export class OverlapJudgeProvider extends OfflineProvider {
  /** `offline:overlap`. */
  override readonly model = "offline:overlap";
  /** Label that says what it is. */
  override readonly label = "offline:overlap (lexical bigram F1, not an LLM judge)";

  /**
   * Grades against the reference, or the checklist when there is no reference; with neither it replies with
   * no score, which the judge scorer records as a judge error.
   */
  protected answer(request: ChatRequest): ChatResponse {
    const { sample, answer } = this.judgedAnswer(request);
    const checklist = typeof sample.extra.checklist === "string" ? sample.extra.checklist : null;
    const target = sample.reference ?? checklist;
    if (!target) {
      return {
        text: JSON.stringify({ score: null, reason: "no reference or checklist to compare with" }),
      };
    }
    const f1 = bigramF1(answer, target);
    const reason = `bigram F1 ${f1.toFixed(3)} against the ${sample.reference ? "reference" : "checklist"}`;
    return {
      text: JSON.stringify({ score: overlapScore(f1), reason }),
      finishReason: "stop",
    };
  }
}
