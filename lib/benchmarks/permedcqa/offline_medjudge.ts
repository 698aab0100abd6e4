/**
 * An offline stand-in for the MedJudge rubric (`offline:medjudge`): it compares the words of the answer with
 * those of the expert answer and maps word recall and precision onto the rubric's categories. It needs no model
 * and is deterministic; it knows nothing of medicine, never finds a contradiction, and every result it produces
 * is labelled offline. Its use is a smoke test of the rubric pipeline (parsing, distributions, tables).
 * @module
 */
import { normalizePersian } from "../../text/persian.ts";
import { wordTokens } from "../../text/tokenize.ts";
import { OfflineProvider } from "../../providers/offline/offline_provider.ts";
import type { OfflineStandIn } from "../../providers/offline/stand_in.ts";
import type { ChatRequest, ChatResponse } from "../../providers/types.ts";

/** Word recall (share of the expert's distinct words the answer has) and precision (the reverse). */
export interface WordOverlap {
  /** Share of the expert answer's distinct words found in the answer. */
  recall: number;
  /** Share of the answer's distinct words found in the expert answer. */
  precision: number;
  /** Expert words the answer lacks, in order of first appearance. */
  missing: string[];
  /** Answer words the expert answer lacks, in order of first appearance. */
  extra: string[];
}

/** Returns the distinct words of `text`, Persian variants folded. */
function words(text: string): string[] {
  return [...new Set(wordTokens(normalizePersian(text)))];
}

/** Returns the word overlap of `answer` against `expert`. */
export function wordOverlap(answer: string, expert: string): WordOverlap {
  const a = words(answer), e = words(expert);
  const inA = new Set(a), inE = new Set(e);
  const missing = e.filter((w) => !inA.has(w));
  const extra = a.filter((w) => !inE.has(w));
  return {
    recall: e.length ? (e.length - missing.length) / e.length : 0,
    precision: a.length ? (a.length - extra.length) / a.length : 0,
    missing,
    extra,
  };
}

/** Returns the stand-in's verdict (MedJudge's fields) for a word overlap. */
export function overlapVerdict(overlap: WordOverlap): Record<string, unknown> {
  const { recall, precision } = overlap;
  const f1 = recall + precision === 0 ? 0 : (2 * recall * precision) / (recall + precision);
  const correctness = f1 >= 0.6 ? "Correct" : f1 >= 0.3 ? "Partially_correct" : "Incorrect";
  const coverage = recall < 0.15 && precision < 0.15
    ? "Overlap_none"
    : recall >= 0.6 && precision >= 0.6
    ? "Equal"
    : recall < precision
    ? "Model_subset"
    : "Expert_subset";
  const impact =
    { Correct: "Negligible", Partially_correct: "Moderate", Incorrect: "Significant" }[correctness];
  return {
    Brief_analysis: `word recall ${recall.toFixed(2)}, precision ${precision.toFixed(2)}, F1 ${
      f1.toFixed(2)
    } against the expert answer (offline stand-in, not a judgement)`,
    Key_missing_facts: overlap.missing.slice(0, 5),
    Key_extra_facts: overlap.extra.slice(0, 5),
    Correctness: correctness,
    Coverage: coverage,
    Clinical_impact: impact,
    Judge_confidence: "Low",
  };
}

/** The offline rubric stand-in, served like any judge model through the caller. */
export class RubricJudgeProvider extends OfflineProvider {
  /** `offline:medjudge`. */
  override readonly model = "offline:medjudge";
  /** Label that says what it is. */
  override readonly label =
    "offline:medjudge (word overlap mapped onto the MedJudge rubric, not an LLM judge)";

  /** Grades the answer against the sample's reference; without one it replies with no verdict. */
  protected answer(request: ChatRequest): ChatResponse {
    const { sample, answer } = this.judgedAnswer(request);
    if (!sample.reference) return { text: "no expert answer to compare with" };
    return {
      text: JSON.stringify(overlapVerdict(wordOverlap(answer, sample.reference))),
      finishReason: "stop",
    };
  }
}

/** `offline:medjudge`, registered for the judge role (PerMedCQA's MedJudge). */
export const MEDJUDGE_STAND_IN: OfflineStandIn = {
  role: "judge",
  description:
    "word overlap with the expert answer mapped onto the MedJudge rubric (smoke test, not an LLM judge)",
  create: () => new RubricJudgeProvider(),
};
