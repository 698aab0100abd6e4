/**
 * LLMEval-Med's judge: the category's rubric and the question's checklist, one 1–5 score per judging, the
 * mean over `--judge-runs` judgings (and over a jury's judges, when there are several).
 * @module
 */
import { scoreJudgeScorer } from "../../judges/score_verdict.ts";
import { buildJudgeMessages, TEMPLATES } from "./prompts.ts";

/** The LLMEval-Med judge scorer (stored as `judge`). */
export const LLMEVAL_MED_JUDGE = scoreJudgeScorer({
  name: "judge",
  prompt: buildJudgeMessages,
  templates: TEMPLATES,
  reduce: "mean",
  jury: "mean",
});
