/**
 * Every setting of an evaluation run, in one table: its command-line flag, its field in
 * {@linkcode EvalConfig}, its kind and range, its help text, the role setting it is an alias of, and whether
 * every benchmark takes it or only the benchmarks it applies to (derived from the roles the benchmark's
 * scorers, solver and role table declare, or from what else it declares: ratings, robustness sources, load
 * options). The keys every role takes, with their defaults, are `ROLE_KEYS` (`role_keys.ts`). The command line
 * builds its parser, its usage text and the config from this table; `check_options.ts` checks ranges and
 * applicable flags against it before anything is written.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { ablationsFor } from "../ablations/condition.ts";
import { ROLE_KEYS, type RoleConfig, roleDefault } from "./role_keys.ts";
import { DEFAULT_CONCURRENCY } from "../providers/types.ts";
import { MAX_TIMEOUT_SECONDS } from "../providers/transport/client_options.ts";

/** One setting of `deno task eval`. */
export interface EvalOption {
  /** Flag name without dashes, e.g. `judge-runs`. */
  flag: string;
  /** Field of {@linkcode EvalConfig} it sets (the table declares these fields: see {@linkcode OptionFields}). */
  key: string;
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
  /**
   * `common`: every benchmark takes it; `benchmark`: only the benchmarks it applies to — those calling its
   * role (`role`), or those `applies` accepts.
   */
  scope: "common" | "benchmark";
  /** The role setting this flag is a short alias of (`--judge-runs` sets the judge's `runs`). */
  role?: { name: string; field: keyof RoleConfig };
  /** For a benchmark option that sets no role: whether `task` takes it. */
  applies?: (task: Task) => boolean;
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

/** The option table as written: its literal types declare {@linkcode OptionFields}. */
const OPTION_TABLE = [
  {
    flag: "model",
    role: { name: "model", field: "model" },
    key: "model",
    kind: "string",
    value: "NAME",
    scope: "common",
    section: "model",
    help: "model under test: a served model name, or offline:reference / offline:retrieval (required)",
  },
  {
    flag: "base-url",
    role: { name: "model", field: "baseUrl" },
    key: "baseUrl",
    kind: "string",
    value: "URL",
    scope: "common",
    section: "model",
    help: "its OpenAI-compatible base URL (default $OPENAI_BASE_URL)",
  },
  {
    flag: "api-key-env",
    role: { name: "model", field: "apiKeyEnv" },
    key: "apiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "common",
    section: "model",
    help:
      "environment variable holding its API key (default OPENAI_API_KEY; never pass a key itself); OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS (Name: value lines) are sent as headers when set",
  },
  {
    flag: "api-version",
    role: { name: "model", field: "apiVersion" },
    key: "apiVersion",
    kind: "string",
    value: "VERSION",
    scope: "common",
    section: "model",
    help: "Azure OpenAI api-version (e.g. 2024-10-21), sent with every request and the key as api-key; " +
      "required by a *.openai.azure.com deployment URL; other roles at the same base URL use it too",
  },
  {
    flag: "temperature",
    role: { name: "model", field: "temperature" },
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
    role: { name: "model", field: "maxTokens" },
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
    role: { name: "model", field: "seed" },
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
    applies: (task) => task.loadOptions?.includes("columns") ?? false,
    key: "columns",
    kind: "string",
    value: "KEY=COLUMN,...",
    scope: "benchmark",
    section: "data and output",
    help: "read annotation columns under other names, e.g. icd=ICD11,type=QType",
  },
  {
    flag: "split",
    applies: (task) => task.loadOptions?.includes("split") ?? false,
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
    role: { name: "model", field: "concurrency" },
    key: "concurrency",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "common",
    section: "run",
    help:
      `model requests in flight (default ${DEFAULT_CONCURRENCY}), per base URL when --base-url lists several`,
  },
  {
    flag: "rpm",
    role: { name: "model", field: "rpm" },
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
    role: { name: "model", field: "tpm" },
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
    // A timer holds at most 2^31 - 1 ms; a longer timeout would fire at once and fail every request.
    max: MAX_TIMEOUT_SECONDS,
    scope: "common",
    section: "run",
    help: `request timeout (default 120, at most ${MAX_TIMEOUT_SECONDS}, about 24.8 days: ` +
      "the longest a timer can wait)",
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
    // The poll is a timer too: above 2^31 - 1 ms it would fire at once, polling without pause.
    max: MAX_TIMEOUT_SECONDS,
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
    flag: "profiles",
    key: "profiles",
    kind: "string",
    value: "FILE",
    scope: "common",
    section: "run",
    help: "model request profiles matched before data/profiles.json (same layout): token-limit parameter, " +
      "sampling parameters, reasoning field, JSON mode, seed",
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
    applies: (task) => task.robustness !== undefined,
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
    applies: (task) => task.robustness !== undefined,
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
    applies: (task) => task.robustness !== undefined,
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
    role: { name: "judge", field: "model" },
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
    role: { name: "judge", field: "baseUrl" },
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
    role: { name: "judge", field: "apiKeyEnv" },
    requires: "judge",
    key: "judgeApiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "benchmark",
    section: "judge",
    help: "variable holding the judge's key (default JUDGE_API_KEY if set, else OPENAI_API_KEY)",
  },
  {
    flag: "judge-api-version",
    role: { name: "judge", field: "apiVersion" },
    requires: "judge",
    key: "judgeApiVersion",
    kind: "string",
    value: "VERSION",
    scope: "benchmark",
    section: "judge",
    help: "the judge's Azure OpenAI api-version (default: --api-version when it shares the model's base URL)",
  },
  {
    flag: "judge-runs",
    role: { name: "judge", field: "runs" },
    requires: "judge",
    key: "judgeRuns",
    kind: "integer",
    value: "N",
    min: 1,
    scope: "benchmark",
    section: "judge",
    help: `judgings per answer (default ${roleDefault("judge", "runs")}, the protocol's)`,
  },
  {
    flag: "judge-concurrency",
    role: { name: "judge", field: "concurrency" },
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
    role: { name: "judge", field: "rpm" },
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
    role: { name: "judge", field: "tpm" },
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
    role: { name: "judge", field: "temperature" },
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
    role: { name: "judge", field: "seed" },
    requires: "judge",
    key: "judgeSeed",
    kind: "integer",
    value: "N",
    min: 0,
    scope: "benchmark",
    section: "judge",
    help: `seed of judge run 1; run r uses N + r - 1 (default ${roleDefault("judge", "seed")})`,
  },
  {
    flag: "translator",
    role: { name: "translator", field: "model" },
    key: "translator",
    kind: "string",
    value: "NAME",
    scope: "common",
    section: "roles",
    help: "translator model (the translator role, e.g. for --ablation pivot:en)",
  },
  {
    flag: "translator-base-url",
    role: { name: "translator", field: "baseUrl" },
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
    role: { name: "translator", field: "apiKeyEnv" },
    requires: "translator",
    key: "translatorApiKeyEnv",
    kind: "string",
    value: "VAR",
    scope: "common",
    section: "roles",
    help: "variable holding its key (default TRANSLATOR_API_KEY if set, else OPENAI_API_KEY)",
  },
  {
    flag: "translator-api-version",
    role: { name: "translator", field: "apiVersion" },
    requires: "translator",
    key: "translatorApiVersion",
    kind: "string",
    value: "VERSION",
    scope: "common",
    section: "roles",
    help: "its Azure OpenAI api-version (default: --api-version when it shares the model's base URL)",
  },
  {
    flag: "translator-concurrency",
    role: { name: "translator", field: "concurrency" },
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
    help:
      "model of any role, repeatable: a role the benchmark or a condition calls (e.g. rephraser=gpt-4o), " +
      "or model, judge (repeat for a jury), translator, embed as their own flags set them",
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
    flag: "role-opt",
    key: "roleOptions",
    kind: "strings",
    value: "NAME.KEY=VALUE",
    scope: "common",
    section: "roles",
    help:
      `any setting of any role (model, judge, translator, embed, or the benchmark's own), repeatable: ${
        ROLE_KEYS.map((k) => k.key).join(", ")
      } (e.g. translator.rpm=60, embed.api-key-env=EMB_KEY, judge.runs=2); runs is the judge's. Any other key ` +
      "is an extra body parameter of the role's chat requests (e.g. judge.reasoning_effort=low, " +
      "model.top_k=20; JSON values are parsed), sent only if the model's profile takes it",
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
    role: { name: "embed", field: "model" },
    key: "embedModel",
    kind: "string",
    value: "NAME",
    scope: "benchmark",
    section: "embeddings",
    help: "embeddings model for similarity (default: offline character TF-IDF, labelled OFFLINE)",
  },
  {
    flag: "embed-base-url",
    role: { name: "embed", field: "baseUrl" },
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
    applies: (task) => task.ratings !== undefined,
    key: "humanEval",
    kind: "string",
    value: "CSV",
    scope: "benchmark",
    section: "human ratings",
    help:
      "human ratings in the benchmark's own CSV layout (its page in docs/benchmarks/), imported into the " +
      "run store as human:NAME; deno task import-ratings does the same for any run",
  },
] as const satisfies readonly EvalOption[];

/** All settings of `deno task eval`, in the order usage lists them. */
export const EVAL_OPTIONS: readonly EvalOption[] = OPTION_TABLE;

/** The value type of an option's kind. */
type KindValue<K> = K extends "string" ? string
  : K extends "strings" ? string[]
  : K extends "boolean" ? boolean
  : number;

/**
 * The flat fields of {@linkcode EvalConfig} the option table declares, each typed by its kind: declared once,
 * here, with their flag, range and help; `EvalConfig` adds only what no flag sets.
 */
export type OptionFields = {
  -readonly [O in (typeof OPTION_TABLE)[number] as O["key"]]?: KindValue<O["kind"]>;
};

/** Returns the option set by `flag`, if any. */
export function evalOption(flag: string): EvalOption | undefined {
  return EVAL_OPTIONS.find((o) => o.flag === flag);
}

/** Returns the roles `task` itself calls: its scorers', its solver's and those of its role table. */
export function taskRoles(task: Pick<Task, "scorers" | "solver" | "roles">): Set<string> {
  return new Set([
    ...task.scorers.flatMap((s) => s.roles),
    ...(task.solver.roles ?? []),
    ...(task.roles ?? []).map((r) => r.name),
  ]);
}

/** Returns `true` when `task` takes `option`: every benchmark takes common options; role options need the role. */
export function optionApplies(option: EvalOption, task: Task): boolean {
  if (option.scope === "common") return true;
  if (option.role) return taskRoles(task).has(option.role.name);
  return option.applies?.(task) ?? false;
}

/**
 * Returns the options `task` takes: every common one and the benchmark options that apply to it, with
 * `--ablation` listing only the conditions that apply to the task and `--data` naming its default file (a task
 * file's `data.path`).
 */
export function taskOptions(task: Task): EvalOption[] {
  return EVAL_OPTIONS.filter((o) => optionApplies(o, task)).map((o) =>
    o.flag === "ablation"
      ? { ...o, help: `condition beside the baseline, repeatable: ${ablationsFor(task).join(", ")}` }
      : o.flag === "data"
      ? { ...o, help: `data file (default: ${task.defaultDataPath})` }
      : o
  );
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
