/**
 * Multiple-choice answer extraction for Chinese and English replies, and accuracy scoring.
 *
 * The extractor reads the reply's final answer (after any `</think>`), in this order of strength:
 * 1. answer statements: a cue followed by option letters ("答案：B", "我选择A、B 和 C", "The correct answers are
 *    A, B, and C", "My picks are A & C", "\boxed{C}"), by labelled options ("- A. Hypertension\n- C. Diabetes")
 *    or by options' texts ("the answer is primary aldosteronism"). Letters are joined by a comma, "、" or a
 *    joining word, after a comma too ("A, C, & D", "A、B、以及C"); each may carry "项"/"选项", brackets or a
 *    gloss ("A项、C项和E项", "(A)(D)(E)", "A (aspirin) and C"). A list ends with its clause, a reason ("since
 *    …", "因为…") or a word pointing back at it ("这几项"), and never crosses a line; a new clause after a comma
 *    takes its letters ("本题选D，A、B、C三项都不正确" answers D), and a list that ends any other way is not
 *    definite. The last statement wins when a correction word ("actually", "更正", "抱歉，漏了", "but" …) comes
 *    before it ("— actually, no, D." states D); statements inside a condition ("if …, the answer would be D"),
 *    questions ("So the answer is C?") and negated ones are not answers;
 * 2. verdicts, when no statement exists: "B is correct", "选项C正确", "A. Correct", "B：正确", "so is D"
 *    (negated ones, "A is incorrect", "C并不正确", are skipped; several positive verdicts are read together);
 * 3. a reply that is only letters ("ACD", "(B)", "A，C") or that opens with the one labelled option it gives;
 * 4. options' texts named as a whole answer (or a "none of the above" phrasing, when such an option exists),
 *    preferring what follows the last concluding phrase and skipping negated mentions;
 * 5. a single option-like letter ("…首选二甲双胍（A）。").
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
import { afterReasoning } from "../text/reasoning.ts";

/** Which rule decided an extraction. */
export type ChoiceMethod =
  | "cue"
  | "verdict"
  | "letters_only"
  | "leading_option"
  | "option_text"
  | "lone_letter"
  | "none";

/** Why nothing was extracted. */
export type ChoiceFailure = "ambiguous" | "not_an_option" | "no_answer";

/** What the extractor found in a reply. */
export interface ChoiceExtraction {
  /** Extracted option letters, sorted and distinct; `null` when nothing could be extracted. */
  letters: string[] | null;
  /** Which rule decided (for a failure: the rule that found the unusable answer, or `none`). */
  method: ChoiceMethod;
  /** Why `letters` is `null`: hedged between options, not an option of the item, or no answer at all. */
  failure?: ChoiceFailure;
}

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
interface MatchView {
  /** Lower-case text without whitespace, punctuation or symbols. */
  norm: string;
  /** Index in the source text of each character of `norm`. */
  at: number[];
}

const IGNORED_FOR_MATCH = /[\s\p{P}\p{S}]/u;

/** Reduces already normalised `text` for matching and keeps where each character came from. */
function matchView(text: string): MatchView {
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

/** Returns a regex character class matching any of `labels` (e.g. `[ABCD]`). */
export function labelClass(labels: readonly string[]): string {
  return `[${labels.map((l) => l.replace(/[\]\\^-]/g, "\\$&")).join("")}]`;
}

// ---------------------------------------------------------------------------------------------------------
// Letter lists: "B", "(C)", "A, B, and C", "B和D", "ACD", "A or C" (hedged)

/** A parsed run of option letters. */
interface LetterList {
  letters: string[];
  end: number;
  /** Joined by "or"/"或"/"/" (or followed by such an alternative): not a definite answer. */
  hedged: boolean;
  /**
   * Where the list ends is unclear: it is followed by words that neither close it nor start a new clause at a
   * comma ("A和E are adverse effects", "A、C均为…"), so its letters are not a definite answer.
   */
  open: boolean;
}

const OPEN = /[(\[（【「"'“‘]/;
const CLOSE = /[)\]）】」"'”’]/;
/** Characters that may directly follow an option letter in Chinese text ("A项", "B正确", "C，因为"). */
const AFTER_LETTER_CJK =
  /[项選选是为都均正对錯错和与及或以因所故且也而并即的等两三几共这那些才完还吧呢吗啊了]/;
/** Lower-case words that may follow "A" or "I" used as an option letter (otherwise they are English words). */
const LETTER_FOLLOWERS = new Set([
  "and",
  "or",
  "nor",
  "is",
  "are",
  "was",
  "were",
  "because",
  "since",
  "as",
  "which",
  "with",
  "here",
  "for",
  "given",
  "due",
  "then",
  "so",
  "but",
  "would",
  "should",
  "seems",
  "looks",
  "appears",
  "best",
  "only",
  "seem",
  "could",
  "might",
  "may",
  "also",
  "too",
  "plus",
  "together",
  "along",
]);
/**
 * What joins letters of one answer — never a line break: a comma, "、", a joining word ("and", "&", "和", "及",
 * "以及", "与" …, after a comma too: "A, C, & D", "A、B、以及C"), or spaces. Around a joiner each item may carry
 * its "项"/"选项"/"option" ("A项、C项和E项", "选项A和选项C", "options A and D").
 */
const SEPARATOR =
  /[ \t]*(?:(?:项|选项)[ \t]*)?(?:[,、]?[ \t]*(?:&|\+|\band\b|\bplus\b|\bnor\b|\bas well as\b|\balong with\b|\btogether with\b|以及|和|及|与|跟)|,|、)[ \t]*(?:(?:选项|options?\b)[ \t]*)?|[ \t]+/y;
/**
 * A short gloss after a letter, before the next one: "A (aspirin) and C", "A（阿司匹林）和C", "A (not C) and D".
 * It names no other option unless to reject it, and offers no alternative ("A (or C) and D" is hedged).
 */
const GLOSS =
  /[ \t]*[(（](?:(?![^()（）\n]{0,39}(?<![A-Za-z])[A-Z](?![A-Za-z]))|(?=[ \t]*(?:(?:not|rather than|instead of)\b|不是|而非|不选|非)))(?![^()（）\n]{0,39}(?:\bor\b|或|\/|\bmaybe\b|\bpossibly\b|\bperhaps\b|也可能))[^()（）\n]{1,40}[)）]/y;
/** A bracketed remark followed by more letters, where it is no gloss: "A (B is wrong) and C" has no clear end. */
const REMARK_THEN_LETTER =
  /[ \t]*[(（][^()（）\n]{0,60}[)）][ \t]*[,、]?[ \t]*(?:&|\+|\band\b|以及|和|及|与)[ \t]*[(\[（]?[A-Z](?![A-Za-z])/y;
const HEDGE_WORDS = String
  .raw`\bor\b|或者|或是|或许|或|还是|也可能是|也可能|\bpossibly\b|\bmaybe\b|\bperhaps\b|\/|\|`;
const HEDGE_TAIL = String.raw`(?:选|是|\boption\b|\bpossibly\b|\bmaybe\b|\brather\b|\beven\b)?`;
/** What offers an alternative instead: "or", "或", "/", "也可能是" — a list joined so is not a definite answer. */
const HEDGE_SEPARATOR = new RegExp(
  String.raw`[ \t]*[,;]?[ \t]*(?:${HEDGE_WORDS})[ \t]*${HEDGE_TAIL}[ \t]*`,
  "y",
);
/** The joints tried between two letters, alternatives first. */
const JOINTS = [HEDGE_SEPARATOR, SEPARATOR];
const TRAILING_HEDGE = new RegExp(
  String
    .raw`^[ \t]*[(（]?[ \t]*[,;]?[ \t]*(?:${HEDGE_WORDS})[ \t]*${HEDGE_TAIL}[ \t]*[(\[（【]?[ \t]*[A-Z](?![A-Za-z])`,
);
/**
 * What may follow the last letter of a list of two or more: the end of the clause (a dash too), "项"/"两项"/
 * "options", words that point back at the list ("这几项", "等") or a reason ("因为…", "since …").
 * "答案是A，C选项是干扰项" and "The answer is B, and A would be wrong" end after their first letter.
 */
const LIST_END_CLAUSE = String
  .raw`^[ \t]*(?:(?:这|共)?[两三四五几]?(?:项|个选项|选项)|options?|choices?)?[ \t]*(?:$|[.。,，;；:：!！?？()\[\]（）【】\n—–]|-[ \t]|这|那|等|以上|上述|因为|由于|吧|呢|啊|了|(?:since|because|as|given|due|for|which|so|considering|based|per|according)\b`;
const LIST_END = new RegExp(
  String
    .raw`${LIST_END_CLAUSE}|(?:are|is)\s+(?:both\s+|all\s+)?(?:the\s+)?(?:correct|right|true|answers?)\b|(?:的说法|的描述|所述)?(?:都|均)?(?:是)?(?:正确|对))`,
  "i",
);
/** The same, where a list may also close with a negative verdict ("A和C错误", "B and D are incorrect"). */
const LIST_END_VERDICT = new RegExp(
  String
    .raw`${LIST_END.source}|^[ \t]*(?:(?:这|共)?[两三四五]?(?:项|个选项|选项))?[ \t]*(?:(?:are|is)\s+(?:both\s+|all\s+)?(?:incorrect|wrong|false)\b|(?:的说法|的描述|所述)?(?:都|均)?(?:是)?(?:错误|不正确|错|不对|有误))`,
  "i",
);

function isLetterBoundary(text: string, index: number): boolean {
  const next = text[index];
  if (next === undefined) return true;
  if (/[A-Za-z0-9]/.test(next)) return false;
  if (next === "-" && /[\p{L}\d]/u.test(text[index + 1] ?? "")) return false; // D-二聚体, X-ray
  if (/\p{Script=Han}/u.test(next)) return AFTER_LETTER_CJK.test(next);
  return true;
}

/** Reads one option letter (optionally bracketed) at `pos`; multi-letter runs ("ACD") are read as several. */
function readItem(
  text: string,
  pos: number,
  allowLower: boolean,
): { letters: string[]; end: number; lower: boolean } | null {
  let i = pos;
  const bracketed = OPEN.test(text[i] ?? "");
  if (bracketed) i++;
  while (text[i] === " ") i++;
  const run = /[A-Z]+/y;
  run.lastIndex = i;
  const upper = run.exec(text);
  let letters: string[];
  let lower = false;
  if (upper) {
    letters = [...upper[0]];
    i += upper[0].length;
    if (/[a-z]/.test(text[i] ?? "")) return null; // a word ("Answer", "CT"), not letters
    if (letters.length === 1 && (letters[0] === "A" || letters[0] === "I") && !bracketed) {
      const word = text.slice(i).match(/^ ([a-z]+)/)?.[1];
      if (word && !LETTER_FOLLOWERS.has(word)) return null; // "A patient", "I think"
    }
  } else if (allowLower && /[a-z]/.test(text[i] ?? "") && !/[A-Za-z]/.test(text[i + 1] ?? "")) {
    letters = [text[i].toUpperCase()];
    lower = true;
    i++;
  } else return null;
  while (text[i] === " " && bracketed) i++;
  if (bracketed && CLOSE.test(text[i] ?? "")) i++;
  else if (!isLetterBoundary(text, i) && !(CLOSE.test(text[i] ?? ""))) return null;
  return { letters, end: i, lower };
}

/** A lower-case letter list counts only when it closes the clause ("答案:b", "the answer is c.", "b and d"). */
const CLAUSE_END = /^\s*(?:$|[.。,，;；)\]）!！\n])/;

/** Whether the sticky `pattern` matches `text` at `pos`. */
function matchesAt(pattern: RegExp, text: string, pos: number): boolean {
  pattern.lastIndex = pos;
  return pattern.test(text);
}

/** One item of a letter list and the joint before it. */
interface ListItem {
  letters: string[];
  end: number;
  /** Joined to the previous item by an alternative ("or", "或"). */
  hedge: boolean;
  /** Joined to the previous item at a comma, where a new clause may begin. */
  comma: boolean;
}

/** The item after a joint ("、", ", and", "或" …) at `at`, if one stands there. */
function itemAfterJoint(text: string, at: number, lower: boolean): ListItem | null {
  for (const separator of JOINTS) {
    separator.lastIndex = at;
    const sep = separator.exec(text);
    const item = sep && readItem(text, at + sep[0].length, lower);
    if (item && item.lower === lower) {
      return { ...item, hedge: separator === HEDGE_SEPARATOR, comma: sep[0].includes(",") };
    }
  }
  return null;
}

/** The next item of a list whose last item ends at `end`: after a joint, a gloss and a joint, or "(A)(D)". */
function nextItem(text: string, end: number, lower: boolean): ListItem | null {
  const joined = itemAfterJoint(text, end, lower);
  if (joined) return joined;
  GLOSS.lastIndex = end;
  const gloss = GLOSS.exec(text);
  if (gloss) return itemAfterJoint(text, end + gloss[0].length, lower);
  if (CLOSE.test(text[end - 1] ?? "") && OPEN.test(text[end] ?? "")) {
    const item = readItem(text, end, lower);
    if (item && item.lower === lower) return { ...item, hedge: false, comma: false };
  }
  return null;
}

/** What begins a clause of its own after letters: a lower-case word ("would be wrong"), "'ll", Chinese text. */
const NEW_CLAUSE = /^[ \t]*(?:[a-z]|['’]|\p{Script=Han})/u;

/**
 * Parses a list of option letters starting at `pos`; `null` when no letter stands there. Items are taken
 * greedily; when the list does not close its clause ({@linkcode LIST_END}) but a new clause follows it, the
 * items after the last comma are that clause's subject and are dropped ("本题选D，A、B、C三项都不正确" answers
 * D, "The answer is B, and A would be wrong" answers B). A list with no such comma, or followed by something
 * else, is `open`: where its answer ends is unclear ("A和E are adverse effects").
 */
function readLetterList(
  text: string,
  pos: number,
  allowLower: boolean,
  ends: RegExp = LIST_END,
): LetterList | null {
  const first = readItem(text, pos, allowLower);
  if (!first) return null;
  const items: ListItem[] = [{ ...first, hedge: false, comma: false }];
  for (
    let next = nextItem(text, first.end, first.lower);
    next;
    next = nextItem(text, next.end, first.lower)
  ) {
    items.push(next);
  }
  const greedyEnd = items[items.length - 1].end;
  const letters = (list: ListItem[]) =>
    list.length === 1 ? list[0].letters : list.flatMap((item) => item.letters);
  const hedged = (list: ListItem[], end: number) =>
    list.some((item) => item.hedge) || TRAILING_HEDGE.test(text.slice(end));
  if ((items.length > 1 || first.letters.length > 1) && !ends.test(text.slice(greedyEnd))) {
    if (items.length === 1) return null; // a run of capitals inside a word or phrase ("ACE inhibitors")
    const cut = items.findLastIndex((item) => item.comma);
    if (cut < 1 || !NEW_CLAUSE.test(text.slice(greedyEnd))) {
      if (first.lower) return null;
      return { letters: letters(items), end: greedyEnd, hedged: hedged(items, greedyEnd), open: true };
    }
    items.splice(cut);
  }
  const end = items[items.length - 1].end;
  if (first.lower && !CLAUSE_END.test(text.slice(end))) return null;
  return {
    letters: letters(items),
    end,
    hedged: hedged(items, end),
    open: matchesAt(REMARK_THEN_LETTER, text, end),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Statements: cue + letters / option text, and verdicts

const CUE_ZH = String
  .raw`正确的说法|正确的叙述|正确的描述|最终答案|最后答案|正确答案|参考答案|标准答案|最佳答案|答案|正确选项|最佳选项|正确的选项|正确的答案|正确的是|正确的有|正确项|故选择|故选|应选择|应当选择|应该选择|应选|应当选|应该选|本题选择|本题选|我选择|我选|我的选择|我的答案|我认为|我觉得|我倾向于|选择|而是|答(?!题)|(?<![首候挑筛精评预])选(?![项题择用取药方])`;
const CUE_EN = String
  .raw`\b(?:final answers?|correct answers?|best answers?|right answers?|answers?|correct options?|correct choices?|best options?|best choices?|right options?|correct responses?|correct ones|right ones|correct(?=\s*:)|going with|i'd say|(?:correct|true|right) statements?|(?:which|that) is|(?:i|we)(?:'d|'ll| would| will)? (?:choose|pick|select|go with|opt for)|go with|i'm going with|my (?:final )?(?:answers?|choices?|picks?|selections?)|it is|it's|it must be|it should be)\b`;
/**
 * A correction that states the answer by itself: "— actually, no, D.", "Actually, B, C and E — I forgot E";
 * it counts only when its letters close the clause ("Actually, A is better" entertains A, it does not answer).
 */
const CUE_CORRECTION = String
  .raw`\b(?:(?:actually|correction|scratch that|make that|i mean|i meant)\b[ \t]*[,;:!—–-]?|no[ \t]*[,;:!—–-])[ \t]*(?:no[ \t]*[,;:!—–-][ \t]*)?`;
const CUE = new RegExp(`${CUE_ZH}|${CUE_EN}|${CUE_CORRECTION}`, "gi");
const IS_CUE_CORRECTION = new RegExp(`^(?:${CUE_CORRECTION})$`, "i");
/** What must follow the letters of a correction cue: the end of the clause. */
const CORRECTION_CLOSES = /^[ \t]*(?:$|[.。!！;；\n—–]|-[ \t])/;
/** Words and marks between a cue and its letters ("is", "are", "：", "应为", "选项", "both" …). */
const FILLER =
  /(?:\s+|[:：=】\]→]|->|[-–—](?![A-Za-z\d])|\b(?:is|are|was|would be|should be|will be|must be|be|probably|likely|most likely|definitely|clearly|therefore|thus|either|both|the|here|just|only|simply|options?|choices?|letters?)\b|修正为|更正为|改为|的是|了|应该是|应当是|可能是|应为|应是|为|是|应选|选择|选项|选|项|即|有)/y;

const NEGATION_BEFORE =
  /(?:\bnot|n't|\bneither|\bnever|rather than|instead of|\bexcept|不是|并非|而非|排除|不选|不应选|除了?)\s*(?:options?|选项)?\s*[(\[（]?\s*$/i;
const NEGATION_AFTER =
  /^\s*(?:(?:这|那)?[几些两三四五]?(?:项|个选项|选项|个)?(?:之外|以外|除外))|^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*(?:的说法|的描述|所述)?\s*(?:都|均|也|并|亦)?\s*(?:是|为)?\s*(?:不|非|错|有误|wrong|incorrect|(?:is|are|was|were)\s+(?:not|wrong|incorrect|false|unlikely|less likely|excluded)|isn't|aren't|can be (?:excluded|ruled out))/i;
const VERDICT_AFTER =
  /^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*(?:的说法|的描述|所述)?\s*(?:完全|确实|才是|才|都|均|也)?\s*(?:是|为)?\s*(?:最)?(?:正确|对的|最佳|最合适|最恰当|最准确|最可能|符合题意)|^\s*[)\]）】]?\s*(?:(?:is|are)\s+(?:both\s+|all\s+|also\s+)?(?:the\s+)?(?:correct|right|best|most appropriate|most likely|true|accurate|answers?)\b(?!\s+(?:about|regarding|in that|but|only)))|^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*[:：.\-–—]\s*(?:correct|true|right|yes|正确|对)(?![A-Za-z])/i;
/** "… but so is D": a verdict stated before its letter. */
const VERDICT_BEFORE = /(?:\bso (?:is|are)|\bas (?:is|are)|同样正确的(?:是|有))\s*$/i;
/** Words that open a condition: a statement inside one ("if …, the answer would be D") is not the answer. */
const CONDITION =
  /\bif\b(?! I (?:had|have|must|were) to\b)|\bunless\b|\bwere\b|若(?!要我选)|如果(?!(?:必须|只能|一定要)选)|假如|倘若|要是/i;

/** One answer statement found in a reply. */
interface Statement {
  index: number;
  /** Letters read, `null` when the statement is unusable (see `failure`). */
  letters: string[] | null;
  failure?: ChoiceFailure;
}

/** Option texts prepared for matching (and "none/all of the above" options with their phrasings). */
interface OptionIndex {
  options: { label: string; view: string }[];
  /** Label of the item's "none of the above" option, if any. */
  none?: string;
  /** Label of the item's "all of the above" option, if any. */
  all?: string;
}

const NONE_PHRASE =
  /以上(?:选项|各项|答案|说法)?(?:都|均|皆|全)(?:不是|不对|不正确|错误|非|不符合)|以上皆非|(?:都|均)不正确|none of (?:the )?(?:above|these|those|options|choices|answers|the listed)|no(?:ne)? (?:of the )?(?:options?|choices?|answers?) (?:is|are) correct|all (?:of the )?(?:options|choices|answers) (?:are|is) (?:incorrect|wrong)/i;
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

function indexOptions(options: Record<string, string>, labels: readonly string[]): OptionIndex {
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
function optionsAt(text: string, pos: number, index: OptionIndex): string[] | "" | null {
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
const ENTRY =
  /(?<![^\s(\[（])[(\[（]?([A-Z])[)\]）]?[ \t]*[.、:：)）][ \t]*(\p{L}[^\n]*?)(?=[ \t]+[-*•]?[ \t]*[(\[（]?[A-Z][)\]）]?[ \t]*[.、:：)）][ \t]*\S|\n|$)/gu;
/** An entry whose text rejects its option ("A. 错误", "B: Incorrect"). */
const REJECTED_ENTRY = /^(?:错误|不正确|不对|不是|不选|不|incorrect|wrong|false|no\b|not\b)/i;

/**
 * When the answer at `pos` is a labelled option ("A. Hypertension"), the letters of the labelled options
 * listed with it, up to the next blank line ("- A. Hypertension\n- C. Diabetes" → A, C); else `null`.
 */
function labelledEntriesAt(text: string, pos: number, labels: readonly string[]): string[] | null {
  const block = text.slice(pos).split(/\n[ \t]*\n/)[0];
  const entries = [...block.matchAll(ENTRY)];
  if (entries.length < 2 || entries[0].index !== 0) return null;
  const chosen = entries.filter((e) => labels.includes(e[1]) && !REJECTED_ENTRY.test(e[2])).map((e) => e[1]);
  return chosen.length >= 2 ? [...new Set(chosen)].sort() : null;
}

function toStatement(index: number, list: LetterList, labels: readonly string[]): Statement {
  if (list.hedged) return { index, letters: null, failure: "ambiguous" };
  const letters = [...new Set(list.letters)].sort();
  if (letters.some((l) => !labels.includes(l))) return { index, letters: null, failure: "not_an_option" };
  return { index, letters };
}

function cueStatements(text: string, labels: readonly string[], index: OptionIndex): Statement[] {
  const found: Statement[] = [];
  for (const cue of text.matchAll(CUE)) {
    let pos = cue.index! + cue[0].length;
    const before = text.slice(Math.max(0, cue.index! - 12), cue.index!);
    if (/(?:\bnot|n't|不是|并非|而非|不应?|别|勿)\s*(?:the\s+)?$/i.test(before)) continue;
    for (let steps = 0; steps < 10; steps++) {
      FILLER.lastIndex = pos;
      const filler = FILLER.exec(text);
      if (!filler || pos - (cue.index! + cue[0].length) > 40) break;
      pos += filler[0].length;
    }
    const between = text.slice(cue.index!, pos);
    if (/\b(?:not|n't)\b|不是|并非|不选/i.test(between)) continue;
    // "if …, the answer would be D" states a condition, not the answer.
    const sentence = text.slice(0, cue.index!).split(/[。.!！?？\n(（;；]/).pop()!;
    if (CONDITION.test(sentence)) continue;
    const option = optionsAt(text, pos, index);
    if (option !== null) {
      found.push(
        option === ""
          ? { index: pos, letters: null, failure: "not_an_option" }
          : { index: pos, letters: option },
      );
      continue;
    }
    const list = readLetterList(text, pos, true);
    if (!list || NEGATION_AFTER.test(text.slice(list.end, list.end + 24))) continue;
    if (IS_CUE_CORRECTION.test(cue[0]) && (list.open || !CORRECTION_CLOSES.test(text.slice(list.end)))) {
      continue;
    }
    // "It is C that is contraindicated" singles C out; it does not answer.
    if (/^\s+that\b/i.test(text.slice(list.end))) continue;
    const entries = list.letters.length === 1 ? labelledEntriesAt(text, pos, labels) : null;
    if (entries) {
      found.push({ index: pos, letters: entries });
      continue;
    }
    // "So the answer is C?" asks rather than answers.
    if (/^[^。！!\n]{0,30}?[?？]/.test(text.slice(list.end).replace(/\.\s[\s\S]*$/, ""))) continue;
    found.push(
      list.open ? { index: pos, letters: null, failure: "ambiguous" } : toStatement(pos, list, labels),
    );
  }
  return found;
}

/**
 * Yields every list of upper-case option letters in `text`, left to right, each with where it starts; with
 * `runs` false a run of letters ("ACD", "ST") does not count as a list.
 */
function* letterLists(text: string, runs: boolean): Generator<{ start: number; list: LetterList }> {
  const starts = runs
    ? /(?<![A-Za-z0-9])[(\[（【]?[A-Z](?![a-z])/g
    : /(?<![A-Za-z0-9])[(\[（【]?[A-Z](?![A-Za-z])/g;
  let skipUntil = 0;
  for (const m of text.matchAll(starts)) {
    if (m.index! < skipUntil) continue;
    const list = readLetterList(text, m.index!, false, LIST_END_VERDICT);
    if (!list) continue;
    skipUntil = list.end;
    yield { start: m.index!, list };
  }
}

function verdictStatements(text: string, labels: readonly string[]): Statement[] {
  const found: Statement[] = [];
  for (const { start, list } of letterLists(text, true)) {
    const before = text.slice(Math.max(0, start - 16), start);
    if (!VERDICT_AFTER.test(text.slice(list.end, list.end + 40)) && !VERDICT_BEFORE.test(before)) continue;
    if (NEGATION_BEFORE.test(before) || NAME_BEFORE.test(before)) continue;
    found.push(toStatement(start, list, labels));
  }
  return found;
}

/** A second option entertained after the answer: "could also be D", "and possibly E", "A is also acceptable". */
const ALSO =
  /(?:(?:could|might|may|can) also be|(?:and|or),? possibly|can(?:not|'t) (?:completely |fully )?(?:rule out|exclude)|可能还有|或许还有|不能(?:完全)?排除)[ \t]*(?:options?|选项)?[ \t]*[(\[（【]?([A-Z])(?![A-Za-z])|(?<![A-Za-z0-9])([A-Z])(?![A-Za-z])[ \t]*(?:项|选项)?[ \t]*(?:(?:is|are|would be) also (?:acceptable|correct|possible|reasonable|right|valid|defensible)|也(?:可以|可|对|正确|有可能|可能|说得通))/g;
/** Words that take back what was said before them. */
const WITHDRAW =
  /\bactually\b|on (?:second thought|reflection)|\bwait\b|\bcorrection\b|I was wrong|更正|修正|纠正|不对|重新考虑/i;

/**
 * Returns `true` when, after the final statement, the reply entertains another option ("but it could also be
 * D") or takes the statement back and names another ("Actually, on reflection, A is better").
 */
function doubtedAfter(text: string, statement: Statement, labels: readonly string[]): boolean {
  const rest = text.slice(statement.index);
  const other = (letter: string | undefined) =>
    letter !== undefined && labels.includes(letter) && !statement.letters!.includes(letter);
  for (const m of rest.matchAll(ALSO)) if (other(m[1] ?? m[2])) return true;
  const withdraw = rest.search(WITHDRAW);
  return withdraw >= 0 && loneLetters(rest.slice(withdraw), labels, false).some(other);
}

/** Words that withdraw an earlier answer, so a later, different one is a correction rather than a contradiction. */
const CORRECTION =
  /actually|wait|correction|correct myself|reconsider|on second thought|re-?evaluat|re-?examin|I was wrong|mistake|\bbut\b|however|instead|initially|at first|sorry|scratch that|make that|I meant?\b|\bno\s*[,;:!—–-]|forgot|missed|oops|抱歉|漏了|漏选|遗漏|补充|更正|修正|纠正|重新|不对|有误|改为|改选|再想|再看|仔细|进一步|但|不过|然而|起初|初步|最初|一开始/i;

// ---------------------------------------------------------------------------------------------------------
// Fallbacks: option text and lone letters

const UNCERTAIN =
  /无法确定|不能确定|不确定|无法判断|难以判断|无法选择|都有可能|均有可能|都可以|都有道理|需要更多信息|信息不足|cannot (?:be )?determine|can't (?:be )?determine|cannot decide|can't decide|not sure|unsure|uncertain|could be either|either could|both\b.{0,24}\b(?:plausible|possible|reasonable)|either\b.{0,24}\bor\b|insufficient information|more information|(?:not|isn't) enough information|torn between|hard to say|can(?:no|')t (?:tell|say which|choose|pick|narrow)|won't commit|not confident|拿不准|拿不定|难以取舍|很难说|难说|犹豫/i;
const CONCLUSION =
  /therefore|thus|hence|\bso\b|in conclusion|in summary|overall|most likely|best answer|answer is|diagnosis is|consistent with|故|因此|所以|综上|总之|最可能|诊断为|诊断是|考虑为|首选|答案/gi;
const MENTION_NEGATED_BEFORE =
  /(?:\bnot|\bno|rule out|ruled out|unlikely|exclude[sd]?|against|rather than|instead of|不是|并非|而非|排除|除外|不考虑|不支持|不符合|不太可能|否定)\s*(?:the\s+)?$/i;
const MENTION_NEGATED_AFTER =
  /^\s*(?:is|was|seems|are)?\s*(?:unlikely|less likely|ruled out|excluded|not|incorrect|wrong|可排除|被排除|不太可能|可能性小|不符合|不正确|错误|除外)/i;

function optionTextReading(text: string, index: OptionIndex): string[] | null {
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

/** Words before a letter that make it part of a name ("vitamin D", "type A", "乙型", "血型是A"). */
const NAME_BEFORE =
  /(?:vitamin|type|hepatitis|hemophilia|haemophilia|grade|plan|class|stage|group|lead|phase|level|category|blood|血型|维生素|乙型|甲型|[A-Za-z]-)\s*(?:is|was|为|是)?\s*$/i;
/** What may stand before an option-like lone letter ("… is B,", "为（A）", "选项C"). */
const OPTION_BEFORE = /(?:\b(?:is|be|option|choice|answer)|是|为|选|选项|答案)\s*[:：]?\s*$/i;

/**
 * Option letters standing alone in `text`, sorted; names ("vitamin D") and negated ones left out. With
 * `optionLike`, only letters that stand as options: bracketed, after "is"/"为"/"选项", or closing a clause.
 */
function loneLetters(text: string, labels: readonly string[], optionLike: boolean): string[] {
  const seen = new Set<string>();
  for (const { start, list } of letterLists(text, false)) {
    const before = text.slice(Math.max(0, start - 16), start);
    const after = text.slice(list.end, list.end + 24);
    if (NEGATION_BEFORE.test(before) || NEGATION_AFTER.test(after) || NAME_BEFORE.test(before)) continue;
    const bracketed = /^[(\[（【][\s\S]*[)\]）】]\s*$/.test(text.slice(start, list.end));
    const closes = /^\s*(?:$|[、:：)）]|[.。](?!\s*[a-z])|[,，;；!！?？\n—–]|项|选项)/.test(after);
    // Letters offered as alternatives ("A (or C)") always count: they make the reading ambiguous.
    if (optionLike && !list.hedged && !bracketed && !OPTION_BEFORE.test(before) && !closes) continue;
    for (const letter of list.letters) if (labels.includes(letter)) seen.add(letter);
  }
  return [...seen].sort();
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
  const index = indexOptions(options, labels);
  const decide = (statement: Statement, method: ChoiceMethod): ChoiceExtraction =>
    statement.letters
      ? { letters: statement.letters, method }
      : { letters: null, method, failure: statement.failure };

  const cues = cueStatements(text, labels, index);
  if (cues.length) {
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
    return decide(last, "cue");
  }

  const verdicts = verdictStatements(text, labels);
  if (verdicts.length) {
    const unusable = verdicts.find((v) => !v.letters);
    if (unusable) return decide(unusable, "verdict");
    return { letters: [...new Set(verdicts.flatMap((v) => v.letters!))].sort(), method: "verdict" };
  }

  const L = labelClass(labels);
  const onlyLetters = text.match(/^[(\[（【]?\s*[A-Za-z][\s\S]{0,40}$/)
    ? readLetterList(text, 0, true)
    : null;
  if (onlyLetters && /^\s*[.。、:：]?\s*$/.test(text.slice(onlyLetters.end))) {
    return decide(toStatement(0, onlyLetters, labels), "letters_only");
  }
  const uncertain = UNCERTAIN.test(text);
  const leading = text.match(
    new RegExp(
      String.raw`^(?:选项|option\s*)?[(\[（]?(${L})[)\]）]?\s*(?:、(?!\s*${L}(?![A-Za-z]))|[.:：)）])\s*\S`,
      "i",
    ),
  );
  // An opening "A. …" answers only when it is the one labelled entry, not the first of an option-by-option list.
  const entries = new Set([...text.matchAll(ENTRY)].map((e) => e[1]).filter((l) => labels.includes(l)));
  if (leading && !uncertain && entries.size <= 1) return { letters: [leading[1]], method: "leading_option" };
  if (uncertain) return { letters: null, method: "none", failure: "ambiguous" };

  if (!index.none && NONE_PHRASE.test(text)) {
    return { letters: null, method: "none", failure: "not_an_option" };
  }
  const byText = optionTextReading(text, index);
  const lone = loneLetters(text, labels, true);
  if (byText?.length) {
    if (lone.length && lone.join("") !== byText.join("")) {
      return { letters: null, method: "option_text", failure: "ambiguous" };
    }
    return { letters: byText, method: "option_text" };
  }
  if (byText?.length === 0) return { letters: null, method: "option_text", failure: "ambiguous" };
  if (lone.length === 1) return { letters: lone, method: "lone_letter" };
  return { letters: null, method: "none", failure: lone.length > 1 ? "ambiguous" : "no_answer" };
}

/** Returns `true` when the extracted letters are exactly the answer key's letters. */
export function choiceCorrect(extracted: readonly string[] | null, answer: readonly string[]): boolean {
  if (!extracted) return false;
  const key = [...new Set(answer)].sort();
  return extracted.length === key.length && extracted.every((l, i) => l === key[i]);
}
