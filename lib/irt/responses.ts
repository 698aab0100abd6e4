/**
 * Response data for IRT: examinees × items with 1, 0 or missing, and a frequency weight per examinee row.
 * Read from CSV (wide: one row per examinee, optional `person` and `freq` columns; long: three columns naming
 * the examinee, the item and the response, by common names such as `person,item,response` or `id,item,resp`)
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
  /** How a CSV was read, e.g. `long: person,item,resp` or `wide: 5 items, freq column "freq"` (CSV only). */
  layout?: string;
}

/** Column names (lower case) a long CSV may use for the examinee, the item and the response. */
export const LONG_COLUMNS = {
  person: ["person", "examinee", "respondent", "participant", "subject", "id", "person_id", "model"],
  item: ["item", "item_id", "question", "question_id", "sample", "sample_id"],
  response: ["response", "resp", "score", "correct", "value", "answer", "outcome", "result"],
} as const;

/**
 * The columns of a long CSV (person, item, response) when the header has exactly three columns named as
 * {@linkcode LONG_COLUMNS} lists (any case, any order); `null` when it does not.
 */
export function longColumns(
  header: readonly string[],
): { person: number; item: number; response: number } | null {
  if (header.length !== 3) return null;
  const lower = header.map((h) => h.toLowerCase());
  const find = (names: readonly string[]) => lower.findIndex((h) => names.includes(h));
  const columns = {
    person: find(LONG_COLUMNS.person),
    item: find(LONG_COLUMNS.item),
    response: find(LONG_COLUMNS.response),
  };
  const found = Object.values(columns);
  return found.every((c) => c >= 0) && new Set(found).size === 3 ? columns : null;
}

/** Returns the weighted number of examinees (the sum of the frequency weights). */
export function examineeCount(data: Responses): number {
  return data.weights.reduce((sum, w) => sum + w, 0);
}

/** Reads one response cell; `layout` (how the file is being read) is named in the error. */
function binary(
  raw: string,
  where: { file: string; record: string; field: string },
  layout: string,
): 0 | 1 | null {
  const text = raw.trim();
  if (text === "" || text === "NA" || text === ".") return null;
  if (text === "1" || text === "1.0") return 1;
  if (text === "0" || text === "0.0") return 0;
  throw new InputError(where, `expected 1, 0 or empty (missing), got "${raw}" (read as ${layout})`);
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
  const long = longColumns(header);
  for (const row of rows.slice(1)) {
    if (row.fields.length !== header.length) {
      throw new InputError(
        { file, record: `line ${row.line}` },
        `expected ${header.length} fields like the header, got ${row.fields.length}`,
      );
    }
  }
  if (long) {
    const data = parseLong(rows.slice(1), file, header, long);
    const names = [long.person, long.item, long.response].map((c) => header[c]).join(",");
    return { ...data, layout: `long: ${names}` };
  }
  const lower = header.map((h) => h.toLowerCase());
  const named = (names: readonly string[]) => lower.some((h) => names.includes(h));
  const groups = Object.entries(LONG_COLUMNS).filter(([, names]) => named(names));
  if (header.length === 3 && groups.length === 2 && groups.some(([group]) => group === "item")) {
    const [missing, names] = Object.entries(LONG_COLUMNS).find(([, names]) => !named(names))!;
    throw new InputError(
      { file, record: "line 1" },
      `columns ${header.join(",")} look like a long file (examinee, item, response), but none names the ` +
        `${missing}: use one of ${names.join(", ")}`,
    );
  }
  const data = parseWide(header, rows.slice(1), file);
  const freq = header.indexOf("freq") >= 0 ? ', frequency column "freq"' : "";
  const person = header.indexOf("person") >= 0 ? ', examinee column "person"' : "";
  return { ...data, layout: `wide: ${data.items.length} items${person}${freq}` };
}

function parseLong(
  rows: { line: number; fields: string[] }[],
  file: string,
  header: readonly string[],
  columns: { person: number; item: number; response: number },
): Responses {
  const persons: string[] = [];
  const items: string[] = [];
  const personIndex = new Map<string, number>();
  const itemIndex = new Map<string, number>();
  const cells: { p: number; i: number; value: 0 | 1 | null; line: number }[] = [];
  for (const { line, fields } of rows) {
    const [person, item, response] = [columns.person, columns.item, columns.response].map((c) =>
      fields[c].trim()
    );
    if (person === "") {
      throw new InputError({ file, record: `line ${line}`, field: header[columns.person] }, "empty examinee");
    }
    if (item === "") {
      throw new InputError({ file, record: `line ${line}`, field: header[columns.item] }, "empty item");
    }
    if (!personIndex.has(person)) personIndex.set(person, persons.push(person) - 1);
    if (!itemIndex.has(item)) itemIndex.set(item, items.push(item) - 1);
    const value = binary(response, { file, record: `line ${line}`, field: header[columns.response] }, "long");
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
  const layout = `wide, ${itemColumns.length} item columns; a long file has three columns: examinee, item, ` +
    "response";
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
    values.push(itemColumns.map((c) => binary(fields[c], { file, record, field: header[c] }, layout)));
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
