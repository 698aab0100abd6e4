/**
 * One evaluation run end to end: load and validate the data, open (or resume) the run store, check the
 * manifest, run model and judge through the store, aggregate from the store, and write summary, per-sample
 * results, tables, figures and the JSONL export into the output directory.
 * @module
 */
import {
  type AppliedCondition,
  applyCondition,
  baselineCondition,
  type Condition,
  conditionSolver,
  parseAblation,
} from "../ablations/condition.ts";
import { type BucketSpec, parseBucketSpec } from "../analysis/buckets.ts";
import { getTask } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import { pathExists, projectPath } from "../core/fs.ts";
import { evaluate, progressUnits, readRunView } from "../core/evaluate.ts";
import { hashFile, hashValue } from "../core/hash.ts";
import { type Sample, toConversations } from "../core/sample.ts";
import type { RunLabels, Task } from "../core/task.ts";
import { codeVersion } from "../core/version.ts";
import { type Judge, LlmJudge } from "../judges/judge.ts";
import { OverlapJudge } from "../judges/overlap_judge.ts";
import { Caller } from "../providers/caller.ts";
import { type EmbedderConfig, StoreEmbedder } from "../providers/embeddings.ts";
import { createProvider, resolveBaseUrl } from "../providers/factory.ts";
import { endpointLabel } from "../providers/openai.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../providers/retry.ts";
import { findChromium } from "../report/chromium.ts";
import { Progress } from "../report/progress.ts";
import type { Summary } from "../report/summary.ts";
import type { ChatProvider, GenerationParams } from "../providers/types.ts";
import { RunStore } from "../store/run_store.ts";
import { checkEvalOptions } from "./eval_options.ts";
import { type ConditionResult, writeRunOutputs } from "./write_outputs.ts";

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
  /** Judge model (or `offline:overlap`); required for judge-scored benchmarks. */
  judge?: string;
  /** Judge base URL (default: the model's base URL, then `$OPENAI_BASE_URL`). */
  judgeBaseUrl?: string;
  /** Environment variable with the judge's API key (default: `JUDGE_API_KEY` if set, else `OPENAI_API_KEY`). */
  judgeApiKeyEnv?: string;
  /** Judge runs per answer (default 3, the paper's protocol). */
  judgeRuns?: number;
  /** Data file (default: the benchmark's shipped sample). */
  data?: string;
  /** Evaluate at most this many samples (whole conversations, in file order). */
  limit?: number;
  /** Model requests in flight (default 8). */
  concurrency?: number;
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
  /** LLMEval-Med: CSV of human MTG ratings. */
  humanEval?: string;
  /** Name of the baseline condition (default `default`). */
  condition?: string;
  /** Ablations run beside the baseline in the same store: `cot`, `perturb:KIND[@RATE]`. */
  ablations?: string[];
  /** Seed of the perturbations (default 0). */
  perturbSeed?: number;
  /** Input-length bucket analysis, e.g. `length:10`. */
  buckets?: string;
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

/** What a finished run returns. */
export interface EvalResult {
  /** The baseline's summary, written to `summary.json`. */
  summary: Summary;
  /** Every condition's summary, baseline first. */
  conditions: Summary[];
  /** Output directory. */
  out: string;
  /** Answers that failed for good plus scores whose judge call failed for good (0 = complete run). */
  failures: number;
  /** Calls answered from the store vs sent, by role. */
  calls: Record<string, { cached: number; sent: number; retries: number }>;
  /** The samples evaluated (after `limit`), as loaded and validated. */
  samples: Sample[];
}

/** Returns the first conversations of `samples` in file order holding at most `limit` samples (≥ 1 conversation). */
export function limitSamples(samples: readonly Sample[], limit?: number): Sample[] {
  if (limit === undefined) return [...samples];
  const kept: Sample[] = [];
  for (const conversation of toConversations(samples)) {
    if (kept.length > 0 && kept.length + conversation.length > limit) break;
    kept.push(...conversation);
  }
  const ids = new Set(kept.map((s) => s.id));
  return samples.filter((s) => ids.has(s.id));
}

/** Request timeout of both model and judge, in milliseconds (default 120 s). */
function timeoutMs(config: EvalConfig): number {
  return (config.timeoutSeconds ?? 120) * 1000;
}

/** The judge a plan settled on: an offline stand-in, or a provider the judge caller will wrap. */
type JudgePlan = { offline: OverlapJudge } | { provider: ChatProvider };

function planJudge(config: EvalConfig, task: Task): JudgePlan | undefined {
  if (!task.scorers.some((s) => s.needsJudge)) return undefined;
  if (!config.judge) {
    throw new ConfigError(
      `--judge: ${task.name} is scored by a judge: pass --judge NAME (with --judge-base-url URL), or --judge offline:overlap for an offline smoke test; the model under test is never used as its own judge by default`,
    );
  }
  if (config.judgeApiKeyEnv) requireEnv("judge-api-key-env", config.judgeApiKeyEnv);
  if (config.judge === "offline:overlap") return { offline: new OverlapJudge() };
  if (!task.judgePrompt) throw new ConfigError(`${task.name} has no judge prompt`);
  const apiKeyEnv = config.judgeApiKeyEnv ??
    (Deno.env.get("JUDGE_API_KEY") ? "JUDGE_API_KEY" : "OPENAI_API_KEY");
  const modelBaseUrl = config.model.startsWith("offline:") ? undefined : config.baseUrl;
  return {
    provider: createProvider({
      model: config.judge,
      baseUrl: config.judgeBaseUrl ?? modelBaseUrl,
      baseUrlFlag: config.judgeBaseUrl || !modelBaseUrl ? "--judge-base-url" : "--base-url",
      who: `--judge: judge "${config.judge}"`,
      apiKeyEnv,
      timeoutMs: timeoutMs(config),
      concurrency: config.judgeConcurrency ?? config.concurrency ?? 8,
    }),
  };
}

/** A variable named by `--FLAG VAR` must be set: a typo would otherwise send requests without a key. */
function requireEnv(flag: string, name: string): void {
  if (Deno.env.get(name) === undefined) {
    throw new ConfigError(`--${flag}: the environment variable ${name} is not set`);
  }
}

/** The part of the manifest a resumed run must match: everything that changes which calls are made. */
function runIdentity(
  config: EvalConfig,
  task: Task,
  resolved: {
    generation: GenerationParams;
    judgeRuns: number;
    judge: string | null;
    embedder: string | null;
  },
  dataHash: string,
  n: number,
) {
  return {
    benchmark: task.name,
    model: config.model,
    embedder: resolved.embedder,
    generation: resolved.generation,
    judge: resolved.judge,
    judge_runs: resolved.judgeRuns,
    judge_params: { temperature: config.judgeTemperature, seed: config.judgeSeed ?? 0 },
    data_sha256: dataHash,
    samples: n,
    prompts: Object.fromEntries(
      Object.entries({ ...task.solver.templates, ...task.judgeTemplates }).map(([k, v]) => [k, hashValue(v)]),
    ),
  };
}

/** The part of a condition a resumed run must match: its prompts and its perturbation. */
function conditionIdentity(condition: Condition, task: Task) {
  const solver = conditionSolver(condition, task);
  return {
    kind: condition.kind,
    perturb: condition.perturb ?? null,
    solver: solver.name,
    prompts: Object.fromEntries(Object.entries(solver.templates).map(([k, v]) => [k, hashValue(v)])),
  };
}

function checkSame(storePath: string, what: string, stored: unknown, current: unknown): void {
  if (hashValue(stored) !== hashValue(current)) {
    throw new ConfigError(
      `cannot resume ${storePath}: "${what}" differs from the stored run (${JSON.stringify(stored)} vs ${
        JSON.stringify(current)
      })`,
    );
  }
}

/** A run checked from end to end: everything it needs, resolved, with nothing written and nothing sent. */
export interface EvalPlan {
  /** The settings as given. */
  config: EvalConfig;
  /** The benchmark. */
  task: Task;
  /** Data file read. */
  dataPath: string;
  /** The samples to evaluate (after `limit`), validated. */
  samples: Sample[];
  /** The baseline first, then each ablation, each with its samples as the model will see them. */
  conditions: { condition: Condition; applied: AppliedCondition }[];
  /** Seed of the perturbations, as recorded in notes. */
  perturbSeed: string;
  /** Length buckets to tabulate, if asked for. */
  buckets?: BucketSpec;
  /** Judge runs per answer. */
  judgeRuns: number;
  /** The model's generation parameters (benchmark defaults with the flags applied). */
  generation: GenerationParams;
  /** Retry policy of every caller. */
  retry: RetryPolicy;
  /** The model under test. */
  provider: ChatProvider;
  /** The judge, for judge-scored benchmarks. */
  judge?: JudgePlan;
  /** The embeddings endpoint, when `--embed-model` is given. */
  embed?: EmbedderConfig;
  /** What a resumed run must match. */
  identity: ReturnType<typeof runIdentity>;
  /** Path of the run store. */
  storePath: string;
}

/** A data file read, validated and hashed once, for any number of runs over it. */
export interface EvalData {
  /** The file. */
  path: string;
  /** Every sample in it, in file order. */
  samples: Sample[];
  /** SHA-256 of its bytes (recorded in the manifest). */
  sha256: string;
}

/** Reads and validates `path` (default: the task's shipped sample) for {@linkcode planEval}. */
export async function loadEvalData(task: Task, path = projectPath(task.defaultDataPath)): Promise<EvalData> {
  return { path, samples: await task.load(path), sha256: await hashFile(path) };
}

/**
 * Checks the whole configuration and the data without writing a file or sending a request: unknown or
 * undeclared flags, numbers out of range, a missing judge, bad base URLs, unset key variables, conditions that
 * change nothing, and an existing run store without `--resume` are each a one-line {@linkcode ConfigError}
 * naming the flag; bad data is an `InputError` naming file, record and field. `data`, when given, is
 * `config.data` already loaded (several runs over one file read it once).
 */
export async function planEval(config: EvalConfig, data?: EvalData): Promise<EvalPlan> {
  const task = await getTask(config.benchmark, { humanEval: config.humanEval });
  checkEvalOptions(config, task);
  if (config.apiKeyEnv) requireEnv("api-key-env", config.apiKeyEnv);
  const loaded = data ?? await loadEvalData(task, config.data);
  const dataPath = loaded.path;
  const samples = limitSamples(loaded.samples, config.limit);
  const judgeRuns = config.judgeRuns ?? 3;
  const perturbSeed = String(config.perturbSeed ?? 0);
  const conditions = [
    baselineCondition(config.condition ?? "default"),
    ...(config.ablations ?? []).map((a) => parseAblation(a, perturbSeed)),
  ];
  if (new Set(conditions.map((c) => c.name)).size !== conditions.length) {
    throw new ConfigError(`--ablation: conditions repeat: ${conditions.map((c) => c.name).join(", ")}`);
  }
  const applied = conditions.map((condition) => ({ condition, applied: applyCondition(condition, samples) }));
  for (const { condition, applied: a } of applied) {
    if (condition.kind === "perturb" && a.notApplicable === samples.length) {
      throw new ConfigError(
        `--ablation ${condition.name}: changes none of the ${samples.length} ${task.name} samples` +
          (condition.perturb!.kind === "nota" ? " (it applies to single-answer choice items)" : ""),
      );
    }
  }
  const buckets = config.buckets ? parseBucketSpec(config.buckets) : undefined;
  const judge = planJudge(config, task);
  const provider = createProvider({
    model: config.model,
    baseUrl: config.baseUrl,
    apiKeyEnv: config.apiKeyEnv,
    timeoutMs: timeoutMs(config),
    concurrency: config.concurrency,
  }, samples);
  const generation: GenerationParams = {
    ...task.generation,
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
  };
  const embed: EmbedderConfig | undefined = config.embedModel
    ? {
      model: config.embedModel,
      baseURL: resolveBaseUrl(
        config.embedBaseUrl ?? config.baseUrl,
        `--embed-model: embeddings model "${config.embedModel}"`,
        config.embedBaseUrl ? "--embed-base-url" : "--embed-base-url (or --base-url)",
      ),
      apiKey: Deno.env.get(config.apiKeyEnv ?? "OPENAI_API_KEY"),
      timeoutMs: timeoutMs(config),
      concurrency: config.concurrency,
    }
    : undefined;
  const judgeLabel = judge ? ("offline" in judge ? judge.offline.label : judge.provider.label) : null;
  const identity = runIdentity(
    config,
    task,
    {
      generation,
      judgeRuns,
      judge: judgeLabel,
      embedder: embed ? endpointLabel(embed.model, embed.baseURL) : null,
    },
    loaded.sha256,
    samples.length,
  );
  const storePath = `${config.out}/run.sqlite`;
  const outStat = await Deno.stat(config.out).catch(() => null);
  if (outStat && !outStat.isDirectory) {
    throw new ConfigError(`--out: ${config.out} exists and is not a directory`);
  }
  if (!config.resume && !config.replace && await pathExists(storePath)) {
    throw new ConfigError(
      `--out: ${storePath} already holds a run: pass --resume to continue it, or choose another --out`,
    );
  }
  if (config.renderFigures ?? true) findChromium();
  const retry = {
    ...DEFAULT_RETRY_POLICY,
    ...config.retryPolicy,
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
  };
  return {
    config,
    task,
    dataPath,
    samples,
    conditions: applied,
    perturbSeed,
    buckets,
    judgeRuns,
    generation,
    retry,
    provider,
    judge,
    embed,
    identity,
    storePath,
  };
}

/** Runs one evaluation as configured and writes its outputs. Throws ConfigError/InputError on bad settings. */
export async function runEval(config: EvalConfig): Promise<EvalResult> {
  return await executeEval(await planEval(config));
}

/** Carries out a checked plan: opens (or resumes) the run store, runs every condition, writes the outputs. */
export async function executeEval(plan: EvalPlan): Promise<EvalResult> {
  const { config, task, samples, judgeRuns, retry, provider, identity, storePath } = plan;
  if (config.replace) await Deno.remove(config.out, { recursive: true }).catch(() => {});
  await Deno.mkdir(config.out, { recursive: true });
  const store = new RunStore(storePath);
  try {
    const units = progressUnits(samples, task.scorers, judgeRuns) * plan.conditions.length;
    const progress = new Progress(`${task.name} ${config.model}`, units, {
      enabled: config.progress ?? true,
    });
    const judge: Judge | undefined = !plan.judge
      ? undefined
      : "offline" in plan.judge
      ? plan.judge.offline
      : new LlmJudge(new Caller(plan.judge.provider, store, "judge", retry, progress), {
        buildPrompt: task.judgePrompt!,
        seed: config.judgeSeed ?? 0,
        temperature: config.judgeTemperature,
      });
    const embedder = plan.embed ? new StoreEmbedder(plan.embed, store, retry) : undefined;
    // A resumed run must match in everything, each condition included, before anything is written.
    const previous = store.manifest();
    const stored = previous ?? {};
    if (previous) {
      const old = previous.identity as Record<string, unknown>;
      for (const [key, value] of Object.entries(identity)) checkSame(storePath, key, old?.[key], value);
    }
    for (const { condition } of plan.conditions) {
      const key = `condition:${condition.name}`;
      if (key in stored) checkSame(storePath, key, stored[key], conditionIdentity(condition, task));
    }
    if (previous) {
      store.logEvent("resume", { at: new Date().toISOString() });
    } else {
      store.setManifest({
        identity,
        model: { name: provider.model, label: provider.label, offline: provider.offline },
        judge: judge ? { label: judge.label, offline: judge.offline } : null,
        data: { path: plan.dataPath, sha256: identity.data_sha256, samples: samples.length },
        code: await codeVersion(),
        runtime: { deno: Deno.version.deno, os: Deno.build.os },
        created_at: new Date().toISOString(),
      });
    }
    for (const { condition } of plan.conditions) {
      const key = `condition:${condition.name}`;
      if (!(key in stored)) store.setManifest({ [key]: conditionIdentity(condition, task) });
    }
    store.putSamples(samples);
    for (const scorer of task.scorers) scorer.prepare?.(samples);
    const modelCaller = new Caller(provider, store, "model", retry, progress);
    let failures = 0;
    const results: ConditionResult[] = [];
    for (const { condition, applied } of plan.conditions) {
      if (applied.achievedRate !== null) {
        store.logEvent("perturbation", {
          condition: condition.name,
          requested_rate: condition.perturb?.rate,
          achieved_rate: applied.achievedRate,
          not_applicable: applied.notApplicable,
        });
      }
      const outcome = await evaluate({
        samples: applied.samples,
        solver: conditionSolver(condition, task),
        scorers: task.scorers,
        model: modelCaller,
        generation: plan.generation,
        judge,
        judgeRuns,
        embedder,
        condition: condition.name,
        store,
        progress,
      });
      failures += outcome.answerErrors + outcome.scoreFailures;
      const labels: RunLabels = {
        benchmark: task.name,
        model: provider.offline ? provider.model : provider.label,
        judge: judge?.label ?? null,
        condition: condition.name,
        offline: provider.offline || (judge?.offline ?? false),
        judgeRuns,
      };
      const view = readRunView(store, condition.name);
      const summary = task.aggregate(view, labels);
      if (applied.achievedRate !== null) {
        summary.notes.push(
          condition.perturb!.kind === "nota"
            ? `perturbation ${condition.name}: correct option replaced by "none of the above" in ${
              samples.length - applied.notApplicable
            } of ${samples.length} items (single-answer choice items only)`
            : `perturbation ${condition.name}: ${
              (applied.achievedRate * 100).toFixed(2)
            }% of non-whitespace input characters changed (requested ${
              (condition.perturb!.rate * 100).toFixed(1)
            }%), seed ${plan.perturbSeed}`,
        );
      }
      results.push({ condition, summary, rows: task.rows(view, labels), samples: applied.samples });
    }
    progress.finish();
    await writeRunOutputs({
      out: config.out,
      task,
      store,
      results,
      buckets: plan.buckets,
      render: config.renderFigures ?? true,
    });
    const judgeCaller = judge instanceof LlmJudge ? judge.caller : undefined;
    return {
      summary: results[0].summary,
      conditions: results.map((r) => r.summary),
      out: config.out,
      failures,
      calls: {
        model: modelCaller.stats,
        ...(judgeCaller ? { judge: judgeCaller.stats } : {}),
      },
      samples,
    };
  } finally {
    store.close();
  }
}
