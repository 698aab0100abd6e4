/**
 * CliMedBench as a task: the JSONL loader, the scenario prompts (vanilla, or chain of thought for
 * `--ablation cot`), the per-scenario scorer and aggregation, and tables in the paper's Table 2 layout.
 * @module
 */
import type { Task } from "../../core/task.ts";
import { aggregateClimedBench, climedRows, GROUP_FIELDS } from "./aggregate.ts";
import { BENCHMARK, loadClimedBench } from "./load.ts";
import { climedSolver } from "./prompts.ts";
import { climedTables } from "./report.ts";
import { climedScorer } from "./scorer.ts";

/** Returns the CliMedBench task. */
export function createClimedBenchTask(): Promise<Task> {
  return Promise.resolve({
    name: BENCHMARK,
    title: "CliMedBench",
    defaultDataPath: "data/climedbench/sample.jsonl",
    groupFields: GROUP_FIELDS,
    generation: { maxTokens: 1024 },
    load: loadClimedBench,
    solver: climedSolver("vanilla"),
    cotSolver: climedSolver("cot"),
    scorers: [climedScorer()],
    report: {
      metrics: [
        { name: "score", label: "score", percent: true },
        { name: "extraction_failure", label: "extraction failures", percent: true },
      ],
      overall: { name: "macro_score", label: "Average" },
      tables: climedTables,
    },
    rows: (view) => climedRows(view),
    aggregate: aggregateClimedBench,
  });
}
