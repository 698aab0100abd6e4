/**
 * The commands that work on finished runs: `import-ratings` (human ratings into a run store, then the run's
 * tables rewritten) and `collect` (many run stores into one long table and, optionally, a response matrix).
 * @module
 */
import { dirname } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { importRatings } from "../pipeline/import_ratings.ts";
import { parseColumns } from "../pipeline/plan.ts";
import { checkMatrixOptions, collectRuns, longCsv, matrixCsv, responseMatrix } from "../store/collect.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";
import { printSummaries } from "./print_summaries.ts";

/** Usage of the two commands, for the overview of every command. */
export const RUNS_USAGE =
  `  deno task import-ratings RUN_DIR FILE.csv --scorer human:NAME [--columns KEY=COL,...] [--rater NAME]
                           [--condition C] [--fields name:min..max,...] [--data FILE] [--no-render]
      (CSV wide: sample_id,rater,<field>...; or long: sample_id,rater,field,value; rewrites the run's tables)
  deno task collect RUN_DIR... --out LONG.csv [--matrix SCORER[:FIELD][@THRESHOLD] --matrix-out FILE.csv]`;

/** The flags and help of `import-ratings`. */
export const IMPORT_RATINGS_SPEC = {
  command: "deno task import-ratings",
  positionals: "RUN_DIR FILE.csv",
  description:
    "Imports human ratings of a run's answers into its run store (RUN_DIR/run.sqlite) as a scorer of " +
    "their own, then rewrites the run's summaries, tables, rater agreement and figures from the store, as " +
    "eval writes them, without sending a request. The run is planned again from the settings it recorded, so " +
    "its data file must be at hand. The whole file is checked first: on any error nothing is written.",
  flags: {
    scorer: {
      value: "human:NAME",
      help: "the scorer the ratings are stored as (required), e.g. human:physicians for PerMedCQA, " +
        "human:experts for MedGPTEval, human:mtg for LLMEval-Med; its fields come from the benchmark",
    },
    columns: {
      value: "KEY=COL,...",
      help: "columns under other names: KEY is sample_id, rater, field, value or a field's name, COL the " +
        "file's column, e.g. sample_id=instance_id,correctness=Korrektheit",
    },
    rater: {
      value: "NAME",
      help: "the rater of every row, for a file of one rater without a rater column",
    },
    condition: {
      value: "C",
      help: "the condition whose answers were rated (default: the run's baseline)",
    },
    fields: {
      value: "name:min..max,...",
      help:
        "the fields of a scorer the benchmark does not declare, e.g. clarity:0..2 (decimals allow decimals)",
    },
    data: {
      value: "FILE",
      help: "the run's data file, when it is no longer where the run recorded it (checked against its hash)",
    },
    "no-render": {
      help:
        "write HTML figures only (no SVG/PNG/PDF, no Chromium needed); by default figures are rewritten in " +
        "the formats the run has (SVG/PNG/PDF when its figures/ holds SVGs)",
    },
  },
  notes: [
    "The file is CSV, one rating per sample and rater, either",
    "  wide: sample_id,rater,<field>,<field>,...    or    long: sample_id,rater,field,value",
    "Column names are matched whatever their case, spaces or underscores, so a rubric's published names",
    "(Correctness, Clinical_impact, Social decorum) are read; the id column may be sample_id, id, item,",
    "instance_id or question_id; the rater column rater, annotator, physician or expert. Ids are the run's",
    "sample ids (permedcqa:pmq-test-0001) or the data set's own (pmq-test-0001; a MedGPTEval dialogue id",
    "names its last round). A categorical field takes its category or its 1-based position.",
    "",
    "example: deno task import-ratings runs/permedcqa-x ratings.csv --scorer human:physicians \\",
    "           --columns sample_id=instance_id",
  ],
} satisfies CommandSpec;

/** `import-ratings`: returns the exit code. */
export async function importRatingsCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(IMPORT_RATINGS_SPEC, args);
  if (help) {
    console.log(commandUsage(IMPORT_RATINGS_SPEC));
    return 0;
  }
  if (positionals.length !== 2) {
    throw new ConfigError(
      `import-ratings: expected RUN_DIR FILE.csv, got ${positionals.length} argument(s) ` +
        "(deno task import-ratings --help)",
    );
  }
  if (!values.scorer) {
    throw new ConfigError("--scorer: name the ratings' scorer, e.g. --scorer human:physicians");
  }
  const [runDir, file] = positionals;
  const result = await importRatings({
    runDir,
    file,
    scorer: values.scorer,
    condition: values.condition,
    rater: values.rater,
    fields: values.fields,
    columns: parseColumns(values.columns),
    data: values.data,
    ...(values["no-render"] ? { render: false } : {}),
  });
  printSummaries(result.summaries);
  console.log(
    `imported ${result.ratings} ratings of ${result.samples} samples by ${result.raters.length} rater(s) ` +
      `as ${values.scorer} (condition ${result.condition}, sha256 ${result.sha256.slice(0, 12)})`,
  );
  console.log(`  rewrote ${runDir}: summary.json, samples.jsonl, tables/ and figures/ from the run store`);
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

/** The flags and help of `collect`. */
export const COLLECT_SPEC = {
  command: "deno task collect",
  positionals: "RUN_DIR...",
  description: "Reads the run stores of one or more runs (RUN_DIR/run.sqlite, read-only) into one long CSV " +
    "table, one row per value: run, benchmark, model, condition, sample, scorer, judge (or rater), repeat, " +
    "field and value. With --matrix it also writes a wide examinees x items matrix of one scorer's numeric " +
    "values (e.g. for deno task irt fit --responses).",
  flags: {
    out: { value: "FILE.csv", help: "where to write the long table (required; its directory must exist)" },
    matrix: {
      value: "SCORER[:FIELD][@T]",
      help: "also write a matrix of SCORER's primary value (or its numeric FIELD; the name's case does not " +
        "matter), each cell the mean over judge runs and judges; @T dichotomises: at least T is 1, below is 0",
    },
    "matrix-out": { value: "FILE.csv", help: "where to write the matrix (required with --matrix)" },
  },
  notes: [
    "Examinees are the runs' models (model (run) when a model comes from several runs, · condition when",
    "conditions differ); items are sample ids; an empty cell is a missing or failed score. A scorer or field",
    "that is not in the runs, or holds categories rather than numbers, is an error naming what there is.",
    "",
    "example: deno task collect runs/a runs/b --out long.csv --matrix metric@0.5 --matrix-out matrix.csv",
  ],
} satisfies CommandSpec;

/**
 * Checks that `path` can be written as a file: not a directory, in a directory that exists. Throws a one-line
 * {@linkcode ConfigError} naming `flag`.
 */
async function checkOutputFile(path: string, flag: string): Promise<void> {
  const stat = await Deno.stat(path).catch(() => null);
  if (stat?.isDirectory) {
    throw new ConfigError(`${flag}: ${path} is a directory; give a file path, e.g. ${path}/table.csv`);
  }
  const parent = dirname(path);
  const parentStat = await Deno.stat(parent).catch(() => null);
  if (!parentStat) throw new ConfigError(`${flag}: ${path}: the directory ${parent} does not exist`);
  if (!parentStat.isDirectory) throw new ConfigError(`${flag}: ${path}: ${parent} is not a directory`);
}

/** `collect`: returns the exit code. */
export async function collectCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(COLLECT_SPEC, args);
  if (help) {
    console.log(commandUsage(COLLECT_SPEC));
    return 0;
  }
  if (positionals.length === 0) throw new ConfigError("collect: name at least one run directory");
  if (!values.out) throw new ConfigError("--out: where to write the long table (CSV)");
  const matrixOut = values["matrix-out"];
  if (values.matrix && !matrixOut) throw new ConfigError("--matrix-out: where to write the matrix");
  if (matrixOut && !values.matrix) {
    throw new ConfigError(
      "--matrix-out: give --matrix SCORER[:FIELD][@THRESHOLD] to say what the matrix holds",
    );
  }
  await checkOutputFile(values.out, "--out");
  if (matrixOut) {
    await checkOutputFile(matrixOut, "--matrix-out");
    if (matrixOut === values.out) throw new ConfigError("--matrix-out: the same file as --out");
  }
  const spec = values.matrix ? matrixSpec(values.matrix) : undefined;
  const { runs, rows } = await collectRuns(positionals);
  const matrix = spec
    ? responseMatrix(rows, checkMatrixOptions(rows, spec, `--matrix ${values.matrix}`))
    : undefined;
  await Deno.writeTextFile(values.out, longCsv(rows));
  console.log(`wrote ${values.out}: ${rows.length} values from ${runs.length} run(s)`);
  if (matrix) {
    await Deno.writeTextFile(matrixOut!, matrixCsv(matrix));
    console.log(`wrote ${matrixOut}: ${matrix.persons.length} examinees x ${matrix.items.length} items`);
  }
  return 0;
}
