/**
 * The settings of one evaluation run, as `deno task eval` flags, `reproduce` and notebooks give them. The roles
 * (model under test, judges, translator, embeddings model, a task's own) are set through `roles` and
 * `roleOptions` (`--role`, `--role-opt`), or through the flat alias fields below (`model`, `judge`,
 * `judgeRuns`, `translator`, `embedModel`, ...), which planning gathers into one {@linkcode RoleConfig} per role
 * (`givenRoles` in `role_config.ts`); ranges and defaults of every role key live in `ROLE_KEYS`.
 * @module
 */
import type { RetryPolicy } from "../providers/transport/retry.ts";
import type { RoleConfig } from "./role_config.ts";

/** Everything `deno task eval` can be told. */
export interface EvalConfig {
  /** Registry name, e.g. `llmeval-med`. */
  benchmark: string;
  /** Model under test (or `offline:reference` / `offline:retrieval`). */
  model: string;
  /** Its base URL (default `$OPENAI_BASE_URL`). */
  baseUrl?: string;
  /** Environment variable with its API key (default `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  /** Judge model(s) (or `offline:overlap`); required for judge-scored benchmarks; several make a jury. */
  judge?: string | string[];
  /** Judge base URL (default: the model's base URL, then `$OPENAI_BASE_URL`). */
  judgeBaseUrl?: string;
  /** Environment variable with the judge's API key (default: `JUDGE_API_KEY` if set, else `OPENAI_API_KEY`). */
  judgeApiKeyEnv?: string;
  /** Judge runs per answer (default 3, the paper's protocol). */
  judgeRuns?: number;
  /** Data file (default: the benchmark's shipped sample). */
  data?: string;
  /** Columns under other names, `KEY=COLUMN,...` (e.g. `icd=ICD11,type=QType`), for benchmarks that take it. */
  columns?: string;
  /** Split read from a split directory (e.g. `test`, `eval`), for benchmarks that take it. */
  split?: string;
  /** Evaluate at most this many samples (whole conversations, in file order). */
  limit?: number;
  /** Evaluate only shard `I/N` of the run (after `limit`): conversations split by a stable hash of their id. */
  shard?: string;
  /** Model requests in flight (default 8), per base URL. */
  concurrency?: number;
  /** Model requests per minute, per base URL. */
  rpm?: number;
  /** Model tokens (prompt + max tokens) per minute, per base URL. */
  tpm?: number;
  /** Judge requests per minute, per judge and base URL. */
  judgeRpm?: number;
  /** Judge tokens (prompt + max tokens) per minute, per judge and base URL. */
  judgeTpm?: number;
  /** Stop starting samples once the run's calls cost this much (price table's currency, USD shipped). */
  maxCost?: number;
  /** Stop starting samples once the run's calls used this many tokens. */
  maxTokensTotal?: number;
  /** Price file laid over `data/prices.json`. */
  prices?: string;
  /** Judge requests in flight (default: `concurrency`). */
  judgeConcurrency?: number;
  /** Output directory. */
  out: string;
  /** Continue an existing run store instead of refusing to touch it. */
  resume?: boolean;
  /** Model temperature (default: server default). */
  temperature?: number;
  /** Model max new tokens (default: the benchmark's). */
  maxTokens?: number;
  /** Model seed. */
  seed?: number;
  /** Judge temperature. */
  judgeTemperature?: number;
  /** Seed of judge run 1 (default 0). */
  judgeSeed?: number;
  /** Request timeout, in seconds (default 120). */
  timeoutSeconds?: number;
  /** Retries per call (default 6). */
  maxRetries?: number;
  /** Send model, judge and other chat calls through the Batch API of their base URLs (`--batch`). */
  batch?: boolean;
  /** How often batch mode checks its batches, in seconds (default 30). */
  batchPollSeconds?: number;
  /** LLMEval-Med: CSV of human MTG ratings. */
  humanEval?: string;
  /** Name of the baseline condition (default `default`). */
  condition?: string;
  /** Ablations run beside the baseline in the same store: `cot`, `perturb:KIND[@RATE]`. */
  ablations?: string[];
  /** Seed of the perturbations (default 0). */
  perturbSeed?: number;
  /** Add the robustness sets (`--robustness`, benchmarks with `Task.robustness`). */
  robustness?: boolean;
  /** Which robustness sets (`ABCDE`, `C,D,E`, `all`; default all). */
  robustnessSets?: string;
  /** Variants per source question and set (default 10). */
  robustnessVariants?: number;
  /** Input-length bucket analysis, e.g. `length:10`. */
  buckets?: string;
  /** Translator model (the `translator` role, e.g. for `--ablation pivot:en`). */
  translator?: string;
  /** Translator base URL (default: the model's, then `$OPENAI_BASE_URL`). */
  translatorBaseUrl?: string;
  /** Environment variable with the translator's key (default `TRANSLATOR_API_KEY` if set, else `OPENAI_API_KEY`). */
  translatorApiKeyEnv?: string;
  /** Translator requests in flight (default: `concurrency`). */
  translatorConcurrency?: number;
  /**
   * Roles by name, each a {@linkcode RoleConfig}; or, as `--role` gives them, `NAME=MODEL` strings (any role:
   * `judge=X` is `--judge X`, repeated for a jury).
   */
  roles?: string[] | Record<string, RoleConfig>;
  /** Any setting of any role, `NAME.KEY=VALUE` each (`--role-opt translator.rpm=60`). */
  roleOptions?: string[];
  /** Base URLs of a task's own roles, `NAME=URL` each. */
  roleBaseUrls?: string[];
  /** Key variables of a task's own roles, `NAME=VAR` each. */
  roleApiKeyEnvs?: string[];
  /** Auxiliary inputs of the task, `NAME=PATH` each (default: the task's shipped files). */
  aux?: string[];
  /** Embeddings model for similarity scorers (same base URL and key as the model unless given). */
  embedModel?: string;
  /** Base URL of the embeddings model. */
  embedBaseUrl?: string;
  /** Show progress (default `true`). */
  progress?: boolean;
  /** Render SVG/PNG/PDF with Chromium (default `true`; HTML is always written). */
  renderFigures?: boolean;
  /** Retry policy override (tests use short delays). */
  retryPolicy?: RetryPolicy;
  /**
   * Replace a run already in `out` (the whole directory, when the run starts) instead of refusing: for runs
   * recomputed from scratch each time, such as the offline baselines of `reproduce`.
   */
  replace?: boolean;
}
