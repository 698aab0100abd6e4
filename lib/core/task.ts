/**
 * A benchmark = a loader + a prompt pipeline (solver) + scorers + an aggregation. This file defines those
 * parts; `lib/benchmarks/<name>/task.ts` fills them in.
 * @module
 */
import type { Judge } from "../judges/judge.ts";
import type { ChatMessage, GenerationParams } from "../providers/types.ts";
import type { ReportSpec } from "../report/run_report.ts";
import type { SampleRow, Summary } from "../report/summary.ts";
import type { StoredOutput, StoredScore } from "../store/run_store.ts";
import type { Sample } from "./sample.ts";

/** Builds the messages of one turn from the sample and the conversation so far (user/assistant pairs). */
export interface Solver {
  /** Name recorded in the manifest, e.g. `chat`. */
  readonly name: string;
  /** Prompt templates it uses, by name (hashed into the manifest). */
  readonly templates: Record<string, string>;
  /** Returns the messages to send for `sample` after `history`. */
  build(sample: Sample, history: readonly ChatMessage[]): ChatMessage[];
}

/** A score a scorer produces for one sample (the run store adds sample, condition and scorer). */
export type ScoreValue = Pick<StoredScore, "run" | "value" | "valid" | "reason" | "callKey" | "detail">;

/** What a scorer gets for one sample. */
export interface ScoreInput {
  /** The sample. */
  sample: Sample;
  /** The model's answer. */
  answer: string;
  /** The judge, for judge-scored benchmarks. */
  judge?: Judge;
  /** How many times each answer is judged. */
  judgeRuns: number;
  /** The configured embeddings model (`--embed-model`); absent when none is configured. */
  embedder?: Embedder;
}

/** Embeds texts through the run store (cached like every call). */
export interface Embedder {
  /** Model label, e.g. `bge-m3 @ localhost:8000/v1`. */
  readonly label: string;
  /** Returns one vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>;
}

/** Turns an answer into scores. */
export interface Scorer {
  /** Name under which scores are stored, e.g. `judge`. */
  readonly name: string;
  /** `true` when it cannot work without a judge. */
  readonly needsJudge: boolean;
  /** Returns the scores of one answer (one per judge run for repeated judging). */
  score(input: ScoreInput): Promise<ScoreValue[]>;
  /** Sees every sample of the run before scoring starts (e.g. to fit corpus statistics such as IDF). */
  prepare?(samples: readonly Sample[]): void;
}

/** Everything the run store holds about one condition of a run, as aggregations read it. */
export interface RunView {
  /** Samples in file order. */
  samples: Sample[];
  /** Outputs by sample id. */
  outputs: Map<string, StoredOutput>;
  /** Scores by sample id (all scorers and runs). */
  scores: Map<string, StoredScore[]>;
}

/** Labels written into every summary, so offline results can never pass for model results. */
export interface RunLabels {
  /** Benchmark name. */
  benchmark: string;
  /** Model label. */
  model: string;
  /** Judge label, or `null` for benchmarks without one. */
  judge: string | null;
  /** Experimental condition. */
  condition: string;
  /** `true` when the model or the judge is an offline stand-in. */
  offline: boolean;
  /** Judge runs per answer. */
  judgeRuns: number;
}

/** A benchmark, registered by name. */
export interface Task {
  /** Registry name, e.g. `llmeval-med`. */
  readonly name: string;
  /** Title for reports. */
  readonly title: string;
  /** Path of the sample the project ships, relative to the project root. */
  readonly defaultDataPath: string;
  /** Fields tables group by, e.g. `category`, `difficulty`. */
  readonly groupFields: readonly string[];
  /**
   * The benchmark-specific flags it uses, beyond those every benchmark takes (e.g. `judge`, `judge-runs`,
   * `human-eval`, `embed-model`); any other benchmark-specific flag given for it is an error, not ignored.
   */
  readonly flags: readonly string[];
  /** One paragraph for `deno task eval <benchmark> --help`: what is asked, how it is scored. */
  readonly description: string;
  /** Default generation parameters of the model under test. */
  readonly generation: GenerationParams;
  /** Reads and validates a data file. Throws `InputError` with a one-line message on bad input. */
  load(path: string): Promise<Sample[]>;
  /** The prompt pipeline. */
  readonly solver: Solver;
  /** The chain-of-thought variant of the solver (`--ablation cot`); default: {@linkcode Solver} + a generic instruction. */
  readonly cotSolver?: Solver;
  /** The scorers. */
  readonly scorers: readonly Scorer[];
  /** Judge prompt builder, for judge-scored tasks. */
  readonly judgePrompt?: (sample: Sample, answer: string) => ChatMessage[];
  /** Judge prompt templates, by name (hashed into the manifest). */
  readonly judgeTemplates?: Record<string, string>;
  /** How the summary is shown in tables and figures. */
  readonly report: ReportSpec;
  /** Each sample's metric values and group fields, from what the run store holds (paired comparisons use it). */
  rows(view: RunView, labels: RunLabels): SampleRow[];
  /** Computes the summary (metrics with n and 95% CI, per group) from what the run store holds. */
  aggregate(view: RunView, labels: RunLabels): Summary;
}
