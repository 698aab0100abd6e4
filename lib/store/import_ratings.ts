/**
 * Human ratings into the run store, as a scorer of their own (`human:NAME`, one score per sample and rater).
 * A ratings CSV is either wide — `sample_id`, `rater` and one column per field — or long — `sample_id`,
 * `rater`, `field`, `value`. Columns are matched whatever their case, spaces or underscores, so a rubric's
 * published names (`Correctness`, `Clinical_impact`) are read; the id column may also be `id`, `item`,
 * `instance_id` or `question_id`, and `--columns` maps any other name. Ids are the run's sample ids or the data
 * set's own (`pmq-test-0001` for `permedcqa:pmq-test-0001`); a spec may map item ids to sample ids
 * (`resolve`) and say which fields an item is rated on (`fieldsOf`). Everything is validated before anything
 * is written: ids that match no sample, a row without a rater, an unknown field or a value out of its range is
 * a one-line error naming file, line and column, with a hint. The file's SHA-256 enters the manifest under
 * `ratings:<scorer>`.
 * @module
 */
import { parseCsv } from "../core/csv.ts";
import { ConfigError, InputError } from "../core/errors.ts";
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
  /**
   * Columns under other names (`--columns`): an expected name — `sample_id`, `rater`, `field`, `value` or a
   * field's name — mapped onto the file's column (for a field of a long file, onto the name its rows use).
   */
  columns?: Readonly<Record<string, string>>;
}

/** The columns a ratings file has besides its fields, each with the names it is recognised by (in order). */
const ROLE_COLUMNS = {
  sample_id: ["sample_id", "id", "item", "instance_id", "question_id", "item_id"],
  rater: ["rater", "annotator", "physician", "expert"],
  field: ["field", "indicator"],
  value: ["value", "score", "rating"],
} as const;

/** A column role of a ratings file. */
type Role = keyof typeof ROLE_COLUMNS;

/**
 * Returns a name as compared with column and field names: case, spaces, `_`, `-` and `.` do not count, so a
 * rubric's published name (`Clinical_impact`, `Social decorum`) finds its field (`clinical_impact`).
 */
function squash(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/[\s_.-]+/g, "");
}

/** Returns the category a cell names (the category, case and `_`/space variants, or its 1-based position). */
function levelValue(trimmed: string, levels: readonly string[]): string | undefined {
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
        where,
        `expected one of ${spec.levels.join(", ")} (or 1-${spec.levels.length}), got "${trimmed}"`,
      );
    }
    return level;
  }
  const value = Number(trimmed);
  const range = `${spec.min}..${spec.max}`;
  if (trimmed === "" || !Number.isFinite(value)) {
    throw new InputError(where, `expected a number in ${range}, got "${trimmed}"`);
  }
  if ((spec.integer && !Number.isInteger(value)) || value < spec.min || value > spec.max) {
    throw new InputError(
      where,
      `expected ${spec.integer ? "a whole number" : "a number"} in ${range}, got ${trimmed}`,
    );
  }
  return value;
}

type InputErrorPlace = { file: string; record: string; field?: string };

/** The columns of a ratings file, by what they hold. */
interface RatingColumns {
  /** The sample id's column. */
  id: number;
  /** The rater's column, or -1 (every row rated by the default rater). */
  rater: number;
  /** A long file's field and value columns; `undefined` for a wide file. */
  long?: { field: number; value: number };
  /** A wide file's column of each field, by field name. */
  fields: Map<string, number>;
}

/** Reads a ratings file's header: which column holds what. Throws a one-line InputError with a hint. */
class HeaderReader {
  readonly listed: string;
  /** Columns no role or field is known by and `--columns` does not name: what a missing one may be. */
  readonly unclaimed: string[];

  constructor(
    readonly path: string,
    readonly header: readonly string[],
    readonly columns: Readonly<Record<string, string>>,
    fieldNames: readonly string[],
  ) {
    this.listed = header.join(", ");
    const known = [...Object.values(ROLE_COLUMNS).flat(), ...fieldNames, ...Object.values(columns)].map(
      squash,
    );
    this.unclaimed = header.filter((h) => h !== "" && !known.includes(squash(h)));
  }

  /**
   * A missing column: names what is missing, the columns there are and how to map one — with the first
   * unclaimed column for the sample id (usually the data's own id column), or the only one for a field.
   */
  missing(key: string, what: string, extra = ""): never {
    const guess = key === "sample_id" || this.unclaimed.length === 1 ? this.unclaimed[0] : undefined;
    throw new InputError(
      { file: this.path, record: "line 1", field: key },
      `no column for ${what}; columns are: ${this.listed}; map one with --columns ${key}=${
        guess ?? "COLUMN"
      }${extra}`,
    );
  }

  /** Returns the column `--columns` names for `key` (an error when there is none), or `undefined`. */
  mapped(key: string): number | undefined {
    const given = this.columns[key];
    if (given === undefined) return undefined;
    const exact = this.header.indexOf(given);
    const at = exact >= 0 ? exact : this.header.findIndex((h) => squash(h) === squash(given));
    if (at < 0) {
      throw new InputError(
        { file: this.path, record: "line 1", field: given },
        `--columns ${key}=${given}: no such column; columns are: ${this.listed}`,
      );
    }
    return at;
  }

  /** Returns the column known by any of `names` (first name first), or -1. */
  find(names: readonly string[]): number {
    for (const name of names) {
      const at = this.header.findIndex((h) => squash(h) === squash(name));
      if (at >= 0) return at;
    }
    return -1;
  }

  /** Returns the column of a role: mapped with `--columns`, else found by one of its names, else -1. */
  role(role: Role): number {
    return this.mapped(role) ?? this.find(ROLE_COLUMNS[role]);
  }
}

/** Checks `--columns`: each key is a role or a field of `spec`. */
function checkColumnKeys(columns: Readonly<Record<string, string>>, spec: RatingSpec): void {
  const known = [...Object.keys(ROLE_COLUMNS), ...spec.fields.map((f) => f.name)];
  for (const key of Object.keys(columns)) {
    if (!known.includes(key)) {
      throw new ConfigError(`--columns: unknown key "${key}"; known: ${known.join(", ")}`);
    }
  }
}

/** Finds the columns of a ratings file's header for `spec`. */
function ratingColumns(
  path: string,
  header: readonly string[],
  spec: RatingSpec,
  options: ReadRatingsOptions,
): RatingColumns {
  const columns = options.columns ?? {};
  checkColumnKeys(columns, spec);
  const reader = new HeaderReader(path, header, columns, spec.fields.map((f) => f.name));
  const id = reader.role("sample_id");
  if (id < 0) reader.missing("sample_id", "the sample id");
  const rater = reader.role("rater");
  if (rater < 0 && options.defaultRater === undefined) {
    reader.missing("rater", "who rated each row", ", or give the one rater of every row with --rater NAME");
  }
  const field = reader.role("field");
  const value = reader.role("value");
  const fields = new Map<string, number>();
  if (field >= 0 && value >= 0) return { id, rater, long: { field, value }, fields };
  for (const f of spec.fields) {
    const at = reader.mapped(f.name) ?? reader.find([f.name]);
    if (at < 0) {
      reader.missing(
        f.name,
        `field "${f.name}"`,
        ` (or give the file long: ${header[id]},rater,field,value)`,
      );
    }
    fields.set(f.name, at);
  }
  return { id, rater, fields };
}

/**
 * Returns how a ratings file's ids find the run's samples: the sample id itself, what the task's `resolve`
 * maps it to, or the data set's own id — a sample id without its `benchmark:` prefix (`pmq-test-0001` for
 * `permedcqa:pmq-test-0001`) — when it names one sample only. `undefined` when none matches; a list of
 * candidates when several do.
 */
function sampleIdResolver(
  sampleIds: ReadonlySet<string>,
  spec: RatingSpec,
): (given: string) => string | string[] | undefined {
  const own = new Map<string, string[]>();
  for (const id of sampleIds) {
    const colon = id.indexOf(":");
    if (colon < 0) continue;
    const alias = id.slice(colon + 1);
    own.set(alias, [...(own.get(alias) ?? []), id]);
  }
  return (given) => {
    if (sampleIds.has(given)) return given;
    const resolved = spec.resolve?.(given, sampleIds);
    if (resolved !== undefined && sampleIds.has(resolved)) return resolved;
    const candidates = own.get(given);
    return candidates?.length === 1 ? candidates[0] : candidates;
  };
}

/** Returns the one-line message for ids that match no sample of the run, with what the run's ids look like. */
function unmatchedMessage(unmatched: { id: string; line: number }[], sampleIds: ReadonlySet<string>): string {
  const shown = unmatched.slice(0, 5).map((u) => `"${u.id}" (line ${u.line})`).join(", ");
  const more = unmatched.length > 5 ? `, and ${unmatched.length - 5} more` : "";
  const example = sampleIds.values().next().value;
  const like = example === undefined
    ? "the run has no samples"
    : `the run's samples are named like "${example}"${
      example.includes(":") ? ` (or by the data's own id, "${example.slice(example.indexOf(":") + 1)}")` : ""
    }`;
  const count = unmatched.length === 1 ? "1 id matches" : `${unmatched.length} ids match`;
  return `${count} no sample of this run: ${shown}${more}; ${like}`;
}

/**
 * Reads a ratings CSV (wide or long) for a scorer declared by `spec`. Columns are found by name whatever
 * their case, spacing or underscores, by the rubric's published names and by `options.columns`; ids may be the
 * run's sample ids or the data set's own. Throws a one-line {@linkcode InputError} naming file, line and column
 * on the first problem (every id that matches no sample at once).
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
  const columns = ratingColumns(path, header, spec, options);
  const cellOf = (row: { fields: string[] }, i: number) => (row.fields[i] ?? "").trim();
  const idColumn = header[columns.id];

  const resolve = sampleIdResolver(options.sampleIds, spec);
  const sampleIds: string[] = [];
  const unmatched: { id: string; line: number }[] = [];
  for (const row of rows.slice(1)) {
    const given = cellOf(row, columns.id);
    const where = { file: path, record: `line ${row.line}`, field: idColumn };
    if (given === "") throw new InputError(where, "missing sample id");
    const found = resolve(given);
    if (Array.isArray(found)) {
      throw new InputError(
        where,
        `"${given}" names several samples of this run (${found.slice(0, 4).join(", ")}); give the sample id`,
      );
    }
    if (found === undefined) unmatched.push({ id: given, line: row.line });
    sampleIds.push(found ?? "");
  }
  if (unmatched.length) {
    throw new InputError(
      { file: path, record: `line ${unmatched[0].line}`, field: idColumn },
      unmatchedMessage(unmatched, options.sampleIds),
    );
  }

  const fieldOfName = (name: string) =>
    spec.fields.find((f) =>
      squash(f.name) === squash(name) ||
      (options.columns?.[f.name] !== undefined && squash(options.columns[f.name]) === squash(name))
    );
  const byKey = new Map<string, Rating>();
  rows.slice(1).forEach((row, r) => {
    const record = `line ${row.line}`;
    const sampleId = sampleIds[r];
    const given = cellOf(row, columns.id);
    const rater = columns.rater >= 0 ? cellOf(row, columns.rater) : options.defaultRater!;
    if (rater === "") {
      throw new InputError({ file: path, record, field: header[columns.rater] }, "missing rater");
    }
    const key = `${sampleId}\u0000${rater}`;
    const rating = byKey.get(key) ?? { sampleId, rater, values: {}, line: row.line };
    const applicable = new Set(spec.fieldsOf?.(sampleId) ?? spec.fields.map((f) => f.name));
    if (columns.long) {
      const name = cellOf(row, columns.long.field);
      const field = fieldOfName(name);
      const fieldColumn = header[columns.long.field];
      if (!field) {
        throw new InputError(
          { file: path, record, field: fieldColumn },
          `unknown field "${name}"; known: ${spec.fields.map((f) => f.name).join(", ")}`,
        );
      }
      if (!applicable.has(field.name)) {
        throw new InputError({ file: path, record, field: field.name }, `not rated for ${given}`);
      }
      if (field.name in rating.values) {
        throw new InputError(
          { file: path, record, field: fieldColumn },
          `${field.name} rated twice by ${rater} for ${given}`,
        );
      }
      rating.values[field.name] = fieldValue(cellOf(row, columns.long.value), field, {
        file: path,
        record,
        field: field.name,
      });
    } else {
      if (byKey.has(key)) {
        throw new InputError({ file: path, record, field: idColumn }, `${given} rated twice by ${rater}`);
      }
      for (const field of spec.fields.filter((f) => applicable.has(f.name))) {
        const at = columns.fields.get(field.name)!;
        rating.values[field.name] = fieldValue(cellOf(row, at), field, {
          file: path,
          record,
          field: header[at],
        });
      }
    }
    byKey.set(key, rating);
  });
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
