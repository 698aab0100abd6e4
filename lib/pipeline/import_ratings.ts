/**
 * `deno task import-ratings RUN_DIR FILE.csv --scorer human:NAME`: human ratings into an existing run's store,
 * as a scorer of their own. The fields and ranges come from the benchmark's declaration of that scorer (or from
 * `--fields` for a scorer it does not declare); sample ids must be the run's. Nothing is written unless the
 * whole file is valid.
 * @module
 */
import { getTask } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import type { RatingField, RatingSpec } from "../core/task.ts";
import { readBytes } from "../core/text_file.ts";
import { readRatings, storeRatings } from "../store/import_ratings.ts";
import { RunStore } from "../store/run_store.ts";

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

/** Imports a ratings file into a run store. Throws ConfigError (settings) or InputError (file) before writing. */
export async function importRatings(options: ImportRatingsOptions): Promise<ImportRatingsResult> {
  if (!/^human:[a-z0-9][a-z0-9_-]*$/.test(options.scorer)) {
    throw new ConfigError(
      `--scorer: expected human:NAME (lower case, e.g. human:experts), got "${options.scorer}"`,
    );
  }
  const storePath = `${options.runDir}/run.sqlite`;
  if (!(await pathExists(storePath))) {
    throw new ConfigError(`${options.runDir}: no run store (run.sqlite) there`);
  }
  const bytes = await readBytes(options.file);
  const store = new RunStore(storePath);
  try {
    const identity = store.manifest()?.identity as { benchmark?: string } | undefined;
    if (!identity?.benchmark) throw new ConfigError(`${storePath}: the store has no manifest`);
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
        `--condition: the run has no answers in "${condition}" (it has: ${conditions.join(", ")})`,
      );
    }
    const file = readRatings(bytes, options.file, spec, {
      defaultRater: options.rater,
      sampleIds: new Set(store.samples().map((s) => s.id)),
    });
    storeRatings(store, file, options.scorer, condition, spec);
    return {
      ratings: file.ratings.length,
      raters: [...new Set(file.ratings.map((r) => r.rater))],
      samples: new Set(file.ratings.map((r) => r.sampleId)).size,
      condition,
      sha256: file.sha256,
    };
  } finally {
    store.close();
  }
}
