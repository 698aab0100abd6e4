/**
 * Planning a run: every setting, the data, the auxiliary inputs, the roles and any ratings file checked from
 * end to end, without writing a file or sending a request. What a resumed run must match (its identity) is
 * fixed here.
 * @module
 */
import { loadCharacterTables } from "../ablations/perturb.ts";
import {
  type AppliedCondition,
  applyCondition,
  baselineCondition,
  type Condition,
  conditionSolver,
  parseAblation,
} from "../ablations/condition.ts";
import {
  DEFAULT_VARIANTS,
  parseRobustnessSets,
  type RobustnessOptions,
  robustnessSamples,
  robustnessSources,
  withRobustness,
} from "../robustness/sets.ts";
import { type BucketSpec, parseBucketSpec } from "../analysis/buckets.ts";
import { ROBUSTNESS_SOURCES } from "../ablations/conditions/needs.ts";
import { getTask } from "../benchmarks/registry.ts";
import type { GenerationParams } from "../core/chat.ts";
import { ConfigError } from "../core/errors.ts";
import { pathExists, projectPath } from "../core/fs.ts";
import { hashFile, hashPath, hashValue } from "../core/hash.ts";
import { type Sample, toConversations } from "../core/sample.ts";
import type { LoadOptions, RatingSpec, Task } from "../core/task.ts";
import { readBytes, watchReads } from "../core/text_file.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../providers/transport/retry.ts";
import { findChromium } from "../report/chromium.ts";
import { type RatingsFile, readRatings } from "../store/import_ratings.ts";
import type { EvalConfig } from "./eval_config.ts";
import { checkEvalOptions } from "./check_options.ts";
import { parseShard, type Shard, shardCondition, shardSamples } from "./shard.ts";
import { namedSettings, planRoles, requireEnv, type RoleEndpoints } from "./plan_roles.ts";
import type { RolePlan } from "./roles.ts";
import { loadPrices, priceOf, type PriceTable } from "../providers/accounting/prices.ts";
import { loadProfiles } from "../providers/transport/profiles.ts";

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

/** An auxiliary input read, validated and hashed. */
export interface AuxiliaryData {
  /** The file. */
  path: string;
  /** Its samples. */
  samples: Sample[];
  /** SHA-256 of its bytes (in the manifest). */
  sha256: string;
}

/**
 * Returns the auxiliary inputs the run needs (those the conditions' solvers read, and any given with `--aux`):
 * from `--aux NAME=PATH`, else found beside the data file (`locate`), else — only when the run reads the shipped
 * data — the shipped file. An input that is the evaluated file itself (same path or same bytes) is an error.
 */
async function loadAuxiliary(
  task: Task,
  config: EvalConfig,
  data: { path: string; sha256: string },
  needed: ReadonlySet<string>,
): Promise<Map<string, AuxiliaryData>> {
  const paths = namedSettings(config.aux, "aux");
  const declared = task.auxiliary ?? [];
  for (const name of paths.keys()) {
    if (!declared.some((a) => a.name === name)) {
      const known = declared.map((a) => a.name).join(", ") || "none";
      throw new ConfigError(`--aux: ${task.name} has no auxiliary input "${name}" (its inputs: ${known})`);
    }
  }
  const out = new Map<string, AuxiliaryData>();
  for (const input of declared) {
    const given = paths.get(input.name);
    if (!given && !needed.has(input.name)) continue;
    const shipped = config.data === undefined && input.defaultPath
      ? projectPath(input.defaultPath)
      : undefined;
    const path = given ?? await input.locate?.(data.path) ?? shipped;
    if (!path) {
      throw new ConfigError(`--aux: ${task.name} needs ${input.name}: pass --aux ${input.name}=PATH`);
    }
    const sha256 = await hashFile(path);
    if (sha256 === data.sha256 || await sameFile(path, data.path)) {
      throw new ConfigError(
        `--aux ${input.name}: ${path} is the evaluated data itself; ${input.name} must be another file`,
      );
    }
    out.set(input.name, {
      path,
      samples: await input.load(path, loadOptions({ columns: config.columns })),
      sha256,
    });
  }
  return out;
}

/** Returns `true` when `a` and `b` name the same file. */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([Deno.realPath(a).catch(() => a), Deno.realPath(b).catch(() => b)]);
  return x === y;
}

/** The rating scorer `--human-eval` imports into: the first the task declares. */
function humanEvalScorer(task: Task): [string, RatingSpec] {
  const first = Object.entries(task.ratings ?? {})[0];
  if (!first) throw new ConfigError(`--human-eval: ${task.name} reads no human ratings`);
  return first;
}

/**
 * The part of the manifest a resumed run must match: everything that changes which calls are made — the
 * models (by name), prompts, data and parameters (extra body parameters included). Where the models are served
 * (base URLs, API versions) is not part of it: a server may come back on another address; each call records its
 * endpoint, and the manifest the addresses.
 */
function runIdentity(
  config: EvalConfig,
  task: Task,
  resolved: {
    generation: GenerationParams;
    model: string;
    judgeRuns: number;
    judgeParams: { temperature: number | undefined; seed: number };
    roles: RolePlan[];
    auxiliary: Map<string, AuxiliaryData>;
  },
  dataHash: string,
  n: number,
  robustness?: RobustnessOptions,
) {
  const embed = resolved.roles.find((r) => r.name === "embed");
  const judges = resolved.roles.find((r) => r.name === "judge")?.providers.map((p) => p.model) ?? [];
  const extra = resolved.roles.filter((r) => !["model", "judge", "embed"].includes(r.name));
  // Extra body parameters change the answers: recorded by role, only when some role has them.
  const extraBody = resolved.roles.map((r) => [r.name, r.providers[0].shape?.extraBody ?? {}] as const)
    .filter(([, body]) => Object.keys(body).length > 0);
  const templates = Object.assign({}, task.solver.templates, ...task.scorers.map((s) => s.templates ?? {}));
  return {
    benchmark: task.name,
    model: resolved.model,
    embedder: embed ? embed.providers[0].model : null,
    generation: resolved.generation,
    judge: judges.length === 0 ? null : judges.length === 1 ? judges[0] : judges,
    judge_runs: resolved.judgeRuns,
    judge_params: resolved.judgeParams,
    data_sha256: dataHash,
    samples: n,
    prompts: Object.fromEntries(Object.entries(templates).map(([k, v]) => [k, hashValue(v)])),
    ...(extra.length ? { roles: Object.fromEntries(extra.map((r) => [r.name, r.providers[0].model])) } : {}),
    ...(config.columns !== undefined ? { columns: parseColumns(config.columns) } : {}),
    ...(extraBody.length ? { extra_body: Object.fromEntries(extraBody) } : {}),
    ...(robustness ? { robustness } : {}),
    ...(resolved.auxiliary.size
      ? { auxiliary: Object.fromEntries([...resolved.auxiliary].map(([name, a]) => [name, a.sha256])) }
      : {}),
  };
}

/** The part of a condition a resumed run must match: its solver, its prompts and its perturbation. */
export function conditionIdentity(condition: Condition, task: Task, robustness?: RobustnessOptions) {
  const solver = withRobustness(conditionSolver(condition, task), robustness);
  return {
    kind: condition.kind,
    perturb: condition.perturb ?? null,
    solver: solver.name,
    prompts: Object.fromEntries(Object.entries(solver.templates).map(([k, v]) => [k, hashValue(v)])),
  };
}

/** Returns each condition's identity under its manifest key (`condition:<name>`), as a run store records it. */
export function conditionIdentities(
  plan: Pick<EvalPlan, "conditions" | "task" | "robustness">,
): Record<string, ReturnType<typeof conditionIdentity>> {
  return Object.fromEntries(plan.conditions.map(({ condition }) => [
    `condition:${condition.name}`,
    conditionIdentity(condition, plan.task, plan.robustness),
  ]));
}

/** A run checked from end to end: everything it needs, resolved, with nothing written and nothing sent. */
export interface EvalPlan {
  /** The settings as given. */
  config: EvalConfig;
  /** The benchmark. */
  task: Task;
  /** Data file read. */
  dataPath: string;
  /** The samples to evaluate (after `limit`; one shard's with `--shard`), validated. */
  samples: Sample[];
  /** Every sample of the run: `samples` unless the run is sharded (what scorers prepare on, in the same order). */
  allSamples: Sample[];
  /** The shard of the run this plan evaluates (`--shard`); absent for a whole run. */
  shard?: Shard;
  /** The baseline first, then each ablation, each with its samples as the model will see them. */
  conditions: { condition: Condition; applied: AppliedCondition }[];
  /** Seed of the perturbations, as recorded in notes. */
  perturbSeed: string;
  /** The robustness sets asked for (`--robustness`); their variants are among `samples`. */
  robustness?: RobustnessOptions;
  /** Length buckets to tabulate, if asked for. */
  buckets?: BucketSpec;
  /** Judge runs per answer. */
  judgeRuns: number;
  /** The model's generation parameters (benchmark defaults with the flags applied). */
  generation: GenerationParams;
  /** Retry policy of every caller. */
  retry: RetryPolicy;
  /** Every role of the run, `model` first. */
  roles: RolePlan[];
  /** The judges' labels (several for a jury). */
  judges: string[];
  /** Where each role calling a server is sent (`host/path` per endpoint): recorded, not part of `identity`. */
  endpoints: RoleEndpoints;
  /** The task's auxiliary inputs, by name. */
  auxiliary: Map<string, AuxiliaryData>;
  /** Ratings to import with the run (`--human-eval`), validated. */
  ratings?: { scorer: string; spec: RatingSpec; file: RatingsFile };
  /** What a resumed run must match. */
  identity: ReturnType<typeof runIdentity>;
  /** Path of the run store. */
  storePath: string;
  /** Token prices for cost accounting and `--max-cost` (the shipped table, `--prices` laid over it). */
  prices: PriceTable;
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

/** Returns the robustness sets `--robustness` asks for (`undefined` without it); the task must have sources. */
function planRobustness(config: EvalConfig, task: Task, seed: string): RobustnessOptions | undefined {
  if (!config.robustness) return undefined;
  if (!ROBUSTNESS_SOURCES.met(task)) {
    throw new ConfigError(`--robustness: ${ROBUSTNESS_SOURCES.refusal!(task)}`);
  }
  return {
    sets: parseRobustnessSets(config.robustnessSets ?? "all"),
    variants: config.robustnessVariants ?? DEFAULT_VARIANTS,
    seed,
  };
}

/** Returns `--columns KEY=COLUMN,...` as a record (`undefined` when not given). */
export function parseColumns(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const match = part.trim().match(/^([A-Za-z_][\w-]*)=(.+)$/);
    if (!match) throw new ConfigError(`--columns: expected KEY=COLUMN[,KEY=COLUMN...], got "${part.trim()}"`);
    out[match[1]] = match[2].trim();
  }
  return out;
}

/** Returns the load options `config` gives (`--columns`, `--split`). */
export function loadOptions(config: Pick<EvalConfig, "columns" | "split">): LoadOptions {
  return {
    ...(config.columns !== undefined ? { columns: parseColumns(config.columns) } : {}),
    ...(config.split !== undefined ? { split: config.split } : {}),
  };
}

/**
 * Reads and validates `path` (default: the task's shipped sample) for {@linkcode planEval}; a split directory
 * is read through the file the task resolves it to, and that file is what is hashed and recorded.
 */
export async function loadEvalData(
  task: Task,
  path = projectPath(task.defaultDataPath),
  options: LoadOptions = {},
): Promise<EvalData> {
  const file = task.dataFile ? await task.dataFile(path, options) : path;
  // A loader that reads the file through `readBytes` has its bytes hashed as they are read (off this thread),
  // so the hash is of the bytes validated and the file is read once; a directory, or a loader reading some
  // other way, is hashed on its own after (a file that cannot be read fails in `load`, naming it).
  const read = watchReads(file);
  try {
    const samples = await task.load(file, options);
    return { path: file, samples, sha256: await (read.sha256 ?? hashPath(file)) };
  } finally {
    read.stop();
  }
}

/**
 * Checks the whole configuration and the data without writing a file or sending a request: unknown or
 * undeclared flags, numbers out of range, a missing judge or translator, bad base URLs, unset key variables,
 * conditions that change nothing, and an existing run store without `--resume` are each a one-line
 * {@linkcode ConfigError} naming the flag; bad data (main, auxiliary or ratings) is an `InputError` naming file,
 * record and field. `data`, when given, is `config.data` already loaded (several runs over one file read it
 * once).
 */
export async function planEval(config: EvalConfig, data?: EvalData): Promise<EvalPlan> {
  const task = await getTask(config.benchmark);
  checkEvalOptions(config, task);
  if (config.apiKeyEnv) requireEnv("api-key-env", config.apiKeyEnv);
  const loaded = data ?? await loadEvalData(task, config.data, loadOptions(config));
  const perturbSeed = String(config.perturbSeed ?? 0);
  const robustness = planRobustness(config, task, perturbSeed);
  // The character tables load only when a robustness set or a perturbation will read them.
  if (robustness) await loadCharacterTables();
  const kept = limitSamples(loaded.samples, config.limit);
  const allSamples = robustness
    ? [...kept, ...robustnessSamples(robustnessSources(task.robustness!, kept), robustness)]
    : kept;
  // A shard asks only its own conversations; everything measured over the run still uses `allSamples`.
  const shard = config.shard === undefined ? undefined : parseShard(config.shard);
  const samples = shard ? shardSamples(allSamples, shard) : allSamples;
  const conditions = [
    baselineCondition(config.condition ?? "default"),
    ...(config.ablations ?? []).map((a) => parseAblation(a, perturbSeed)),
  ];
  if (new Set(conditions.map((c) => c.name)).size !== conditions.length) {
    throw new ConfigError(`--ablation: conditions repeat: ${conditions.map((c) => c.name).join(", ")}`);
  }
  if (conditions.some((c) => c.perturb && c.perturb.kind !== "nota")) await loadCharacterTables();
  const whole = conditions.map((c) => ({ condition: c, applied: applyCondition(c, allSamples) }));
  for (const { condition, applied: a } of whole) {
    if (condition.kind === "perturb" && a.notApplicable === allSamples.length) {
      throw new ConfigError(
        `--ablation ${condition.name}: changes none of the ${allSamples.length} ${task.name} samples` +
          (condition.perturb!.kind === "nota" ? " (it applies to single-answer choice items)" : ""),
      );
    }
  }
  const buckets = config.buckets ? parseBucketSpec(config.buckets) : undefined;
  const solvers = conditions.map((c) => withRobustness(conditionSolver(c, task), robustness));
  const applied = shard ? whole.map((c) => ({ ...c, applied: shardCondition(c.applied, samples) })) : whole;
  const { plans: roles, model, judges, endpoints, generation, judgeRuns, judgeParams } = planRoles(
    config,
    task,
    solvers,
    allSamples,
    await loadProfiles(config.profiles),
  );
  const needed = new Set(solvers.flatMap((solver) => solver.auxiliary ?? []));
  const auxiliary = await loadAuxiliary(task, config, loaded, needed);
  let ratings: EvalPlan["ratings"];
  if (config.humanEval) {
    const [scorer, spec] = humanEvalScorer(task);
    const file = readRatings(await readBytes(config.humanEval), config.humanEval, spec, {
      defaultRater: "human-eval",
      sampleIds: new Set(allSamples.map((s) => s.id)),
    });
    // A shard stores the ratings of its own samples only.
    const own = new Set(samples.map((s) => s.id));
    const stored = shard ? { ...file, ratings: file.ratings.filter((r) => own.has(r.sampleId)) } : file;
    ratings = { scorer, spec, file: stored };
  }
  const identity = runIdentity(
    config,
    task,
    { model, generation, judgeRuns, judgeParams, roles, auxiliary },
    loaded.sha256,
    allSamples.length,
    robustness,
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
  const prices = await loadPrices(config.prices);
  if (config.maxCost !== undefined) checkPriced(roles, prices);
  if (config.renderFigures ?? true) findChromium();
  const retry = {
    ...DEFAULT_RETRY_POLICY,
    ...config.retryPolicy,
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
  };
  return {
    config,
    task,
    dataPath: loaded.path,
    samples,
    allSamples,
    shard,
    conditions: applied,
    perturbSeed,
    robustness,
    buckets,
    judgeRuns,
    generation,
    retry,
    roles,
    judges,
    endpoints,
    auxiliary,
    ratings,
    identity,
    storePath,
    prices,
  };
}

/**
 * `--max-cost` needs a price for every model that calls an API: an unpriced one would spend unseen. Every
 * unpriced model is named once, with the roles it serves, so one attempt shows all there is to price.
 */
function checkPriced(roles: readonly RolePlan[], prices: PriceTable): void {
  const unpriced = new Map<string, string[]>();
  for (const role of roles) {
    for (const provider of role.providers) {
      if (provider.offline || priceOf(prices, provider.model)) continue;
      const served = unpriced.get(provider.model) ?? [];
      if (!served.includes(role.name)) served.push(role.name);
      unpriced.set(provider.model, served);
    }
  }
  if (unpriced.size === 0) return;
  const names = [...unpriced].map(([model, served]) => `${served.join("/")} model "${model}"`);
  const fix =
    `add ${unpriced.size === 1 ? "it" : "them"} to a price file ("models" as in data/prices.json; ` +
    "other fields optional) and pass --prices FILE, or limit tokens with --max-tokens-total";
  throw new ConfigError(`--max-cost: no price for ${names.join(", ")}: ${fix}`);
}
