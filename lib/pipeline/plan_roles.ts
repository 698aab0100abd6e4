/**
 * Planning a run's roles from its settings, in one loop over the roles given (see {@linkcode givenRoles}): the
 * model under test, the judges of judge-scored tasks (several for a jury), the roles the conditions' solvers
 * and the task call (`translator`, or a task's own), and the embeddings model. Every role takes every key of
 * `ROLE_KEYS`; base URLs default to the model's (when it is served), then `$OPENAI_BASE_URL`; an Azure API
 * version to the model's when the role shares its base URL; concurrency to
 * the model's, then the table's default; key variables to `<ROLE>_API_KEY` when set, else `OPENAI_API_KEY`
 * (the embeddings model: the model's key). Nothing is sent: every problem is a one-line
 * {@linkcode ConfigError} naming the flag.
 * @module
 */
import type { GenerationParams } from "../core/chat.ts";
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver, Task } from "../core/task.ts";
import { OFFLINE_JUDGES, OFFLINE_ROLES, STAND_INS } from "../benchmarks/stand_ins.ts";
import { createProvider, providerAddresses, type ProviderSettings } from "../providers/factory.ts";
import type { ProfileTable } from "../providers/transport/profiles.ts";
import { DEFAULT_TIMEOUT_MS, timerDelayMs } from "../providers/transport/client_options.ts";
import { batchRoleProviders } from "../providers/batch/batch.ts";
import type { ChatProvider } from "../providers/types.ts";
import type { RolePlan } from "./roles.ts";
import type { EvalConfig } from "./eval_config.ts";
import { taskRoles } from "./eval_options.ts";
import { type RoleConfig, roleDefault } from "./role_keys.ts";
import {
  checkModelsGiven,
  type GivenRole,
  givenRoles,
  modelHint,
  oneModel,
  roleFlag,
  roleSuggestion,
} from "./given_roles.ts";

/**
 * Every variable named by `--FLAG VAR[,VAR...]` must be set: a typo would otherwise send requests without a
 * key. Each of a comma-separated list (one per base URL of a pool) is checked and an unset one is named; a
 * name that is not a variable name (a key pasted by mistake) is refused without being echoed.
 */
export function requireEnv(flag: string, names: string): void {
  // `api-key-env` is named as `--api-key-env`; `--role-opt x.api-key-env` and `roles.x.apiKeyEnv` as they are.
  const source = flag.startsWith("--") || flag.startsWith("roles.") ? flag : `--${flag}`;
  const list = names.split(",").map((name) => name.trim());
  for (const name of list) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ConfigError(
        name === ""
          ? `${source}: an empty variable name in a list of ${list.length} (expected VAR or VAR_A,VAR_B,...)`
          : `${source}: expects the NAME of an environment variable (e.g. OPENAI_API_KEY), never a key itself`,
      );
    }
    if (Deno.env.get(name) === undefined) {
      const of = list.length > 1 ? ` (of ${list.join(",")})` : "";
      throw new ConfigError(`${source}: the environment variable ${name}${of} is not set`);
    }
  }
}

/**
 * Request timeout of every role, in milliseconds (default 120 s); `--timeout` is checked against its maximum
 * before planning, and the transport caps what it arms a timer with.
 */
function timeoutMs(config: EvalConfig): number {
  return config.timeoutSeconds !== undefined ? config.timeoutSeconds * 1000 : DEFAULT_TIMEOUT_MS;
}

/** Splits `NAME=VALUE` settings (`--aux`) into a map; errors name the flag. */
export function namedSettings(values: readonly string[] | undefined, flag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const value of values ?? []) {
    const match = value.match(/^([a-z][a-z0-9_-]*)=(.+)$/);
    if (!match) throw new ConfigError(`--${flag}: expected NAME=VALUE, got "${value}"`);
    if (out.has(match[1])) throw new ConfigError(`--${flag}: ${match[1]} is given twice`);
    out.set(match[1], match[2]);
  }
  return out;
}

/**
 * The addresses (`host/path`, never credentials) each role that calls a server is sent to, by role: not part of
 * a run's identity (a server may come back elsewhere), recorded in its manifest and with every call.
 */
export type RoleEndpoints = Record<string, string[]>;

/** What planning the roles settled on. */
export interface PlannedRoles {
  /** Every role of the run, `model` first. */
  plans: RolePlan[];
  /** The model under test (by name). */
  model: string;
  /** The judges' labels (empty without judges). */
  judges: string[];
  /** The addresses of each role's endpoints (roles served offline have none). */
  endpoints: RoleEndpoints;
  /** The model's generation parameters: the task's, with the model role's temperature, max tokens and seed. */
  generation: GenerationParams;
  /** Judge runs per answer (the judge's `runs`, default from the table). */
  judgeRuns: number;
  /** The judge's temperature and seed (run 1), as the manifest records them. */
  judgeParams: { temperature: number | undefined; seed: number };
}

/** Returns the provider of `settings` for `role`, adding the addresses it serves to `endpoints[role]`. */
function provide(
  endpoints: RoleEndpoints,
  role: string,
  settings: ProviderSettings,
  corpus?: readonly Sample[],
): ChatProvider {
  const provider = createProvider({ ...settings, standIns: STAND_INS }, corpus);
  if (!provider.offline) {
    endpoints[role] = [...new Set([...(endpoints[role] ?? []), ...providerAddresses(settings)])];
  }
  return provider;
}

/** Returns the set generation parameters of a role (temperature, max tokens, seed). */
function generationOf(config: RoleConfig): GenerationParams {
  return {
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
  };
}

/**
 * Returns the roles the run calls beyond `model` and `embed`, each with who needs it, and those a task allows
 * without needing them. The judge is needed when a scorer calls it.
 */
function neededRoles(
  task: Task,
  solvers: readonly Solver[],
): { needs: Map<string, string>; optional: Set<string> } {
  const needs = new Map<string, string>();
  for (const scorer of task.scorers) {
    for (const role of scorer.roles) if (!needs.has(role)) needs.set(role, `the ${scorer.name} scorer`);
  }
  for (const solver of solvers) {
    for (const role of solver.roles ?? []) if (!needs.has(role)) needs.set(role, `the ${solver.name} solver`);
  }
  for (const role of task.roles ?? []) {
    if (role.required && !needs.has(role.name)) needs.set(role.name, `${task.name} (${role.description})`);
  }
  const optional = new Set((task.roles ?? []).filter((r) => !r.required).map((r) => r.name));
  return { needs, optional };
}

/** Refuses a judge role that is needed but not given, or a jury naming one judge twice. */
function checkJudges(task: Task, judge: GivenRole | undefined): void {
  if (!judge) {
    throw new ConfigError(
      `--judge: ${task.name} is scored by a judge: pass --judge NAME (with --judge-base-url URL), or --judge offline:overlap for an offline smoke test; the model under test is never used as its own judge by default`,
    );
  }
  const names = [judge.config.model!].flat();
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) {
    throw new ConfigError(`${judge.flags.model}: ${repeated} is given twice (a jury needs different judges)`);
  }
}

/** Returns the variable holding `role`'s key: given, else the model's (embeddings), `<ROLE>_API_KEY` or `OPENAI_API_KEY`. */
function keyVariable(role: string, given: GivenRole, model: GivenRole): { env?: string; flag?: string } {
  const env = given.config.apiKeyEnv;
  if (env !== undefined) {
    requireEnv(given.flags.apiKeyEnv!, env);
    return { env, flag: given.flags.apiKeyEnv };
  }
  if (role === "model") return { flag: roleFlag("model", "apiKeyEnv") };
  if (role === "embed") {
    return { env: model.config.apiKeyEnv ?? "OPENAI_API_KEY", flag: model.flags.apiKeyEnv };
  }
  const own = `${role.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
  return { env: Deno.env.get(own) ? own : "OPENAI_API_KEY" };
}

/** Returns the provider settings of `role` served by `name` (one judge of a jury, or the role's model). */
function providerSettings(
  config: EvalConfig,
  role: string,
  name: string,
  given: GivenRole,
  model: GivenRole,
  offline: Record<string, string> | undefined,
): ProviderSettings {
  const own = given.config;
  const key = keyVariable(role, given, model);
  // Other roles share the model's base URL when it is served (embeddings: even when it is not).
  const modelBaseUrl = role === "embed" || !oneModel(model).startsWith("offline:")
    ? model.config.baseUrl
    : undefined;
  const modelBaseUrlFlag = model.flags.baseUrl ?? "--base-url";
  const baseUrlFlag = own.baseUrl !== undefined
    ? given.flags.baseUrl
    : role === "embed"
    ? `${roleFlag(role, "baseUrl")} (or ${modelBaseUrlFlag})`
    : modelBaseUrl
    ? modelBaseUrlFlag
    : roleFlag(role, "baseUrl");
  const label = role === "embed" ? "embeddings model" : role;
  // A role served at the model's base URL takes the model's API version unless it has its own.
  const sharesModelUrl = role !== "model" && own.baseUrl === undefined && modelBaseUrl !== undefined;
  const apiVersion = own.apiVersion ?? (sharesModelUrl ? model.config.apiVersion : undefined);
  const apiVersionFlag = own.apiVersion !== undefined
    ? given.flags.apiVersion
    : roleFlag(sharesModelUrl ? "model" : role, "apiVersion");
  return {
    model: name,
    baseUrl: role === "model" ? own.baseUrl : own.baseUrl ?? modelBaseUrl,
    ...(role === "model" ? {} : { baseUrlFlag }),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    apiVersionFlag,
    ...(own.extraBody
      ? { extraBody: own.extraBody, extraBodyOf: { role, flag: given.flags.extraBody! } }
      : {}),
    who: role === "model" ? given.flags.model! : `${given.flags.model}: ${label} "${name}"`,
    apiKeyEnv: key.env,
    apiKeyEnvFlag: key.flag,
    timeoutMs: timeoutMs(config),
    concurrency: own.concurrency ?? model.config.concurrency ?? roleDefault(role, "concurrency"),
    rpm: own.rpm,
    tpm: own.tpm,
    offline,
    ...(role === "embed" ? { embeddings: true } : {}),
  };
}

/**
 * Returns every role of a run — the model under test (`corpus` feeds the retrieval baseline) with the task's
 * generation parameters and the model role's, the judges, the roles `solvers` and the task call, and the
 * embeddings model — planned in one loop over the roles given; a role needed but not given, or given but
 * called by nothing, is an error naming its flag. Each model's requests take its profile of `profiles`.
 */
export function planRoles(
  config: EvalConfig,
  task: Task,
  solvers: readonly Solver[],
  corpus: readonly Sample[],
  profiles?: ProfileTable,
): PlannedRoles {
  const given = givenRoles(config);
  const model = given.get("model");
  if (!model) {
    throw new ConfigError(
      "--model is required (a served model name, or offline:reference / offline:retrieval)",
    );
  }
  const { needs, optional } = neededRoles(task, solvers);
  const judgeScorers = task.scorers.filter((s) => s.roles.includes("judge"));
  const calls = new Set([
    "model",
    ...needs.keys(),
    ...optional,
    ...(taskRoles(task).has("embed") ? ["embed"] : []),
  ]);
  for (const [name, role] of given) {
    if (!calls.has(name)) {
      const flag = role.flags.model === "--role"
        ? `--role ${name}=…`
        : role.flags.model ?? Object.values(role.flags)[0]!;
      const hint = name === "translator"
        ? " (e.g. --ablation pivot:en does)"
        : ` (roles of this run: ${[...calls].join(", ")}${roleSuggestion(name, [...calls])})`;
      throw new ConfigError(`${flag}: nothing in this run calls a ${name}${hint}`);
    }
  }
  checkModelsGiven(given);
  if (judgeScorers.length) checkJudges(task, given.get("judge"));
  for (const [name, who] of needs) {
    if (!given.has(name)) {
      throw new ConfigError(
        `${roleFlag(name, "model")}: ${who} needs a ${name}: pass ${modelHint(name, "NAME")}`,
      );
    }
  }
  // The judge first (its errors come first), then the model, the other roles as needed or given, embeddings last.
  const order = [
    ...(given.has("judge") ? ["judge"] : []),
    "model",
    ...[...new Set([...needs.keys(), ...given.keys()])].filter((n) =>
      !["model", "judge", "embed"].includes(n)
    ),
    ...(given.has("embed") ? ["embed"] : []),
  ];
  const endpoints: RoleEndpoints = {};
  const planned = new Map<string, RolePlan>();
  const generation: GenerationParams = { ...task.generation, ...generationOf(model.config) };
  const judgeConfig = given.get("judge")?.config ?? {};
  const judgeParams = {
    temperature: judgeConfig.temperature,
    seed: judgeConfig.seed ?? roleDefault("judge", "seed")!,
  };
  for (const name of order) {
    const role = given.get(name)!;
    const offline = name === "model" ? undefined : name === "judge"
      ? Object.fromEntries(
        Object.entries(OFFLINE_JUDGES).filter(([n]) => judgeScorers.every((s) => s.offline?.includes(n))),
      )
      : OFFLINE_ROLES[name] ?? {};
    const providers = [role.config.model!].flat().map((m) =>
      provide(
        endpoints,
        name,
        { ...providerSettings(config, name, m, role, model, offline), profiles },
        name === "model" ? corpus : undefined,
      )
    );
    const defaults = name === "model" ? generation : name === "judge"
      ? {
        ...judgeParams,
        ...(role.config.maxTokens !== undefined ? { maxTokens: role.config.maxTokens } : {}),
      }
      : generationOf(role.config);
    planned.set(name, { name, providers, defaults });
  }
  const plans = [
    planned.get("model")!,
    ...[...planned.values()].filter((p) => p.name !== "model" && p.name !== "embed"),
    ...(planned.has("embed") ? [planned.get("embed")!] : []),
  ];
  // The batch provider arms a setTimeout with the poll: capped at 2^31 - 1 ms, past which it would fire at once
  // (--batch-poll-seconds is refused above that before planning; this holds for any other caller).
  const pollMs = timerDelayMs((config.batchPollSeconds ?? 30) * 1000);
  if (config.batch) batchRoleProviders(plans, { pollMs });
  const byRole = Object.fromEntries(
    plans.filter((p) => endpoints[p.name]).map((p) => [p.name, endpoints[p.name]]),
  );
  const judge = planned.get("judge");
  return {
    plans,
    model: oneModel(model),
    judges: judge ? judge.providers.map((p) => p.label) : [],
    endpoints: byRole,
    generation,
    judgeRuns: given.get("judge")?.config.runs ?? roleDefault("judge", "runs")!,
    judgeParams,
  };
}
