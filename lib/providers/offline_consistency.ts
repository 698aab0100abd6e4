/**
 * The consistency judgement of the offline rubric stand-in (`offline:rubric`, which MedGPTEval's aspect judges
 * and its robustness consistency judge share): it reads the answer to the clean question from the judge's
 * message (the section headed {@linkcode CONSISTENCY_SECTIONS}`.cleanAnswer`) and compares the judged answer
 * with it by character-bigram Dice overlap: 0.8 or more is R1 (same meaning), an empty answer to a question
 * whose clean answer is not empty is R3, anything else R2. It knows no medicine: a smoke test, labelled offline.
 * @module
 */
import { charNgrams } from "../text/tokenize.ts";

/** The section headers of a consistency judge's message, in order. */
export const CONSISTENCY_SECTIONS = {
  original: "### Original question",
  cleanAnswer: "### Answer to the original question",
  rewritten: "### Rewritten question",
  answer: "### Answer to the rewritten question",
} as const;

/** Overlap at or above which the stand-in calls two answers the same (R1). */
export const SAME_MEANING_OVERLAP = 0.8;

/** Returns the Dice coefficient of two texts' character-bigram sets (1 when both are empty). */
export function bigramDice(a: string, b: string): number {
  const x = new Set(charNgrams(a, 2));
  const y = new Set(charNgrams(b, 2));
  if (x.size + y.size === 0) return 1;
  let shared = 0;
  for (const gram of x) if (y.has(gram)) shared++;
  return (2 * shared) / (x.size + y.size);
}

/** Returns the body of the section headed `header` in `prompt` (up to the next `### ` header), or `undefined`. */
function section(prompt: string, header: string): string | undefined {
  const at = prompt.indexOf(`${header}\n`);
  if (at < 0) return undefined;
  const start = at + header.length + 1;
  const end = prompt.indexOf("\n\n### ", start);
  return prompt.slice(start, end < 0 ? undefined : end);
}

/** Returns the stand-in's consistency verdict as JSON text, or `undefined` when `prompt` is no consistency prompt. */
export function offlineConsistencyReply(prompt: string, answer: string): string | undefined {
  const clean = section(prompt, CONSISTENCY_SECTIONS.cleanAnswer);
  if (clean === undefined) return undefined;
  const overlap = bigramDice(clean.trim(), answer.trim());
  const category = overlap >= SAME_MEANING_OVERLAP
    ? "R1"
    : answer.trim() === "" && clean.trim() !== ""
    ? "R3"
    : "R2";
  return JSON.stringify({
    reasoning: `bigram overlap with the clean answer ${
      overlap.toFixed(2)
    } (offline stand-in, not a judgement)`,
    category,
  });
}
