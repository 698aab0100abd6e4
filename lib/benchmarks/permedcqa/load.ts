/**
 * Loads PerMedCQA in its published layout or a user's own Persian QA data: a JSON array, JSONL (one record per
 * line), CSV (a header row, then one record per row) or Parquet file, or a split directory (`DIR/test.json`, or `DIR/Data/test.json`; `--split` picks
 * another). Every record is checked before any is used: strict UTF-8, required text present, sex, age and
 * labels readable; a bad record is a one-line error naming file, record and column. Annotations (ICD-11
 * category, question type) map from codes, English or Persian names to canonical ids.
 * @module
 */
import { InputError } from "../../core/errors.ts";
import { formatOf, type RawRecord, readRecords } from "../../core/record_files.ts";
import type { Sample } from "../../core/sample.ts";
import type { LoadOptions } from "../../core/task.ts";
import { describeValue } from "../../core/validate.ts";
import { toAsciiDigits } from "../../text/persian.ts";
import { type LabelTable, loadLabels, type PerMedCqaLabels, resolveLabel } from "./labels.ts";
import {
  ageBand,
  type ColumnKey,
  type Columns,
  DEFAULT_COLUMNS,
  SEX_ALIASES,
  SOURCES,
  SPLITS,
} from "./schema.ts";

/** File extensions read, in the order a split directory is searched. */
export const EXTENSIONS = [".json", ".jsonl", ".parquet"] as const;

/** Options of {@linkcode loadPerMedCqa}. */
export interface PerMedCqaLoadOptions extends LoadOptions {
  /** `false` to read records without annotations (the `tag` command's input); default `true`. */
  requireLabels?: boolean;
}

/** Returns the column names after `--columns` (unknown keys are errors naming the known ones). */
export function columnsOf(given: Readonly<Record<string, string>> | undefined): Columns {
  const columns: Columns = { ...DEFAULT_COLUMNS };
  for (const [key, name] of Object.entries(given ?? {})) {
    if (!(key in DEFAULT_COLUMNS)) {
      throw new InputError(
        { file: "--columns" },
        `unknown column key "${key}"; known: ${Object.keys(DEFAULT_COLUMNS).join(", ")}`,
      );
    }
    columns[key as ColumnKey] = name;
  }
  return columns;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null))?.isDirectory ?? false;
}

async function isFile(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null))?.isFile ?? false;
}

/** Returns the file of `split` in directory `dir` (`DIR/split.*` or `DIR/Data/split.*`), or `undefined`. */
export async function splitFile(dir: string, split: string): Promise<string | undefined> {
  for (const base of [dir, `${dir}/Data`]) {
    for (const ext of EXTENSIONS) {
      if (await isFile(`${base}/${split}${ext}`)) return `${base}/${split}${ext}`;
    }
  }
  return undefined;
}

/** Returns the file `path` stands for: itself, or its split's file when it is a split directory. */
export async function perMedCqaDataFile(path: string, options: LoadOptions = {}): Promise<string> {
  const split = options.split ?? "test";
  if (!(SPLITS as readonly string[]).includes(split)) {
    throw new InputError(
      { file: "--split" },
      `unknown split "${split}"; expected one of ${SPLITS.join(", ")}`,
    );
  }
  if (!await isDirectory(path)) return path;
  const file = await splitFile(path, split);
  if (!file) {
    throw new InputError(
      { file: path },
      `no ${split} split: expected ${split}.json, ${split}.jsonl or ${split}.parquet in it or in its Data/`,
    );
  }
  return file;
}

/** Returns the train split beside `dataFile` (same directory, `train.*`), unless it is the file itself. */
export async function trainBeside(dataFile: string): Promise<string | undefined> {
  const dir = dataFile.includes("/") ? dataFile.slice(0, dataFile.lastIndexOf("/")) : ".";
  const train = await splitFile(dir, "train");
  return train && train !== dataFile ? train : undefined;
}

/** Reads one record's columns, each checked, into a sample. */
class RecordReader {
  constructor(
    readonly file: string,
    readonly columns: Columns,
    readonly labels: PerMedCqaLabels,
    readonly requireLabels: boolean,
  ) {}

  fail(record: string, key: ColumnKey, expected: string): never {
    throw new InputError({ file: this.file, record, field: this.columns[key] }, expected);
  }

  /** A text column: a string, or (when optional) missing/null. */
  text(row: Record<string, unknown>, record: string, key: ColumnKey, required: boolean): string | null {
    const value = row[this.columns[key]];
    if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
      if (required) this.fail(record, key, `expected non-empty text (found ${describeValue(value)})`);
      return null;
    }
    if (typeof value !== "string") this.fail(record, key, `expected text (found ${describeValue(value)})`);
    if (value.includes("\uFFFD")) this.fail(record, key, "invalid UTF-8 (replacement character U+FFFD)");
    return value;
  }

  id(row: Record<string, unknown>, record: string): string {
    const value = row[this.columns.id];
    if (typeof value === "number" && Number.isInteger(value)) return String(value);
    if (typeof value === "bigint") return String(value);
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    return this.fail(record, "id", `expected a string or integer id (found ${describeValue(value)})`);
  }

  sex(row: Record<string, unknown>, record: string): string {
    const value = row[this.columns.sex];
    if (value === undefined || value === null) return "unknown";
    const sex = typeof value === "string" ? SEX_ALIASES[value.trim().toLowerCase()] : undefined;
    if (!sex) this.fail(record, "sex", `expected female, male or unknown (found ${describeValue(value)})`);
    return sex;
  }

  age(row: Record<string, unknown>, record: string): number | null {
    const value = row[this.columns.age];
    if (value === undefined || value === null) return null;
    const text = typeof value === "number" || typeof value === "bigint"
      ? String(value)
      : typeof value === "string"
      ? toAsciiDigits(value).trim()
      : undefined;
    if (text === "") return null;
    const age = text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
    if (!(age >= 0 && age <= 120)) {
      this.fail(record, "age", `expected an age in years 0-120 or nothing (found ${describeValue(value)})`);
    }
    return Math.floor(age);
  }

  source(row: Record<string, unknown>, record: string): string | null {
    const value = this.text(row, record, "source", false);
    if (value === null) return null;
    const squash = (s: string) => s.toLowerCase().replace(/[^a-z]/g, "");
    return SOURCES.find((s) => squash(s) === squash(value)) ?? value.trim();
  }

  label(row: Record<string, unknown>, record: string, key: "icd" | "type"): string | null {
    const value = row[this.columns[key]];
    const what = key === "icd" ? "ICD-11 category" : "question type";
    if (value === undefined || value === null || value === "") {
      if (this.requireLabels) {
        this.fail(record, key, `missing ${what} (label untagged data with \`deno task tag permedcqa\`)`);
      }
      return null;
    }
    const text = typeof value === "number" ? String(value) : value;
    const table: LabelTable<{ id: string; english: string }> = key === "icd"
      ? this.labels.icd
      : this.labels.types;
    const id = typeof text === "string" ? resolveLabel(table, text) : undefined;
    if (id === undefined) {
      this.fail(
        record,
        key,
        `unknown ${what} ${describeValue(value)}; expected a code, English or Persian name of ${
          key === "icd" ? "data/permedcqa/icd11.json" : "data/permedcqa/question_types.json"
        }`,
      );
    }
    return id;
  }

  sample(raw: RawRecord): Sample {
    const row = raw.value;
    const instance = this.id(row, raw.where);
    const record = `${raw.where} (${this.columns.id} ${instance})`;
    const question = this.text(row, record, "question", true)!;
    const answer = this.text(row, record, "answer", this.requireLabels);
    const icd = this.label(row, record, "icd");
    const type = this.label(row, record, "type");
    const age = this.age(row, record);
    return {
      id: `permedcqa:${instance}`,
      benchmark: "permedcqa",
      input: question,
      reference: answer,
      conversation: null,
      fields: {
        icd11: icd,
        question_type: type,
        sex: this.sex(row, record),
        age_band: ageBand(age),
        source: this.source(row, record),
        icd11_x_type: icd !== null && type !== null ? `${icd} × ${type}` : null,
      },
      extra: {
        instance_id: instance,
        title: this.text(row, record, "title", false),
        category: this.text(row, record, "category", false),
        specialty: this.text(row, record, "specialty", false),
        age,
      },
    };
  }
}

/**
 * Reads and validates `path` (a file, or a split directory read through {@linkcode perMedCqaDataFile}).
 * Duplicate ids are errors naming both records.
 */
export async function loadPerMedCqa(path: string, options: PerMedCqaLoadOptions = {}): Promise<Sample[]> {
  const file = await perMedCqaDataFile(path, options);
  const reader = new RecordReader(
    file,
    columnsOf(options.columns),
    await loadLabels(),
    options.requireLabels ?? true,
  );
  const records = await readRecords(file, formatOf(file, "json"));
  if (records.length === 0) throw new InputError({ file }, "no records");
  const seen = new Map<string, string>();
  return records.map((raw) => {
    const sample = reader.sample(raw);
    const first = seen.get(sample.id);
    if (first) {
      throw new InputError(
        { file, record: raw.where, field: reader.columns.id },
        `duplicate id ${String(sample.extra.instance_id)} (first at ${first})`,
      );
    }
    seen.set(sample.id, raw.where);
    return sample;
  });
}
