/**
 * Benchmarks registered by name, as the `eval` command and notebooks find them.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { createClimedBenchTask } from "./climedbench/task.ts";
import { createLlmEvalMedTask } from "./llmeval_med/task.ts";

/** Options any benchmark factory may read. */
export interface TaskOptions {
  /** LLMEval-Med: CSV of human MTG ratings. */
  humanEval?: string;
}

/** Benchmark factories by registry name. */
export const BENCHMARKS: Record<string, (options: TaskOptions) => Promise<Task>> = {
  "llmeval-med": (options) => createLlmEvalMedTask(options),
  climedbench: () => createClimedBenchTask(),
};

/** Returns the task registered as `name`, or throws a {@linkcode ConfigError} listing the known names. */
export function getTask(name: string, options: TaskOptions = {}): Promise<Task> {
  const factory = BENCHMARKS[name];
  if (!factory) {
    throw new ConfigError(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  }
  return factory(options);
}
