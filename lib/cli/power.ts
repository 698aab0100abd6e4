/**
 * `deno task power --benchmark B [--delta D] [--paired] [--run RUN_DIR]… [--n N] [--metric M] [--json]`:
 * before a run, how large a difference benchmark B can detect at its n (the full published set's, from the
 * transcribed paper data) and variance (from one or two runs' rows, or a stated conservative default): the
 * minimum detectable difference at 80% power paired and unpaired, the power to detect D, and the n needed for
 * 2- and 5-point differences. One screen, or JSON for scripts. The numbers are lib/stats/power.ts's.
 * @module
 */
import { exitWith } from "./exit_code.ts";
import { getTask } from "../benchmarks/registry.ts";
import {
  defaultBasis,
  type MetricScale,
  metricScale,
  pointOf,
  type PowerAnswer,
  powerAnswer,
} from "../compare/benchmark_power.ts";
import { NEEDED_POINTS, observedBasis, powerRows } from "../compare/run_power.ts";
import { powerScreen, powerTable } from "../compare/power_table.ts";
import { publishedSizes } from "../compare/published_sizes.ts";
import { ConfigError } from "../core/errors.ts";
import type { MetricDisplay, Table } from "../core/report_spec.ts";
import type { Task } from "../core/task.ts";
import { writeTable } from "../report/tables.ts";
import { type CommandSpec, commandUsage, type FlagValues, parseCommand } from "./args.ts";
import { readFinishedRuns } from "./compare.ts";

/** `power`'s flags and help page. */
export const POWER_SPEC = {
  command: "deno task power",
  description:
    "Says before a run how large a difference a benchmark can detect: at its n (the full published " +
    "set's, from data/papers/, or --n) and its metric's variance (observed in --run's rows, or a conservative " +
    "default: p = 0.5 for a rate, half the range for a bounded score), the minimum detectable difference at " +
    "80% power with a paired design (both models on the same items, as deno task compare tests them) and an " +
    "unpaired one, the power to detect --delta, and the items needed for 2- and 5-point differences. Two-sided " +
    "alpha = 0.05; normal approximations (Connor's formula for paired rates).",
  flags: {
    benchmark: {
      value: "B",
      help: "the benchmark (required), e.g. llmeval-med, climedbench, permedcqa, medgpteval",
    },
    delta: {
      value: "D",
      help:
        "a difference to detect, in the metric's units (0.03 = 3 points of a rate): its power, and the n " +
        "80% power needs",
    },
    paired: { help: "the design you plan is paired (both models on the same items); default unpaired" },
    run: {
      value: "RUN_DIR",
      multiple: true,
      help: "take the variance from a finished run of the benchmark (its rate or SD); twice, from two runs " +
        "on the same items (the observed discordance, or SD of the differences)",
    },
    n: { value: "N", help: "items per model (default the published set's n; without one, the run's)" },
    metric: { value: "M", help: "the metric (default the benchmark's primary metric)" },
    json: { help: "print the answer as JSON" },
  },
  notes: [
    "docs/comparing-models.md explains the formulas and where each benchmark's n comes from.",
    "",
    "example: deno task power --benchmark llmeval-med --delta 0.03 --paired --run runs/qwen7b",
  ],
} satisfies CommandSpec;

/** Parses a number flag; throws a one-line ConfigError unless it is finite and passes `ok`. */
function numberFlag(name: string, raw: string | undefined, ok: (v: number) => boolean, what: string) {
  if (raw === undefined) return undefined;
  const value = raw.trim() === "" ? NaN : Number(raw);
  if (!Number.isFinite(value) || !ok(value)) throw new ConfigError(`--${name} expects ${what}, got "${raw}"`);
  return value;
}

/** Returns the metric asked about, as the benchmark's tables show it (a row metric not in them: as a mean). */
function chosenMetric(
  metrics: readonly MetricDisplay[],
  name: string | undefined,
  runs: boolean,
): MetricDisplay {
  if (name === undefined) return metrics[0];
  const found = metrics.find((m) => m.name === name);
  if (found) return found;
  if (!runs) {
    throw new ConfigError(
      `--metric ${name}: not one of the benchmark's metrics (${metrics.map((m) => m.name).join(", ")}); ` +
        "another metric of the rows needs --run RUN_DIR for its variance",
    );
  }
  return { name, label: name, percent: false };
}

/** Returns the variance basis the runs give (their baselines' rows), checked to be runs of `benchmark`. */
async function runBasis(dirs: readonly string[], benchmark: string, metric: string) {
  if (dirs.length > 2) throw new ConfigError(`--run: give one run or two (got ${dirs.length})`);
  const runs = await readFinishedRuns(dirs);
  for (const run of runs) {
    if (run.task.name !== benchmark) {
      throw new ConfigError(`--run ${run.dir}: a ${run.task.name} run, not ${benchmark}`);
    }
  }
  return observedBasis(runs, metric);
}

/** What `power` answers, as `--json` prints it. */
export interface PowerOutput {
  /** Benchmark name. */
  benchmark: string;
  /** Benchmark title. */
  title: string;
  /** Metric name. */
  metric: string;
  /** The metric's label in the benchmark's tables. */
  metric_label: string;
  /** The metric's scale (the unit of its points). */
  scale: MetricScale;
  /** Where n comes from. */
  n_source: string;
  /** The design `--paired` names. */
  design: "paired" | "unpaired";
  /** The answer. */
  answer: PowerAnswer;
}

/** Returns the answer to `power`'s flags (everything checked first; nothing is written). */
export async function powerOutput(
  values: FlagValues<typeof POWER_SPEC.flags>,
  positionals: readonly string[] = [],
): Promise<PowerOutput> {
  if (positionals.length) {
    throw new ConfigError(`power: unexpected argument "${positionals[0]}" (name runs with --run RUN_DIR)`);
  }
  if (!values.benchmark) {
    throw new ConfigError("--benchmark: name the benchmark, e.g. --benchmark llmeval-med");
  }
  const delta = numberFlag(
    "delta",
    values.delta,
    (v) => v > 0,
    "a difference > 0 (0.03 = 3 points of a rate)",
  );
  const n = numberFlag("n", values.n, (v) => Number.isInteger(v) && v >= 2, "a whole number of items >= 2");
  const task = await getTask(values.benchmark);
  const runs = values.run ?? [];
  const metric = chosenMetric(task.report.metrics, values.metric, runs.length > 0);
  const scale = metricScale(task.name, metric);
  if (delta !== undefined && scale.percent && delta >= 1) {
    throw new ConfigError(
      `--delta expects a difference of a rate below 1 (0.03 = 3 points), got "${values.delta}"`,
    );
  }
  const observed = runs.length ? await runBasis(runs, task.name, metric.name) : undefined;
  const basis = observed?.basis ?? defaultBasis(scale);
  if (!basis) {
    throw new ConfigError(
      `--run: ${metric.name} of ${task.name} is neither a rate nor a score of known range, so it has no ` +
        "conservative default; give --run RUN_DIR to take its variance from a run",
    );
  }
  const published = (await publishedSizes()).get(task.name);
  const [items, nSource] = n !== undefined
    ? [n, "items (--n)"]
    : published
    ? [published.n, `${published.unit}: ${published.source}`]
    : observed
    ? [observed.items, "items of the run (no published size of this benchmark is known here)"]
    : [undefined, ""];
  if (items === undefined) {
    throw new ConfigError(
      `--n: no published size of ${task.name} is known here; give --n N or --run RUN_DIR`,
    );
  }
  const point = pointOf(scale);
  return {
    benchmark: task.name,
    title: task.title,
    metric: metric.name,
    metric_label: metric.label,
    scale,
    n_source: nSource,
    design: values.paired ? "paired" : "unpaired",
    answer: powerAnswer(basis, items, { differences: NEEDED_POINTS.map((p) => p * point), delta }),
  };
}

/**
 * Writes the power table of a benchmark for `reproduce` into `dir` (`power.{md,csv,tex}` and `power.json`): its
 * primary metric's variance observed in the runs in `dirs` (the first two paired; the real models' runs) and
 * its conservative default, each at `items` (the items the runs evaluated) and at the published set's n.
 * Returns the table and the files, or `undefined` when the metric has neither (no run, no default).
 */
export async function writeReportPower(
  task: Pick<Task, "name" | "title" | "report">,
  dirs: readonly string[],
  items: number,
  dir: string,
): Promise<{ table: Table; files: string[] } | undefined> {
  const metric = task.report.metrics[0];
  const published = (await publishedSizes()).get(task.name);
  const { rows, notes } = powerRows({
    benchmark: task.name,
    metric,
    runs: await readFinishedRuns(dirs),
    items,
    published,
  });
  if (rows.length === 0) return undefined;
  const table = powerTable(task.title, metric.label, metricScale(task.name, metric), rows);
  table.notes.push(
    ...notes,
    ...(published ? [`published set: ${published.n} ${published.unit}; ${published.source}`] : []),
  );
  const files = await writeTable(dir, "power", table);
  const json = `${dir}/power.json`;
  await Deno.writeTextFile(
    json,
    `${JSON.stringify({ benchmark: task.name, metric: metric.name, published, rows, notes }, null, 2)}\n`,
  );
  return { table, files: [...files, json] };
}

/** `power`: prints the answer (one screen, or JSON); returns the exit code. */
export async function powerCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(POWER_SPEC, args);
  if (help) {
    console.log(commandUsage(POWER_SPEC));
    return 0;
  }
  const output = await powerOutput(values, positionals);
  if (values.json) {
    console.log(JSON.stringify(output, null, 2));
    return 0;
  }
  for (
    const line of powerScreen(output.answer, {
      title: output.title,
      metric: output.metric_label,
      scale: output.scale,
      nSource: output.n_source,
      paired: output.design === "paired",
    })
  ) console.log(line);
  return 0;
}

if (import.meta.main) await exitWith(powerCommand);
