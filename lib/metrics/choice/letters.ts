/**
 * Option letters in a reply: lists ("B", "(C)", "A, B, and C", "B和D", "ACD"; "A or C" is hedged), where a
 * list ends, the words around a letter that negate it or make it part of a name ("vitamin D"), and letters
 * standing alone.
 * @module
 */

/** Returns a regex character class matching any of `labels` (e.g. `[ABCD]`). */
export function labelClass(labels: readonly string[]): string {
  return `[${labels.map((l) => l.replace(/[\]\\^-]/g, "\\$&")).join("")}]`;
}

/** A parsed run of option letters. */
export interface LetterList {
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
export function readLetterList(
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

/** Words before a letter that reject it ("not B", "排除C", "除了A"). */
export const NEGATION_BEFORE =
  /(?:\bnot|n't|\bneither|\bnever|rather than|instead of|\bexcept|不是|并非|而非|排除|不选|不应选|除了?)\s*(?:options?|选项)?\s*[(\[（]?\s*$/i;
/** Words after a letter that reject it ("B is incorrect", "C项错误", "A以外"). */
export const NEGATION_AFTER =
  /^\s*(?:(?:这|那)?[几些两三四五]?(?:项|个选项|选项|个)?(?:之外|以外|除外))|^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*(?:的说法|的描述|所述)?\s*(?:都|均|也|并|亦)?\s*(?:是|为)?\s*(?:不|非|错|有误|wrong|incorrect|(?:is|are|was|were)\s+(?:not|wrong|incorrect|false|unlikely|less likely|excluded)|isn't|aren't|can be (?:excluded|ruled out))/i;
/** Words before a letter that make it part of a name ("vitamin D", "type A", "乙型", "血型是A"). */
export const NAME_BEFORE =
  /(?:vitamin|type|hepatitis|hemophilia|haemophilia|grade|plan|class|stage|group|lead|phase|level|category|blood|血型|维生素|乙型|甲型|[A-Za-z]-)\s*(?:is|was|为|是)?\s*$/i;
/** What may stand before an option-like lone letter ("… is B,", "为（A）", "选项C"). */
const OPTION_BEFORE = /(?:\b(?:is|be|option|choice|answer)|是|为|选|选项|答案)\s*[:：]?\s*$/i;

/**
 * Yields every list of upper-case option letters in `text`, left to right, each with where it starts; with
 * `runs` false a run of letters ("ACD", "ST") does not count as a list.
 */
export function* letterLists(text: string, runs: boolean): Generator<{ start: number; list: LetterList }> {
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

/**
 * Option letters standing alone in `text`, sorted; names ("vitamin D") and negated ones left out. With
 * `optionLike`, only letters that stand as options: bracketed, after "is"/"为"/"选项", or closing a clause.
 */
export function loneLetters(text: string, labels: readonly string[], optionLike: boolean): string[] {
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
