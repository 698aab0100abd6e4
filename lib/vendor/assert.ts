/**
 * A small stand-in for `jsr:@std/assert`, built on `node:assert/strict`, because JSR is not reachable
 * from the machines this project runs on. The names and argument orders follow `@std/assert`, so the
 * import map entry can be switched back to `jsr:@std/assert` without touching any test.
 * @module
 */
import nodeAssert from "node:assert/strict";

/** Throws unless `expr` is truthy. */
export function assert(expr: unknown, msg?: string): asserts expr {
  nodeAssert.ok(expr, msg as string);
}

/** Throws unless `actual` deeply and strictly equals `expected`. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, msg as string);
}

/** Throws if `actual` deeply and strictly equals `expected`. */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, msg as string);
}

/** Throws unless `actual` is within `tolerance` (absolute, default 1e-7) of `expected`. */
export function assertAlmostEquals(actual: number, expected: number, tolerance = 1e-7, msg?: string): void {
  if (!(Math.abs(actual - expected) <= tolerance)) {
    throw new nodeAssert.AssertionError({
      message: msg ?? `expected ${actual} to be within ${tolerance} of ${expected}`,
      actual,
      expected,
    });
  }
}

/** Throws unless `actual` contains `expected` as a substring. */
export function assertStringIncludes(actual: string, expected: string, msg?: string): void {
  nodeAssert.ok(
    actual.includes(expected),
    msg ?? `expected ${JSON.stringify(actual)} to contain ${JSON.stringify(expected)}`,
  );
}

/** Throws unless `actual` matches `expected`. */
export function assertMatch(actual: string, expected: RegExp, msg?: string): void {
  nodeAssert.match(actual, expected, msg as string);
}

/** Throws unless `actual > expected`. */
export function assertGreater(actual: number, expected: number, msg?: string): void {
  nodeAssert.ok(actual > expected, msg ?? `expected ${actual} > ${expected}`);
}

/** Throws unless `actual < expected`. */
export function assertLess(actual: number, expected: number, msg?: string): void {
  nodeAssert.ok(actual < expected, msg ?? `expected ${actual} < ${expected}`);
}

/** Throws unless `fn` throws; returns the thrown error. Checks its class and message substring if given. */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: new (...args: any[]) => E,
  msgIncludes?: string,
): E {
  try {
    fn();
  } catch (err) {
    checkError(err, ErrorClass, msgIncludes);
    return err as E;
  }
  throw new nodeAssert.AssertionError({ message: "expected function to throw" });
}

/** Throws unless the promise returned by `fn` rejects; returns the rejection reason. */
export async function assertRejects<E extends Error = Error>(
  fn: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: new (...args: any[]) => E,
  msgIncludes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (err) {
    checkError(err, ErrorClass, msgIncludes);
    return err as E;
  }
  throw new nodeAssert.AssertionError({ message: "expected promise to reject" });
}

function checkError(
  err: unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: new (...args: any[]) => Error,
  msgIncludes?: string,
): void {
  if (ErrorClass && !(err instanceof ErrorClass)) {
    throw new nodeAssert.AssertionError({
      message: `expected error of class ${ErrorClass.name}, got ${String(err)}`,
    });
  }
  if (msgIncludes !== undefined) {
    const message = err instanceof Error ? err.message : String(err);
    if (!message.includes(msgIncludes)) {
      throw new nodeAssert.AssertionError({
        message: `expected error message to include ${JSON.stringify(msgIncludes)}, got ${
          JSON.stringify(message)
        }`,
      });
    }
  }
}
