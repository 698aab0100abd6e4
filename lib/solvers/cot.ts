/**
 * A generic chain-of-thought wrapper for tasks without their own CoT prompts: whatever the base solver sends
 * to the model goes out with an instruction to reason step by step appended to its last user message.
 * @module
 */
import type { Solver } from "../core/task.ts";
import { changeModelRequests } from "./context.ts";

/** The instruction appended by {@linkcode cotSolver} unless another is given. */
export const DEFAULT_COT_INSTRUCTION =
  "Think step by step and write out your reasoning first; then give your final answer on its own last line.";

/** Returns `base` with `instruction` appended to the last user message of every request to the model. */
export function cotSolver(base: Solver, instruction = DEFAULT_COT_INSTRUCTION): Solver {
  return {
    name: `${base.name}+cot`,
    templates: { ...base.templates, cot: instruction },
    roles: base.roles,
    auxiliary: base.auxiliary,
    solve: (state, ctx) =>
      base.solve(
        state,
        changeModelRequests(ctx, (request) => {
          const last = request.messages.findLastIndex((m) => m.role === "user");
          const messages = request.messages.map((m, i) =>
            i === last ? { ...m, content: `${m.content}\n\n${instruction}` } : m
          );
          return { ...request, messages };
        }),
      ),
  };
}
