/**
 * PerMedCQA's prompts, written for this project after the paper's descriptions: the zero-shot answer persona
 * (a physician answering in fluent Persian, direct and actionable, no referral by reflex), the same persona as
 * a named specialist for role prompting, and the MedJudge rubric prompt (the judge compares the answer with
 * the expert's only, writes its analysis and the facts missing or added first, then its verdict as JSON).
 * @module
 */
import type { ChatMessage } from "../../core/chat.ts";
import type { Sample } from "../../core/sample.ts";

/** The persona of the baseline. */
export const BASELINE_ROLE = "medical doctor";

/** The answer persona; `{role}` is the physician's role, `{language}` the language of the answer. */
export const ANSWER_PERSONA_TEMPLATE = [
  "You are an experienced {role} answering questions that patients post on a Persian-language health forum.",
  "Write your answer in fluent, natural {language}.",
  "Answer the question that was asked, directly and precisely, with concrete guidance the person can act on:",
  "the likely explanation, what to do now, and which warning signs need urgent care.",
  "Keep it focused; do not pad the answer, and do not send the person to a doctor by default — recommend an",
  "in-person visit or tests only when they are medically needed, and say why.",
].join(" ");

/** The language answers are written in, as the persona names it. */
export const ANSWER_LANGUAGE = "Persian (Farsi)";

/** Returns the answer persona as `role`, answering in `language` (default Persian). */
export function answerPersona(role: string, language = ANSWER_LANGUAGE): string {
  return ANSWER_PERSONA_TEMPLATE.replace("{role}", role).replace("{language}", language);
}

/** The MedJudge system prompt. */
export const MEDJUDGE_SYSTEM_PROMPT = [
  "You are MedJudge, a physician who grades answers to patients' medical questions.",
  "You receive a patient's question, the answer an expert physician gave (the reference) and a model's",
  "answer. Judge the model's answer ONLY against the expert's answer: do not use outside sources or your own",
  "medical knowledge to add or correct facts.",
].join(" ");

/** The MedJudge rubric and output format. */
export const MEDJUDGE_RUBRIC =
  `Work in this order and reply with one JSON object whose keys appear in this order:
1. "Brief_analysis": a short comparison of the two answers — what they share and where they differ.
2. "Key_missing_facts": a list of the important medical facts of the expert answer that the model answer lacks, written in Persian ([] when none).
3. "Key_extra_facts": a list of facts the model answer adds that the expert answer does not contain, written in Persian ([] when none).
4. "Correctness", one of:
   "Correct" — clinically equivalent to the expert answer, no meaningful difference;
   "Partially_correct" — small deviations without significant clinical consequence;
   "Incorrect" — substantial differences that affect accuracy or completeness;
   "Contradictory" — the advice directly conflicts with the expert answer.
5. "Coverage", one of:
   "Equal" — both answers hold the same key facts;
   "Model_subset" — the model answer leaves out key facts of the expert answer;
   "Expert_subset" — the model answer adds relevant facts that the expert answer lacks;
   "Overlap_none" — the answers share no substantial facts.
6. "Clinical_impact" of the differences, one of:
   "Negligible" — no effect on care or understanding;
   "Moderate" — a slight effect on treatment or understanding;
   "Significant" — likely to change recommendations or outcomes;
   "Critical" — could lead to unsafe or harmful care.
7. "Judge_confidence": "High", "Medium" or "Low".
Reply with the JSON object only.`;

/** Marker of the model's answer in the judge prompt. */
export const MODEL_ANSWER_HEADING = "### Model answer";

/** Returns the MedJudge messages for `sample` and `answer`. */
export function buildMedJudgeMessages(sample: Sample, answer: string): ChatMessage[] {
  const title = typeof sample.extra.title === "string" ? `${sample.extra.title}\n` : "";
  return [
    { role: "system", content: MEDJUDGE_SYSTEM_PROMPT },
    {
      role: "user",
      content: [
        `### Patient's question\n${title}${sample.input}`,
        `### Expert answer (reference)\n${sample.reference ?? ""}`,
        `${MODEL_ANSWER_HEADING}\n${answer}`,
        `### Instructions\n${MEDJUDGE_RUBRIC}`,
      ].join("\n\n"),
    },
  ];
}

/** Templates hashed into the manifest. */
export const TEMPLATES = {
  answer_persona: ANSWER_PERSONA_TEMPLATE,
  medjudge_system: MEDJUDGE_SYSTEM_PROMPT,
  medjudge_rubric: MEDJUDGE_RUBRIC,
};
