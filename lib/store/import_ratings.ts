/**
 * Human ratings into the run store, as a scorer of their own (`human:NAME`, one score per sample and rater).
 * A ratings CSV is either wide — `sample_id`, `rater` and one column per field — or long — `sample_id`,
 * `rater`, `field`, `value` (also read as `item`, `rater`, `indicator`, `score`). A spec may map item ids to the
 * run's sample ids (`resolve`) and say which fields an item is rated on (`fieldsOf`). Everything is validated before anything is written: an unknown sample id, a row
 * without a rater, an unknown field or a value out of its range is a one-line error naming file, line and
 * field. The file's SHA-256 enters the manifest under `ratings:<scorer>`.
 * @module
 */
import { parseCsv } from "../core/csv.ts";
import { InputError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import type { StoredScore } from "../core/records.ts";
import type { RatingSpec } from "../core/task.ts";
import { decodeUtf8Strict } from "../core/text_file.ts";
import type { RunStore } from "./run_store.ts";

/** One rater's rating of one sample. */
export interface Rating {
  /** Sample id. */
  sampleId: string;
  /** Who rated. */
  rater: string;
  /** Value per field: a number, or the category of a categorical field. */
  values: Record<string, number | string>;
  /** Line of the file it starts on. */
  line: number;
}

/** A ratings file read and validated, ready to store. */
export interface RatingsFile {
  /** Path as given. */
  path: string;
  /** SHA-256 of its bytes. */
  sha256: string;
  /** The ratings, in file order. */
  ratings: Rating[];
}

/** Options of {@linkcode readRatings}. */
export interface ReadRatingsOptions {
  /** Rater of rows without a `rater` column (files of one rater); without it the column is required. */
  defaultRater?: string;
  /** Sample ids the ratings may refer to (the run's samples). */
  sampleIds: ReadonlySet<string>;
}

const ID_COLUMNS = ["sample_id", "id", "item"];

/** Column names of a long file: field (or indicator) and value (or score). */
const FIELD_COLUMNS = ["field", "indicator"];
const VALUE_COLUMNS = ["value", "score"];

/** Returns the category a cell names (the category, case and `_`/space variants, or its 1-based position). */
function levelValue(trimmed: string, levels: readonly string[]): string | undefined {
  const squash = (t: string) => t.toLowerCase().replace(/[\s_-]+/g, "");
  const byName = levels.find((l) => squash(l) === squash(trimmed));
  if (byName) return byName;
  const position = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  return position >= 1 && position <= levels.length ? levels[position - 1] : undefined;
}

/** Returns the value of one field, checked against its declared range or categories. */
function fieldValue(
  text: string | undefined,
  spec: RatingSpec["fields"][number],
  where: InputErrorPlace,
): number | string {
  const trimmed = (text ?? "").trim();
  if (spec.levels) {
    const level = levelValue(trimmed, spec.levels);
    if (level === undefined) {
      throw new InputError(
        { ...where, field: spec.name },
        `expected one of ${spec.levels.join(", ")} (or 1-${spec.levels.length}), got "${trimmed}"`,
      );
    }
    return level;
  }
  const value = Number(trimmed);
  const range = `${spec.min}..${spec.max}`;
  if (trimmed === "" || !Number.isFinite(value)) {
    throw new InputError({ ...where, field: spec.name }, `expected a number in ${range}, got "${trimmed}"`);
  }
  if ((spec.integer && !Number.isInteger(value)) || value < spec.min || value > spec.max) {
    throw new InputError(
      { ...where, field: spec.name },
      `expected ${spec.integer ? "a whole number" : "a number"} in ${range}, got ${trimmed}`,
    );
  }
  return value;
}

type InputErrorPlace = { file: string; record: string };

/**
 * Reads a ratings CSV (wide or long) for a scorer declared by `spec`. Throws a one-line {@linkcode InputError}
 * naming file, line and field on the first problem.
 */
export function readRatings(
  bytes: Uint8Array,
  path: string,
  spec: RatingSpec,
  options: ReadRatingsOptions,
): RatingsFile {
  const rows = parseCsv(decodeUtf8Strict(bytes, path));
  if (rows.length === 0) throw new InputError({ file: path }, "empty file");
  const header = rows[0].fields.map((h) => h.trim());
  const column = (name: string) => header.indexOf(name);
  const idColumn = ID_COLUMNS.map(column).find((i) => i >= 0);
  if (idColumn === undefined) {
    throw new InputError({ file: path, record: "line 1", field: "sample_id" }, "missing column");
  }
  const raterColumn = column("rater");
  if (raterColumn < 0 && options.defaultRater === undefined) {
    throw new InputError(
      { file: path, record: "line 1", field: "rater" },
      "missing column (who rated each row)",
    );
  }
  const fieldColumn = FIELD_COLUMNS.map(column).find((i) => i >= 0) ?? -1;
  const valueColumn = VALUE_COLUMNS.map(column).find((i) => i >= 0) ?? -1;
  const long = fieldColumn >= 0 && valueColumn >= 0;
  const fieldsByName = new Map(spec.fields.map((f) => [f.name, f]));
  if (!long) {
    for (const field of spec.fields) {
      if (column(field.name) < 0) {
        throw new InputError({ file: path, record: "line 1", field: field.name }, "missing column");
      }
    }
  }
  const byKey = new Map<string, Rating>();
  for (const row of rows.slice(1)) {
    const where = { file: path, record: `line ${row.line}` };
    const cell = (i: number) => (row.fields[i] ?? "").trim();
    const given = cell(idColumn);
    const sampleId = spec.resolve?.(given, options.sampleIds) ?? given;
    if (!options.sampleIds.has(sampleId)) {
      throw new InputError(
        { ...where, field: header[idColumn] },
        `unknown sample id "${sampleId}" (not in this run)`,
      );
    }
    const rater = raterColumn >= 0 ? cell(raterColumn) : options.defaultRater!;
    if (rater === "") throw new InputError({ ...where, field: "rater" }, "missing rater");
    const key = `${sampleId}\u0000${rater}`;
    const rating = byKey.get(key) ?? { sampleId, rater, values: {}, line: row.line };
    const applicable = new Set(spec.fieldsOf?.(sampleId) ?? spec.fields.map((f) => f.name));
    if (long) {
      const name = cell(fieldColumn);
      const field = fieldsByName.get(name);
      if (!field) {
        throw new InputError(
          { ...where, field: header[fieldColumn] },
          `unknown field "${name}"; known: ${[...fieldsByName.keys()].join(", ")}`,
        );
      }
      if (!applicable.has(name)) {
        throw new InputError({ ...where, field: name }, `not rated for ${given}`);
      }
      if (name in rating.values) {
        throw new InputError({ ...where, field: name }, `rated twice by ${rater} for ${sampleId}`);
      }
      rating.values[name] = fieldValue(cell(valueColumn), field, where);
    } else {
      if (byKey.has(key)) {
        throw new InputError({ ...where, field: "sample_id" }, `${sampleId} rated twice by ${rater}`);
      }
      for (const field of spec.fields.filter((f) => applicable.has(f.name))) {
        rating.values[field.name] = fieldValue(cell(column(field.name)), field, where);
      }
    }
    byKey.set(key, rating);
  }
  for (const rating of byKey.values()) {
    const applicable = new Set(spec.fieldsOf?.(rating.sampleId) ?? spec.fields.map((f) => f.name));
    const missing = spec.fields.find((f) => applicable.has(f.name) && !(f.name in rating.values));
    if (missing) {
      throw new InputError(
        { file: path, record: `line ${rating.line}`, field: missing.name },
        `no value for ${rating.sampleId} by ${rating.rater}`,
      );
    }
  }
  return { path, sha256: sha256Hex(bytes), ratings: [...byKey.values()] };
}

/** Returns the ratings as stored scores of `scorer` in `condition` (rater as judge, run 1). */
export function ratingScores(
  file: RatingsFile,
  scorer: string,
  condition: string,
  spec: RatingSpec,
): StoredScore[] {
  return file.ratings.map((r) => ({
    sampleId: r.sampleId,
    condition,
    scorer,
    judge: r.rater,
    run: 1,
    value: spec.primary && typeof r.values[spec.primary] === "number"
      ? r.values[spec.primary] as number
      : null,
    values: r.values,
    valid: true,
    reason: null,
    callKey: null,
    detail: { file_line: r.line },
  }));
}

/**
 * Stores `file` as the scores of `scorer` in `condition`, replacing earlier ones of that scorer, and records
 * the file in the manifest (`ratings:<scorer>`: path, SHA-256, ratings, raters, condition).
 */
export function storeRatings(
  store: RunStore,
  file: RatingsFile,
  scorer: string,
  condition: string,
  spec: RatingSpec,
): void {
  store.replaceScores(scorer, condition, ratingScores(file, scorer, condition, spec));
  store.setManifest({
    [`ratings:${scorer}`]: {
      file: file.path,
      sha256: file.sha256,
      ratings: file.ratings.length,
      raters: [...new Set(file.ratings.map((r) => r.rater))],
      condition,
    },
  });
  store.logEvent("ratings_imported", { scorer, file: file.path, sha256: file.sha256, condition });
}
