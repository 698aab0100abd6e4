/**
 * JSON Lines input: one record a line, blank lines and `//` comment lines skipped, each record named by its line.
 * @module
 */
import { InputError } from "./errors.ts";

/** One record of a JSONL file. */
export interface JsonlRecord<T> {
  /** The parsed line. */
  value: T;
  /** 1-based line number. */
  line: number;
  /** How errors name it: `line N`. */
  record: string;
}

/**
 * Returns the records of JSONL `text` read from `file`, parsed with `parse` (default `JSON.parse`). A line
 * that does not parse is a one-line {@linkcode InputError} naming file and line.
 */
export function jsonlRecords<T = unknown>(
  text: string,
  file: string,
  parse: (line: string) => T = JSON.parse,
): JsonlRecord<T>[] {
  const records: JsonlRecord<T>[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("//")) continue;
    const record = `line ${i + 1}`;
    try {
      records.push({ value: parse(line), line: i + 1, record });
    } catch (err) {
      const expected = err instanceof InputError
        ? err.expected
        : `not JSON: ${err instanceof Error ? err.message : err}`;
      throw new InputError({ file, record }, expected);
    }
  }
  return records;
}
