/**
 * What the samples table shows of one sample in one condition, from what the run store holds for it: the
 * primary scorer's mean valid value (`score`), its verdict fields (the most frequent value over repeats and
 * judges), and the flags the table filters on (answer error, judge error, extraction failure, truncated,
 * refused, judge–human disagreement, human-rated, not run).
 * @module
 */
import type { NamedValue, StoredOutput, StoredScore } from "../core/records.ts";
import { isRefused, type ReplyEnd } from "../core/refusal.ts";
import { FLAG } from "./bundle_format.ts";

/** What a sample's model call reported, as far as the flags need it: how it ended, its refusal and its text. */
export type CallOutcome = ReplyEnd;

/** One sample in one condition as the samples table shows it. */
export interface SampleOutcome {
  /** Mean valid value of the primary scorer, `null` when it has none. */
  score: number | null;
  /** {@linkcode FLAG} bits. */
  flags: number;
  /** The primary scorer's verdict fields. */
  verdict: Record<string, NamedValue>;
}

/** Returns whether scores of `scorer` are human ratings (`human:…`). */
export function isHumanScorer(scorer: string): boolean {
  return scorer.startsWith("human:");
}

/** Returns the most frequent value of `values` (the first seen wins a tie); `null` when there is none. */
export function mostFrequent(values: readonly NamedValue[]): NamedValue {
  const counts = new Map<NamedValue, number>();
  let best: NamedValue = null;
  let bestCount = 0;
  for (const value of values) {
    if (value === null) continue;
    const count = (counts.get(value) ?? 0) + 1;
    counts.set(value, count);
    if (count > bestCount) [best, bestCount] = [value, count];
  }
  return best;
}

/** Returns each named field's most frequent value over `scores` (valid ones only). */
export function verdictOf(scores: readonly StoredScore[]): Record<string, NamedValue> {
  const byField = new Map<string, NamedValue[]>();
  for (const score of scores) {
    if (!score.valid || !score.values) continue;
    for (const [field, value] of Object.entries(score.values)) {
      const list = byField.get(field);
      if (list) list.push(value);
      else byField.set(field, [value]);
    }
  }
  return Object.fromEntries([...byField].map(([field, values]) => [field, mostFrequent(values)]));
}

/**
 * Returns whether a judge's verdict and a human's rating differ on a field both give: the judges' most
 * frequent value against each rater's own.
 */
export function judgeHumanDisagree(scores: readonly StoredScore[]): boolean {
  const judged = verdictOf(scores.filter((s) => !isHumanScorer(s.scorer)));
  const raters = Map.groupBy(scores.filter((s) => isHumanScorer(s.scorer)), (s) => `${s.scorer}\t${s.judge}`);
  for (const ratings of raters.values()) {
    const rated = verdictOf(ratings);
    for (const [field, value] of Object.entries(rated)) {
      const judge = judged[field];
      if (value !== null && judge !== undefined && judge !== null && judge !== value) return true;
    }
  }
  return false;
}

/** Returns whether a score's detail says its scorer could not extract an answer. */
function extractionFailed(score: StoredScore): boolean {
  const detail = score.detail as Record<string, unknown> | null;
  return detail !== null && typeof detail === "object" && detail.extraction_failed === true;
}

/**
 * Returns the table's view of one sample in one condition: `output` (absent when never asked), its scores
 * and its model call's outcome; `primaryScorer` names the scorer whose values make `score`.
 */
export function sampleOutcome(
  output: StoredOutput | undefined,
  scores: readonly StoredScore[],
  call: CallOutcome | undefined,
  primaryScorer: string | null,
): SampleOutcome {
  let flags = 0;
  if (!output) flags |= FLAG.notRun;
  else if (output.text === null) flags |= FLAG.answerError;
  if (call?.finishReason === "length") flags |= FLAG.truncated;
  if (call && isRefused(call)) flags |= FLAG.refused;
  if (scores.some((s) => !s.valid && !isHumanScorer(s.scorer))) flags |= FLAG.judgeError;
  if (scores.some(extractionFailed)) flags |= FLAG.extractionFailure;
  if (scores.some((s) => isHumanScorer(s.scorer))) flags |= FLAG.humanRated;
  if (judgeHumanDisagree(scores)) flags |= FLAG.disagreement;
  const primary = scores.filter((s) => s.scorer === primaryScorer);
  const values = primary.filter((s) => s.valid && s.value !== null).map((s) => s.value as number);
  return {
    score: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null,
    flags,
    verdict: verdictOf(primary),
  };
}
