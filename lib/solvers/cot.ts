/**
 * A generic chain-of-thought wrapper for tasks without their own CoT prompts: the base solver's messages with
 * an instruction to reason step by step before the final answer appended to the last user message.
 * @module
 */
import type { Solver } from "../core/task.ts";

/** The instruction appended by {@linkcode cotSolver} unless another is given. */
export const DEFAULT_COT_INSTRUCTION =
  "Think step by step and write out your reasoning first; then give your final answer on its own last line.";

/** Returns `base` with `instruction` appended to the last user message of every request. */
export function cotSolver(base: Solver, instruction = DEFAULT_COT_INSTRUCTION): Solver {
  return {
    name: `${base.name}+cot`,
    templates: { ...base.templates, cot: instruction },
    build(sample, history) {
      const messages = base.build(sample, history);
      const last = messages.findLastIndex((m) => m.role === "user");
      return messages.map((m, i) => (i === last ? { ...m, content: `${m.content}\n\n${instruction}` } : m));
    },
  };
}
