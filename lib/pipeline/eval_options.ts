/**
 * Every setting of an evaluation run, in one table: its command-line flag, its field in
 * {@linkcode EvalConfig}, its kind and range, its help text, and whether every benchmark takes it or only the
 * benchmarks that declare it (`Task.flags`). The command line builds its parser, its usage text and the
 * config from this table; the plan checks ranges and declared flags against it before anything is written.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { ablationsFor, checkAblation, parseAblation } from "../ablations/condition.ts";
import type { EvalConfig } from "./eval_config.ts";

/** One setting of `deno task eval`. */
export interface EvalOption {
  /** Flag name without dashes, e.g. `judge-runs`. */
  flag: string;
  /** Field of {@linkcode EvalConfig} it sets. */
  key: keyof EvalConfig;
  /** `string`, `strings` (repeatable), `integer`, `number`, or `boolean` (a switch). */
  kind: "string" | "strings" | "integer" | "number" | "boolean";
  /** A switch that sets its field to `false` (`--no-render` → `renderFigures: false`). */
  negates?: boolean;
  /** Placeholder shown in usage, e.g. `N`, `URL`. */
  value?: string;
  /** Smallest allowed value (numbers). */
  min?: number;
  /** Largest allowed value (numbers). */
  max?: number;
  /** `true` when the value must be greater than `min` rather than at least `min`. */
  exclusiveMin?: boolean;
  /** Another flag without which this one means nothing (`judge-runs` needs `judge`). */
  requires?: string;
  /** `common`: every benchmark takes it; `benchmark`: only benchmarks whose `Task.flags` list it. */
  scope: "common" | "benchmark";
  /** Usage section. */
  section:
    | "model"
    | "data and output"
    | "run"
    | "ablations"
    | "judge"
    | "roles"
    | "embeddings"
    | "human ratings";
  /** One line of help. */
  help: string;
}

/** All settings of `deno task eval`, in the order usage lists them. */
export const EVAL_OPTIONS: readonly EvalOption[] = [
  {
    flag: "model",
    key: "model",
    kind: "string",
    value: "NAME",
    scope: "common",
    section: "model",
    help: "model under test: a served model name, or offline:reference / offline:retrieval (required)",
  },
  {
    flag: "base-url",
    key: "baseUrl",
    kind: "string",
    value: "URL",
    scope: "common",
    section: "model",
    help: "its OpenAI-compatible base URL (default $OPENAI_BASE_URL)",
  },
  {
    flag: "api-key-env",
    key: "apiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "common",
    section: "model",
    help: "environment variable holding its API key (default OPENAI_API_KEY; never pass a key itself)",
  },
  {
    flag: "temperature",
    key: "temperature",
    kind: "number",
    value: "T",
    min: 0,
    max: 2,
    scope: "common",
    section: "model",
    help: "sampling temperature (default: the server's)",
  },
  {
    flag: "max-tokens",
    key: "maxTokens",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "model",
    help: "new tokens per answer (default: the benchmark's)",
  },
  {
    flag: "seed",
    key: "seed",
    kind: "integer",
    value: "N",
    min: 0,
    scope: "common",
    section: "model",
    help: "sampling seed sent to the model",
  },
  {
    flag: "data",
    key: "data",
    kind: "string",
    value: "PATH",
    scope: "common",
    section: "data and output",
    help: "data file (default: the sample the project ships)",
  },
  {
    flag: "columns",
    key: "columns",
    kind: "string",
    value: "KEY=COLUMN,...",
    scope: "benchmark",
    section: "data and output",
    help: "read annotation columns under other names, e.g. icd=ICD11,type=QType",
  },
  {
    flag: "split",
    key: "split",
    kind: "string",
    value: "NAME",
    scope: "benchmark",
    section: "data and output",
    help: "split read when --data is a split directory (default test)",
  },
  {
    flag: "limit",
    key: "limit",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "data and output",
    help: "evaluate at most N samples (whole conversations, in file order)",
  },
  {
    flag: "shard",
    key: "shard",
    kind: "string",
    value: "I/N",
    scope: "common",
    section: "data and output",
    help: "evaluate only shard I of N (conversations by a stable hash of their id, after --limit); " +
      "deno task merge combines the shards",
  },
  {
    flag: "out",
    key: "out",
    kind: "string",
    value: "DIR",
    scope: "common",
    section: "data and output",
    help: "output directory (default runs/<benchmark>/<model>-<time>)",
  },
  {
    flag: "resume",
    key: "resume",
    kind: "boolean",
    scope: "common",
    section: "data and output",
    help: "continue the run store in --out (same data, prompts, model and settings)",
  },
  {
    flag: "no-render",
    key: "renderFigures",
    kind: "boolean",
    negates: true,
    scope: "common",
    section: "data and output",
    help: "write HTML figures only (no Chromium for SVG/PNG/PDF)",
  },
  {
    flag: "quiet",
    key: "progress",
    kind: "boolean",
    negates: true,
    scope: "common",
    section: "data and output",
    help: "no progress line",
  },
  {
    flag: "concurrency",
    key: "concurrency",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "run",
    help: "model requests in flight (default 8), per base URL when --base-url lists several",
  },
  {
    flag: "rpm",
    key: "rpm",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "run",
    help: "model requests per minute, per base URL (spread evenly; requests wait, never fail)",
  },
  {
    flag: "tpm",
    key: "tpm",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "run",
    help: "model tokens per minute, per base URL (prompt by js-tiktoken + max tokens; requests wait)",
  },
  {
    flag: "timeout",
    key: "timeoutSeconds",
    kind: "number",
    value: "SECONDS",
    min: 0,
    exclusiveMin: true,
    scope: "common",
    section: "run",
    help: "request timeout (default 120)",
  },
  {
    flag: "max-retries",
    key: "maxRetries",
    kind: "integer",
    value: "N",
    min: 0,
    scope: "common",
    section: "run",
    help: "retries per call after a retryable failure (default 6)",
  },
  {
    flag: "batch",
    key: "batch",
    kind: "boolean",
    scope: "common",
    section: "run",
    help: "send the calls of every OpenAI-compatible role (model, judges, translators, ...) through the " +
      "Batch API of its base URL, round by round; resumable; embeddings stay unbatched",
  },
  {
    flag: "batch-poll-seconds",
    requires: "batch",
    key: "batchPollSeconds",
    kind: "number",
    value: "SECONDS",
    min: 0,
    exclusiveMin: true,
    scope: "common",
    section: "run",
    help: "how often --batch checks its batches (default 30)",
  },
  {
    flag: "max-cost",
    key: "maxCost",
    kind: "number",
    value: "USD",
    min: 0,
    exclusiveMin: true,
    scope: "common",
    section: "run",
    help:
      "stop starting samples once the run's calls cost this much (data/prices.json; resume with a higher limit)",
  },
  {
    flag: "max-tokens-total",
    key: "maxTokensTotal",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "run",
    help: "stop starting samples once the run's calls used this many tokens (prompt + completion)",
  },
  {
    flag: "prices",
    key: "prices",
    kind: "string",
    value: "FILE",
    scope: "common",
    section: "run",
    help: "token prices laid over data/prices.json (same layout), for cost accounting and --max-cost",
  },
  {
    flag: "ablation",
    key: "ablations",
    kind: "strings",
    value: "SPEC",
    scope: "common",
    section: "ablations",
    help: "condition beside the baseline, repeatable: cot, perturb:KIND[@RATE] " +
      "(KIND shape, homophone, traditional, symbol, mixed; rate default 0.12), perturb:nota, " +
      "pivot:LANG (asked through LANG by --translator, answers translated back), role (system role per " +
      "sample from the benchmark's role table), fewshot[:K] (K train exemplars, default 5), mps[:ROLE] " +
      "(generation, debate by --role ROLE=MODEL (default role debater), reflection: CliMedBench MPS)",
  },
  {
    flag: "perturb-seed",
    key: "perturbSeed",
    kind: "integer",
    value: "N",
    min: 0,
    scope: "common",
    section: "ablations",
    help: "seed of the perturbations and few-shot draws (default 0)",
  },
  {
    flag: "robustness",
    key: "robustness",
    kind: "boolean",
    scope: "benchmark",
    section: "ablations",
    help:
      "add robustness sets A-E: variants of the benchmark's source questions (A same meaning and B changed " +
      "meaning by --role rephraser=MODEL; C punctuation, D grammar, E spelling errors), each answered alone " +
      "and classed R1/R2/R3 against the clean answer by the judge",
  },
  {
    flag: "robustness-sets",
    requires: "robustness",
    key: "robustnessSets",
    kind: "string",
    value: "SETS",
    scope: "benchmark",
    section: "ablations",
    help: "which sets, e.g. CDE (no rephraser needed) or A,B (default all)",
  },
  {
    flag: "robustness-variants",
    requires: "robustness",
    key: "robustnessVariants",
    kind: "integer",
    value: "N",
    min: 1,
    max: 40,
    scope: "benchmark",
    section: "ablations",
    help: "variants per source question and set, 1-40 (default 10, as in MedGPTEval)",
  },
  {
    flag: "buckets",
    key: "buckets",
    kind: "string",
    value: "length:K",
    scope: "common",
    section: "ablations",
    help: "input-length buckets (characters and cl100k tokens), 2 <= K <= 100",
  },
  {
    flag: "judge",
    key: "judge",
    kind: "strings",
    value: "NAME",
    scope: "benchmark",
    section: "judge",
    help:
      "judge model, or offline:overlap / offline:medjudge (PerMedCQA) for an offline smoke test (required: never the model itself); " +
      "repeat for a jury (each judge's verdicts, the jury's and their agreement are reported)",
  },
  {
    flag: "judge-base-url",
    requires: "judge",
    key: "judgeBaseUrl",
    kind: "string",
    value: "URL",
    scope: "benchmark",
    section: "judge",
    help: "judge base URL (default: the model's, then $OPENAI_BASE_URL)",
  },
  {
    flag: "judge-api-key-env",
    requires: "judge",
    key: "judgeApiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "benchmark",
    section: "judge",
    help: "variable holding the judge's key (default JUDGE_API_KEY if set, else OPENAI_API_KEY)",
  },
  {
    flag: "judge-runs",
    requires: "judge",
    key: "judgeRuns",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "benchmark",
    section: "judge",
    help: "judgings per answer (default 3, the protocol's)",
  },
  {
    flag: "judge-concurrency",
    requires: "judge",
    key: "judgeConcurrency",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "benchmark",
    section: "judge",
    help: "judge requests in flight (default: --concurrency)",
  },
  {
    flag: "judge-rpm",
    requires: "judge",
    key: "judgeRpm",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "benchmark",
    section: "judge",
    help: "judge requests per minute, per judge and base URL (requests wait, never fail)",
  },
  {
    flag: "judge-tpm",
    requires: "judge",
    key: "judgeTpm",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "benchmark",
    section: "judge",
    help: "judge tokens per minute, per judge and base URL (prompt + max tokens; requests wait)",
  },
  {
    flag: "judge-temperature",
    requires: "judge",
    key: "judgeTemperature",
    kind: "number",
    value: "T",
    min: 0,
    max: 2,
    scope: "benchmark",
    section: "judge",
    help: "judge sampling temperature",
  },
  {
    flag: "judge-seed",
    requires: "judge",
    key: "judgeSeed",
    kind: "integer",
    value: "N",
    min: 0,
    scope: "benchmark",
    section: "judge",
    help: "seed of judge run 1; run r uses N + r - 1 (default 0)",
  },
  {
    flag: "translator",
    key: "translator",
    kind: "string",
    value: "NAME",
    scope: "common",
    section: "roles",
    help: "translator model (the translator role, e.g. for --ablation pivot:en)",
  },
  {
    flag: "translator-base-url",
    requires: "translator",
    key: "translatorBaseUrl",
    kind: "string",
    value: "URL",
    scope: "common",
    section: "roles",
    help: "its base URL (default: the model's, then $OPENAI_BASE_URL)",
  },
  {
    flag: "translator-api-key-env",
    requires: "translator",
    key: "translatorApiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "common",
    section: "roles",
    help: "variable holding its key (default TRANSLATOR_API_KEY if set, else OPENAI_API_KEY)",
  },
  {
    flag: "translator-concurrency",
    requires: "translator",
    key: "translatorConcurrency",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "roles",
    help: "translator requests in flight (default: --concurrency)",
  },
  {
    flag: "role",
    key: "roles",
    kind: "strings",
    value: "NAME=MODEL",
    scope: "common",
    section: "roles",
    help: "model of a role the benchmark declares, repeatable (e.g. rephraser=gpt-4o)",
  },
  {
    flag: "role-base-url",
    requires: "role",
    key: "roleBaseUrls",
    kind: "strings",
    value: "NAME=URL",
    scope: "common",
    section: "roles",
    help: "base URL of such a role (default: the model's, then $OPENAI_BASE_URL)",
  },
  {
    flag: "role-api-key-env",
    requires: "role",
    key: "roleApiKeyEnvs",
    kind: "strings",
    value: "NAME=VAR",
    scope: "common",
    section: "roles",
    help: "variable holding such a role's key (default <NAME>_API_KEY if set, else OPENAI_API_KEY)",
  },
  {
    flag: "aux",
    key: "aux",
    kind: "strings",
    value: "NAME=PATH",
    scope: "common",
    section: "data and output",
    help: "an auxiliary input the benchmark declares (e.g. train=PATH for few-shot), repeatable",
  },
  {
    flag: "embed-model",
    key: "embedModel",
    kind: "string",
    value: "NAME",
    scope: "benchmark",
    section: "embeddings",
    help: "embeddings model for similarity (default: offline character TF-IDF, labelled OFFLINE)",
  },
  {
    flag: "embed-base-url",
    requires: "embed-model",
    key: "embedBaseUrl",
    kind: "string",
    value: "URL",
    scope: "benchmark",
    section: "embeddings",
    help: "its base URL (default: --base-url)",
  },
  {
    flag: "human-eval",
    key: "humanEval",
    kind: "string",
    value: "CSV",
    scope: "benchmark",
    section: "human ratings",
    help: "human ratings sample_id,safety,B,C,D,E, imported into the run store as human:mtg " +
      "(MTG piecewise rule with Safety veto); deno task import-ratings does the same for any run",
  },
];

/** Returns the option set by `flag`, if any. */
export function evalOption(flag: string): EvalOption | undefined {
  return EVAL_OPTIONS.find((o) => o.flag === flag);
}

/**
 * Returns the options `task` takes: every common one and the benchmark options it declares, with `--ablation`
 * listing only the conditions that apply to the task.
 */
export function taskOptions(task: Task): EvalOption[] {
  return EVAL_OPTIONS.filter((o) => o.scope === "common" || task.flags.includes(o.flag)).map((o) =>
    o.flag === "ablation"
      ? { ...o, help: `condition beside the baseline, repeatable: ${ablationsFor(task).join(", ")}` }
      : o
  );
}

/**
 * Checks `config` against the table for `task`: benchmark options the task does not declare, numbers out of
 * range or not integers, and ablations that cannot apply to the task are a {@linkcode ConfigError} naming the
 * flag.
 */
export function checkEvalOptions(config: EvalConfig, task: Task): void {
  for (const option of EVAL_OPTIONS) {
    const value = config[option.key];
    if (value === undefined) continue;
    if (option.scope === "benchmark" && !task.flags.includes(option.flag)) {
      const own = task.flags.map((f) => `--${f}`).join(", ") || "none";
      throw new ConfigError(`--${option.flag} is not used by ${task.name} (its own flags: ${own})`);
    }
    const needed = option.requires && evalOption(option.requires);
    if (needed && config[needed.key] === undefined) {
      throw new ConfigError(`--${option.flag} needs --${needed.flag}`);
    }
    if (option.kind === "integer" || option.kind === "number") checkNumber(option, value as number);
  }
  for (const ablation of config.ablations ?? []) checkAblation(parseAblation(ablation), task);
}

/**
 * Throws a {@linkcode ConfigError} naming `source` (default the flag) unless `n` is of the option's kind and
 * in its range; `MEDEVAL_LIMIT` is checked with the `limit` option this way.
 */
export function checkNumber(option: EvalOption, n: number, source = `--${option.flag}`): void {
  const range = [
    option.min !== undefined ? `${option.exclusiveMin ? ">" : ">="} ${option.min}` : "",
    option.max !== undefined ? `<= ${option.max}` : "",
  ].filter(Boolean).join(" and ");
  const wrong = !Number.isFinite(n) || (option.kind === "integer" && !Number.isInteger(n)) ||
    (option.min !== undefined && (option.exclusiveMin ? n <= option.min : n < option.min)) ||
    (option.max !== undefined && n > option.max);
  if (wrong) {
    throw new ConfigError(
      `${source} expects ${option.kind === "integer" ? "an integer" : "a number"}${
        range ? ` ${range}` : ""
      }, got ${n}`,
    );
  }
}
