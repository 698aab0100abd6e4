/**
 * Test helper: small offline runs of the four benchmarks that between them take every path a run's writes take
 * (CoT and perturbation conditions, multi-turn conversations judged twice, rubric judges with named values,
 * MedJudge), for tests that hold what a run wrote beside what the store reads back.
 * @module
 */
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";

/** Each run's name and settings (without `out`). */
export const OFFLINE_RUNS: [string, Partial<EvalConfig>][] = [
  ["climedbench, CoT and a perturbation beside the baseline", {
    benchmark: "climedbench",
    model: "offline:reference",
    limit: 30,
    ablations: ["cot", "perturb:nota"],
  }],
  ["llmeval-med, multi-turn, two judge runs", {
    benchmark: "llmeval-med",
    model: "offline:reference",
    judge: "offline:overlap",
    judgeRuns: 2,
    limit: 24,
  }],
  ["medgpteval, rubric judges with named values", {
    benchmark: "medgpteval",
    model: "offline:reference",
    judge: "offline:rubric",
    limit: 8,
  }],
  ["permedcqa, MedJudge", {
    benchmark: "permedcqa",
    model: "offline:reference",
    judge: "offline:medjudge",
    limit: 10,
  }],
];
