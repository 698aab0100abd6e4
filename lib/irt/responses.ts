/**
 * Response data for IRT: examinees × items with 1, 0 or missing, and a frequency weight per examinee row.
 * Read from CSV (wide: one row per examinee, optional `person` and `freq` columns; long: `person,item,response`)
 * or from a collected response matrix (graded values dichotomised at a declared threshold).
 * @module
 */
import { parseCsv } from "../core/csv.ts";
import { InputError } from "../core/errors.ts";
import { readTextStrict } from "../core/text_file.ts";
import type { ResponseMatrix } from "../store/collect.ts";

/** Examinees × items: `values[p][i]` is 1, 0 or `null` (not asked / no value). */
export interface Responses {
  /** Examinee labels. */
  persons: string[];
  /** Item ids. */
  items: string[];
  /** One row per examinee. */
  values: (0 | 1 | null)[][];
  /** Frequency weight of each examinee row (1 unless the data give response patterns with counts). */
  weights: number[];
}

/** Returns the weighted number of examinees (the sum of the frequency weights). */
export function examineeCount(data: Responses): number {
  return data.weights.reduce((sum, w) => sum + w, 0);
}

function binary(raw: string, where: { file: string; record: string; field: string }): 0 | 1 | null {
  const text = raw.trim();
  if (text === "" || text === "NA" || text === ".") return null;
  if (text === "1" || text === "1.0") return 1;
  if (text === "0" || text === "0.0") return 0;
  throw new InputError(where, `expected 1, 0 or empty (missing), got "${raw}"`);
}

/** Parses wide or long response CSV text (`file` names it in errors). */
export function parseResponsesCsv(text: string, file: string): Responses {
  const rows = parseCsv(text);
  if (rows.length < 2) throw new InputError({ file }, "expected a header row and at least one response row");
  const header = rows[0].fields.map((h) => h.trim());
  const seen = new Set<string>();
  for (const [i, name] of header.entries()) {
    if (name === "") {
      throw new InputError({ file, record: "line 1", field: `column ${i + 1}` }, "empty column name");
    }
    if (seen.has(name)) throw new InputError({ file, record: "line 1", field: name }, "duplicate column");
    seen.add(name);
  }
  const long = header.length === 3 && header.join(",") === "person,item,response";
  for (const row of rows.slice(1)) {
    if (row.fields.length !== header.length) {
      throw new InputError(
        { file, record: `line ${row.line}` },
        `expected ${header.length} fields like the header, got ${row.fields.length}`,
      );
    }
  }
  return long ? parseLong(rows.slice(1), file) : parseWide(header, rows.slice(1), file);
}

function parseLong(rows: { line: number; fields: string[] }[], file: string): Responses {
  const persons: string[] = [];
  const items: string[] = [];
  const personIndex = new Map<string, number>();
  const itemIndex = new Map<string, number>();
  const cells: { p: number; i: number; value: 0 | 1 | null; line: number }[] = [];
  for (const { line, fields } of rows) {
    const [person, item, response] = fields.map((f) => f.trim());
    if (person === "") {
      throw new InputError({ file, record: `line ${line}`, field: "person" }, "empty person");
    }
    if (item === "") throw new InputError({ file, record: `line ${line}`, field: "item" }, "empty item");
    if (!personIndex.has(person)) personIndex.set(person, persons.push(person) - 1);
    if (!itemIndex.has(item)) itemIndex.set(item, items.push(item) - 1);
    const value = binary(response, { file, record: `line ${line}`, field: "response" });
    cells.push({ p: personIndex.get(person)!, i: itemIndex.get(item)!, value, line });
  }
  const values = persons.map(() => items.map((): 0 | 1 | null => null));
  const filled = new Set<string>();
  for (const cell of cells) {
    const key = `${cell.p}:${cell.i}`;
    if (filled.has(key)) {
      throw new InputError(
        { file, record: `line ${cell.line}` },
        `second response of "${persons[cell.p]}" to item "${items[cell.i]}"`,
      );
    }
    filled.add(key);
    values[cell.p][cell.i] = cell.value;
  }
  return { persons, items, values, weights: persons.map(() => 1) };
}

function parseWide(header: string[], rows: { line: number; fields: string[] }[], file: string): Responses {
  const personColumn = header.indexOf("person");
  const freqColumn = header.indexOf("freq");
  const itemColumns = header.map((_, i) => i).filter((i) => i !== personColumn && i !== freqColumn);
  if (itemColumns.length === 0) throw new InputError({ file, record: "line 1" }, "no item columns");
  const persons: string[] = [];
  const values: (0 | 1 | null)[][] = [];
  const weights: number[] = [];
  const seen = new Set<string>();
  for (const { line, fields } of rows) {
    const record = `line ${line}`;
    const person = personColumn >= 0 ? fields[personColumn].trim() : `row ${line}`;
    if (person === "") throw new InputError({ file, record, field: "person" }, "empty person");
    if (seen.has(person)) {
      throw new InputError({ file, record, field: "person" }, `"${person}" appears twice`);
    }
    seen.add(person);
    let weight = 1;
    if (freqColumn >= 0) {
      weight = Number(fields[freqColumn]);
      if (fields[freqColumn].trim() === "" || !Number.isFinite(weight) || weight < 0) {
        throw new InputError(
          { file, record, field: "freq" },
          `expected a count >= 0, got "${fields[freqColumn]}"`,
        );
      }
    }
    persons.push(person);
    weights.push(weight);
    values.push(itemColumns.map((c) => binary(fields[c], { file, record, field: header[c] })));
  }
  return { persons, items: itemColumns.map((c) => header[c]), values, weights };
}

/** Reads a response CSV file strictly (UTF-8, one-line errors naming file, line and column). */
export async function readResponsesCsv(path: string): Promise<Responses> {
  return parseResponsesCsv(await readTextStrict(path), path);
}

/**
 * Turns a collected matrix into responses. Values must already be 0/1 unless `threshold` is given, in which case
 * values at or above it count as correct (the declared dichotomisation of graded scores).
 */
export function responsesFromMatrix(matrix: ResponseMatrix, threshold?: number, source = "runs"): Responses {
  const values = matrix.values.map((row, p) =>
    row.map((value, i): 0 | 1 | null => {
      if (value === null) return null;
      if (threshold !== undefined) return value >= threshold ? 1 : 0;
      if (value === 0 || value === 1) return value;
      throw new InputError(
        { file: source, record: `examinee ${matrix.persons[p]}`, field: matrix.items[i] },
        `graded value ${value}: declare --threshold to dichotomise it`,
      );
    })
  );
  return {
    persons: [...matrix.persons],
    items: [...matrix.items],
    values,
    weights: matrix.persons.map(() => 1),
  };
}

/** Returns the data without items nobody answered and without examinees who answered nothing. */
export function dropEmpty(
  data: Responses,
): { data: Responses; droppedItems: string[]; droppedPersons: string[] } {
  const keepItems = data.items.map((_, i) => data.values.some((row) => row[i] !== null));
  const keepPersons = data.values.map((row, p) => data.weights[p] > 0 && row.some((v) => v !== null));
  const items = data.items.filter((_, i) => keepItems[i]);
  const rows = data.values.map((row) => row.filter((_, i) => keepItems[i]));
  return {
    data: {
      persons: data.persons.filter((_, p) => keepPersons[p]),
      items,
      values: rows.filter((_, p) => keepPersons[p]),
      weights: data.weights.filter((_, p) => keepPersons[p]),
    },
    droppedItems: data.items.filter((_, i) => !keepItems[i]),
    droppedPersons: data.persons.filter((_, p) => !keepPersons[p]),
  };
}
