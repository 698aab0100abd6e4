/**
 * Multiple-choice answer extraction for Chinese and English replies, and accuracy scoring.
 *
 * The extractor reads the reply's final answer (after any `</think>`, see {@linkcode normalizeReply}) with the
 * rules of {@linkcode CHOICE_RULES}, in order of strength; the first rule that reads something decides. In
 * short: answer statements ("答案：B", "我选择A、B 和 C", "The correct answers are A, B, and C", "\boxed{C}",
 * "- A. Hypertension\n- C. Diabetes", "the answer is primary aldosteronism"), then verdicts ("B is correct",
 * "选项C正确", "so is D"), a reply that is only letters or opens with the one labelled option it gives, a hedge,
 * "none of the above" when the item has no such option, options' texts named as a whole answer, and last a
 * single option-like letter ("…首选二甲双胍（A）。").
 *
 * Letters are joined by a comma, "、" or a joining word, after a comma too ("A, C, & D", "A、B、以及C"); each
 * may carry "项"/"选项", brackets or a gloss ("A项、C项和E项", "(A)(D)(E)", "A (aspirin) and C"). A list ends
 * with its clause, a reason ("since …", "因为…") or a word pointing back at it ("这几项"), and never crosses a
 * line; a new clause after a comma takes its letters ("本题选D，A、B、C三项都不正确" answers D), and a list that
 * ends any other way is not definite (see `letters.ts`). The last statement wins when a correction word
 * ("actually", "更正", "抱歉，漏了", "but" …) comes before it ("— actually, no, D." states D); statements inside a
 * condition ("if …, the answer would be D"), questions ("So the answer is C?") and negated ones are not answers
 * (see `statements.ts`).
 *
 * "Not extractable" is the outcome whenever the reading is not definite: a final answer hedged between options
 * ("A or C", "A/B", "或", "A还是C", "possibly B, possibly D"), another option entertained after it ("but it could
 * also be D", "可能还有E", "Actually, A is better"), different final answers with no correction between them,
 * letters the item does not have, an option's text that is only part of the answer ("阿司匹林联合氯吡格雷" for
 * option "阿司匹林"), readings that disagree, or a hedge ("无法确定", "both are plausible") with no statement.
 * A confidently wrong letter costs more than an extraction failure: unextractable replies count wrong and are
 * reported on their own.
 * @module
 */
import { labelClass, loneLetters, readLetterList } from "./letters.ts";
import { normalizeReply } from "./normalize.ts";
import { ENTRY, indexOptions, NONE_PHRASE, type OptionIndex, optionTextReading } from "./option_text.ts";
import {
  type ChoiceFailure,
  CORRECTION,
  cueStatements,
  doubtedAfter,
  type Statement,
  toStatement,
  UNCERTAIN,
  verdictStatements,
} from "./statements.ts";

// The extractor's public helpers, from the modules that define them.
export { labelClass } from "./letters.ts";
export { normalizeForMatch, normalizeReply } from "./normalize.ts";
export type { ChoiceFailure } from "./statements.ts";

/** Which rule decided an extraction. */
export type ChoiceMethod =
  | "cue"
  | "verdict"
  | "letters_only"
  | "leading_option"
  | "option_text"
  | "lone_letter"
  | "none";

/** What the extractor found in a reply. */
export interface ChoiceExtraction {
  /** Extracted option letters, sorted and distinct; `null` when nothing could be extracted. */
  letters: string[] | null;
  /** Which rule decided (for a failure: the rule that found the unusable answer, or `none`). */
  method: ChoiceMethod;
  /** Why `letters` is `null`: hedged between options, not an option of the item, or no answer at all. */
  failure?: ChoiceFailure;
}

/** A reply being read: its text, the item's letters and options, and the readings several rules share. */
export interface ChoiceReading {
  /** The reply, normalised ({@linkcode normalizeReply}) and trimmed; never empty. */
  text: string;
  /** The item's option letters. */
  labels: readonly string[];
  /** The item's options prepared for matching. */
  index: OptionIndex;
  /** Whether the reply declines to choose ("无法确定", "both are plausible"); computed on first use. */
  uncertain(): boolean;
  /** The option-like letters standing alone in the reply, sorted; computed on first use. */
  lone(): string[];
}

/** One rule of the extractor. */
export interface ChoiceRule {
  /** Short name: the method it reports, or what it detects. */
  name: string;
  /** What the rule reads, and why it comes at its position. */
  doc: string;
  /** The rule's decision, or `null` to leave the reply to the next rule. */
  read(reading: ChoiceReading): ChoiceExtraction | null;
}

/** The extraction of a statement: its letters, or its failure. */
function fromStatement(statement: Statement, method: ChoiceMethod): ChoiceExtraction {
  return statement.letters
    ? { letters: statement.letters, method }
    : { letters: null, method, failure: statement.failure };
}

function readCue({ text, labels, index }: ChoiceReading): ChoiceExtraction | null {
  const cues = cueStatements(text, labels, index);
  if (!cues.length) return null;
  const last = cues[cues.length - 1];
  const key = (st: Statement) => st.letters?.join("") ?? "";
  const earlier = cues.filter((c) => c !== last && c.letters && key(c) !== key(last));
  const since = earlier.length ? text.slice(earlier[earlier.length - 1].index, last.index) : "";
  if (earlier.length && !CORRECTION.test(since)) {
    return { letters: null, method: "cue", failure: "ambiguous" };
  }
  if (last.letters && doubtedAfter(text, last, labels)) {
    return { letters: null, method: "cue", failure: "ambiguous" };
  }
  return fromStatement(last, "cue");
}

function readVerdict({ text, labels }: ChoiceReading): ChoiceExtraction | null {
  const verdicts = verdictStatements(text, labels);
  if (!verdicts.length) return null;
  const unusable = verdicts.find((v) => !v.letters);
  if (unusable) return fromStatement(unusable, "verdict");
  return { letters: [...new Set(verdicts.flatMap((v) => v.letters!))].sort(), method: "verdict" };
}

function readLettersOnly({ text, labels }: ChoiceReading): ChoiceExtraction | null {
  const onlyLetters = text.match(/^[(\[（【]?\s*[A-Za-z][\s\S]{0,40}$/)
    ? readLetterList(text, 0, true)
    : null;
  if (!onlyLetters || !/^\s*[.。、:：]?\s*$/.test(text.slice(onlyLetters.end))) return null;
  return fromStatement(toStatement(0, onlyLetters, labels), "letters_only");
}

function readLeadingOption(reading: ChoiceReading): ChoiceExtraction | null {
  const { text, labels } = reading;
  const L = labelClass(labels);
  const leading = text.match(
    new RegExp(
      String.raw`^(?:选项|option\s*)?[(\[（]?(${L})[)\]）]?\s*(?:、(?!\s*${L}(?![A-Za-z]))|[.:：)）])\s*\S`,
      "i",
    ),
  );
  if (!leading || reading.uncertain()) return null;
  // An opening "A. …" answers only when it is the one labelled entry, not the first of an option-by-option list.
  const entries = new Set([...text.matchAll(ENTRY)].map((e) => e[1]).filter((l) => labels.includes(l)));
  return entries.size <= 1 ? { letters: [leading[1]], method: "leading_option" } : null;
}

function readHedge(reading: ChoiceReading): ChoiceExtraction | null {
  return reading.uncertain() ? { letters: null, method: "none", failure: "ambiguous" } : null;
}

function readNoneOfTheAbove({ text, index }: ChoiceReading): ChoiceExtraction | null {
  return !index.none && NONE_PHRASE.test(text)
    ? { letters: null, method: "none", failure: "not_an_option" }
    : null;
}

function readOptionText(reading: ChoiceReading): ChoiceExtraction | null {
  const byText = optionTextReading(reading.text, reading.index);
  if (byText === null) return null;
  // Options named apart (not as one list) give no single answer.
  if (byText.length === 0) return { letters: null, method: "option_text", failure: "ambiguous" };
  const lone = reading.lone();
  if (lone.length && lone.join("") !== byText.join("")) {
    return { letters: null, method: "option_text", failure: "ambiguous" };
  }
  return { letters: byText, method: "option_text" };
}

function readLoneLetter(reading: ChoiceReading): ChoiceExtraction | null {
  const lone = reading.lone();
  if (lone.length === 1) return { letters: lone, method: "lone_letter" };
  return lone.length > 1 ? { letters: null, method: "none", failure: "ambiguous" } : null;
}

/**
 * The extractor's rules, strongest first; {@linkcode extractChoice} returns the first rule's decision and, when
 * none decides, "no answer".
 */
export const CHOICE_RULES: readonly ChoiceRule[] = [
  {
    name: "cue",
    doc:
      "Answer statements: a cue and the letters or option texts after it (答案：B, the correct answers are " +
      "A and C). The reply's own statement of its answer is the strongest evidence, so it comes first; the " +
      "last statement wins after a correction, while different statements without one, or another option " +
      "entertained after the last, make the reply ambiguous.",
    read: readCue,
  },
  {
    name: "verdict",
    doc:
      "Verdicts on letters (B is correct, 选项C正确, so is D), read together. Only when no statement exists: " +
      "option-by-option reasoning also gives verdicts, which a stated answer overrides.",
    read: readVerdict,
  },
  {
    name: "letters_only",
    doc:
      "A reply that is nothing but letters (ACD, (B), A，C). It has no cue for the rules above to find, and " +
      "nothing in it could contradict the letters.",
    read: readLettersOnly,
  },
  {
    name: "leading_option",
    doc:
      "A reply that opens with one labelled option (B. 急性心肌梗死 …). After letters only, and not when the " +
      "reply hedges or lists several labelled options (that is option-by-option analysis, not an answer).",
    read: readLeadingOption,
  },
  {
    name: "hedge",
    doc:
      "A reply that declines to choose (无法确定, both are plausible) and stated no answer above: ambiguous. " +
      "It comes before the weaker readings below, which would pick one of the options it hesitates between.",
    read: readHedge,
  },
  {
    name: "none_of_the_above",
    doc: "None of the above, when the item has no such option: not an option. Before option texts, which " +
      "could otherwise read an option the reply mentions while rejecting them all.",
    read: readNoneOfTheAbove,
  },
  {
    name: "option_text",
    doc: "Options' texts named as a whole answer, preferring what follows the last concluding phrase and " +
      "skipping negated mentions. A text is weaker evidence than a stated letter, so it comes after the rules " +
      "above; option-like lone letters that disagree with it make the reply ambiguous.",
    read: readOptionText,
  },
  {
    name: "lone_letter",
    doc:
      "One option-like letter standing alone (…首选二甲双胍（A）。), the weakest evidence, so last; several " +
      "such letters are ambiguous.",
    read: readLoneLetter,
  },
];

/** The reading of a normalised, non-empty reply, with its shared readings computed once, on first use. */
function readingOf(text: string, labels: readonly string[], options: Record<string, string>): ChoiceReading {
  let uncertain: boolean | undefined;
  let lone: string[] | undefined;
  return {
    text,
    labels,
    index: indexOptions(options, labels),
    uncertain: () => uncertain ??= UNCERTAIN.test(text),
    lone: () => lone ??= loneLetters(text, labels, true),
  };
}

/**
 * Extracts the chosen option letters from `reply`. `labels` are the item's option letters (default A–E);
 * `options` (letter → text) lets an answer given as option text, or as "none of the above", be read.
 */
export function extractChoice(
  reply: string,
  labels: readonly string[] = ["A", "B", "C", "D", "E"],
  options: Record<string, string> = {},
): ChoiceExtraction {
  const text = normalizeReply(reply).trim();
  if (!text) return { letters: null, method: "none", failure: "no_answer" };
  const reading = readingOf(text, labels, options);
  for (const rule of CHOICE_RULES) {
    const decision = rule.read(reading);
    if (decision) return decision;
  }
  return { letters: null, method: "none", failure: "no_answer" };
}

/** Returns `true` when the extracted letters are exactly the answer key's letters. */
export function choiceCorrect(extracted: readonly string[] | null, answer: readonly string[]): boolean {
  if (!extracted) return false;
  const key = [...new Set(answer)].sort();
  return extracted.length === key.length && extracted.every((l, i) => l === key[i]);
}
