/**
 * Reading the records of a data file: a JSON array, JSONL (one record a line), CSV (a header row, then one
 * record a row) or Parquet. Text is strict UTF-8; each record must be an object and is named by where it is
 * (`record 3`, `line 3`, `row 3`) for one-line errors.
 * @module
 */
import { parseCsv } from "./csv.ts";
import { InputError } from "./errors.ts";
import { jsonlRecords } from "./jsonl.ts";
import { readBytes, readTextStrict } from "./text_file.ts";
import { describeValue } from "./validate.ts";

/** A data file format. */
export type DataFormat = "json" | "jsonl" | "csv" | "parquet";

/** One raw record and where it is in its file. */
export interface RawRecord {
  /** The record's columns as read. */
  value: Record<string, unknown>;
  /** Where it is, for errors: `record 3` (JSON), `line 3` (JSONL, CSV), `row 3` (Parquet). */
  where: string;
}

/** Returns the format of `path` from its extension (else `fallback`, when given), or throws naming the file. */
export function formatOf(path: string, fallback?: DataFormat): DataFormat {
  const ext = path.toLowerCase().match(/\.(json|jsonl|csv|parquet)$/)?.[1] ?? fallback;
  if (!ext) {
    throw new InputError(
      { file: path },
      "unknown data format: use .json, .jsonl, .csv or .parquet (or data.format)",
    );
  }
  return ext as DataFormat;
}

/** Reads the records of `path` in `format` (default: by extension); each must be an object. */
export async function readRecords(path: string, format: DataFormat = formatOf(path)): Promise<RawRecord[]> {
  return (await readValues(path, format)).map(({ value, where }) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new InputError(
        { file: path, record: where },
        `expected an object (found ${describeValue(value)})`,
      );
    }
    return { value: value as Record<string, unknown>, where };
  });
}

async function readValues(path: string, format: DataFormat): Promise<{ value: unknown; where: string }[]> {
  if (format === "parquet") {
    const bytes = await readBytes(path);
    let rows: Record<string, unknown>[];
    try {
      // Loaded on first use: only Parquet input needs the reader.
      const { parquetReadObjects } = await import("hyparquet");
      // The file's own bytes: readBytes may give a view of a larger buffer.
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      rows = await parquetReadObjects({ file });
    } catch (err) {
      throw new InputError(
        { file: path },
        `not a readable Parquet file (${err instanceof Error ? err.message : err})`,
      );
    }
    return rows.map((value, i) => ({ value, where: `row ${i + 1}` }));
  }
  const text = await readTextStrict(path);
  if (format === "csv") return csvValues(text, path);
  if (format === "jsonl") {
    return jsonlRecords(text, path).map(({ value, line }) => ({ value, where: `line ${line}` }));
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new InputError({ file: path }, `not valid JSON (${err instanceof Error ? err.message : err})`);
  }
  if (!Array.isArray(data)) {
    throw new InputError({ file: path }, `expected a JSON array of records (found ${describeValue(data)})`);
  }
  return data.map((value, i) => ({ value, where: `record ${i + 1}` }));
}

/**
 * Reads CSV text with a header row: one record per row, its cells by column name, an empty cell read as
 * missing (`null`). A column named twice, or a row with more cells than the header, is an error naming the line.
 */
function csvValues(text: string, path: string): { value: unknown; where: string }[] {
  const [head, ...rows] = parseCsv(text);
  if (!head) return [];
  const names = head.fields.map((name) => name.trim());
  const twice = names.find((name, i) => name !== "" && names.indexOf(name) !== i);
  if (twice) throw new InputError({ file: path, record: "line 1", field: twice }, "column named twice");
  return rows.map((row) => {
    if (row.fields.slice(names.length).some((cell) => cell.trim() !== "")) {
      throw new InputError(
        { file: path, record: `line ${row.line}` },
        `${row.fields.length} cells but the header names ${names.length} columns`,
      );
    }
    const cells = names.map((name, i) => [name, row.fields[i]?.trim() ? row.fields[i] : null] as const);
    return { value: Object.fromEntries(cells.filter(([name]) => name !== "")), where: `line ${row.line}` };
  });
}
