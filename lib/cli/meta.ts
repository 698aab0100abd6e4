/**
 * `deno task meta RUN_DIR… [--out DIR] [--calibrate FRACTION] [--seed S]`: how far a run's judges can be
 * trusted, measured against the human ratings imported into the run (lib/meta does the work). Every run is
 * read and checked before anything is written; a run without human ratings stops the command with one line
 * naming the command that imports them (exit 2: a meta-evaluation without ratings has nothing to measure, and
 * a script that chains eval → meta must not take the missing meta.md for a result).
 * @module
 */
import { exitWith } from "./exit_code.ts";
import { ConfigError } from "../core/errors.ts";
import { analyzeRun } from "../meta/analyze.ts";
import { consoleSummary } from "../meta/markdown.ts";
import { readRun, type RunData } from "../meta/run_data.ts";
import { writeMeta } from "../meta/write.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** Share of the rated items the calibration is fitted on unless `--calibrate` says otherwise. */
export const DEFAULT_CALIBRATE = 0.5;

/** Seed text unless `--seed` says otherwise. */
export const DEFAULT_SEED = "medeval";

/** `meta`'s flags and help page. */
export const META_SPEC = {
  command: "deno task meta",
  positionals: "RUN_DIR...",
  description: "Meta-evaluates a run's judges against the human ratings imported into it (deno task " +
    "import-ratings, or eval --human-eval): per field and per group of items, each judge and the jury " +
    "against each human and the human ceiling (each human against the other humans' reading, the judge " +
    "against the same reading), with percent agreement, Cohen's κ, quadratic κ, Krippendorff's α, Spearman's " +
    "ρ and balanced F1, each with a seeded bootstrap 95% CI over items, and a verdict per field; the judges' " +
    "error and abstention rates (Wilson CI); their stability across --judge-runs repeats (α, κ, share of " +
    "variance from repeats); and an isotonic calibration of the judge's score onto the human mean, fitted on " +
    "a seeded share of the rated items and evaluated on the rest. Writes meta.md, meta.json and " +
    "calibration_curves.csv and prints the verdicts. A run without human ratings is an error (exit 2).",
  flags: {
    out: {
      value: "DIR",
      help: "where to write meta.md, meta.json and calibration_curves.csv (default RUN_DIR/meta; with " +
        "several runs, DIR/<run directory name>)",
    },
    calibrate: {
      value: "FRACTION",
      help:
        `share of the human-rated items the calibration is fitted on, > 0 and < 1 (default ${DEFAULT_CALIBRATE}); the rest is held out`,
    },
    seed: {
      value: "S",
      help: `seed text of the calibration split and every bootstrap (default ${DEFAULT_SEED})`,
    },
  },
  notes: [
    "docs/judge-meta.md explains each measure, the leave-one-rater-out ceiling and how to read a verdict.",
    "",
    "example: deno task meta runs/permedcqa/gpt-4o --calibrate 0.5 --seed 7",
  ],
} satisfies CommandSpec;

/** Parses `--calibrate`: a number strictly between 0 and 1. */
function calibrateFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CALIBRATE;
  const n = value.trim() === "" ? NaN : Number(value);
  if (!(n > 0 && n < 1)) throw new ConfigError(`--calibrate expects a fraction > 0 and < 1, got "${value}"`);
  return n;
}

/** Returns the output directory of each run: `--out` (one run), `--out/<name>` (several), else `RUN_DIR/meta`. */
export function outputDirs(runs: readonly string[], out: string | undefined): string[] {
  if (out === undefined) return runs.map((dir) => `${dir.replace(/\/+$/, "")}/meta`);
  if (runs.length === 1) return [out];
  const used = new Map<string, number>();
  return runs.map((dir) => {
    const name = dir.replace(/\/+$/, "").split("/").pop() || "run";
    const count = (used.get(name) ?? 0) + 1;
    used.set(name, count);
    return `${out}/${count > 1 ? `${name}-${count}` : name}`;
  });
}

/** `meta`: checks every run, then meta-evaluates and writes each; returns the exit code. */
export async function metaCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(META_SPEC, args);
  if (help) {
    console.log(commandUsage(META_SPEC));
    return 0;
  }
  if (positionals.length === 0) throw new ConfigError("meta: name the run directories to meta-evaluate");
  const calibrate = calibrateFlag(values.calibrate);
  const seed = values.seed ?? DEFAULT_SEED;
  const runs: RunData[] = [];
  for (const dir of positionals) runs.push(await readRun(dir));
  const outs = outputDirs(positionals, values.out);
  for (const [i, run] of runs.entries()) {
    const report = analyzeRun(run, { seed, calibrate });
    const paths = await writeMeta(report, outs[i]);
    for (const line of consoleSummary(report)) console.log(line);
    console.log(`  wrote ${paths.join(", ")}`);
  }
  return 0;
}

if (import.meta.main) await exitWith(metaCommand);
