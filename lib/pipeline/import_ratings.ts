/**
 * `deno task import-ratings RUN_DIR FILE.csv --scorer human:NAME`: human ratings into an existing run's store,
 * as a scorer of their own, then the run's outputs rewritten from the store. The fields and ranges come from
 * the benchmark's declaration of that scorer (or from `--fields` for a scorer it does not declare); ids are the
 * run's sample ids or the data set's own. Nothing is written unless the whole file is valid and the run can be
 * planned again from its recorded settings.
 * @module
 */
import { getTask } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import type { Summary } from "../core/summary.ts";
import type { RatingField, RatingSpec } from "../core/task.ts";
import { readBytes } from "../core/text_file.ts";
import { readRatings, storeRatings } from "../store/import_ratings.ts";
import { RunStore } from "../store/run_store.ts";
import { replanStoredRun, rewriteRunOutputs } from "./rebuild_run.ts";

/** Options of {@linkcode importRatings}. */
export interface ImportRatingsOptions {
  /** The run's output directory (holding `run.sqlite`). */
  runDir: string;
  /** The ratings CSV. */
  file: string;
  /** Scorer name, `human:NAME`. */
  scorer: string;
  /** Condition the ratings are of (default: the run's first, its baseline). */
  condition?: string;
  /** Fields of a scorer the benchmark does not declare: `name:min..max`, comma-separated. */
  fields?: string;
  /** Rater of every row, for files without a `rater` column. */
  rater?: string;
  /** Columns under other names (`--columns`): expected name → the file's column. */
  columns?: Readonly<Record<string, string>>;
  /**
   * Render SVG/PNG/PDF when the outputs are rewritten (HTML is always written); default: as the run's figures
   * were written (rendered when `figures/` holds an SVG).
   */
  render?: boolean;
  /** The run's data file, when it is no longer where the run recorded it. */
  data?: string;
}

/** What was imported. */
export interface ImportRatingsResult {
  /** Ratings stored. */
  ratings: number;
  /** Distinct raters. */
  raters: string[];
  /** Distinct samples rated. */
  samples: number;
  /** The condition they were stored under. */
  condition: string;
  /** SHA-256 of the file, as recorded in the manifest. */
  sha256: string;
  /** Every condition's summary as rewritten with the ratings, baseline first. */
  summaries: Summary[];
}

/** Parses `--fields name:min..max,...` (whole numbers unless a bound has a decimal point). */
export function parseRatingFields(text: string): RatingField[] {
  return text.split(",").map((part) => {
    const match = part.trim().match(/^([A-Za-z_][\w-]*):(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)$/);
    if (!match) {
      throw new ConfigError(`--fields: expected name:min..max (e.g. accuracy:0..2), got "${part.trim()}"`);
    }
    const [min, max] = [Number(match[2]), Number(match[3])];
    if (min >= max) throw new ConfigError(`--fields: ${match[1]}: min must be below max`);
    return { name: match[1], min, max, integer: !match[2].includes(".") && !match[3].includes(".") };
  });
}

/** Returns `true` when the run's `figures/` holds a rendered figure (an SVG), i.e. it was run with rendering. */
async function hasRenderedFigures(runDir: string): Promise<boolean> {
  try {
    for await (const entry of Deno.readDir(`${runDir}/figures`)) if (entry.name.endsWith(".svg")) return true;
  } catch {
    // no figures yet
  }
  return false;
}

/** What the run store says about the run, read without changing it. */
interface StoredRun {
  /** The manifest (settings and identity). */
  manifest: Record<string, unknown>;
  /** The fields of the scorer imported into. */
  spec: RatingSpec;
  /** The condition the ratings are of. */
  condition: string;
  /** The run's sample ids. */
  sampleIds: Set<string>;
}

/** Opens the run store of `options.runDir` read-only and checks the scorer and condition against it. */
async function readStoredRun(options: ImportRatingsOptions): Promise<StoredRun> {
  const storePath = `${options.runDir}/run.sqlite`;
  if (!(await Deno.stat(storePath).catch(() => null))?.isFile) {
    throw new ConfigError(`${options.runDir}: no run store (run.sqlite) there`);
  }
  const store = new RunStore(storePath, { readOnly: true });
  try {
    let manifest: Record<string, unknown> | undefined;
    try {
      manifest = store.manifest();
    } catch {
      manifest = undefined;
    }
    const identity = manifest?.identity as { benchmark?: string } | undefined;
    if (!manifest || !identity?.benchmark) throw new ConfigError(`${storePath}: the store has no manifest`);
    const task = await getTask(identity.benchmark);
    const declared = task.ratings?.[options.scorer];
    if (declared && options.fields) {
      throw new ConfigError(
        `--fields: ${task.name} declares the fields of ${options.scorer}; leave --fields out`,
      );
    }
    if (!declared && !options.fields) {
      const known = Object.keys(task.ratings ?? {}).join(", ") || "none";
      throw new ConfigError(
        `--scorer: ${task.name} does not declare ${options.scorer} (declared: ${known}); pass --fields name:min..max,... to declare its fields`,
      );
    }
    const spec: RatingSpec = declared ??
      { description: `ratings imported from ${options.file}`, fields: parseRatingFields(options.fields!) };
    const conditions = store.conditions();
    const condition = options.condition ?? conditions[0];
    if (!condition || !conditions.includes(condition)) {
      throw new ConfigError(
        `--condition: the run has no answers in "${condition}" (it has: ${conditions.join(", ") || "none"})`,
      );
    }
    return { manifest, spec, condition, sampleIds: new Set(store.samples().map((s) => s.id)) };
  } finally {
    store.close();
  }
}

/**
 * Imports a ratings file into a run store, then rewrites the run's outputs (summaries, tables, agreement,
 * figures) from the store, as `eval` writes them, without sending a request. The file, the settings and the
 * run's plan are all checked first: a ConfigError (settings) or InputError (file) leaves the run as it was.
 */
export async function importRatings(options: ImportRatingsOptions): Promise<ImportRatingsResult> {
  if (!/^human:[a-z0-9][a-z0-9_-]*$/.test(options.scorer)) {
    throw new ConfigError(
      `--scorer: expected human:NAME (lower case, e.g. human:experts), got "${options.scorer}"`,
    );
  }
  const run = await readStoredRun(options);
  const file = readRatings(await readBytes(options.file), options.file, run.spec, {
    defaultRater: options.rater,
    sampleIds: run.sampleIds,
    columns: options.columns,
  });
  const plan = await replanStoredRun(run.manifest, {
    runDir: options.runDir,
    render: options.render ?? await hasRenderedFigures(options.runDir),
    data: options.data,
    command: "import-ratings",
  });
  const store = new RunStore(`${options.runDir}/run.sqlite`);
  try {
    storeRatings(store, file, options.scorer, run.condition, run.spec);
    const summaries = await rewriteRunOutputs(plan, store);
    return {
      ratings: file.ratings.length,
      raters: [...new Set(file.ratings.map((r) => r.rater))],
      samples: new Set(file.ratings.map((r) => r.sampleId)).size,
      condition: run.condition,
      sha256: file.sha256,
      summaries,
    };
  } finally {
    store.close();
  }
}
