/**
 * The plain chat solver: an optional system message, the conversation so far, then the sample's input.
 * @module
 */
import type { Solver } from "../core/task.ts";
import { messagesSolver } from "./context.ts";

/** Returns a solver that sends `system` (if given), the history, then the sample's input as a user message. */
export function chatSolver(system?: string): Solver {
  return messagesSolver("chat", system ? { system } : {}, (sample, history) => [
    ...(system ? [{ role: "system" as const, content: system }] : []),
    ...history,
    { role: "user", content: sample.input },
  ]);
}
