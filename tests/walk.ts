/**
 * Test helper: every file below a folder.
 * @module
 */

/** Yields the path of every file below `dir`, depth first. */
export async function* walkFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walkFiles(path);
    else yield path;
  }
}
