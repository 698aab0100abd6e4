/**
 * Reading a score out of a judge's reply: the requested JSON object first (validated with zod), then robust
 * free-text fallbacks. A reply with no score in range yields `null`, never a guess.
 * @module
 */
import { z } from "zod";

/** A parsed judge verdict. */
export interface ParsedVerdict {
  /** Integer score within the scale. */
  score: number;
  /** The judge's reason (may be empty). */
  reason: string;
  /** How it was read: `json` (the requested format) or `text` (a fallback pattern). */
  method: "json" | "text";
}

/** zod schema of the JSON object judges are asked to return. */
export const JudgeReplySchema = z.object({
  score: z.union([z.number(), z.string().regex(/^\s*\d+\s*$/).transform(Number)]),
  reason: z.string().optional().default(""),
});

function inRange(score: number, min: number, max: number): boolean {
  return Number.isInteger(score) && score >= min && score <= max;
}

function jsonCandidates(text: string): string[] {
  const out: string[] = [text.trim()];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) out.push(m[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) out.push(text.slice(first, last + 1));
  return out;
}

const TEXT_PATTERNS: RegExp[] = [
  /"?score"?\s*[:：=]\s*"?(\d+)/i,
  /(?:评分|得分|分数|打分)\s*(?:为|是)?\s*[:：]?\s*\[?\s*(\d+)/,
  /(?:final\s+)?score\s+(?:is|of)\s*\[?(\d+)/i,
  /\[\s*(\d+)\s*\]/,
  /【\s*(\d+)\s*】/,
  /\b(\d+)\s*\/\s*\d+\b/,
  /(\d+)\s*分(?![钟析类])/,
];

/**
 * Returns the verdict in a judge reply on the integer scale `[min, max]`, or `null` when none can be read.
 * JSON (also inside code fences or surrounding prose) wins; then the text patterns, in order of specificity.
 */
export function parseJudgeReply(text: string, min = 1, max = 5): ParsedVerdict | null {
  for (const candidate of jsonCandidates(text)) {
    try {
      const parsed = JudgeReplySchema.safeParse(JSON.parse(candidate));
      if (parsed.success && inRange(parsed.data.score, min, max)) {
        return { score: parsed.data.score, reason: parsed.data.reason, method: "json" };
      }
    } catch {
      // not JSON: try the next candidate
    }
  }
  for (const pattern of TEXT_PATTERNS) {
    const m = text.match(pattern);
    // A decimal such as "3.5" is not an integer score: skip the pattern rather than read its integer part.
    const next = m ? text.slice(m.index! + m[0].indexOf(m[1]) + m[1].length) : "";
    if (m && !/^\.\d/.test(next) && inRange(Number(m[1]), min, max)) {
      return { score: Number(m[1]), reason: text.trim(), method: "text" };
    }
  }
  return null;
}
