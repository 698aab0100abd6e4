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

/** Returns `name` usable as one path segment: runs of characters other than letters, digits, `.`, `-` become `_`. */
export function safeName(name: string): string {
  return name.replace(/[^\w.-]+/g, "_");
}
