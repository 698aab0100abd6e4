/**
 * File-system helpers.
 * @module
 */

/** Returns the absolute path of `relative` (e.g. `data/papers/`) under the project root. */
export function projectPath(relative = ""): string {
  return new URL(`../../${relative}`, import.meta.url).pathname;
}

/** Returns whether `path` exists (file or directory). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the file at `path`, if it can: a cleanup (a file left by a run that failed, or one already moved or
 * gone) that never throws over the error it cleans up after.
 */
export function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Gone already, or moved into place.
  }
}

/** Returns `name` usable as one path segment: runs of characters other than letters, digits, `.`, `-` become `_`. */
export function safeName(name: string): string {
  return name.replace(/[^\w.-]+/g, "_");
}
