/**
 * Benchmarks registered by name, as the `eval` command and notebooks find them: the built-in ones, a task
 * file given by its path (`tasks/x.yaml`, `.yml`, `.json`), or a task file of the project's `tasks/` by name.
 * A benchmark's modules (and the task file reader) load when it is asked for, so a run loads only its own.
 * @module
 */
import { importLater } from "../core/import_later.ts";
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { isTaskFilePath } from "../task_file/path.ts";

/** Benchmark factories by registry name. */
export const BENCHMARKS: Record<string, () => Promise<Task>> = {
  "llmeval-med": async () =>
    (await importLater<typeof import("./llmeval_med/task.ts")>("./llmeval_med/task.ts", import.meta.url))
      .createLlmEvalMedTask(),
  climedbench: async () =>
    (await importLater<typeof import("./climedbench/task.ts")>("./climedbench/task.ts", import.meta.url))
      .createClimedBenchTask(),
  permedcqa: async () =>
    (await importLater<typeof import("./permedcqa/task.ts")>("./permedcqa/task.ts", import.meta.url))
      .createPerMedCqaTask(),
  medgpteval: async () =>
    (await importLater<typeof import("./medgpteval/task.ts")>("./medgpteval/task.ts", import.meta.url))
      .createMedGptEvalTask(),
};

/**
 * Returns the task registered as `name`, the task of the task file at path `name`, or the task of
 * `tasks/<name>.yaml`; otherwise throws a {@linkcode ConfigError} listing the known names.
 */
export async function getTask(name: string): Promise<Task> {
  const factory = BENCHMARKS[name];
  if (factory) return await factory();
  const { loadTaskFile, projectTaskFile } = await importLater<typeof import("../task_file/index.ts")>(
    "../task_file/index.ts",
    import.meta.url,
  );
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
