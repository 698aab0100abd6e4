/**
 * Waiting for an event in tests without asserting how long it takes: poll a condition, and fail (rather than
 * hang) only after a bound far beyond any loaded machine's delay.
 * @module
 */

/**
 * How long a wait may take before the test fails. Not a timing assertion: what tests wait for happens within
 * milliseconds, or a few hundred on a loaded machine; the bound only turns "never" into a failure, not a hang.
 */
export const WAIT_LIMIT_MS = 20_000;

/**
 * Waits until `done()` holds, checking each millisecond and first after one timer turn (so that calls just made
 * have started); throws naming `what` after {@linkcode WAIT_LIMIT_MS}.
 */
export async function waitUntil(done: () => boolean, what: string | (() => string)): Promise<void> {
  const deadline = performance.now() + WAIT_LIMIT_MS;
  do {
    if (performance.now() > deadline) {
      throw new Error(`gave up waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  } while (!done());
}
