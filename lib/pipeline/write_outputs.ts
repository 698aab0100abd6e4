/**
 * Writes what a run produced, all derived from the run store: per condition `summary.json` and `samples.jsonl`
 * (the baseline at the top of the output directory, ablations under `conditions/<name>/`), `summaries.json`
 * (all conditions), `tables/*.{md,csv,tex}` (the baseline's tables, conditions side by side, paired
 * baseline-vs-ablation tables, length buckets), `figures/*.{html,svg,png,pdf}` and `log/*.jsonl`.
 * @module
 */
import { loadTokenCounter, type TokenCounter } from "../providers/flow/token_estimate.ts";
import type { Condition } from "../ablations/condition.ts";
import {
  bucketFigure,
  type BucketSeries,
  type BucketSpec,
  bucketTable,
  lengthBuckets,
  type LengthMeasure,
} from "../analysis/buckets.ts";
import { safeName } from "../core/fs.ts";
import type { Sample } from "../core/sample.ts";
import type { Task } from "../core/task.ts";
import { pairedTable } from "../report/ablation_report.ts";
import { exportFigures, type FigureSpec } from "../report/figures.ts";
import { groupBarFigure, runFigures, runTables } from "../report/run_report.ts";
import { type SampleRow, type Summary, summaryName, SummarySchema } from "../core/summary.ts";
import { intervalLines, namedOutcomesLine, outcomesLines, writeTable } from "../report/tables.ts";
import { designOf } from "../report/summary.ts";
import { summaryOutcomesLine } from "../report/outcomes_note.ts";
import { type Table } from "../core/report_spec.ts";
import { exportStore } from "../store/export.ts";
import { type CompletenessCounts, partialRunNote } from "./completeness.ts";
import { writeSampleRows } from "./sample_rows.ts";
import type { RunStore } from "../store/run_store.ts";

/** What one condition of a run produced. */
export interface ConditionResult {
  /** The condition. */
  condition: Condition;
  /** Its summary. */
  summary: Summary;
  /** Its per-sample metric values. */
  rows: SampleRow[];
  /** The samples as the model saw them under this condition. */
  samples: Sample[];
  /** Why its failed samples failed: each distinct error with its count (empty when none failed). */
  failureCauses: Map<string, number>;
  /**
   * Its `samples.jsonl` written while it was evaluated (a file of its own, moved into place with the summary),
   * when it was (lib/pipeline/sample_rows.ts); else the rows are read from the store.
   */
  rowsFile?: string;
  /** The `rowHeadsDigest` of its rows (sample_rows.ts), begun with the run (else taken when they are written). */
  rowHeadsDigest?: Promise<string>;
  /**
   * The condition's warnings: the model's answers, or another role's model's replies, truncated more than 5%
   * (raise `--max-tokens`, `--role-opt ROLE.max-tokens`).
   */
  warnings?: string[];
  /** One line per role and model with some reply that ended other than normally (printed at the end of a run). */
  outcomeLines?: string[];
}

/** Everything {@linkcode writeRunOutputs} needs. */
export interface RunOutputs {
  /** Output directory. */
  out: string;
  /** The task. */
  task: Task;
  /** The run store. */
  store: RunStore;
  /** One result per condition, baseline first. */
  results: readonly ConditionResult[];
  /** Length-bucket analysis, if requested. */
  buckets?: BucketSpec;
  /** Render SVG/PNG/PDF (HTML is always written). */
  render: boolean;
}

/**
 * Writes a condition's `summary.json` and `samples.jsonl` into `dir` (the rows as {@linkcode writeSampleRows}
 * writes or keeps them).
 */
async function writeSummary(dir: string, store: RunStore, result: ConditionResult): Promise<void> {
  // Checked once per summary: zod's interpreter, not the parser it would compile first (~6 -> ~3.5 ms cold).
  SummarySchema.parse(result.summary, { jitless: true });
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/summary.json`, JSON.stringify(result.summary, null, 2) + "\n");
  await writeSampleRows(dir, store, result.condition.name, result.samples, {
    ahead: result.rowsFile,
    digest: result.rowHeadsDigest,
  });
}

/** Returns the tables and figures that compare conditions and length buckets. */
export function comparisonOutputs(
  task: Task,
  results: readonly ConditionResult[],
  buckets?: BucketSpec,
  count?: TokenCounter,
): { tables: Record<string, Table>; figures: Record<string, FigureSpec> } {
  const tables: Record<string, Table> = {};
  const figures: Record<string, FigureSpec> = {};
  const metric = task.report.metrics[0];
  const field = task.groupFields[0];
  const [base, ...others] = results;
  if (others.length) {
    const summaries = results.map((r) => r.summary);
    for (const [name, table] of Object.entries(task.report.tables?.(summaries) ?? {})) {
      tables[`${name}_conditions`] = withNotes(table, [
        ...intervalLines(summaries),
        ...outcomesLines(summaries),
      ]);
    }
    figures.conditions = groupBarFigure(results.map((r) => r.summary), field, metric, task.report.groups);
  }
  for (const other of others) {
    const id = `ablation_${safeName(other.condition.name)}`;
    tables[id] = pairedTable(base.rows, other.rows, {
      metric: metric.name,
      percent: metric.percent,
      field,
      baseline: base.condition.name,
      condition: other.condition.name,
      model: base.summary.model,
      display: task.report.groups,
      // What the condition did (translator, exemplars, role table), from its own summary's notes, then how the
      // replies of both conditions ended.
      notes: [
        ...other.summary.notes.filter((n) =>
          !base.summary.notes.includes(n) && n !== summaryOutcomesLine(other.summary)
        ),
        ...outcomesLines([base.summary, other.summary]),
      ],
    });
    figures[id] = groupBarFigure([base.summary, other.summary], field, metric, task.report.groups);
  }
  if (buckets) {
    const series: BucketSeries[] = results.map((r) => ({ label: summaryName(r.summary), rows: r.rows }));
    for (const measure of ["chars", "tokens"] as LengthMeasure[]) {
      const bucketOf = lengthBuckets(base.samples, buckets.k, measure, field, count);
      for (const [i, s] of series.entries()) {
        // The metric's interval as the condition's summary chose it (Wilson for a rate, clusters, ...).
        const table = bucketTable(s, bucketOf, {
          k: buckets.k,
          metric: metric.name,
          percent: metric.percent,
          within: field,
          measure,
          design: designOf(results[i].summary, metric.name),
        });
        // The condition's outcomes line, named as side-by-side tables name a condition other than the baseline.
        const lines = i === 0 ? outcomesLines([base.summary]) : namedOutcomesLine(results[i].summary);
        tables[`length_${measure}_${safeName(results[i].condition.name)}`] = withNotes(table, lines);
      }
      figures[`length_${measure}`] = bucketFigure(series, bucketOf, {
        k: buckets.k,
        metric: metric.name,
        percent: metric.percent,
        measure,
        title: `${task.title}: ${metric.label} by input length (${measure})`,
        design: designOf(base.summary, metric.name),
      });
    }
  }
  return { tables, figures };
}

/**
 * Returns the lines saying which conditions of `results` are partial runs (the baseline's as it stands in its
 * summary, another's prefixed with its name, as side-by-side tables print a condition's own notes).
 */
export function partialRunLines(results: readonly Pick<ConditionResult, "summary">[]): string[] {
  return results.filter((r) => r.summary.complete === false).map((r) => {
    const note = partialRunNote(r.summary.counts as unknown as CompletenessCounts);
    return r === results[0] ? note : `${summaryName(r.summary)}: ${note}`;
  });
}

/** Returns `tables` with each of `lines` added to the notes of every table that does not carry it yet. */
function withLines(tables: Record<string, Table>, lines: readonly string[]): Record<string, Table> {
  if (!lines.length) return tables;
  return Object.fromEntries(Object.entries(tables).map(([name, table]) => [name, withNotes(table, lines)]));
}

/** Returns `table` with each of `lines` it does not carry yet added to its notes. */
function withNotes(table: Table, lines: readonly string[]): Table {
  return { ...table, notes: [...table.notes, ...lines.filter((l) => !table.notes.includes(l))] };
}

/** Writes every output of a run into `out`; returns the tables comparing its conditions (empty for one). */
export async function writeRunOutputs(outputs: RunOutputs): Promise<Record<string, Table>> {
  const { out, task, store, results, render } = outputs;
  const base = results[0];
  const partial = partialRunLines(results);
  await writeSummary(out, store, base);
  for (const other of results.slice(1)) {
    await writeSummary(`${out}/conditions/${safeName(other.condition.name)}`, store, other);
    const lines = [
      ...partialRunLines([other]),
      ...intervalLines([other.summary]),
      ...outcomesLines([other.summary]),
    ];
    for (const [name, table] of Object.entries(withLines(runTables(other.summary, task.report), lines))) {
      await writeTable(`${out}/conditions/${safeName(other.condition.name)}/tables`, name, table);
    }
  }
  await Deno.writeTextFile(
    `${out}/summaries.json`,
    JSON.stringify(results.map((r) => r.summary), null, 2) + "\n",
  );
  // cl100k_base's ranks load only for a run with length buckets.
  const count = outputs.buckets ? await loadTokenCounter() : undefined;
  const comparison = comparisonOutputs(task, results, outputs.buckets, count);
  comparison.tables = withLines(comparison.tables, partial);
  // Every table of a partial run says so, whichever summary its own notes come from; every table of the
  // baseline names its intervals and says how its replies ended (a benchmark's own table may not carry the
  // summary's notes).
  const own = withLines(runTables(base.summary, task.report), [
    ...intervalLines([base.summary]),
    ...outcomesLines([base.summary]),
  ]);
  const tables = withLines({ ...own, ...comparison.tables }, partial);
  for (const [name, table] of Object.entries(tables)) await writeTable(`${out}/tables`, name, table);
  await exportFigures(
    `${out}/figures`,
    { ...runFigures([base.summary], task.report), ...comparison.figures },
    render,
  );
  await exportStore(store, `${out}/log`);
  return comparison.tables;
}
