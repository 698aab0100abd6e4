/**
 * The power of a benchmark from finished runs of it: the variance one run's rows give (its rate or SD), or two
 * runs' on their shared items (the observed discordance, or SD of the differences), and the rows of a
 * benchmark's power table — each variance basis at the runs' n and at the full published set's n.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { MetricDisplay } from "../core/report_spec.ts";
import type { SampleRow } from "../core/summary.ts";
import {
  defaultBasis,
  metricScale,
  pairedRunsBasis,
  pointOf,
  powerAnswer,
  type PowerBasis,
  singleRunBasis,
} from "./benchmark_power.ts";
import type { FinishedRun } from "./entries.ts";
import type { PowerRow } from "./power_table.ts";
import type { PublishedSize } from "./published_sizes.ts";

/** The differences the n needed is given for, in points (percentage points of a rate). */
export const NEEDED_POINTS = [2, 5] as const;

/** Returns a run's baseline values of `metric` by sample id (samples without a value left out). */
function metricValues(rows: readonly SampleRow[], metric: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const row of rows) {
    const v = row.values[metric];
    if (typeof v === "number") values.set(row.id, v);
  }
  return values;
}

/**
 * Returns the variance basis of `metric` from one run (its baseline's values) or two (their shared items),
 * with the number of items it rests on. Throws a one-line {@linkcode ConfigError} naming the run when there
 * are more than two runs, a run has fewer than 2 values, or two runs share fewer than 2 items.
 */
export function observedBasis(
  runs: readonly FinishedRun[],
  metric: string,
  flag = "--run",
  nameOf: (run: FinishedRun) => string = (run) => run.dir,
): { basis: PowerBasis; items: number } {
  if (runs.length < 1 || runs.length > 2) {
    throw new ConfigError(`${flag}: give one run or two (got ${runs.length})`);
  }
  const values = runs.map((run) => metricValues(run.conditions[0].rows, metric));
  values.forEach((v, i) => {
    if (v.size < 2) {
      throw new ConfigError(
        `${flag} ${runs[i].dir}: ${v.size} item(s) with a value of ${metric}; a variance needs at least 2`,
      );
    }
  });
  if (runs.length === 1) {
    return {
      basis: singleRunBasis([...values[0].values()], `observed in ${nameOf(runs[0])}`),
      items: values[0].size,
    };
  }
  const shared = [...values[0].keys()].filter((id) => values[1].has(id));
  if (shared.length < 2) {
    throw new ConfigError(
      `${flag} ${runs[1].dir}: shares ${shared.length} item(s) with a value of ${metric} with ${
        runs[0].dir
      } ` +
        "(by sample id); two runs give a paired variance only on the same items",
    );
  }
  return {
    basis: pairedRunsBasis(
      shared.map((id) => values[0].get(id)!),
      shared.map((id) => values[1].get(id)!),
      `observed in ${nameOf(runs[0])} vs ${nameOf(runs[1])}`,
    ),
    items: shared.length,
  };
}

/** What {@linkcode powerRows} is given. */
export interface PowerRowsInput {
  /** Benchmark name. */
  benchmark: string;
  /** The metric (its primary one). */
  metric: MetricDisplay;
  /** Runs of real models (their baselines are read; the first two give the paired variance). */
  runs: readonly FinishedRun[];
  /** Items the benchmark's runs evaluated (the n of the conservative default's first row). */
  items: number;
  /** The full published set's size, when known. */
  published?: PublishedSize;
}

/**
 * Returns the rows of a benchmark's power table: the variance observed in the first two runs (paired) or in
 * the one run there is, then the conservative default (when the metric has one), each at the runs' n and at
 * the published n; and a note when the runs give no variance (too few values).
 */
export function powerRows(input: PowerRowsInput): { rows: PowerRow[]; notes: string[] } {
  const scale = metricScale(input.benchmark, input.metric);
  const differences = NEEDED_POINTS.map((p) => p * pointOf(scale));
  const bases: { label: string; basis: PowerBasis; items: number }[] = [];
  const notes: string[] = [];
  if (input.runs.length) {
    const used = input.runs.slice(0, 2);
    const model = (run: FinishedRun) => run.conditions[0].summary.model;
    try {
      const { basis, items } = observedBasis(used, input.metric.name, "runs", model);
      bases.push({ label: `observed: ${used.map(model).join(" vs ")}`, basis, items });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      notes.push(`no observed variance: ${err.message}`);
    }
  }
  const fallback = defaultBasis(scale);
  if (fallback) bases.push({ label: "conservative default", basis: fallback, items: input.items });
  const rows = bases.flatMap(({ label, basis, items }) => [
    { label, at: "these runs", answer: powerAnswer(basis, items, { differences }) },
    ...(input.published && input.published.n !== items
      ? [{ label, at: "published set", answer: powerAnswer(basis, input.published.n, { differences }) }]
      : []),
  ]);
  return { rows, notes };
}
