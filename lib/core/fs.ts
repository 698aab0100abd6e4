/**
 * File-system helpers.
 * @module
 */

/** Returns whether `path` exists (file or directory). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
