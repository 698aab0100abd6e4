/**
 * Answer statements in a reply: a cue followed by letters or option texts ("答案：B", "The correct answers are
 * A, B, and C", "the answer is primary aldosteronism"), verdicts on letters ("B is correct", "选项C正确"), what
 * withdraws or doubts a statement ("actually", "but it could also be D"), and hedges ("无法确定").
 * @module
 */
import {
  type LetterList,
  letterLists,
  loneLetters,
  NAME_BEFORE,
  NEGATION_AFTER,
  NEGATION_BEFORE,
  readLetterList,
} from "./letters.ts";
import { labelledEntriesAt, type OptionIndex, optionsAt } from "./option_text.ts";

/** Why nothing was extracted. */
export type ChoiceFailure = "ambiguous" | "not_an_option" | "no_answer";

/** Chinese answer cues ("答案", "正确的是", "我选择", "故选" …). */
const CUE_ZH = String
  .raw`正确的说法|正确的叙述|正确的描述|最终答案|最后答案|正确答案|参考答案|标准答案|最佳答案|答案|正确选项|最佳选项|正确的选项|正确的答案|正确的是|正确的有|正确项|故选择|故选|应选择|应当选择|应该选择|应选|应当选|应该选|本题选择|本题选|我选择|我选|我的选择|我的答案|我认为|我觉得|我倾向于|选择|而是|答(?!题)|(?<![首候挑筛精评预])选(?![项题择用取药方])`;
/** English answer cues ("the answer is", "correct options", "I'd pick", "it must be" …). */
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

/** Words after a letter that declare it right ("B is correct", "选项C正确", "A. Correct"). */
const VERDICT_AFTER =
  /^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*(?:的说法|的描述|所述)?\s*(?:完全|确实|才是|才|都|均|也)?\s*(?:是|为)?\s*(?:最)?(?:正确|对的|最佳|最合适|最恰当|最准确|最可能|符合题意)|^\s*[)\]）】]?\s*(?:(?:is|are)\s+(?:both\s+|all\s+|also\s+)?(?:the\s+)?(?:correct|right|best|most appropriate|most likely|true|accurate|answers?)\b(?!\s+(?:about|regarding|in that|but|only)))|^\s*[)\]）】]?\s*(?:项|选项|options?)?\s*[:：.\-–—]\s*(?:correct|true|right|yes|正确|对)(?![A-Za-z])/i;
/** "… but so is D": a verdict stated before its letter. */
const VERDICT_BEFORE = /(?:\bso (?:is|are)|\bas (?:is|are)|同样正确的(?:是|有))\s*$/i;
/** Words that open a condition: a statement inside one ("if …, the answer would be D") is not the answer. */
const CONDITION =
  /\bif\b(?! I (?:had|have|must|were) to\b)|\bunless\b|\bwere\b|若(?!要我选)|如果(?!(?:必须|只能|一定要)选)|假如|倘若|要是/i;

/** One answer statement found in a reply. */
export interface Statement {
  index: number;
  /** Letters read, `null` when the statement is unusable (see `failure`). */
  letters: string[] | null;
  failure?: ChoiceFailure;
}

/** The statement a letter list makes: unusable when hedged or naming a letter the item does not have. */
export function toStatement(index: number, list: LetterList, labels: readonly string[]): Statement {
  if (list.hedged) return { index, letters: null, failure: "ambiguous" };
  const letters = [...new Set(list.letters)].sort();
  if (letters.some((l) => !labels.includes(l))) return { index, letters: null, failure: "not_an_option" };
  return { index, letters };
}

/** Every cue statement of `text`, left to right (negated, conditional and questioning ones left out). */
export function cueStatements(text: string, labels: readonly string[], index: OptionIndex): Statement[] {
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

/** Every verdict on letters in `text`, left to right ("B is correct", "so is D"; negated ones left out). */
export function verdictStatements(text: string, labels: readonly string[]): Statement[] {
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
export function doubtedAfter(text: string, statement: Statement, labels: readonly string[]): boolean {
  const rest = text.slice(statement.index);
  const other = (letter: string | undefined) =>
    letter !== undefined && labels.includes(letter) && !statement.letters!.includes(letter);
  for (const m of rest.matchAll(ALSO)) if (other(m[1] ?? m[2])) return true;
  const withdraw = rest.search(WITHDRAW);
  return withdraw >= 0 && loneLetters(rest.slice(withdraw), labels, false).some(other);
}

/** Words that withdraw an earlier answer, so a later, different one is a correction rather than a contradiction. */
export const CORRECTION =
  /actually|wait|correction|correct myself|reconsider|on second thought|re-?evaluat|re-?examin|I was wrong|mistake|\bbut\b|however|instead|initially|at first|sorry|scratch that|make that|I meant?\b|\bno\s*[,;:!—–-]|forgot|missed|oops|抱歉|漏了|漏选|遗漏|补充|更正|修正|纠正|重新|不对|有误|改为|改选|再想|再看|仔细|进一步|但|不过|然而|起初|初步|最初|一开始/i;

/** A hedge that declines to choose ("无法确定", "both are plausible", "torn between"). */
export const UNCERTAIN =
  /无法确定|不能确定|不确定|无法判断|难以判断|无法选择|都有可能|均有可能|都可以|都有道理|需要更多信息|信息不足|cannot (?:be )?determine|can't (?:be )?determine|cannot decide|can't decide|not sure|unsure|uncertain|could be either|either could|both\b.{0,24}\b(?:plausible|possible|reasonable)|either\b.{0,24}\bor\b|insufficient information|more information|(?:not|isn't) enough information|torn between|hard to say|can(?:no|')t (?:tell|say which|choose|pick|narrow)|won't commit|not confident|拿不准|拿不定|难以取舍|很难说|难说|犹豫/i;
