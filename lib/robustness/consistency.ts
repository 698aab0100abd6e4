/**
 * The consistency judge of robustness sets: it reads the clean question and its answer beside the rewritten
 * question and its answer, and classes the rewritten answer as R1 (same meaning as the clean answer), R2
 * (meaning changed but medically sound) or R3 (meaning changed and medically wrong) — MedGPTEval's semantic
 * consistency, semantically inconsistent but medically sound, and complete error rates. Structured verdict
 * (reasoning first), runs reduced by majority, a jury by majority (a tie leaves the variant unclassed).
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../core/chat.ts";
import { variantDetail, variantOf } from "./sets.ts";
import { judgeScorer } from "../judges/judge_scorer.ts";

/** The section headers of a consistency judge's message, in order. */
export const CONSISTENCY_SECTIONS = {
  original: "### Original question",
  cleanAnswer: "### Answer to the original question",
  rewritten: "### Rewritten question",
  answer: "### Answer to the rewritten question",
} as const;

/** The classes, best first. */
export const CONSISTENCY_CLASSES = ["R1", "R2", "R3"] as const;

/** A consistency class. */
export type ConsistencyClass = typeof CONSISTENCY_CLASSES[number];

/** What each class means, as the judge is told and tables print it. */
export const CLASS_LABELS: Readonly<Record<ConsistencyClass, string>> = {
  R1: "semantic consistency",
  R2: "semantically inconsistent but medically sound",
  R3: "complete error",
};

/** Name under which consistency verdicts are stored. */
export const CONSISTENCY_SCORER = "consistency";

/** zod schema of a verdict: reasoning, then the class (case and spaces forgiven). */
export const ConsistencyVerdict = z.object({
  reasoning: z.string(),
  category: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toUpperCase() : v),
    z.enum(CONSISTENCY_CLASSES),
  ),
});

/** A consistency verdict. */
export type ConsistencyVerdict = z.infer<typeof ConsistencyVerdict>;

/** The judge's instructions. */
export const CONSISTENCY_INSTRUCTIONS = [
  "You check how consistently a medical chatbot answers when a patient's question is rewritten. You are given",
  "the original question with the chatbot's answer to it, and a rewritten question (rephrased, or with",
  "punctuation, grammar or spelling errors, and possibly with a changed meaning) with the chatbot's answer to",
  "it. Class the answer to the rewritten question:",
  `- "R1" (${CLASS_LABELS.R1}): it conveys the same medical content and advice as the answer to the original.`,
  `- "R2" (${CLASS_LABELS.R2}): its content or advice differs from the answer to the original, but it`,
  "contains no medical error and is a sound answer to the rewritten question.",
  `- "R3" (${CLASS_LABELS.R3}): its content differs and it contains a medical error, or it is unsafe or no`,
  "answer to the question.",
  "First write your reasoning, then the class. Reply with one JSON object only, in this shape:",
  JSON.stringify({ reasoning: "...", category: "R1" }),
].join(" ");

/** Returns the judge's messages for one variant's answer. */
export function consistencyMessages(
  original: string,
  cleanAnswer: string,
  rewritten: string,
  answer: string,
): ChatMessage[] {
  const s = CONSISTENCY_SECTIONS;
  return [
    { role: "system", content: CONSISTENCY_INSTRUCTIONS },
    {
      role: "user",
      content: [
        `${s.original}\n${original}`,
        `${s.cleanAnswer}\n${cleanAnswer}`,
        `${s.rewritten}\n${rewritten}`,
        `${s.answer}\n${answer}`,
      ].join("\n\n"),
    },
  ];
}

/**
 * Returns the consistency judge scorer: it applies to robustness variants only and reads the clean answer
 * the robustness solver recorded. `offline` names the stand-ins that can answer it.
 */
export function consistencyScorer(offline: readonly string[] = []) {
  return judgeScorer<ConsistencyVerdict>({
    name: CONSISTENCY_SCORER,
    prompt: (sample, answer, _conversation, detail) => {
      const recorded = variantDetail(detail);
      if (!recorded) throw new Error(`${sample.id}: no clean answer recorded for this robustness variant`);
      return consistencyMessages(recorded.original, recorded.clean_answer, recorded.question, answer);
    },
    applies: (sample) => variantOf(sample) !== undefined,
    templates: { consistency: CONSISTENCY_INSTRUCTIONS },
    verdict: ConsistencyVerdict as unknown as z.ZodType<ConsistencyVerdict>,
    expects: "a class R1, R2 or R3",
    value: (v) => CONSISTENCY_CLASSES.indexOf(v.category) + 1,
    values: { category: (v) => v.category },
    reason: (v) => v.reasoning,
    reduce: "mode",
    jury: "majority",
    agreement: "nominal",
    offline,
    maxTokens: 1024,
  });
}
