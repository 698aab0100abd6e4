/**
 * The plain chat solver: an optional system message, the conversation so far, then the sample's input.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import type { Solver } from "../core/task.ts";
import type { ChatMessage } from "../providers/types.ts";

/** Returns a solver that sends `system` (if given), the history, then the sample's input as a user message. */
export function chatSolver(system?: string): Solver {
  return {
    name: "chat",
    templates: system ? { system } : {},
    build(sample: Sample, history: readonly ChatMessage[]): ChatMessage[] {
      return [
        ...(system ? [{ role: "system" as const, content: system }] : []),
        ...history,
        { role: "user", content: sample.input },
      ];
    },
  };
}
