/**
 * What is compared: from finished runs of one benchmark (read back as `eval` computed their rows), the
 * entries side by side — the models of several runs in one condition, or the conditions of one run — each
 * with a label unique among them, and the checks that they belong together (one benchmark, the condition
 * present in every run).
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { GroupDisplay, MetricDisplay } from "../core/report_spec.ts";
import type { ClusterNames, SampleRow, Summary } from "../core/summary.ts";
import { summaryName } from "../core/summary.ts";

/** One condition of a finished run: its summary as the run wrote it and its per-sample rows. */
export interface RunCondition {
  /** The condition's summary (model, condition, offline, judge runs). */
  summary: Summary;
  /** Its per-sample rows, as `eval` computes them (a sample not fully scored has no values). */
  rows: readonly SampleRow[];
}

/** What a comparison needs to know of a run's benchmark. */
export interface BenchmarkInfo {
  /** Registry name, e.g. `llmeval-med`. */
  readonly name: string;
  /** Title for headings. */
  readonly title: string;
  /** Fields tables group by. */
  readonly groupFields: readonly string[];
  /** What its clusters are, when some samples belong together (rounds of one conversation). */
  readonly clusters?: ClusterNames;
  /** Its metrics (first the primary one) and how groups are ordered and named. */
  readonly report: { readonly metrics: readonly MetricDisplay[]; readonly groups?: GroupDisplay };
}

/** A finished run read back from its directory (what `openRun` of lib/pipeline/notebook_source.ts returns). */
export interface FinishedRun {
  /** The run directory. */
  dir: string;
  /** Its benchmark. */
  task: BenchmarkInfo;
  /** Every condition, baseline first. */
  conditions: readonly RunCondition[];
}

/** One column of a comparison: a model (or a condition) with its per-sample rows. */
export interface CompareEntry {
  /** Label, unique within the comparison (`model`, `model · condition`, with the run directory when needed). */
  label: string;
  /** The summary's model label (what paper tables name a run by). */
  model: string;
  /** The condition. */
  condition: string;
  /** `true` for offline stand-ins. */
  offline: boolean;
  /** The run directory. */
  run: string;
  /** Per-sample rows. */
  rows: readonly SampleRow[];
}

/** Entries of one benchmark to compare. */
export interface CompareSet {
  /** The benchmark. */
  task: BenchmarkInfo;
  /** The entries, in the order given. */
  entries: CompareEntry[];
}

/** Returns the last part of a directory path. */
function baseName(dir: string): string {
  return dir.replace(/\/+$/, "").split("/").pop() || dir;
}

/** Returns `labels` with every repeated one made unique by its run directory (its name, else its path). */
function uniqueLabels(labels: readonly string[], runs: readonly string[]): string[] {
  const repeated = (list: readonly string[], i: number) => list.filter((l) => l === list[i]).length > 1;
  const named = labels.map((l, i) => repeated(labels, i) ? `${l} (${baseName(runs[i])})` : l);
  return named.map((l, i) => repeated(named, i) ? `${labels[i]} (${runs[i]})` : l);
}

/** Returns an entry for one condition of a run. */
function entryOf(run: FinishedRun, condition: RunCondition, label: string): CompareEntry {
  return {
    label,
    model: condition.summary.model,
    condition: condition.summary.condition,
    offline: condition.summary.offline,
    run: run.dir,
    rows: condition.rows,
  };
}

/**
 * Returns the entries to compare: with one run, each of its conditions (baseline and ablations, labelled by
 * condition); with several, each run's condition `condition` (default each run's baseline), labelled by model
 * (`· condition` and `[offline]` as tables name a summary; the run directory added where labels repeat).
 * Throws a one-line {@linkcode ConfigError} when the runs are of different benchmarks, a run lacks the
 * condition, or there are fewer than two entries.
 */
export function compareSet(runs: readonly FinishedRun[], condition?: string): CompareSet {
  if (runs.length === 0) throw new ConfigError("compare: name the run directories to compare");
  const first = runs[0];
  for (const run of runs.slice(1)) {
    if (run.task.name !== first.task.name) {
      throw new ConfigError(
        `compare: ${run.dir} is a ${run.task.name} run but ${first.dir} a ${first.task.name} run; ` +
          "compare runs of one benchmark",
      );
    }
  }
  if (runs.length === 1) {
    if (condition !== undefined) {
      throw new ConfigError(
        `--condition picks one condition of each of several runs; ${first.dir} alone is compared across its ` +
          "conditions (drop --condition, or name more runs)",
      );
    }
    if (first.conditions.length < 2) {
      throw new ConfigError(
        `compare: ${first.dir} has one condition (${first.conditions[0]?.summary.condition ?? "none"}); ` +
          "name two or more runs of the same items, or a run with ablations",
      );
    }
    return {
      task: first.task,
      entries: first.conditions.map((c) => entryOf(first, c, c.summary.condition)),
    };
  }
  const chosen = runs.map((run) => {
    const found = condition === undefined
      ? run.conditions[0]
      : run.conditions.find((c) => c.summary.condition === condition);
    if (!found) {
      throw new ConfigError(
        `--condition ${condition}: ${run.dir} has no condition "${condition}"; it has ${
          run.conditions.map((c) => c.summary.condition).join(", ")
        }`,
      );
    }
    return found;
  });
  const labels = uniqueLabels(chosen.map((c) => summaryName(c.summary)), runs.map((r) => r.dir));
  return { task: first.task, entries: runs.map((run, i) => entryOf(run, chosen[i], labels[i])) };
}
