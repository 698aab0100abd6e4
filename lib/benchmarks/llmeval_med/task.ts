/**
 * LLMEval-Med as a task: the published loader, the chat solver with the model's own earlier answers, the
 * per-category judge repeated `--judge-runs` times, and the usability/OP aggregation.
 * @module
 */
import type { Task } from "../../core/task.ts";
import { chatSolver } from "../../solvers/chat.ts";
import { aggregateLlmEvalMed, CONVERSATIONS, GROUP_FIELDS, llmEvalMedRows } from "./aggregate.ts";
import { MTG_HUMAN_SCORER, MTG_RATING_SPEC } from "./human_eval.ts";
import { loadLlmEvalMed } from "./load.ts";
import { ANSWER_SYSTEM_PROMPT } from "./prompts.ts";
import { llmEvalMedRoleTable } from "./roles.ts";
import { LLMEVAL_MED_JUDGE } from "./scorer.ts";

/** Returns the LLMEval-Med task. */
export async function createLlmEvalMedTask(): Promise<Task> {
  return {
    name: "llmeval-med",
    title: "LLMEval-Med",
    language: "zh",
    defaultDataPath: "data/llmeval_med/sample.json",
    groupFields: GROUP_FIELDS,
    description:
      "667 open questions in 5 categories (multi-turn conversations asked round by round with the " +
      "model's own answers); each answer graded 1-5 by an LLM judge against the question's checklist, " +
      "--judge-runs times; usable = mean score >= 4; usability per category, category2 and difficulty, and OP.",
    // The protocol samples with up to 2,048 new tokens.
    generation: { maxTokens: 2048 },
    load: async (path) => (await loadLlmEvalMed(path)).samples,
    solver: chatSolver(ANSWER_SYSTEM_PROMPT),
    scorers: [LLMEVAL_MED_JUDGE],
    clusters: CONVERSATIONS,
    ratings: { [MTG_HUMAN_SCORER]: MTG_RATING_SPEC },
    report: {
      metrics: [
        { name: "usability", label: "usability", percent: true },
        { name: "mean_score", label: "mean judge score", percent: false },
      ],
      overall: { name: "op", label: "OP" },
    },
    roleTable: await llmEvalMedRoleTable(),
    rows: llmEvalMedRows,
    aggregate: aggregateLlmEvalMed,
  };
}
