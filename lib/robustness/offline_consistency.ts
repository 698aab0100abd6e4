/**
 * The consistency judgement of the offline rubric stand-in (`offline:rubric`, which MedGPTEval's aspect judges
 * and its robustness consistency judge share): it reads the answer to the clean question from the judge's
 * message (the section headed {@linkcode CONSISTENCY_SECTIONS}`.cleanAnswer`) and compares the judged answer
 * with it by character-bigram F1 (the `offline:overlap` measure; identical texts count 1): 0.8 or more is R1 (same meaning), an empty answer to a question
 * whose clean answer is not empty is R3, anything else R2. It knows no medicine: a smoke test, labelled offline.
 * @module
 */
import { bigramF1 } from "../providers/offline/overlap_judge.ts";
import { CONSISTENCY_SECTIONS } from "./consistency.ts";

/** Overlap at or above which the stand-in calls two answers the same (R1). */
export const SAME_MEANING_OVERLAP = 0.8;

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
  const [a, b] = [clean.trim(), answer.trim()];
  const overlap = a === b ? 1 : bigramF1(b, a);
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
