/**
 * A task file's data as samples: the records of its data file (JSON array, JSONL, CSV or Parquet), each column
 * mapped (id, input or question, the options as one column holding a list or object or as option columns
 * A, B, C, ..., answer, reference, group fields, cluster id) and checked, and the user prompt rendered from its
 * template.
 * Every column the task file names must be in the file (`columns.ts`), and every record must fill every
 * template (user prompt, few-shot answer, judge rubric), all before a request is sent. A bad record is a
 * one-line error naming the file, the record (line or row) and the field.
 * @module
 */
import { InputError } from "../core/errors.ts";
import type { Choices, GroupValue, Sample } from "../core/sample.ts";
import { describeValue } from "../core/validate.ts";
import { readRecords } from "../core/record_files.ts";
import { checkColumns, columnsOf, inputColumn } from "./columns.ts";
import { COLUMN_KEYS, type DataSpec, type Split } from "./data_spec.ts";
import { render, renderChoices } from "./templates.ts";

export { COLUMN_KEYS, type DataSpec, type Split } from "./data_spec.ts";

/** Returns `spec` with `--columns KEY=COLUMN` applied (an unknown key is an error naming the known ones). */
export function withColumns(spec: DataSpec, given: Readonly<Record<string, string>> | undefined): DataSpec {
  if (!given) return spec;
  const columns = { ...spec.columns };
  const known = [...COLUMN_KEYS, ...spec.groups];
  const renamed: Record<string, string> = {};
  const flagged: string[] = [];
  for (const [key, column] of Object.entries(given)) {
    if ((COLUMN_KEYS as readonly string[]).includes(key)) {
      columns[key as typeof COLUMN_KEYS[number]] = column;
      flagged.push(key);
    } else if (spec.groups.includes(key)) renamed[key] = column;
    else {
      throw new InputError({ file: "--columns" }, `unknown column key "${key}"; known: ${known.join(", ")}`);
    }
  }
  return { ...spec, columns, flagged, groupColumns: renamed };
}

/** Reads one record into a sample. */
class RecordReader {
  /** The question column, chosen once for the whole file. */
  readonly input: string;

  constructor(
    readonly file: string,
    readonly spec: DataSpec,
    readonly split: Split,
    present: ReadonlySet<string>,
  ) {
    this.input = inputColumn(spec, present);
  }

  fail(where: string, field: string, expected: string): never {
    throw new InputError({ file: this.file, record: where, field }, expected);
  }

  /** A text cell: a string (or a number, read as text); `null` when missing or empty. */
  text(row: Record<string, unknown>, where: string, column: string): string | null {
    const value = row[column];
    if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
      return null;
    }
    if (typeof value === "number" || typeof value === "bigint") return String(value);
    if (typeof value !== "string") this.fail(where, column, `expected text (found ${describeValue(value)})`);
    if (value.includes("\uFFFD")) this.fail(where, column, "invalid UTF-8 (replacement character U+FFFD)");
    return value;
  }

  required(row: Record<string, unknown>, where: string, column: string, what: string): string {
    return this.text(row, where, column) ??
      this.fail(where, column, `expected ${what} (found ${describeValue(row[column])})`);
  }

  id(row: Record<string, unknown>, where: string): string {
    const column = this.spec.columns.id ?? "id";
    const value = row[column];
    if (typeof value === "number" && Number.isInteger(value)) return String(value);
    if (typeof value === "bigint") return String(value);
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    return this.fail(where, column, `expected a string or integer id (found ${describeValue(value)})`);
  }

  /** The options: from one column holding a list or an object, or from option columns. */
  options(row: Record<string, unknown>, where: string): Pick<Choices, "labels" | "options"> {
    const options: Record<string, string> = {};
    if (this.spec.optionColumns) {
      const columns = this.spec.optionColumns;
      const letters = columns.every((c) => /^[A-Z]$/.test(c));
      // Empty cells may only end the list (a 4-option question in a file with an E column): a gap is a mistake.
      const cells = columns.map((column) => this.text(row, where, column));
      const last = cells.findLastIndex((text) => text !== null);
      const gap = cells.findIndex((text, i) => text === null && i < last);
      if (gap >= 0) {
        this.fail(
          where,
          columns[gap],
          `empty option before option ${columns[last]} (only the last options may be empty)`,
        );
      }
      for (const [i, text] of cells.entries()) {
        if (text !== null) options[letters ? columns[i] : String.fromCharCode(65 + i)] = text;
      }
      const labels = Object.keys(options);
      if (labels.length < 2) {
        this.fail(
          where,
          this.spec.optionColumns.join(","),
          `expected at least two options (found ${labels.length})`,
        );
      }
      return { labels, options };
    }
    const column = this.spec.columns.choices!;
    let value = row[column];
    if (typeof value === "string" && /^\s*[[{]/.test(value)) {
      try {
        value = JSON.parse(value);
      } catch {
        this.fail(where, column, "expected a JSON list or object of options");
      }
    }
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [String.fromCharCode(65 + i), v])
      : value && typeof value === "object"
      ? Object.entries(value)
      : this.fail(where, column, `expected a list or an object of options (found ${describeValue(value)})`);
    for (const [label, text] of entries) {
      if (!/^[A-Z]$/.test(label)) {
        this.fail(where, `${column}.${label}`, "option labels are capital letters A-Z");
      }
      if (typeof text !== "string" && typeof text !== "number" || String(text).trim() === "") {
        this.fail(where, `${column}.${label}`, `expected the option's text (found ${describeValue(text)})`);
      }
      options[label] = String(text);
    }
    if (entries.length < 2) {
      this.fail(where, column, `expected at least two options (found ${entries.length})`);
    }
    return { labels: Object.keys(options), options };
  }

  /** The answer key as letters, checked against the options and the item's shape. */
  key(row: Record<string, unknown>, where: string, labels: readonly string[]): string[] {
    const column = this.spec.columns.answer ?? "answer";
    const value = row[column];
    const raw = Array.isArray(value)
      ? value.map(String).join("")
      : this.required(row, where, column, "the answer");
    const letters = raw.toUpperCase().replace(/[\s,;>、，；→]+/g, "").split("");
    const unknown = letters.filter((l) => !labels.includes(l));
    if (unknown.length || letters.length === 0) {
      const empty = unknown.find((l) => this.spec.optionColumns?.includes(l));
      this.fail(
        where,
        column,
        `expected option letters of ${labels.join("")} (found ${describeValue(value)}${
          empty ? `; the cell of option ${empty} is empty` : ""
        })`,
      );
    }
    const shape = this.spec.shape;
    if (shape === "choice" && letters.length !== 1) {
      this.fail(where, column, `expected one letter (found ${raw}); set scorer.multiple: true for several`);
    }
    if (new Set(letters).size !== letters.length) this.fail(where, column, `a letter repeats in ${raw}`);
    if (shape === "sequence" && letters.length !== labels.length) {
      this.fail(where, column, `expected every step ordered exactly once (found ${raw})`);
    }
    return shape === "sequence" ? letters : [...letters].sort();
  }

  group(row: Record<string, unknown>, where: string, column: string): GroupValue {
    const value = row[column];
    if (value === undefined || value === null || value === "") return null;
    if (typeof value === "string" || typeof value === "number") return value;
    if (typeof value === "bigint") return Number(value);
    if (typeof value === "boolean") return String(value);
    return this.fail(where, column, `expected text or a number to group by (found ${describeValue(value)})`);
  }

  /** The record's cluster id (text or a number, as text); `null` when the cell is empty (a cluster of its own). */
  cluster(row: Record<string, unknown>, where: string, column: string): string | null {
    const value = row[column];
    if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
      return null;
    }
    if (typeof value === "string") return value.trim();
    if (typeof value === "number" || typeof value === "bigint") return String(value);
    return this.fail(
      where,
      column,
      `expected a cluster id: text or a number (found ${describeValue(value)})`,
    );
  }

  /** Every scalar cell of the record as text, for `{{column}}` placeholders (an empty cell has no value). */
  cells(row: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(row)) {
      if (typeof value === "string" && value.trim() === "") continue;
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
        out[key] = String(value);
      } else if (typeof value === "bigint") out[key] = String(value);
    }
    return out;
  }

  sample(row: Record<string, unknown>, where: string): Sample {
    const spec = this.spec;
    const id = this.id(row, where);
    const question = this.required(row, where, this.input, "the question text");
    const listed = spec.shape !== "open";
    const shown = listed ? this.options(row, where) : undefined;
    const key = shown ? this.key(row, where, shown.labels) : undefined;
    const answerColumn = spec.columns.answer ?? "answer";
    const answerText = key
      ? key.join(spec.shape === "sequence" ? ">" : "")
      : spec.needsAnswer
      ? this.required(row, where, answerColumn, "the answer key")
      : this.text(row, where, answerColumn);
    const referenceColumn = spec.columns.reference ?? "reference";
    const reference = spec.needsReference
      ? this.required(row, where, referenceColumn, "the reference answer")
      : this.text(row, where, referenceColumn);
    const values: Record<string, string> = {
      ...this.cells(row),
      input: question,
      ...(shown ? { choices: renderChoices(shown) } : {}),
      ...(answerText !== null ? { answer: answerText } : {}),
      ...(reference !== null ? { reference } : {}),
    };
    const missing = (key: string) => (name: string): never =>
      this.fail(where, name, `key "${key}" uses {{${name}}} but the record has no such value`);
    // The rubric is filled when the answer is judged: a record it cannot fill fails now, before any request.
    if (spec.rubric && this.split === "test") {
      const { answer: _, ...known } = values;
      const filled = { ...known, ...(values.answer !== undefined ? { key: values.answer } : {}), answer: "" };
      render(spec.rubric, filled, missing("scorer.rubric"));
    }
    const groupColumns = spec.groupColumns ?? {};
    const fields: Record<string, GroupValue> = {};
    for (const field of spec.groups) fields[field] = this.group(row, where, groupColumns[field] ?? field);
    const cluster = spec.cluster && this.split === "test" ? this.cluster(row, where, spec.cluster) : null;
    const choices: Choices | undefined = shown && key && spec.shape !== "sequence"
      ? { labels: shown.labels, options: shown.options, answer: key, multiple: spec.shape === "multiple" }
      : undefined;
    return {
      id,
      benchmark: spec.benchmark,
      input: render(spec.user, values, missing("prompt.user")),
      reference: this.split === "train"
        ? render(spec.fewshot, values, missing("prompt.fewshot"))
        : reference ?? answerText,
      conversation: null,
      fields,
      extra: {
        question,
        values,
        // A sequence's steps and order (choice items carry `choices`, which the choice scorer and nota read).
        ...(shown && !choices ? { options: shown.options, answer: key } : {}),
        ...(cluster !== null ? { cluster } : {}),
      },
      ...(choices ? { choices } : {}),
    };
  }
}

/** Reads and checks a task file's data file (`split` `train` renders exemplar answers as references). */
export async function loadTaskData(path: string, spec: DataSpec, split: Split = "test"): Promise<Sample[]> {
  const records = await readRecords(path, spec.format);
  if (records.length === 0) throw new InputError({ file: path }, "no records");
  const present = columnsOf(records);
  checkColumns(path, spec, split, present);
  const reader = new RecordReader(path, spec, split, new Set(present));
  const samples: Sample[] = [];
  const seen = new Map<string, string>();
  for (const { value, where } of records) {
    const sample = reader.sample(value, where);
    const earlier = seen.get(sample.id);
    if (earlier) {
      reader.fail(where, spec.columns.id ?? "id", `duplicate id ${sample.id} (first at ${earlier})`);
    }
    seen.set(sample.id, where);
    samples.push(sample);
  }
  return samples;
}
