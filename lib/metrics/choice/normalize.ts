/**
 * Reading a reply as text: the normal form every rule of the choice extractor reads ({@linkcode normalizeReply}),
 * and the reduced form option and step texts are compared in ({@linkcode normalizeForMatch}, {@linkcode matchView}).
 * @module
 */
import { afterReasoning } from "../../text/reasoning.ts";

/**
 * Normalises a reply for reading: NFKC (full-width letters and punctuation to ASCII, Ⅱ to II), line breaks to
 * `\n`, reasoning up to the last `</think>` dropped (an unclosed `<think>` leaves no answer), `\boxed{X}` read as an answer cue, and
 * markdown emphasis and heading marks removed.
 */
export function normalizeReply(text: string): string {
  const answer = afterReasoning(text.normalize("NFKC").replace(/\r\n?/g, "\n"));
  const t = answer.replace(/\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}/g, "$1")
    .replace(/\\boxed\s*\{([^{}]*)\}/g, " 答案：$1 ");
  return t.replace(/[*_`#~$]+/g, "");
}

/** A reply or option text reduced for matching: `norm` holds its characters, `at[i]` where `norm[i]` came from. */
export interface MatchView {
  /** Lower-case text without whitespace, punctuation or symbols. */
  norm: string;
  /** Index in the source text of each character of `norm`. */
  at: number[];
}

const IGNORED_FOR_MATCH = /[\s\p{P}\p{S}]/u;

/** Reduces already normalised `text` for matching and keeps where each character came from. */
export function matchView(text: string): MatchView {
  let norm = "";
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    if (!IGNORED_FOR_MATCH.test(ch)) {
      for (const unit of ch.toLowerCase()) {
        norm += unit;
        at.push(i);
      }
    }
    i += ch.length;
  }
  return { norm, at };
}

/**
 * The one normalisation used to compare a reply with option and step texts: {@linkcode normalizeReply}, lower
 * case, whitespace, punctuation and symbols removed. Both sides of every comparison go through it.
 */
export function normalizeForMatch(text: string): string {
  return matchView(normalizeReply(text)).norm;
}
