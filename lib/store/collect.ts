/**
 * Many runs into one long table: every score of every run store — benchmark, model, condition, sample,
 * scorer, judge (or rater), repeat, field and value — with the run's manifest identity. Tables that compare
 * models, response matrices for IRT and viewers are built on it.
 * @module
 */
import { csvText } from "../core/csv.ts";
import { ConfigError, InputError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import type { NamedValue } from "../core/records.ts";
import { RunStore } from "./run_store.ts";

/** One collected run: where it is and what its manifest says it is. */
export interface CollectedRun {
  /** The run directory as given. */
  dir: string;
  /** Benchmark name. */
  benchmark: string;
  /** Model label (the name for offline stand-ins). */
  model: string;
  /** `true` for offline stand-ins. */
  offline: boolean;
  /** Judge label, or `null`. */
  judge: string | null;
  /** Labels of the run's other roles (`debater`, `translator`, ...), by role name. */
  roles: Record<string, string>;
  /** SHA-256 of the data file. */
  dataSha256: string;
  /** Code version that made it. */
  code: unknown;
  /** When the run was created. */
  createdAt: string;
}

/** One value of the long table. */
export interface LongRow {
  /** The run directory. */
  run: string;
  /** Benchmark name. */
  benchmark: string;
  /** Model label. */
  model: string;
  /** Condition. */
  condition: string;
  /** Sample id. */
  sample: string;
  /** Scorer name. */
  scorer: string;
  /** Judge model or rater, or `null`. */
  judge: string | null;
  /** Repeat (judge run). */
  repeat: number;
  /** `value` for the primary value, else the named value's field. */
  field: string;
  /** The value (`null` for judge errors). */
  value: NamedValue;
}

/** Returns the manifest of a store, or `undefined` when the file is no run store (not SQLite, no tables). */
function readManifest(store: RunStore): Record<string, unknown> | undefined {
  try {
    return store.manifest();
  } catch {
    return undefined;
  }
}

/** Opens one run store read-only and returns its identity and its long rows. */
function collectOne(dir: string): { run: CollectedRun; rows: LongRow[] } {
  const store = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  try {
    const manifest = readManifest(store);
    const identity = manifest?.identity as
      | { benchmark?: string; data_sha256?: string; roles?: Record<string, string> }
      | undefined;
    if (!manifest || !identity?.benchmark) {
      throw new InputError({ file: `${dir}/run.sqlite`, field: "manifest" }, "not a run store (no manifest)");
    }
    const model = manifest.model as { name: string; label: string; offline: boolean };
    const judge = manifest.judge as { label: string } | null;
    const run: CollectedRun = {
      dir,
      benchmark: identity.benchmark,
      model: model.offline ? model.name : model.label,
      offline: model.offline,
      judge: judge?.label ?? null,
      roles: identity.roles ?? {},
      dataSha256: identity.data_sha256 ?? "",
      code: manifest.code ?? null,
      createdAt: String(manifest.created_at ?? ""),
    };
    const rows: LongRow[] = [];
    for (const score of store.scores()) {
      const base = {
        run: dir,
        benchmark: run.benchmark,
        model: run.model,
        condition: score.condition,
        sample: score.sampleId,
        scorer: score.scorer,
        judge: score.judge,
        repeat: score.run,
      };
      rows.push({ ...base, field: "value", value: score.valid ? score.value : null });
      for (const [field, value] of Object.entries(score.values ?? {})) {
        rows.push({ ...base, field, value: score.valid ? value : null });
      }
    }
    return { run, rows };
  } finally {
    store.close();
  }
}

/** Reads every run directory in `dirs` into one long table. Throws InputError for a directory without a run. */
export async function collectRuns(
  dirs: readonly string[],
): Promise<{ runs: CollectedRun[]; rows: LongRow[] }> {
  const runs: CollectedRun[] = [];
  const rows: LongRow[] = [];
  for (const dir of dirs) {
    if (!(await pathExists(`${dir}/run.sqlite`))) {
      throw new InputError({ file: dir }, "no run store (run.sqlite) in this directory");
    }
    const one = collectOne(dir);
    runs.push(one.run);
    rows.push(...one.rows);
  }
  return { runs, rows };
}

/** The columns of the long table, in order. */
export const LONG_COLUMNS = [
  "run",
  "benchmark",
  "model",
  "condition",
  "sample",
  "scorer",
  "judge",
  "repeat",
  "field",
  "value",
] as const;

/** Returns the long table as CSV (header first). */
export function longCsv(rows: readonly LongRow[]): string {
  return csvText([LONG_COLUMNS, ...rows.map((row) => LONG_COLUMNS.map((c) => row[c]))]);
}

/** Options of {@linkcode responseMatrix}. */
export interface MatrixOptions {
  /** Scorer whose values fill the matrix. */
  scorer: string;
  /** Field (default the primary value). */
  field?: string;
  /** Condition to take (default every condition, each its own examinee). */
  condition?: string;
  /** Values at or above it count 1, below it 0 (dichotomising graded items); absent = values as they are. */
  threshold?: number;
}

/** A persons × items matrix; `null` where a person has no value for an item. */
export interface ResponseMatrix {
  /** Examinees: `model` (`model (run)` when a model comes from several runs), `· condition` when conditions differ. */
  persons: string[];
  /** Items (sample ids), in first-seen order. */
  items: string[];
  /** `values[p][i]`: the mean over repeats and judges of person p on item i (dichotomised with a threshold). */
  values: (number | null)[][];
}

/** What one field of a scorer holds across the long table. */
interface FieldContent {
  /** Values that are numbers. */
  numbers: number;
  /** Distinct values that are text (categories), in first-seen order. */
  categories: Set<string>;
}

/** Returns each scorer of the long table with each of its fields and what the field holds. */
function scorerFields(rows: readonly LongRow[]): Map<string, Map<string, FieldContent>> {
  const out = new Map<string, Map<string, FieldContent>>();
  for (const row of rows) {
    const fields = out.get(row.scorer) ?? new Map<string, FieldContent>();
    out.set(row.scorer, fields);
    const content = fields.get(row.field) ?? { numbers: 0, categories: new Set<string>() };
    fields.set(row.field, content);
    if (typeof row.value === "number") content.numbers++;
    else if (typeof row.value === "string") content.categories.add(row.value);
  }
  return out;
}

/** Returns the one name of `names` equal to `given`, else the one equal to it ignoring case, else undefined. */
function nameLike(given: string, names: readonly string[]): string | undefined {
  if (names.includes(given)) return given;
  const folded = names.filter((n) => n.toLowerCase() === given.toLowerCase());
  return folded.length === 1 ? folded[0] : undefined;
}

/** Returns a field holding numbers only (the fields a matrix can be made of). */
function isNumeric(content: FieldContent): boolean {
  return content.numbers > 0 && content.categories.size === 0;
}

/**
 * Checks that `options` name a scorer of `rows` and a field of it that holds numbers (each name matched
 * exactly, else ignoring case); returns the options with the names as stored. Anything else is a one-line
 * {@linkcode ConfigError} starting with `label` that names what is missing and what the runs hold.
 */
export function checkMatrixOptions(
  rows: readonly LongRow[],
  options: MatrixOptions,
  label = "--matrix",
): MatrixOptions {
  const scorers = scorerFields(rows);
  const describe = (fields: Map<string, FieldContent>) => {
    const numeric = [...fields].filter(([, c]) => isNumeric(c)).map(([f]) => f);
    return numeric.length ? numeric.join(", ") : "none";
  };
  if (scorers.size === 0) throw new ConfigError(`${label}: the runs hold no scores`);
  const scorer = nameLike(options.scorer, [...scorers.keys()]);
  if (scorer === undefined) {
    const known = [...scorers].map(([name, fields]) => `${name} (numeric fields: ${describe(fields)})`);
    throw new ConfigError(
      `${label}: no scorer "${options.scorer}" in the runs; they have: ${known.join("; ")}`,
    );
  }
  const fields = scorers.get(scorer)!;
  const given = options.field ?? "value";
  const field = nameLike(given, [...fields.keys()]);
  if (field === undefined) {
    throw new ConfigError(
      `${label}: ${scorer} has no field "${given}"; its fields: ${[...fields.keys()].join(", ")} ` +
        `(numeric: ${describe(fields)})`,
    );
  }
  const content = fields.get(field)!;
  if (!isNumeric(content)) {
    const what = field === "value" ? `the primary value of ${scorer}` : `${scorer}:${field}`;
    const held = content.categories.size
      ? `categories (${[...content.categories].slice(0, 5).join(", ")}), not numbers`
      : "no numbers (it is empty in every score)";
    throw new ConfigError(
      `${label}: ${what} holds ${held}; numeric fields of ${scorer}: ${describe(fields)}`,
    );
  }
  return { ...options, scorer, field };
}

/** Returns the examinee × item matrix of one scorer's numeric values from the long table. */
export function responseMatrix(rows: readonly LongRow[], options: MatrixOptions): ResponseMatrix {
  const field = options.field ?? "value";
  const chosen = rows.filter((r) =>
    r.scorer === options.scorer && r.field === field &&
    (options.condition === undefined || r.condition === options.condition)
  );
  const conditions = new Set(chosen.map((r) => r.condition));
  // A model collected from several runs is one examinee per run (its runs are not averaged together).
  const runsOf = Map.groupBy(chosen, (r) => r.model);
  const shared = new Set(
    [...runsOf].filter(([, rs]) => new Set(rs.map((r) => r.run)).size > 1).map(([m]) => m),
  );
  const person = (r: LongRow) => {
    const who = shared.has(r.model) ? `${r.model} (${r.run})` : r.model;
    return conditions.size > 1 ? `${who} · ${r.condition}` : who;
  };
  const persons = [...new Set(chosen.map(person))];
  const items = [...new Set(chosen.map((r) => r.sample))];
  const sums = new Map<string, { sum: number; n: number }>();
  for (const row of chosen) {
    if (typeof row.value !== "number") continue;
    const key = `${person(row)}\u0000${row.sample}`;
    const cell = sums.get(key) ?? { sum: 0, n: 0 };
    cell.sum += row.value;
    cell.n += 1;
    sums.set(key, cell);
  }
  const values = persons.map((p) =>
    items.map((item) => {
      const cell = sums.get(`${p}\u0000${item}`);
      if (!cell) return null;
      const mean = cell.sum / cell.n;
      return options.threshold === undefined ? mean : mean >= options.threshold ? 1 : 0;
    })
  );
  return { persons, items, values };
}

/** Returns a matrix as wide CSV: a `person` column, then one column per item (empty = missing). */
export function matrixCsv(matrix: ResponseMatrix): string {
  return csvText([["person", ...matrix.items], ...matrix.persons.map((p, i) => [p, ...matrix.values[i]])]);
}
