/**
 * LLMEval-Med as a task: the published loader, the chat solver with the model's own earlier answers, the
 * per-category judge repeated `--judge-runs` times, and the usability/OP aggregation.
 * @module
 */
import type { Task } from "../../core/task.ts";
import { judgeScorer } from "../../judges/judge_scorer.ts";
import { chatSolver } from "../../solvers/chat.ts";
import { aggregateLlmEvalMed, GROUP_FIELDS, llmEvalMedRows } from "./aggregate.ts";
import { type HumanRating, loadHumanRatings } from "./human_eval.ts";
import { loadLlmEvalMed } from "./load.ts";
import { ANSWER_SYSTEM_PROMPT, buildJudgeMessages, TEMPLATES } from "./prompts.ts";

/** Options of {@linkcode createLlmEvalMedTask}. */
export interface LlmEvalMedOptions {
  /** CSV of human MTG ratings (`sample_id,safety,B,C,D,E`); MTG answers listed there use the human rule. */
  humanEval?: string;
}

/** Returns the LLMEval-Med task. */
export async function createLlmEvalMedTask(options: LlmEvalMedOptions = {}): Promise<Task> {
  const ratings: Map<string, HumanRating> | undefined = options.humanEval
    ? await loadHumanRatings(options.humanEval)
    : undefined;
  return {
    name: "llmeval-med",
    title: "LLMEval-Med",
    defaultDataPath: "data/llmeval_med/sample.json",
    groupFields: GROUP_FIELDS,
    flags: [
      "judge",
      "judge-base-url",
      "judge-api-key-env",
      "judge-runs",
      "judge-concurrency",
      "judge-temperature",
      "judge-seed",
      "human-eval",
    ],
    description:
      "667 open questions in 5 categories (multi-turn conversations asked round by round with the " +
      "model's own answers); each answer graded 1-5 by an LLM judge against the question's checklist, " +
      "--judge-runs times; usable = mean score >= 4; usability per category, category2 and difficulty, and OP.",
    // The protocol samples with up to 2,048 new tokens.
    generation: { maxTokens: 2048 },
    load: async (path) => (await loadLlmEvalMed(path)).samples,
    solver: chatSolver(ANSWER_SYSTEM_PROMPT),
    scorers: [judgeScorer("judge")],
    judgePrompt: buildJudgeMessages,
    judgeTemplates: TEMPLATES,
    report: {
      metrics: [
        { name: "usability", label: "usability", percent: true },
        { name: "mean_score", label: "mean judge score", percent: false },
      ],
      overall: { name: "op", label: "OP" },
    },
    rows: (view, labels) => llmEvalMedRows(view, labels, ratings),
    aggregate: (view, labels) => aggregateLlmEvalMed(view, labels, ratings),
  };
}
