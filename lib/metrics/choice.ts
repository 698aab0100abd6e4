/**
 * Multiple-choice answer extraction for Chinese and English replies, and accuracy scoring.
 *
 * The extractor looks for the reply's final answer, in this order of strength:
 * 1. answer cues ("答案：B", "故选B", "应选 A、C", "the answer is (B)", "Final answer: ACD", "B 正确" ...);
 *    when several cues occur the last one wins, so letters mentioned while reasoning do not count, and a
 *    negated cue ("答案C并不正确", "not C") is skipped;
 * 2. a reply that is only letters ("ACD", "(B)", "B、") or that opens with a labelled option ("B、股骨骨折 ...");
 * 3. the option text instead of the letter (exactly one option's text, the longest match, appears in the reply);
 * 4. a single distinct standalone option letter anywhere in the reply.
 * Anything else is an extraction failure: counted wrong and reported on its own.
 * @module
 */

/** What the extractor found in a reply. */
export interface ChoiceExtraction {
  /** Extracted option letters, sorted and distinct; `null` when nothing could be extracted. */
  letters: string[] | null;
  /** Which rule decided: `cue`, `letters_only`, `leading_option`, `option_text`, `lone_letter`, or `none`. */
  method: "cue" | "letters_only" | "leading_option" | "option_text" | "lone_letter" | "none";
}

/** Normalises a reply: NFKC (full-width letters and punctuation to ASCII), markdown emphasis removed. */
export function normalizeReply(text: string): string {
  return text.normalize("NFKC").replace(/[*_`#]+/g, "").replace(/\r\n?/g, "\n");
}

/** Returns a regex character class matching any of `labels` (e.g. `[ABCD]`). */
export function labelClass(labels: readonly string[]): string {
  return `[${labels.map((l) => l.replace(/[\]\\^-]/g, "\\$&")).join("")}]`;
}

const SEPARATOR = String.raw`\s*(?:[、,，;；/&+]|和|及|与|以及|and|,\s*and|or)?\s*`;

/** Makes the ASCII letters of a cue phrase match either case (the option letters themselves stay upper-case). */
function anyCase(phrase: string): string {
  return phrase.replace(/[a-z]/g, (ch) => `[${ch}${ch.toUpperCase()}]`);
}

function cuePatterns(labels: readonly string[]): RegExp[] {
  const L = labelClass(labels);
  const lower = labelClass(labels.map((l) => l.toLowerCase()));
  // Upper-case letters, or one lower-case letter that ends the clause ("答案:b", "answer: d").
  const group = String.raw`(${L}(?:${SEPARATOR}${L})*|${lower}(?=\s*(?:$|[.。,，;；)\]）!！])))`;
  const open = String.raw`[\s:：是为应该选择项]*[(\[（【「"']?\s*`;
  return [
    // Chinese cues before the letters: 答案：B / 正确答案是 A、C / 故选B / 应选择C项 / 我选 D / 选项B
    new RegExp(
      String
        .raw`(?:最终答案|正确答案|参考答案|最佳答案|答案|正确选项|最佳选项|故选|应选|应当选|选择|本题选|我选|选项|答|选|而是|应是|应为|应该是)${open}${group}(?![A-Za-z])`,
      "gm",
    ),
    // English cues: the answer is B / final answer: (C) / correct option is A and C / Answer - B / I choose D
    new RegExp(
      String.raw`(?:${
        anyCase(
          "final answer|correct answer|best answer|right answer|answer|correct options?|best option|i (?:would )?(?:choose|pick|select)|option|choice|it is|it's|rather|instead",
        )
      })\s*(?:is|are|would be|should be|=|:|-|：)?\s*(?:options?\s*)?[(\[（]?\s*${group}(?![A-Za-z])`,
      "gm",
    ),
    // Letter followed by a verdict: B 正确 / 选项B是正确的 / (C) is correct
    new RegExp(
      String
        .raw`(?<![A-Za-z])[(\[（]?${group}[)\]）]?\s*(?:项|选项)?\s*(?:是|为)?\s*(?:正确|最佳|最合适|最恰当|${
        anyCase("is (?:the )?(?:correct|right|best)")
      })`,
      "gm",
    ),
  ];
}

const NEGATION_BEFORE =
  /(?:不是|并非|而非|排除|不选|不应选|not|isn't|rather than|instead of|except)\s*(?:选项|option)?\s*[(\[（]?\s*$/i;
const NEGATION_AFTER =
  /^\s*[)\]）]?\s*(?:项|选项)?\s*(?:并|是|也)?\s*(?:不正确|错误|不对|不符|不是|不恰当|不合适|is (?:not|in)correct|is wrong|is not|are not|are wrong)/i;

function lettersOf(group: string, labels: readonly string[]): string[] {
  // Only upper-case letters are options ("A and C" must not yield D); a lone lower-case letter is one.
  const chars = group.length === 1 ? [group.toUpperCase()] : [...group];
  const set = new Set(chars.filter((ch) => labels.includes(ch)));
  return [...set].sort();
}

interface CueHit {
  index: number;
  letters: string[];
}

function cueHits(text: string, labels: readonly string[]): CueHit[] {
  const hits: CueHit[] = [];
  for (const pattern of cuePatterns(labels)) {
    for (const match of text.matchAll(pattern)) {
      const group = match[1];
      const groupStart = match.index! + match[0].lastIndexOf(group);
      const before = text.slice(Math.max(0, match.index! - 12), match.index!) +
        text.slice(match.index!, groupStart);
      const after = text.slice(groupStart + group.length, groupStart + group.length + 14);
      if (NEGATION_BEFORE.test(before) || NEGATION_AFTER.test(after)) continue;
      hits.push({ index: groupStart, letters: lettersOf(group, labels) });
    }
  }
  return hits.sort((a, b) => a.index - b.index);
}

function normalizeOptionText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[\s\p{P}]+/gu, "");
}

/**
 * Extracts the chosen option letters from `reply`. `labels` are the item's option letters (default A–E);
 * `options` (letter → text) enables matching option text written instead of the letter.
 */
export function extractChoice(
  reply: string,
  labels: readonly string[] = ["A", "B", "C", "D", "E"],
  options: Record<string, string> = {},
): ChoiceExtraction {
  const text = normalizeReply(reply).trim();
  if (!text) return { letters: null, method: "none" };
  const L = labelClass(labels);

  const hits = cueHits(text, labels);
  if (hits.length) return { letters: hits[hits.length - 1].letters, method: "cue" };

  const lettersOnly = new RegExp(String.raw`^[(\[（]?\s*(${L}(?:${SEPARATOR}${L})*)\s*[)\]）]?[.。、:：]?$`);
  const only = text.match(lettersOnly);
  if (only) return { letters: lettersOf(only[1], labels), method: "letters_only" };

  const leading = text.match(new RegExp(String.raw`^[(\[（]?(${L})[)\]）]?\s*[.、．:：)）]\s*\S`));
  if (leading) return { letters: [leading[1]], method: "leading_option" };

  const normalized = normalizeOptionText(text);
  const matched = Object.entries(options)
    .map(([label, body]) => [label, normalizeOptionText(body)] as const)
    .filter(([, body]) => body.length >= 2 && normalized.includes(body));
  const maximal = matched.filter(([, body]) =>
    !matched.some(([, other]) => other !== body && other.includes(body))
  );
  if (maximal.length === 1) return { letters: [maximal[0][0]], method: "option_text" };

  const lone = new RegExp(String.raw`(?<![A-Za-z])(${L})(?![A-Za-z])(?!\s+[a-z]{2,})`, "g");
  const seen = new Set([...text.matchAll(lone)].map((m) => m[1]));
  if (seen.size === 1) return { letters: [...seen], method: "lone_letter" };
  return { letters: null, method: "none" };
}

/** Returns `true` when the extracted letters are exactly the answer key's letters. */
export function choiceCorrect(extracted: readonly string[] | null, answer: readonly string[]): boolean {
  if (!extracted) return false;
  const key = [...new Set(answer)].sort();
  return extracted.length === key.length && extracted.every((l, i) => l === key[i]);
}
