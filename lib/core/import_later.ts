/**
 * Imports that Deno does not read ahead. Deno reads, at start-up, every module a program could import with a
 * literal `import("./x.ts")`, whether or not the run imports it: for `lib/cli/main.ts` that was ~300 files, for an
 * `eval` that loads ~150. A module imported through {@linkcode importLater} is read only when it is imported.
 * @module
 */

/**
 * Imports the module at `specifier`, resolved against `base` (the caller's `import.meta.url`), when called and not
 * before. Give the module's type as `M` (`typeof import("./x.ts")`: a type, which Deno does not load to run).
 */
export function importLater<M>(specifier: string, base: string): Promise<M> {
  return import(new URL(specifier, base).href);
}
