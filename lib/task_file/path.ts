/**
 * Which paths name task files.
 * @module
 */

/** `true` for a path naming a task file (`.yaml`, `.yml`, `.json`). */
export function isTaskFilePath(name: string): boolean {
  return /\.(ya?ml|json)$/i.test(name);
}
