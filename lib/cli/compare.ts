/**
 * `deno task compare RUN_DIR… [--out DIR] [--metric M] [--condition C] [--no-render]`: several models run on
 * the same items (or the conditions of one run) compared metric by metric, overall and per group: paired
 * differences with intervals, McNemar's or Wilcoxon's test with effect sizes, Holm and Benjamini–Hochberg
 * adjusted p-values, bootstrap rank intervals and compact letters (lib/compare does the work; each run's
 * per-sample rows are read back as `eval` computed them, by lib/pipeline/notebook_source.ts).
 * @module
 */
import { exitWith } from "./exit_code.ts";
import { readTextStrict } from "../core/text_file.ts";
import { compareModels, type Comparison } from "../compare/analyze.ts";
import { compareSet, type FinishedRun } from "../compare/entries.ts";
import { comparisonFigures } from "../compare/figure.ts";
import { type LetterLookup, letterLookup } from "../compare/paper_letters.ts";
import { formatValue, metricHeading } from "../compare/tables.ts";
import { writeComparison } from "../compare/write.ts";
import { ConfigError } from "../core/errors.ts";
import type { FigureSpec, GroupDisplay } from "../core/report_spec.ts";
import { openRun } from "../pipeline/notebook_source.ts";
import { exportFigures } from "../report/figures.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** `compare`'s flags and help page. */
export const COMPARE_SPEC = {
  command: "deno task compare",
  positionals: "RUN_DIR...",
  description:
    "Compares models run on the same items: several runs of one benchmark (each in the condition " +
    "--condition, default its baseline), or the conditions of one run. Items are matched by sample id. For " +
    "every metric, overall and in each group of each group field: every model's mean with its 95% CI, its " +
    'bootstrap rank interval ("ranks 1-2 of 3") and compact letters (models sharing a letter are not ' +
    "significantly different at Holm-adjusted p <= 0.05), and every pair's difference B - A with a paired " +
    "bootstrap CI, McNemar's exact test (0/1 metrics) or Wilcoxon's signed-rank test (graded ones) with an " +
    "effect size, and Holm and Benjamini-Hochberg adjusted p-values over the table's comparisons. Writes " +
    "comparison.md, comparison.csv (pairs), comparison_models.csv, comparison.json and a figure per metric " +
    "(figures/comparison_<metric>.*). Nothing is sent.",
  flags: {
    out: {
      value: "DIR",
      help: "where to write the comparison (default RUN_DIR with one run; required with several)",
    },
    metric: {
      value: "M",
      multiple: true,
      help: "compare this metric only (repeatable; default every metric of the benchmark's tables)",
    },
    condition: {
      value: "C",
      help: "the condition compared across several runs (default each run's baseline)",
    },
    "no-render": { help: "write HTML figures only (no Chromium for SVG/PNG/PDF)" },
  },
  notes: [
    "docs/comparing-models.md explains the tests, the letters and the rank intervals.",
    "",
    "example: deno task compare runs/qwen7b runs/llama8b runs/gpt4o --out runs/compare",
  ],
} satisfies CommandSpec;

/** Returns the benchmark a run directory's summaries name, or `""` (openRun then says what is missing). */
async function summaryBenchmark(dir: string): Promise<string> {
  for (const file of ["summaries.json", "summary.json"]) {
    try {
      const json = JSON.parse(await readTextStrict(`${dir}/${file}`));
      const benchmark = (Array.isArray(json) ? json[0] : json)?.benchmark;
      if (typeof benchmark === "string") return benchmark;
    } catch {
      // not there or not JSON: the next file, else openRun's own message
    }
  }
  return "";
}

/**
 * Reads each finished run in `dirs` back (read-only): every condition's summary and its per-sample rows as
 * `eval` computed them. A directory that is not a finished run is a one-line {@linkcode InputError}.
 */
export async function readFinishedRuns(dirs: readonly string[]): Promise<FinishedRun[]> {
  const runs: FinishedRun[] = [];
  for (const dir of dirs) runs.push(await openRun(dir, await summaryBenchmark(dir)));
  return runs;
}

/**
 * Returns the comparison of the runs in `dirs` (see {@linkcode COMPARE_SPEC}) with how the benchmark names its
 * groups (for the tables).
 */
export async function compareRuns(
  dirs: readonly string[],
  options: { condition?: string; metrics?: readonly string[] } = {},
): Promise<{ comparison: Comparison; groups?: GroupDisplay }> {
  const set = compareSet(await readFinishedRuns(dirs), options.condition);
  return { comparison: compareModels(set, { metrics: options.metrics }), groups: set.task.report.groups };
}

/** What {@linkcode writeReportComparison} wrote. */
export interface ReportComparison {
  /** The comparison. */
  comparison: Comparison;
  /** Files written. */
  files: string[];
  /** Its figures, by file name, for the caller to export with its others. */
  figures: Record<string, FigureSpec>;
  /** Our models' letters by paper cell. */
  letters: LetterLookup;
}

/**
 * Compares the baselines of the runs in `dirs` (reproduce's real models on one benchmark) on the benchmark's
 * metrics and `alsoMetrics` (those the rows carry), writes `comparison.*` into `dir` and returns the figures
 * and the letters the paper tables show.
 */
export async function writeReportComparison(
  dirs: readonly string[],
  alsoMetrics: readonly string[],
  dir: string,
): Promise<ReportComparison> {
  const set = compareSet(await readFinishedRuns(dirs));
  const comparison = compareModels(set, { alsoMetrics });
  const files = await writeComparison(comparison, dir, set.task.report.groups);
  return { comparison, files, figures: comparisonFigures(comparison), letters: letterLookup(comparison) };
}

/** Returns the console lines of a comparison: per metric, each model's mean, rank and letters on all items. */
export function comparisonLines(comparison: Comparison): string[] {
  const lines = [
    `${comparison.title}: ${comparison.entries.length} models compared on ${comparison.items} shared samples`,
  ];
  for (const result of comparison.metrics) {
    lines.push(`  ${metricHeading(result.metric)} (n=${result.overall.n}):`);
    const width = Math.max(...result.overall.models.map((m) => m.label.length));
    for (const m of result.overall.models) {
      const value = m.estimate.value === null ? "–" : formatValue(m.estimate.value, result.metric);
      lines.push(
        `    ${m.label.padEnd(width)}  ${value.padStart(6)}  ${m.letters.padEnd(4)} ${m.rank.label}`,
      );
    }
  }
  return lines;
}

/** `compare`: reads and checks every run, compares them, writes the files; returns the exit code. */
export async function compareCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(COMPARE_SPEC, args);
  if (help) {
    console.log(commandUsage(COMPARE_SPEC));
    return 0;
  }
  if (positionals.length === 0) {
    throw new ConfigError("compare: name the run directories to compare (deno task compare --help)");
  }
  if (!values.out && positionals.length > 1) {
    throw new ConfigError("--out is required with several runs: the folder to write the comparison into");
  }
  const out = (values.out ?? positionals[0]).replace(/\/+$/, "");
  const { comparison, groups } = await compareRuns(positionals, {
    condition: values.condition,
    metrics: values.metric,
  });
  const files = await writeComparison(comparison, out, groups);
  const figures = await exportFigures(`${out}/figures`, comparisonFigures(comparison), !values["no-render"]);
  for (const line of comparisonLines(comparison)) console.log(line);
  console.log(
    `  (letters: same letter = not significantly different, Holm-adjusted p > ${comparison.alpha})`,
  );
  console.log(`wrote ${files.join(", ")} and ${figures.length} figure file(s) in ${out}/figures`);
  return 0;
}

if (import.meta.main) await exitWith(compareCommand);
