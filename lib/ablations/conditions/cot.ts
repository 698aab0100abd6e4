/**
 * `--ablation cot`: chain of thought. The task's own CoT solver when it declares one (`Task.solverFor.cot`,
 * e.g. CliMedBench's prompts), else its solver with a generic step-by-step instruction appended.
 * @module
 */
import { cotSolver } from "../../solvers/cot.ts";
import type { ConditionEntry } from "./types.ts";

/** The chain-of-thought condition. */
export const COT: ConditionEntry = {
  name: "cot",
  forms: "cot",
  usage: () => "cot (chain of thought)",
  parse: (text) => text === "cot" ? { name: "cot", kind: "cot" } : undefined,
  needs: [],
  solver: (_condition, task, base) => task.solverFor?.cot ?? cotSolver(base),
  note: () => "chain of thought: the model is asked to reason step by step before answering",
};
