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
    language: "zh",
    defaultDataPath: "data/climedbench/sample.jsonl",
    groupFields: GROUP_FIELDS,
    description:
      "14 clinical scenarios: choice items scored by accuracy (answers extracted from the reply; " +
      "unreadable replies reported as extraction failures), sequencing by Kendall's tau-b, knowledge " +
      "explanations by ROUGE-1, wrong-treatment detection by embedding similarity (--embed-model; else an " +
      "offline character TF-IDF cosine, labelled OFFLINE). Tables in the paper's Table 2 layout.",
    generation: { maxTokens: 1024 },
    // Choice items: "none of the above" (perturb:nota) applies to the single-answer ones.
    choices: true,
    load: loadClimedBench,
    solver: climedSolver("vanilla"),
    // Its own chain-of-thought prompts (the answer-format line asks for reasoning first).
    solverFor: { cot: climedSolver("cot") },
    scorers: [climedScorer()],
    roles: [{
      name: "embed",
      description: "embeddings model of wrong-treatment similarity (default: offline character TF-IDF)",
      required: false,
    }],
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
