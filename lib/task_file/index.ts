/**
 * Task files: a benchmark declared in one YAML or JSON file (`tasks/<name>.yaml`), read into a `Task`.
 * @module
 */
import { pathExists, projectPath } from "../core/fs.ts";
import type { Task } from "../core/task.ts";
import { readTaskFile } from "./schema.ts";
import { isTaskFilePath } from "./path.ts";
import { taskFromFile } from "./task.ts";

export { isTaskFilePath } from "./path.ts";

/** The folder of the project's task files, relative to the project root. */
export const TASKS_DIR = "tasks";

/** Reads, checks and builds the task of the task file at `path`. */
export async function loadTaskFile(path: string): Promise<Task> {
  return taskFromFile(await readTaskFile(path), path);
}

/** Returns the paths of the project's task files (`tasks/*.yaml`, `.yml`, `.json`), sorted. */
export async function projectTaskFiles(): Promise<string[]> {
  const dir = projectPath(TASKS_DIR);
  if (!(await pathExists(dir))) return [];
  const paths: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && isTaskFilePath(entry.name)) paths.push(`${dir}/${entry.name}`);
  }
  return paths.sort();
}

/** Returns the project's task file named `name` (`tasks/<name>.yaml`, `.yml` or `.json`), if there is one. */
export async function projectTaskFile(name: string): Promise<string | undefined> {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) return undefined;
  for (const ext of ["yaml", "yml", "json"]) {
    const path = projectPath(`${TASKS_DIR}/${name}.${ext}`);
    if (await pathExists(path)) return path;
  }
  return undefined;
}
