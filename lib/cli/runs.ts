/**
 * The commands that work on finished runs: `import-ratings` (human ratings into a run store) and `collect`
 * (many run stores into one long table and, optionally, a response matrix).
 * @module
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.ts";
import { importRatings } from "../pipeline/import_ratings.ts";
import { collectRuns, longCsv, matrixCsv, responseMatrix } from "../store/collect.ts";

/** Usage of the two commands. */
export const RUNS_USAGE =
  `  deno task import-ratings RUN_DIR FILE.csv --scorer human:NAME [--condition C] [--rater NAME]
                           [--fields name:min..max,...]
      (CSV wide: sample_id,rater,<field>...; or long: sample_id,rater,field,value)
  deno task collect RUN_DIR... --out LONG.csv [--matrix SCORER[:FIELD][@THRESHOLD] --matrix-out FILE.csv]`;

/** `import-ratings`: returns the exit code. */
export async function importRatingsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      scorer: { type: "string" },
      condition: { type: "string" },
      rater: { type: "string" },
      fields: { type: "string" },
    },
  });
  if (positionals.length !== 2) throw new ConfigError("import-ratings: expected RUN_DIR FILE.csv");
  if (!values.scorer) {
    throw new ConfigError("--scorer: name the ratings' scorer, e.g. --scorer human:experts");
  }
  const [runDir, file] = positionals;
  const result = await importRatings({ runDir, file, scorer: values.scorer, ...values });
  console.log(
    `imported ${result.ratings} ratings of ${result.samples} samples by ${result.raters.length} rater(s) ` +
      `as ${values.scorer} (condition ${result.condition}, sha256 ${result.sha256.slice(0, 12)})`,
  );
  console.log(
    "  tables read them from the store: rerun the run's eval command with --resume to rebuild them",
  );
  return 0;
}

/** Parses `SCORER[:FIELD][@THRESHOLD]` (a `human:NAME` scorer keeps its colon). */
export function matrixSpec(text: string): { scorer: string; field?: string; threshold?: number } {
  const match = text.match(/^([^:@]+(?::[^:@]+){0,2})(?:@(-?\d+(?:\.\d+)?))?$/);
  if (!match) throw new ConfigError(`--matrix: expected SCORER[:FIELD][@THRESHOLD], got "${text}"`);
  const parts = match[1].split(":");
  const named = parts[0] === "human" ? 2 : 1;
  if (parts.length > named + 1) throw new ConfigError(`--matrix: too many colons in "${text}"`);
  const threshold = match[2] === undefined ? undefined : Number(match[2]);
  return { scorer: parts.slice(0, named).join(":"), field: parts[named], threshold };
}

/** `collect`: returns the exit code. */
export async function collectCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: "string" }, matrix: { type: "string" }, "matrix-out": { type: "string" } },
  });
  if (positionals.length === 0) throw new ConfigError("collect: name at least one run directory");
  if (!values.out) throw new ConfigError("--out: where to write the long table (CSV)");
  if (values.matrix && !values["matrix-out"]) {
    throw new ConfigError("--matrix-out: where to write the matrix");
  }
  const { runs, rows } = await collectRuns(positionals);
  await Deno.writeTextFile(values.out, longCsv(rows));
  console.log(`wrote ${values.out}: ${rows.length} values from ${runs.length} run(s)`);
  if (values.matrix) {
    const matrix = responseMatrix(rows, matrixSpec(values.matrix));
    await Deno.writeTextFile(values["matrix-out"]!, matrixCsv(matrix));
    console.log(
      `wrote ${values["matrix-out"]}: ${matrix.persons.length} examinees x ${matrix.items.length} items`,
    );
  }
  return 0;
}
