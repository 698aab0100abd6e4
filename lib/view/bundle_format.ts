/**
 * The data contract between the bundle writer (Deno) and the viewer (the browser code in `assets/`): what
 * `data/meta.js` holds, and what each compressed chunk holds once decoded. Every file under `data/` is a
 * classic script calling `medevalView.chunk(name, payload)` (a page opened from `file://` may load scripts but
 * not fetch files); `payload` is the meta object itself, or base64 of the gzip of a chunk's JSON.
 * @module
 */
import type { Estimate, Summary } from "../core/summary.ts";
import type { MetricDisplay } from "../core/report_spec.ts";
import type { ChatMessage, TokenUsage } from "../core/chat.ts";
import type { StoredScore } from "../core/records.ts";

/** Version of the bundle's data layout (bumped when the viewer could not read an older one). */
export const BUNDLE_FORMAT = 1;

/** Bits of a row's `flags` (one number per sample and condition). */
export const FLAG = {
  /** No output is stored for the sample in this condition. */
  notRun: 1,
  /** The answer failed for good (its error is stored). */
  answerError: 2,
  /** A judge (or other scorer) gave no valid score in some repeat. */
  judgeError: 4,
  /** A scorer could not extract an answer (choice letters, an order). */
  extractionFailure: 8,
  /** The model stopped at its token limit (`finish_reason` `length`). */
  truncated: 16,
  /** A judge's verdict and a human rating of the same field differ. */
  disagreement: 32,
  /** The server refused to answer. */
  refused: 64,
  /** At least one human rating is stored. */
  humanRated: 128,
} as const;

/** What the viewer knows of one run before it loads any chunk (part of {@linkcode BundleMeta}). */
export interface RunMeta {
  /** Key of the run in the bundle (`r0`, `r1`, ...): chunk names start with it. */
  key: string;
  /** The run directory as given on the command line. */
  dir: string;
  /** Benchmark name. */
  benchmark: string;
  /** Model label. */
  model: string;
  /** Judge labels (empty for benchmarks without a judge). */
  judges: string[];
  /** Conditions, baseline first. */
  conditions: string[];
  /** `true` when the model or a judge is an offline stand-in. */
  offline: boolean;
  /** Samples stored. */
  samples: number;
  /** One summary per condition, baseline first (as `summaries.json` holds them). */
  summaries: Summary[];
  /** How the metrics are shown, primary first (the benchmark's report spec, else inferred). */
  metrics: MetricDisplay[];
  /** Group keys in display order, by field. */
  groupOrder: Record<string, string[]>;
  /** Display names of group keys, by field then key (only where they differ from the key). */
  groupLabels: Record<string, Record<string, string>>;
  /** The run's identity: data hash, prompt hashes, code version, creation time. */
  identity: RunIdentity;
  /** Token use and cost, summed over the conditions' summaries. */
  usage: UsageTotals;
  /** The run's figures (Plotly specs read from its `figures/*.html`). */
  figures: {
    name: string;
    spec: { data: unknown[]; layout: Record<string, unknown> };
    size: [number, number];
  }[];
  /** Fields of the samples table (the summary's group fields, else every sample field). */
  fields: string[];
  /** Named verdict fields of the primary scorer shown as table columns. */
  verdictFields: string[];
  /** Metrics with per-sample values in the row index (empty when the benchmark's rows were not available). */
  rowMetrics: string[];
  /** The scorer whose mean valid value is a row's `score` (`null` when nothing was scored). */
  primaryScorer: string | null;
  /** Samples per sample chunk and per results chunk, and how many of each there are. */
  chunks: { size: number; samples: number; results: number };
}

/** A run's identity as its manifest records it. */
export interface RunIdentity {
  /** SHA-256 of the data file. */
  dataSha256: string | null;
  /** The data file's path when the run was made. */
  dataPath: string | null;
  /** Prompt hashes by prompt name (the identity's `prompts`). */
  prompts: Record<string, string>;
  /** Code version: commit and whether the work tree had changes. */
  code: { commit: string | null; dirty: boolean | null };
  /** When the store was created. */
  createdAt: string | null;
  /** Deno version and OS. */
  runtime: string | null;
}

/** Token use and cost of a run. */
export interface UsageTotals {
  /** Calls made. */
  calls: number;
  /** Prompt tokens reported (`null` when no call reported usage). */
  promptTokens: number | null;
  /** Completion tokens reported. */
  completionTokens: number | null;
  /** Cost, `null` when unknown for some call. */
  cost: number | null;
  /** Currency of `cost`. */
  currency: string;
  /** Per role and model, as the summaries list them. */
  rows: {
    role: string;
    model: string;
    calls: number;
    prompt: number | null;
    completion: number | null;
    cost: number | null;
  }[];
}

/** One side of a comparison: a run and one of its conditions. */
export interface CompareSide {
  /** Run key. */
  run: string;
  /** Condition name. */
  condition: string;
}

/** One group's paired comparison (`a` is the baseline, `b` the other side). */
export interface PairedCell {
  /** Group key (`null` for all pairs). */
  key: string | null;
  /** Mean of `a` over the pairs. */
  a: number | null;
  /** Mean of `b` over the pairs. */
  b: number | null;
  /** b − a with its paired-bootstrap 95% CI; `n` = pairs. */
  diff: Estimate;
  /** McNemar's exact test for 0/1 values: `b` = 1 under a only, `c` = 1 under b only. */
  mcnemar: { b: number; c: number; p: number } | null;
}

/** A paired comparison of two sides on one metric, overall and per group field. */
export interface Comparison {
  /** The baseline side. */
  a: CompareSide;
  /** The other side. */
  b: CompareSide;
  /** Metric compared. */
  metric: string;
  /** `true` for a rate shown in %. */
  percent: boolean;
  /** All pairs. */
  all: PairedCell;
  /** Per group field, one cell per group key in display order. */
  groups: Record<string, PairedCell[]>;
}

/** `data/meta.js`: everything the first page needs. */
export interface BundleMeta {
  /** {@linkcode BUNDLE_FORMAT}. */
  format: number;
  /** When the bundle was written. */
  written: string;
  /** The runs in command-line order. */
  runs: RunMeta[];
  /** Paired comparisons between the conditions of a run and between runs of one benchmark. */
  comparisons: Comparison[];
}

/** A dictionary-coded column: `codes[i]` indexes `values`, `-1` = no value. */
export interface CodedColumn {
  /** Distinct values in first-seen order. */
  values: (string | number)[];
  /** One code per row. */
  codes: number[];
}

/** What the samples table shows for one condition, one entry per row (sample position). */
export interface ConditionColumns {
  /** Mean valid value of the primary scorer (`null`: none). */
  score: (number | null)[];
  /** Per-sample metric values from the benchmark's rows, by metric. */
  metrics: Record<string, (number | null)[]>;
  /** {@linkcode FLAG} bits. */
  flags: number[];
  /** The primary scorer's verdict fields (most frequent value over repeats and judges). */
  verdict: Record<string, CodedColumn>;
}

/** `<run>/rows`: the row index of a run's samples table, in sample order. */
export interface RowIndex {
  /** Sample ids. */
  ids: string[];
  /** Group fields, dictionary-coded. */
  fields: Record<string, CodedColumn>;
  /** The results chunk of each row. */
  resultChunk: number[];
  /** Per condition. */
  conditions: Record<string, ConditionColumns>;
}

/** A stored sample as the sample page shows it. */
export interface SampleRecord {
  /** Sample id. */
  id: string;
  /** Position in the run (row index). */
  position: number;
  /** The input of the turn. */
  input: string;
  /** Reference answer. */
  reference: string | null;
  /** Conversation id and turn, if multi-turn. */
  conversation: { id: string; turn: number } | null;
  /** Group fields. */
  fields: Record<string, string | number | null>;
  /** Benchmark-specific data (checklists, options). */
  extra: Record<string, unknown>;
}

/** `<run>/s<k>`: samples `k·size` … in sample order. */
export interface SampleChunk {
  /** Position of the first sample. */
  start: number;
  /** The samples. */
  samples: SampleRecord[];
}

/** A stored call as the sample page shows it (messages and text only for the model's own calls). */
export interface CallRecord {
  /** Content address. */
  key: string;
  /** Role that made it. */
  role: string;
  /** Model name. */
  model: string;
  /** The messages sent (model calls only). */
  messages?: ChatMessage[];
  /** Request parameters (model calls only). */
  params?: Record<string, unknown>;
  /** Reply text when it differs from the stored answer, or a judge's reply when its verdict did not parse. */
  text?: string;
  /** Why generation stopped. */
  finishReason: string | null;
  /** Tokens reported. */
  usage: TokenUsage | null;
  /** Attempts (1 = no retry). */
  attempts: number;
  /** Wall time of the successful attempt. */
  latencyMs: number;
  /** Endpoint or batch that served it. */
  endpoint: string | null;
  /** Refusal text, if any. */
  refusal: string | null;
  /** Reasoning given apart from the answer, if any. */
  reasoning: string | null;
  /** When it finished. */
  createdAt: string;
}

/** One score as the sample page shows it: the stored score without the sample and condition it belongs to. */
export type ScoreRecord = Omit<StoredScore, "sampleId" | "condition">;

/** Everything stored for one sample in one condition. */
export interface ConditionResult {
  /** The answer (`null` if it failed or was never asked). */
  answer: string | null;
  /** Why it failed. */
  error: string | null;
  /** What the solver chose (few-shot exemplars, a role). */
  solver: Record<string, unknown> | null;
  /** The model call behind the answer. */
  call: CallRecord | null;
  /** Scores by scorer, judge and repeat. */
  scores: ScoreRecord[];
  /** The calls behind the scores (judges). */
  scoreCalls: CallRecord[];
}

/** `<run>/o<k>`: results of the samples whose ids rank `k·size` … in code-point order. */
export interface ResultChunk {
  /** By sample id, then condition. */
  results: Record<string, Record<string, ConditionResult>>;
}
