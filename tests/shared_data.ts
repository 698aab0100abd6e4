/**
 * Test helper for files outside the clone: the seed texts and real data sets in `../shared/` (present on the
 * project's machines and in CI, absent in a user's bare clone). Tests that need them run where they exist and
 * are reported as ignored, with the reason in their name, where they do not.
 * @module
 */

/** The `shared/` folder beside the project root (with a trailing slash). */
export const SHARED = new URL("../../shared/", import.meta.url).pathname;

/** Returns the absolute path of `relative` (e.g. `seeds/`, `data/llmeval-med/dataset.json`) under `../shared/`. */
export function sharedPath(relative: string): string {
  return `${SHARED}${relative}`;
}

function present(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers a test that reads `needs` (paths relative to `../shared/`). Where one is missing, the test is
 * registered as ignored and its name says which file is missing, so a bare clone's run shows the reason.
 */
export function testWithShared(name: string, needs: readonly string[], fn: () => void | Promise<void>): void {
  const missing = needs.filter((relative) => !present(sharedPath(relative)));
  Deno.test({
    name: missing.length ? `${name} — skipped: ../shared/${missing[0]} is not beside this clone` : name,
    ignore: missing.length > 0,
    fn,
  });
}
