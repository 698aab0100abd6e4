/**
 * Validation at the boundary: zod parsing that fails with a one-line {@linkcode InputError}.
 * @module
 */
import type { z } from "zod";
import { InputError } from "./errors.ts";
import { readTextStrict } from "./text_file.ts";

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

/**
 * Reads a JSON settings file (a price or profile table) with `schema`: strict UTF-8, then JSON, then a field the
 * schema does not know, then the schema's own checks. Every error is one {@linkcode InputError} naming the file,
 * `record` and the field.
 */
export async function readJsonTable<S extends z.ZodObject>(
  path: string,
  schema: S,
  record: string,
): Promise<z.infer<S>> {
  const text = await readTextStrict(path);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError({ file: path }, `not valid JSON (${err instanceof Error ? err.message : err})`);
  }
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const unknown = Object.keys(raw).find((key) => !(key in schema.shape));
    if (unknown !== undefined) {
      throw new InputError(
        { file: path, record, field: unknown },
        `unknown field (known: ${Object.keys(schema.shape).join(", ")})`,
      );
    }
  }
  return parseRecord(schema, raw, path, record);
}
