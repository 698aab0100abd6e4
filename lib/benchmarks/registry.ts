/**
 * Benchmarks registered by name, as the `eval` command and notebooks find them: the built-in ones, a task
 * file given by its path (`tasks/x.yaml`, `.yml`, `.json`), or a task file of the project's `tasks/` by name.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { isTaskFilePath, loadTaskFile, projectTaskFile } from "../task_file/index.ts";
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

/**
 * Returns the task registered as `name`, the task of the task file at path `name`, or the task of
 * `tasks/<name>.yaml`; otherwise throws a {@linkcode ConfigError} listing the known names.
 */
export async function getTask(name: string): Promise<Task> {
  const factory = BENCHMARKS[name];
  if (factory) return await factory();
  if (isTaskFilePath(name)) {
    const task = await loadTaskFile(name);
    if (BENCHMARKS[task.name]) {
      throw new ConfigError(`${name}: name "${task.name}" is a built-in benchmark's; choose another name`);
    }
    return task;
  }
  const file = await projectTaskFile(name);
  if (file) return await getTask(file);
  throw new ConfigError(
    `unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(", ")}, ` +
      "or a task file (path to a .yaml, .yml or .json file, or the name of one in tasks/)",
  );
}
