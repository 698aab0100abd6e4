/**
 * MedGPTEval's judge prompts, written for this project from the paper's Table 2: one judging per aspect
 * (medical professional, social comprehensive, contextual), each listing its indicators with their scales
 * and criteria; the judge reasons first, then gives every indicator's integer score as JSON. A dialogue is
 * judged as a whole, on its last round, with every question and answer; a case report on its one answer.
 * @module
 */
import type { ChatMessage } from "../../core/chat.ts";
import type { Sample } from "../../core/sample.ts";
import { type Aspect, INDICATORS } from "./rubric.ts";

/** Names of the aspects as the prompts and tables print them. */
export const ASPECT_LABELS: Readonly<Record<Aspect, string>> = {
  medical: "Medical professional capabilities",
  social: "Social comprehensive capabilities",
  contextual: "Contextual capabilities",
};

/** The judges' role. */
export const JUDGE_SYSTEM_PROMPT = [
  "You are a licensed clinician who rates a medical chatbot's answers to Chinese-speaking patients for a",
  "benchmark. Rate only what the answers say, strictly by the criteria you are given; a score is an integer",
  "within the stated range. The patient's messages and the answers are in Chinese.",
].join(" ");

/** Returns the rating instructions of `aspect`: its indicators, scales and criteria, and the reply format. */
export function aspectInstructions(aspect: Aspect): string {
  const indicators = INDICATORS.filter((i) => i.aspect === aspect);
  const lines = indicators.map((i) => `- "${i.name}" (${i.label}, 0-${i.max}): ${i.criterion}`);
  const example = Object.fromEntries(indicators.map((i) => [i.name, i.max]));
  return [
    `Rate the ${ASPECT_LABELS[aspect].toLowerCase()} of the answers on these indicators:`,
    ...lines,
    "",
    "First write your reasoning, then the scores. Reply with one JSON object only, in this shape:",
    JSON.stringify({ reasoning: "...", scores: example }),
  ].join("\n");
}

/** Returns the conversation as the judge reads it: numbered patient turns and answers. */
export function transcript(conversation: readonly ChatMessage[]): string {
  let round = 0;
  return conversation.filter((m) => m.role !== "system").map((m) => {
    if (m.role === "user") round++;
    return m.role === "user"
      ? `【患者 第${round}轮】\n${m.content}`
      : `【模型回答 第${round}轮】\n${m.content}`;
  }).join("\n\n");
}

/** Returns the judge's messages for `aspect` on a sample's answer (the whole dialogue when there is one). */
export function buildAspectMessages(
  aspect: Aspect,
  sample: Sample,
  answer: string,
  conversation?: readonly ChatMessage[],
): ChatMessage[] {
  const dialogue = conversation && conversation.length > 2
    ? transcript(conversation)
    : transcript([{ role: "user", content: sample.input }, { role: "assistant", content: answer }]);
  return [
    { role: "system", content: JUDGE_SYSTEM_PROMPT },
    { role: "user", content: `### Dialogue\n${dialogue}\n\n### Instructions\n${aspectInstructions(aspect)}` },
  ];
}

/** Templates hashed into the manifest. */
export const TEMPLATES: Record<string, string> = {
  judge_system: JUDGE_SYSTEM_PROMPT,
  medical: aspectInstructions("medical"),
  social: aspectInstructions("social"),
  contextual: aspectInstructions("contextual"),
};
