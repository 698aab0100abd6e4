/**
 * The words of full-text search, the same in the index and in a query. Scripts written without spaces (Han,
 * kana, Hangul) are indexed as overlapping character pairs, so a query of two or more characters is matched
 * by its pairs, all of which must occur (Intl.Segmenter's dictionary words of Chinese would miss a query
 * that splits differently); Persian is normalised first by the project's one Persian normaliser (Arabic yeh
 * and kaf, ZWNJ, diacritics, digits) and cut into words by Intl.Segmenter, as every other script is; text is
 * lower-cased. A document is a sample: its question, every condition's answer and the judges' rationales.
 * @module
 */
import { MiniSearch } from "./vendor.js";
import { normalizePersian } from "../../text/persian.ts";

const WORDS = new Intl.Segmenter(undefined, { granularity: "word" });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Text that holds a letter or digit (what the word segmenter is worth running on). */
const HAS_WORD = /[\p{L}\p{N}]/u;
/** Splits text into other text (even indexes) and runs of CJK characters (odd indexes). */
const CJK_RUN = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u;
const ARABIC_SCRIPT = /[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFE]/;

/** Returns `text` in the form words are compared in: NFKC, Persian-normalised, lower case. */
export function normalizeText(text) {
  const folded = text.normalize("NFKC");
  return (ARABIC_SCRIPT.test(folded) ? normalizePersian(folded) : folded).toLowerCase();
}

/**
 * Returns the distinct terms of `text`. Text in scripts written without spaces (Han, kana, Hangul) gives the
 * overlapping character pairs of each run and, in the index, the run's last character too — so a
 * one-character query, searched as a prefix, finds every occurrence of its character (the first of a pair or
 * the last of a run). Other text gives its words as Intl.Segmenter finds them.
 */
export function terms(text, forIndex = true) {
  const out = new Set();
  normalizeText(text).split(CJK_RUN).forEach((part, i) => {
    if (i % 2 === 0) {
      if (!HAS_WORD.test(part)) return;
      for (const { segment, isWordLike } of WORDS.segment(part)) if (isWordLike) out.add(segment);
      return;
    }
    const chars = [...part];
    for (let k = 0; k + 1 < chars.length; k++) out.add(chars[k] + chars[k + 1]);
    if (forIndex || chars.length === 1) out.add(chars[chars.length - 1]);
  });
  return [...out];
}

/** Returns whether a query term is searched as a prefix: a single CJK character, or a word of 3+ letters. */
function isPrefixTerm(term) {
  return CJK.test(term) ? [...term].length === 1 : term.length >= 3;
}

/**
 * Returns a MiniSearch index of documents `{ id, text }` (a sample's question, answers and rationales in one
 * field: a query's words may be spread over them) with these terms.
 */
export function createIndex() {
  return new MiniSearch({
    fields: ["text"],
    tokenize: (text) => terms(text, true),
    processTerm: (term) => term,
    searchOptions: {
      tokenize: (text) => terms(text, false),
      processTerm: (term) => term,
      combineWith: "AND",
      prefix: isPrefixTerm,
    },
  });
}

/**
 * Returns the search documents of one results chunk: `entries` gives, per sample of the chunk, its id,
 * position and question; `results` is the chunk's results by sample id.
 */
export function resultDocuments(results, entries) {
  return entries.map(([id, position, question]) => {
    const texts = [question];
    const rationales = new Set();
    for (const result of Object.values(results[id] ?? {})) {
      if (result.answer) texts.push(result.answer);
      for (const score of result.scores) if (score.reason) rationales.add(score.reason);
    }
    return { id: position, text: [...texts, ...rationales].join("\n") };
  });
}
