/**
 * Benchmarks registered by name, as the `eval` command and notebooks find them.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { createClimedBenchTask } from "./climedbench/task.ts";
import { createLlmEvalMedTask } from "./llmeval_med/task.ts";
import { createMedGptEvalTask } from "./medgpteval/task.ts";
import { createPerMedCqaTask } from "./permedcqa/task.ts";

/** Benchmark factories by registry name. */
export const BENCHMARKS: Record<string, () => Promise<Task>> = {
  "llmeval-med": createLlmEvalMedTask,
  climedbench: createClimedBenchTask,
  permedcqa: createPerMedCqaTask,
  medgpteval: createMedGptEvalTask,
};

/** Returns the task registered as `name`, or throws a {@linkcode ConfigError} listing the known names. */
export function getTask(name: string): Promise<Task> {
  const factory = BENCHMARKS[name];
  if (!factory) {
    throw new ConfigError(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  }
  return factory();
}
