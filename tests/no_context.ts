/**
 * Test helper: a score context with no roles configured, for scorers that call no model (choice, metrics).
 * @module
 */
import type { ScoreContext } from "../lib/core/task.ts";

/** A score context with no roles configured: any role call throws. */
export const NO_CONTEXT: ScoreContext = {
  judgeRuns: 1,
  has: () => false,
  members: () => {
    throw new Error("no roles");
  },
  defaults: () => {
    throw new Error("no roles");
  },
  generate: () => Promise.reject(new Error("no roles")),
  embed: () => Promise.reject(new Error("no roles")),
};
