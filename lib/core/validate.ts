/**
 * Validation at the boundary: zod parsing that fails with a one-line {@linkcode InputError}.
 * @module
 */
import type { z } from "zod";
import { InputError } from "./errors.ts";

/** Describes a value briefly for an error message (type and a short preview). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  const preview = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  return `${Array.isArray(value) ? "array" : typeof value} ${preview}`;
}

/**
 * Parses `value` with `schema`; on failure throws an {@linkcode InputError} naming `file`, `record`, the first
 * failing field and what was expected there, with the value that was found.
 */
export function parseRecord<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  record: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.map(String);
  let found: unknown = value;
  for (const key of path) {
    found = found !== null && typeof found === "object" ? (found as Record<string, unknown>)[key] : undefined;
  }
  throw new InputError(
    { file, record, field: path.length ? path.join(".") : undefined },
    `${issue.message} (found ${describeValue(found)})`,
  );
}
