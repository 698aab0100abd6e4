/**
 * Reading a score out of a judge's reply. A score is read only where the reply states it as its verdict on
 * the judge's own scale: the requested JSON object (validated with zod), or a stated score ("评分：4",
 * "Score: 3", "I would rate this 4/5", "打4分（满分5分）", "[[3]]"). Everything else is no score:
 * numbers on another scale ("4/10" on a 1–5 scale), citations ("[1]"), doses, ages, clinical scores
 * ("GCS评分8分"), rubric quotes ("4分：基本正确"), decimals, ranges, hedges ("3 … or maybe 4") and verdicts
 * that disagree. The judge is then asked again, and finally a judge error is recorded — never a guess.
 * @module
 */
import { z } from "zod";

/** A parsed judge verdict. */
export interface ParsedVerdict {
  /** Integer score within the scale. */
  score: number;
  /** The judge's reason (may be empty). */
  reason: string;
  /** How it was read: `json` (the requested format) or `text` (a stated score in free text). */
  method: "json" | "text";
}

/** zod schema of the JSON object judges are asked to return. */
export const JudgeReplySchema = z.object({
  score: z.union([z.number(), z.string().regex(/^\s*-?\d+(?:\.\d+)?\s*$/).transform(Number)]),
  reason: z.string().optional().default(""),
});

/** Keys under which a JSON verdict may carry its score. */
const SCORE_KEYS = ["score", "rating", "评分", "得分", "分数"];

/** One place in the reply that states a score. */
interface Reading {
  /** The stated number, or `null` when it is stated but unusable (decimal, other scale, range, hedge). */
  score: number | null;
  /** Stated as the final or overall verdict ("最终评分", "Final score", the JSON object). */
  final: boolean;
  method: "json" | "text";
  reason: string;
}

/** Returns the balanced `{…}` spans of `text` (strings and escapes respected). */
function objectSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        spans.push([start, i + 1]);
        start = i;
        break;
      }
    }
  }
  return spans;
}

function jsonReadings(text: string, min: number, max: number): { readings: Reading[]; masked: string } {
  const readings: Reading[] = [];
  let masked = text;
  for (const [start, end] of objectSpans(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end));
    } catch {
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue;
    const record = value as Record<string, unknown>;
    const key = SCORE_KEYS.find((k) => k in record);
    masked = masked.slice(0, start) + " ".repeat(end - start) + masked.slice(end);
    if (!key) continue;
    const parsed = JudgeReplySchema.safeParse({ ...record, score: record[key], reason: record.reason ?? "" });
    const score = parsed.success ? parsed.data.score : null;
    readings.push({
      score: score !== null && inScale(score, min, max) ? score : null,
      final: true,
      method: "json",
      reason: parsed.success ? parsed.data.reason : String(record.reason ?? record["理由"] ?? ""),
    });
  }
  return { readings, masked };
}

function inScale(score: number, min: number, max: number): boolean {
  return Number.isInteger(score) && score >= min && score <= max;
}

const WORD_NUMBERS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};
const NUMBER = String.raw`(?<!\d|\d\.)\d+(?:\.\d+)?(?!\d|\.\d)`;
const WORD_NUMBER = String
  .raw`\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten)\b|[零一二两三四五六七八九十]`;

/** Reads `12`, `3.5`, `four`, `四`. */
function toNumber(token: string): number {
  return WORD_NUMBERS[token.toLowerCase()] ?? Number(token);
}

/** A stated denominator or scale right after the number: "/5", "out of 10", "（满分5分）", "(out of 5)". */
const SCALE_AFTER = new RegExp(
  String
    .raw`^\s*(?:分)?\s*(?:\/\s*(${NUMBER})|out\s+of\s+(${NUMBER}|${WORD_NUMBER})|[(（]\s*(?:满分|out\s+of)\s*(${NUMBER}|${WORD_NUMBER})\s*分?\s*[)）])`,
  "i",
);
/** A hedge or range right after the number: "3-4", "3 到 4", "3... or maybe 4". */
const HEDGE_AFTER =
  /^\s*(?:分)?\s*(?:[-–~～至到]|to\b|\.{2,}|…)?\s*(?:,\s*)?(?:or|或者?|也可以给?)?\s*(?:maybe|perhaps|possibly)?\s*\d/i;

/** Score phrases: a keyword or verb before the number, and what may stand between them. */
const STATED = new RegExp(
  String.raw`(?:` +
    // keyword + separator: "Score: 3", "final score is 2", "scores 3", "评分：4", "得分为 3 分", "【评分】4分"
    String
      .raw`(?<kw>(?:final |overall |total )?(?:scores?|scored|rating|grade)|(?:最终|最后|综合)?(?:评分|得分|分数|打分))["']?\s*[\]】]?\s*(?:is|of|was|would be|:|：|=|为|是|\s)*\s*[\[【(]*\s*` +
    `|` +
    // verbs: "rate this answer 4/5", "Rated: 4", "give it a 3", "deserves a 4", "打4分", "给予3分", "评为4分"
    String
      .raw`(?<verb>\brate[sd]?\b[:：]?(?:\s+(?:this|it|the|answer|response|as|a|an))*|\bgive\s+(?:it|this(?:\s+answer)?)\s+an?(?:\s+(?:solid|clear|strong|firm|generous|fair|low|high))?|\bdeserves?\s+an?|(?:打|给予|给|得|可得|应得|评为|评|计)(?:出|个|它|该回答)?)\s*` +
    `)(?<n>${NUMBER}|${WORD_NUMBER})`,
  "gi",
);
/** A reply that is only a bracketed number ("[4]", "【4】"), or a number in double brackets anywhere ("[[3]]"). */
const BRACKETED = new RegExp(
  String.raw`\[\[\s*(${NUMBER})\s*\]\]|^\s*[\[【]\s*(${NUMBER})\s*[\]】]\s*$`,
  "g",
);
/** "N分（满分M分）" anywhere, or a reply that is only "N分". */
const POINTS = new RegExp(
  String.raw`(?<n>${NUMBER})\s*分\s*(?=[(（]\s*满分)|^\s*(?<alone>${NUMBER})\s*分\s*[。.]?\s*$`,
  "g",
);
/** A bare "N/M" or "N out of M", read only on the judge's own scale (M = max). */
const FRACTION = new RegExp(
  String.raw`(?<n>${NUMBER}|${WORD_NUMBER})\s*(?:\/|out\s+of)\s*(?<m>${NUMBER}|${WORD_NUMBER})`,
  "gi",
);
/** A scale declared anywhere in the reply: "10分制", "a 10-point scale", "scale of 1 to 10", "满分10分", "总分5分". */
const SCALE_DECLARED =
  /(\d+)\s*分制|(\d+)[- ]point scale|scale (?:of|from) \d+\s*(?:to|-|–)\s*(\d+)|(?:满分|总分)\s*(?:为|是)?\s*(\d+)/gi;
/**
 * Clinical scores that are not the judge's verdict ("GCS score of 3", "mRS评分3分", "Gleason评分4分", "pain
 * score of 3", "heart rate 110"): a name with two or more capitals, or a known scale or clinical word, right
 * before the keyword.
 */
const CLINICAL_BEFORE = new RegExp(
  String.raw`(?:\b(?=[\w₂-]*[A-Z][\w₂-]*[A-Z])[A-Za-z][\w₂-]+` + // GCS, NIHSS, mRS, CHA2DS2-VASc
    String
      .raw`|\b(?:[Aa]pgar|[Gg]lasgow|[Gg]leason|[Ww]ells|[Bb]raden|[Bb]arthel|[Cc]aprini|[Rr]anson|[Aa]lvarado|[Bb]ishop|[Cc]entor|[Kk]illip|[Rr]ockall|[Bb]latchford|[Mm]allampati|[Nn]orton|[Mm]orse|[Pp]ain|[Rr]isk|[Ss]everity|[Ff]railty|[Hh]eart|[Rr]espiratory|[Pp]ulse|[Ii]nfusion|[Ff]low|[Ff]iltration|[Ss]edimentation)` +
    String.raw`|疼痛|昏迷|营养|风险|跌倒|压疮|病情|严重程度)\s*$`,
);
/** Final-verdict or retraction markers in the sentence of a stated score ("Final score", "最终评分", "Actually … a 3"). */
const FINAL_BEFORE =
  /final|overall|total|最终|最后|综合|总|actually|on (?:second thought|reflection)|更正|修正/i;
/** A condition around a score ("Had it mentioned dosing, I would rate it 5", "如果…则给5分"): not the verdict. */
const CONDITION_BEFORE = /^\s*had\b|\bif\b|\bunless\b|\bwere it\b|\botherwise\b|如果|若|假如|要是|倘若/i;
/** Another answer's score ("the reference answer would score 5", "rated 2 by the reference grader"). */
const OTHER_ANSWER =
  /\b(?:reference|previous|other|ideal|gold|expert|standard|model)\s+(?:answer|response|grader|solution)|参考答案|标准答案|前一个回答|上一个回答|其他回答/i;
/** A count, not a score: "4/5 key points", "meets 3 of 5 criteria". */
const COUNT_AFTER =
  /^\s*(?:of\s+(?:the\s+)?)?(?:key\s+|rubric\s+|checklist\s+)?(?:points?|criteria|items?|elements?|aspects?|requirements?|要点|个要点|项|条)/i;
/** An alternative score offered after the verdict ("Score: 4 — but if …, 3"). */
const ALTERNATIVE_AFTER = /\b(?:but|or|however)\b[^\n]{0,60}\bif\b[^\n]*?\d|但(?:如果|若)[^\n]*?\d/i;

/**
 * The text around `start..end`: the sentence before it (from the last sentence break), the clause before it
 * (also cut at commas and "but"), and the clause after it.
 */
function around(
  text: string,
  start: number,
  end: number,
): { sentence: string; clause: string; after: string } {
  const head = text.slice(0, start);
  const sentence = head.slice(
    Math.max(...[".", "。", "!", "！", "?", "？", "\n", ";", "；"].map((c) => head.lastIndexOf(c))) + 1,
  );
  const clause = sentence.split(/[,，]|\bbut\b|但是?/).pop()!;
  const tail = text.slice(end);
  const stop = tail.search(/[.。!！?？\n;；,，](?!\d)|\bbut\b|但/);
  return { sentence, clause, after: stop >= 0 ? tail.slice(0, stop) : tail };
}

function textReadings(text: string, min: number, max: number): Reading[] {
  const readings: Reading[] = [];
  const covered: [number, number][] = [];
  const declared = [...text.matchAll(SCALE_DECLARED)].map((m) => Number(m[1] ?? m[2] ?? m[3] ?? m[4]));
  const otherScale = declared.some((m) => m !== max);
  const add = (start: number, end: number, value: number | null) => {
    covered.push([start, end]);
    const { sentence, clause, after } = around(text, start, end);
    // Conditional scores and other answers' scores are left out; what remains must agree.
    if (CONDITION_BEFORE.test(sentence) || OTHER_ANSWER.test(clause) || OTHER_ANSWER.test(after)) return;
    const hedged = ALTERNATIVE_AFTER.test(text.slice(end).split("\n")[0]);
    const score = otherScale || hedged ? null : value;
    const final = FINAL_BEFORE.test(sentence + text.slice(start, end));
    readings.push({ score, final, method: "text", reason: text.trim() });
  };
  const judge = (token: string, after: string): number | null => {
    const value = toNumber(token);
    if (HEDGE_AFTER.test(after)) return null;
    const scale = after.match(SCALE_AFTER);
    const denominator = scale ? toNumber(scale[1] ?? scale[2] ?? scale[3]) : null;
    if (denominator !== null && denominator !== max) return null;
    return inScale(value, min, max) ? value : null;
  };

  for (const m of text.matchAll(STATED)) {
    const start = m.index!;
    const before = text.slice(Math.max(0, start - 24), start);
    const quoted = /["“'‘「]\s*$/.test(before) && !/^\S+["']\s*[:：]/.test(m[0]);
    if (quoted || CLINICAL_BEFORE.test(before)) continue;
    if (m.groups!.verb && /(?:\bnot|n't|\bnever|不)\s*$/i.test(before)) continue;
    const end = start + m[0].length;
    const after = text.slice(end, end + 24);
    // "4分：基本正确" and "Score 5: complete" define rubric levels; "5分钟" is a time; "扣2分" a deduction.
    if (/^\s*分?\s*[:：=]/.test(after) || /^\s*分钟/.test(after) || /(?:扣|满|总)\s*$/.test(before)) continue;
    if (m.groups!.verb && /^[给得打评计]/.test(m.groups!.verb) && !/^\s*分/.test(after)) continue;
    add(start, end, judge(m.groups!.n, after));
  }
  for (const m of text.matchAll(BRACKETED)) {
    const start = m.index!;
    if (covered.some(([s, e]) => start >= s && start < e + 4)) continue;
    add(start, start + m[0].length, judge(m[1] ?? m[2], text.slice(start + m[0].length)));
  }
  for (const m of text.matchAll(POINTS)) {
    const start = m.index!;
    if (covered.some(([s, e]) => start >= s && start <= e)) continue;
    const after = text.slice(start + m[0].length, start + m[0].length + 24);
    add(start, start + m[0].length, judge(m.groups!.n ?? m.groups!.alone, after));
  }
  for (const m of text.matchAll(FRACTION)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (covered.some(([s, e]) => start >= s && start <= e)) continue;
    const before = text.slice(Math.max(0, start - 24), start);
    if (/(?:满分|out\s+of)\s*$/i.test(before) || /["“'‘「]\s*$/.test(before)) continue;
    // Only a fraction on the judge's own scale is a verdict; "140/90" and "4/5 key points" are not.
    if (toNumber(m.groups!.m) !== max || COUNT_AFTER.test(text.slice(end, end + 24))) continue;
    const value = toNumber(m.groups!.n);
    add(start, end, inScale(value, min, max) ? value : null);
  }
  return readings;
}

/**
 * Returns the verdict in a judge reply on the integer scale `[min, max]`, or `null` when the reply does not
 * state one score on that scale. Every stated score must agree (a final verdict — "最终评分", "Final score",
 * the JSON object — overrides preliminary ones); a stated but unusable score makes the reply unreadable.
 */
export function parseJudgeReply(text: string, min = 1, max = 5): ParsedVerdict | null {
  const clean = text.normalize("NFKC").replace(/[*_`#]+/g, " ");
  const json = jsonReadings(clean, min, max);
  const readings = [...json.readings, ...textReadings(json.masked, min, max)];
  if (readings.length === 0) return null;
  const finals = readings.filter((r) => r.final);
  const deciding = finals.length ? finals : readings;
  const scores = new Set(deciding.map((r) => r.score));
  if (scores.size !== 1 || scores.has(null)) return null;
  if (json.readings.some((r) => r.score !== deciding[0].score)) return null;
  const chosen = deciding.find((r) => r.method === "json") ?? deciding[0];
  return { score: chosen.score!, reason: chosen.reason, method: chosen.method };
}
