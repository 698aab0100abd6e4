/**
 * ROUGE-1 (Lin, 2004): clipped unigram overlap between a candidate and a reference, as precision, recall and
 * F1. Tokens are single characters for Han, Hiragana, Katakana and Hangul text and lower-cased words (runs of
 * letters and digits) for other scripts; punctuation and whitespace are not tokens. Text is NFKC-normalised.
 * @module
 */

/** ROUGE-1 precision, recall and F1 (all 0 when either side has no tokens). */
export interface RougeScore {
  /** Overlap / candidate tokens. */
  precision: number;
  /** Overlap / reference tokens. */
  recall: number;
  /** Harmonic mean of precision and recall. */
  f1: number;
}

const CJK_CLASS = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]`;
/** One CJK character, or a run of other letters, digits and marks. */
const TOKEN = new RegExp(String.raw`${CJK_CLASS}|(?:(?!${CJK_CLASS})[\p{L}\p{N}\p{M}])+`, "gu");

/** Returns the ROUGE-1 tokens of `text`: CJK characters one by one, other words whole (lower-cased). */
export function rougeTokens(text: string): string[] {
  return [...text.normalize("NFKC").toLowerCase().matchAll(TOKEN)].map((m) => m[0]);
}

function counts(tokens: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const t of tokens) map.set(t, (map.get(t) ?? 0) + 1);
  return map;
}

/**
 * Returns the clipped overlap of two token multisets as precision (over `cand`), recall (over `ref`) and F1;
 * all 0 when either side is empty. ROUGE-1 over words, and the offline judge over character bigrams.
 */
export function clippedOverlap(cand: readonly string[], ref: readonly string[]): RougeScore {
  if (cand.length === 0 || ref.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const refCounts = counts(ref);
  let overlap = 0;
  for (const [token, count] of counts(cand)) overlap += Math.min(count, refCounts.get(token) ?? 0);
  const precision = overlap / cand.length;
  const recall = overlap / ref.length;
  const f1 = overlap === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/** Returns ROUGE-1 of `candidate` against `reference`. */
export function rouge1(candidate: string, reference: string): RougeScore {
  return clippedOverlap(rougeTokens(candidate), rougeTokens(reference));
}
