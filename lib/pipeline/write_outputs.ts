/**
 * Writes what a run produced, all derived from the run store: `summary.json`, `samples.jsonl`,
 * `tables/*.{md,csv,tex}`, `figures/*.{html,svg,png,pdf}` and `log/*.jsonl`.
 * @module
 */
import type { Task } from "../core/task.ts";
import { exportFigures } from "../report/figures.ts";
import { runFigures, runTables } from "../report/run_report.ts";
import { type Summary, SummarySchema } from "../report/summary.ts";
import { writeTable } from "../report/tables.ts";
import { exportStore, toJsonl } from "../store/export.ts";
import type { RunStore } from "../store/run_store.ts";

/** Returns one JSON row per sample: its fields, answer (or error) and scores by scorer and run. */
export function sampleRows(store: RunStore, condition: string): Record<string, unknown>[] {
  const outputs = new Map(store.outputs(condition).map((o) => [o.sampleId, o]));
  const scores = Map.groupBy(store.scores(condition), (s) => s.sampleId);
  return store.samples().map((sample) => {
    const output = outputs.get(sample.id);
    const own = scores.get(sample.id) ?? [];
    return {
      id: sample.id,
      condition,
      ...sample.fields,
      input: sample.input,
      answer: output?.text ?? null,
      answer_error: output?.error ?? (output ? null : "not run"),
      scores: own.map((s) => ({
        scorer: s.scorer,
        run: s.run,
        value: s.value,
        valid: s.valid,
        reason: s.reason,
      })),
    };
  });
}

/** Writes every output of a run into `out`; figures as HTML always, and as SVG/PNG/PDF when `render`. */
export async function writeRunOutputs(
  out: string,
  task: Task,
  store: RunStore,
  summary: Summary,
  condition: string,
  render: boolean,
): Promise<void> {
  SummarySchema.parse(summary);
  await Deno.writeTextFile(`${out}/summary.json`, JSON.stringify(summary, null, 2) + "\n");
  await Deno.writeTextFile(`${out}/samples.jsonl`, toJsonl(sampleRows(store, condition)));
  for (const [name, table] of Object.entries(runTables(summary, task.report))) {
    await writeTable(`${out}/tables`, name, table);
  }
  const figures = runFigures([summary], task.report);
  await exportFigures(`${out}/figures`, figures, render);
  await exportStore(store, `${out}/log`);
}
