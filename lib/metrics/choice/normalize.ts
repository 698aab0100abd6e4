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
/** Whether each ASCII character is kept for matching (letters, digits and the control characters). */
const ASCII_KEPT = Array.from({ length: 128 }, (_, c) => !IGNORED_FOR_MATCH.test(String.fromCharCode(c)));
/** Whether other characters are ignored, by code point, as met. */
const IGNORED_OTHER = new Map<number, boolean>();

/** Whether `c` is a CJK ideograph (basic block or extension A): kept, one UTF-16 unit, no case. */
function isIdeograph(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf);
}

/**
 * Reduces already normalised `text` for matching and keeps where each character came from. Character by
 * character: ASCII and CJK ideographs (most of what is read) by table, any other character by the rule itself.
 */
export function matchView(text: string): MatchView {
  // The kept UTF-16 units, made into one string at the end (a string grown a character at a time left one
  // string behind per character).
  const units: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII_KEPT[c]) {
        units.push(c >= 65 && c <= 90 ? c + 32 : c);
        at.push(i);
      }
      i++;
      continue;
    }
    if (isIdeograph(c)) {
      units.push(c);
      at.push(i);
      i++;
      continue;
    }
    const point = text.codePointAt(i)!;
    const ch = String.fromCodePoint(point);
    let ignored = IGNORED_OTHER.get(point);
    if (ignored === undefined) IGNORED_OTHER.set(point, ignored = IGNORED_FOR_MATCH.test(ch));
    if (!ignored) {
      // A lower case may be longer than its character (İ → i̇, or a pair of surrogates): each of its UTF-16
      // units comes from the character.
      const lower = ch.toLowerCase();
      for (let u = 0; u < lower.length; u++) {
        units.push(lower.charCodeAt(u));
        at.push(i);
      }
    }
    i += ch.length;
  }
  return { norm: fromUnits(units), at };
}

/** The string of UTF-16 `units`, made a slice at a time (a call takes only so many arguments). */
function fromUnits(units: readonly number[]): string {
  if (units.length <= UNITS_PER_CALL) return String.fromCharCode(...units);
  let text = "";
  for (let i = 0; i < units.length; i += UNITS_PER_CALL) {
    text += String.fromCharCode(...units.slice(i, i + UNITS_PER_CALL));
  }
  return text;
}

/** UTF-16 units made into a string per call of `String.fromCharCode`. */
const UNITS_PER_CALL = 4096;

/**
 * The one normalisation used to compare a reply with option and step texts: {@linkcode normalizeReply}, lower
 * case, whitespace, punctuation and symbols removed. Both sides of every comparison go through it.
 */
export function normalizeForMatch(text: string): string {
  return matchView(normalizeReply(text)).norm;
}
