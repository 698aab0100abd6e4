/**
 * Options named by their text: the item's options prepared for matching, an answer given as option text
 * ("the answer is primary aldosteronism", "以上都不是"), labelled option entries ("A. 高血压"), and the
 * option-text reading of a whole reply.
 * @module
 */
import { matchView, normalizeReply } from "./normalize.ts";

/** Option texts prepared for matching (and "none/all of the above" options with their phrasings). */
export interface OptionIndex {
  options: { label: string; view: string }[];
  /** Label of the item's "none of the above" option, if any. */
  none?: string;
  /** Label of the item's "all of the above" option, if any. */
  all?: string;
}

/** "None of the above" phrasings (Chinese and English). */
export const NONE_PHRASE =
  /以上(?:选项|各项|答案|说法)?(?:都|均|皆|全)(?:不是|不对|不正确|错误|非|不符合)|以上皆非|(?:都|均)不正确|none of (?:the )?(?:above|these|those|options|choices|answers|the listed)|no(?:ne)? (?:of the )?(?:options?|choices?|answers?) (?:is|are) correct|all (?:of the )?(?:options|choices|answers) (?:are|is) (?:incorrect|wrong)/i;
/** "All of the above" phrasings. */
const ALL_PHRASE =
  /以上(?:选项|各项|答案|说法)?(?:都|均|皆|全)(?:是|对|正确)|all of (?:the )?(?:above|these|those)/i;
/** The phrasings as a whole option text, at a position, and anywhere (for `matchAll`). */
const phraseForms = (phrase: RegExp) => ({
  whole: new RegExp(`^(?:${phrase.source})[.。]?$`, "i"),
  at: new RegExp(`^\\s*(?:${phrase.source})`, "i"),
  all: new RegExp(phrase.source, "gi"),
});
const NONE_FORMS = phraseForms(NONE_PHRASE);
const ALL_FORMS = phraseForms(ALL_PHRASE);

/** Prepares the item's options (those among `labels`) for matching, noting "none/all of the above" options. */
export function indexOptions(options: Record<string, string>, labels: readonly string[]): OptionIndex {
  const index: OptionIndex = { options: [] };
  for (const [label, body] of Object.entries(options)) {
    if (!labels.includes(label)) continue;
    const text = normalizeReply(body).trim();
    if (NONE_FORMS.whole.test(text)) index.none = label;
    else if (ALL_FORMS.whole.test(text)) index.all = label;
    const view = matchView(text).norm;
    if (view.length >= 2) index.options.push({ label, view });
  }
  return index;
}

/**
 * What may follow an option's text for it to be the whole answer: the clause ends, or a reason or a modifier
 * begins ("needle decompression of the chest"). Not "and …", "with …" or more Chinese text, which may make a
 * different, combined answer ("aspirin and clopidogrel", "阿司匹林联合氯吡格雷").
 */
const OPTION_END =
  /^(?:[ \t]*(?:$|[\p{P}\p{S}\n])|[ \t]+(?:is|was|because|since|as|given|which|due|of|at|on|in|for|to|via|by|from|under|after|before|but|then)\b)/u;
/** What joins two options' texts into one answer. */
const OPTION_JOIN = /^[ \t]*(?:,|、|&|\+|\band\b|和|及|与|以及|plus)[ \t]*/i;

/** The longest option whose text starts exactly at `text[pos]` (ignoring spacing and punctuation), and its end. */
function optionStartingAt(
  text: string,
  pos: number,
  index: OptionIndex,
): { label: string; end: number } | null {
  const view = matchView(text.slice(pos, pos + 200));
  let best: { label: string; end: number; length: number } | null = null;
  for (const o of index.options) {
    if (view.norm.startsWith(o.view) && (!best || o.view.length > best.length)) {
      const end = pos + view.at[o.view.length - 1] + 1;
      if (!/[A-Za-z0-9]/.test(text[end - 1]) || !/[A-Za-z0-9]/.test(text[end] ?? "")) {
        best = { label: o.label, end, length: o.view.length };
      }
    }
  }
  return best && { label: best.label, end: best.end };
}

/**
 * Reads option texts given as the answer at `pos` ("primary aldosteronism", "metformin and lifestyle
 * modification", "以上都不是"): `""` for "none of the above" when the item has no such option, `null` when no
 * option's text stands there as a whole answer ("阿司匹林联合氯吡格雷" is not option "阿司匹林").
 */
export function optionsAt(text: string, pos: number, index: OptionIndex): string[] | "" | null {
  const rest = text.slice(pos, pos + 200);
  if (NONE_FORMS.at.test(rest)) return index.none ? [index.none] : "";
  if (index.all && ALL_FORMS.at.test(rest)) return [index.all];
  const labels: string[] = [];
  for (let at = pos;;) {
    const found = optionStartingAt(text, at, index);
    if (!found) return null;
    labels.push(found.label);
    const next = nextJoinedOption(text, found.end, index);
    if (next !== null) {
      at = next;
      continue;
    }
    return OPTION_END.test(text.slice(found.end)) ? [...new Set(labels)].sort() : null;
  }
}

/** Where the next option's text starts when `end` is followed by a joining word and another option, else `null`. */
function nextJoinedOption(text: string, end: number, index: OptionIndex): number | null {
  const join = text.slice(end).match(OPTION_JOIN);
  return join && optionStartingAt(text, end + join[0].length, index) ? end + join[0].length : null;
}

/** Labelled option entries ("A. 高血压", "- C) Diabetes"); the letter, where it starts and its text. */
export const ENTRY =
  /(?<![^\s(\[（])[(\[（]?([A-Z])[)\]）]?[ \t]*[.、:：)）][ \t]*(\p{L}[^\n]*?)(?=[ \t]+[-*•]?[ \t]*[(\[（]?[A-Z][)\]）]?[ \t]*[.、:：)）][ \t]*\S|\n|$)/gu;
/** An entry whose text rejects its option ("A. 错误", "B: Incorrect"). */
const REJECTED_ENTRY = /^(?:错误|不正确|不对|不是|不选|不|incorrect|wrong|false|no\b|not\b)/i;

/**
 * When the answer at `pos` is a labelled option ("A. Hypertension"), the letters of the labelled options
 * listed with it, up to the next blank line ("- A. Hypertension\n- C. Diabetes" → A, C); else `null`.
 */
export function labelledEntriesAt(text: string, pos: number, labels: readonly string[]): string[] | null {
  const block = text.slice(pos).split(/\n[ \t]*\n/)[0];
  const entries = [...block.matchAll(ENTRY)];
  if (entries.length < 2 || entries[0].index !== 0) return null;
  const chosen = entries.filter((e) => labels.includes(e[1]) && !REJECTED_ENTRY.test(e[2])).map((e) => e[1]);
  return chosen.length >= 2 ? [...new Set(chosen)].sort() : null;
}

/** Words that conclude: the option named after the last of them is the answer. */
const CONCLUSION =
  /therefore|thus|hence|\bso\b|in conclusion|in summary|overall|most likely|best answer|answer is|diagnosis is|consistent with|故|因此|所以|综上|总之|最可能|诊断为|诊断是|考虑为|首选|答案/gi;
/** Words before an option's text that reject it ("not", "rule out", "排除"). */
const MENTION_NEGATED_BEFORE =
  /(?:\bnot|\bno|rule out|ruled out|unlikely|exclude[sd]?|against|rather than|instead of|不是|并非|而非|排除|除外|不考虑|不支持|不符合|不太可能|否定)\s*(?:the\s+)?$/i;
/** Words after an option's text that reject it ("is unlikely", "可排除"). */
const MENTION_NEGATED_AFTER =
  /^\s*(?:is|was|seems|are)?\s*(?:unlikely|less likely|ruled out|excluded|not|incorrect|wrong|可排除|被排除|不太可能|可能性小|不符合|不正确|错误|除外)/i;

/**
 * The options a whole reply names by text: the labels (sorted) of the affirmed whole-answer mentions, preferring
 * those after the last concluding phrase; `[]` when several are named apart (not as one list), `null` when none.
 */
export function optionTextReading(text: string, index: OptionIndex): string[] | null {
  const view = matchView(text);
  const conclusions = [...text.matchAll(CONCLUSION)].map((m) => m.index! + m[0].length);
  const mentions: { label: string; start: number; end: number }[] = [];
  for (const o of index.options) {
    for (let from = view.norm.indexOf(o.view); from >= 0; from = view.norm.indexOf(o.view, from + 1)) {
      const start = view.at[from];
      const end = view.at[from + o.view.length - 1] + 1;
      // Whole words and numbers only: "0.1 mg/kg" is not mentioned in "0.01 mg/kg", nor "CT" in "SPECT".
      const inside = (a: string, b: string) => /[A-Za-z0-9]/.test(a) && /[A-Za-z0-9]/.test(b);
      if (inside(text[start - 1] ?? "", text[start]) || inside(text[end - 1], text[end] ?? "")) continue;
      if (/\d\.$/.test(text.slice(0, start)) && /\d/.test(text[start])) continue;
      // A whole answer only: "阿司匹林联合氯吡格雷" does not name option "阿司匹林".
      if (!OPTION_END.test(text.slice(end)) && nextJoinedOption(text, end, index) === null) continue;
      mentions.push({ label: o.label, start, end });
    }
  }
  for (const [label, forms] of [[index.none, NONE_FORMS], [index.all, ALL_FORMS]] as const) {
    if (!label) continue;
    for (const m of text.matchAll(forms.all)) {
      mentions.push({ label, start: m.index!, end: m.index! + m[0].length });
    }
  }
  const maximal = mentions.filter((m) =>
    !mentions.some((o) =>
      o !== m && o.start <= m.start && o.end >= m.end && o.end - o.start > m.end - m.start
    )
  );
  const affirmed = maximal.filter((m) =>
    !MENTION_NEGATED_BEFORE.test(text.slice(Math.max(0, m.start - 12), m.start)) &&
    !MENTION_NEGATED_AFTER.test(text.slice(m.end, m.end + 16))
  );
  const last = conclusions.length ? conclusions[conclusions.length - 1] : -1;
  const concluding = affirmed.filter((m) => m.start >= last);
  const pool = concluding.length ? concluding : affirmed;
  const labels = [...new Set(pool.map((m) => m.label))];
  if (labels.length > 1) {
    // Several options named as one list ("spironolactone and lisinopril") are read together.
    const ordered = [...pool].sort((a, b) => a.start - b.start);
    const joined = ordered.every((m, i) =>
      i === 0 ||
      /^\s*(?:,|、|，|&|\+|\band\b|和|及|与|以及|\s)*\s*$/i.test(text.slice(ordered[i - 1].end, m.start))
    );
    return joined ? labels.sort() : [];
  }
  return labels.length === 1 ? labels : null;
}
