/**
 * Word and character tokenisation that works for Chinese, Persian and English without extra packages.
 * @module
 */

/** The ICU word segmenter, made on first use (it loads ICU's CJK dictionary: ~12 ms a run that never needs it). */
let wordSegmenter: Intl.Segmenter | undefined;

/** Returns the word-like tokens of `text` (lower-cased), using the ICU word segmenter (dictionary-based for CJK). */
export function wordTokens(text: string): string[] {
  const out: string[] = [];
  wordSegmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  for (const part of wordSegmenter.segment(text.normalize("NFKC"))) {
    if (part.isWordLike) out.push(part.segment.toLowerCase());
  }
  return out;
}

/** Returns the characters of `text` that are letters or digits (NFKC-normalised, lower-cased), one per token. */
export function charTokens(text: string): string[] {
  return [...text.normalize("NFKC").toLowerCase()].filter((ch) => /[\p{L}\p{N}]/u.test(ch));
}

/** Returns the overlapping character n-grams (default bigrams) of the letters and digits of `text`. */
export function charNgrams(text: string, n = 2): string[] {
  const chars = charTokens(text);
  if (chars.length < n) return chars.length ? [chars.join("")] : [];
  const out: string[] = [];
  for (let i = 0; i + n <= chars.length; i++) out.push(chars.slice(i, i + n).join(""));
  return out;
}
