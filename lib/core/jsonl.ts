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
  return [...eachJsonlRecord(text, file, parse)];
}

/**
 * Yields the records of JSONL `text` one at a time, as {@linkcode jsonlRecords} returns them: a loader that
 * turns each into a sample as it comes never holds every parsed line at once (nor an array of all lines).
 */
export function* eachJsonlRecord<T = unknown>(
  text: string,
  file: string,
  parse: (line: string) => T = JSON.parse,
): Generator<JsonlRecord<T>> {
  let number = 0;
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).trim();
    start = end + 1;
    number++;
    if (!line || line.startsWith("//")) continue;
    const record = `line ${number}`;
    let value: T;
    try {
      value = parse(line);
    } catch (err) {
      const expected = err instanceof InputError
        ? err.expected
        : `not JSON: ${err instanceof Error ? err.message : err}`;
      throw new InputError({ file, record }, expected);
    }
    yield { value, line: number, record };
  }
}
