/**
 * Planning a run's roles from its settings: the model under test, the judges of judge-scored tasks (several
 * for a jury), the roles the conditions' solvers and the task call (`translator`, or a task's own), and the
 * embeddings model. Each role's model, base URL and key variable are configurable; base URLs default to the
 * model's, then `$OPENAI_BASE_URL`; key variables to `<ROLE>_API_KEY` when set, else `OPENAI_API_KEY`.
 * Nothing is sent: every problem is a one-line {@linkcode ConfigError} naming the flag.
 * @module
 */
import type { GenerationParams } from "../core/chat.ts";
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver, Task } from "../core/task.ts";
import { OFFLINE_JUDGES, OFFLINE_ROLES, STAND_INS } from "../benchmarks/stand_ins.ts";
import { createProvider, providerAddresses, type ProviderSettings } from "../providers/factory.ts";
import { batchRoleProviders } from "../providers/batch/batch.ts";
import type { ChatProvider } from "../providers/types.ts";
import type { RolePlan } from "./roles.ts";
import type { EvalConfig } from "./eval_config.ts";

/**
 * Every variable named by `--FLAG VAR[,VAR...]` must be set: a typo would otherwise send requests without a
 * key. Each of a comma-separated list (one per base URL of a pool) is checked and an unset one is named; a
 * name that is not a variable name (a key pasted by mistake) is refused without being echoed.
 */
export function requireEnv(flag: string, names: string): void {
  const list = names.split(",").map((name) => name.trim());
  for (const name of list) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ConfigError(
        name === ""
          ? `--${flag}: an empty variable name in a list of ${list.length} (expected VAR or VAR_A,VAR_B,...)`
          : `--${flag}: expects the NAME of an environment variable (e.g. OPENAI_API_KEY), never a key itself`,
      );
    }
    if (Deno.env.get(name) === undefined) {
      const of = list.length > 1 ? ` (of ${list.join(",")})` : "";
      throw new ConfigError(`--${flag}: the environment variable ${name}${of} is not set`);
    }
  }
}

/** Request timeout of every role, in milliseconds (default 120 s). */
function timeoutMs(config: EvalConfig): number {
  return (config.timeoutSeconds ?? 120) * 1000;
}

/** Returns the variable holding a role's key: the one given, else `<ROLE>_API_KEY` when set, else `OPENAI_API_KEY`. */
function keyVariable(role: string, given: string | undefined, flag: string): string {
  if (given) {
    requireEnv(flag, given);
    return given;
  }
  const own = `${role.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
  return Deno.env.get(own) ? own : "OPENAI_API_KEY";
}

/** The model's base URL when other roles may share it (an offline model has none). */
function sharedBaseUrl(config: EvalConfig): string | undefined {
  return config.model.startsWith("offline:") ? undefined : config.baseUrl;
}

/** Returns the judges given (`--judge` is repeatable for a jury). */
export function judgeNames(config: EvalConfig): string[] {
  return config.judge === undefined ? [] : Array.isArray(config.judge) ? config.judge : [config.judge];
}

/** Splits `NAME=VALUE` settings (`--role`, `--role-base-url`, `--aux`) into a map; errors name the flag. */
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

/** How one extra role is set: the model and, optionally, its base URL, key variable and concurrency. */
interface RoleSetting {
  model: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  concurrency?: number;
  /** The flags that set it, for errors. */
  flags: { model: string; baseUrl: string; apiKeyEnv: string };
}

/** Returns the settings of the roles beyond model, judge and embed: `--translator…` and `--role NAME=MODEL`. */
function extraRoleSettings(config: EvalConfig): Map<string, RoleSetting> {
  const settings = new Map<string, RoleSetting>();
  if (config.translator) {
    settings.set("translator", {
      model: config.translator,
      baseUrl: config.translatorBaseUrl,
      apiKeyEnv: config.translatorApiKeyEnv,
      concurrency: config.translatorConcurrency,
      flags: { model: "translator", baseUrl: "translator-base-url", apiKeyEnv: "translator-api-key-env" },
    });
  }
  const models = namedSettings(config.roles, "role");
  const urls = namedSettings(config.roleBaseUrls, "role-base-url");
  const keys = namedSettings(config.roleApiKeyEnvs, "role-api-key-env");
  for (const [flag, named] of [["role-base-url", urls], ["role-api-key-env", keys]] as const) {
    for (const name of named.keys()) {
      if (!models.has(name)) {
        throw new ConfigError(`--${flag}: ${name} has no model: pass --role ${name}=MODEL`);
      }
    }
  }
  for (const [name, model] of models) {
    if (["model", "judge", "embed"].includes(name) || settings.has(name)) {
      throw new ConfigError(`--role: ${name} has its own flags (--${name === "model" ? "model" : name})`);
    }
    settings.set(name, {
      model,
      baseUrl: urls.get(name),
      apiKeyEnv: keys.get(name),
      flags: { model: "role", baseUrl: "role-base-url", apiKeyEnv: "role-api-key-env" },
    });
  }
  return settings;
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
  /** The judges' labels (empty without judges). */
  judges: string[];
  /** The addresses of each role's endpoints (roles served offline have none). */
  endpoints: RoleEndpoints;
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

/** Returns the judge role, or `undefined` when no scorer calls a judge. */
function planJudges(config: EvalConfig, task: Task, endpoints: RoleEndpoints): RolePlan | undefined {
  const scorers = task.scorers.filter((s) => s.roles.includes("judge"));
  if (scorers.length === 0) return undefined;
  const names = judgeNames(config);
  if (names.length === 0) {
    throw new ConfigError(
      `--judge: ${task.name} is scored by a judge: pass --judge NAME (with --judge-base-url URL), or --judge offline:overlap for an offline smoke test; the model under test is never used as its own judge by default`,
    );
  }
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) throw new ConfigError(`--judge: ${repeated} is given twice (a jury needs different judges)`);
  const offline = Object.fromEntries(
    Object.entries(OFFLINE_JUDGES).filter(([name]) => scorers.every((s) => s.offline?.includes(name))),
  );
  const apiKeyEnv = keyVariable("judge", config.judgeApiKeyEnv, "judge-api-key-env");
  const modelBaseUrl = sharedBaseUrl(config);
  const providers = names.map((name) =>
    provide(endpoints, "judge", {
      model: name,
      baseUrl: config.judgeBaseUrl ?? modelBaseUrl,
      baseUrlFlag: config.judgeBaseUrl || !modelBaseUrl ? "--judge-base-url" : "--base-url",
      who: `--judge: judge "${name}"`,
      apiKeyEnv,
      apiKeyEnvFlag: config.judgeApiKeyEnv ? "--judge-api-key-env" : undefined,
      timeoutMs: timeoutMs(config),
      concurrency: config.judgeConcurrency ?? config.concurrency ?? 8,
      rpm: config.judgeRpm,
      tpm: config.judgeTpm,
      offline,
    })
  );
  return {
    name: "judge",
    providers,
    defaults: { temperature: config.judgeTemperature, seed: config.judgeSeed ?? 0 },
  };
}

/** Returns the roles the solvers and the task call beyond model and judge, each required to be set. */
function planExtraRoles(
  config: EvalConfig,
  task: Task,
  solvers: readonly Solver[],
  endpoints: RoleEndpoints,
): RolePlan[] {
  const settings = extraRoleSettings(config);
  const needs = new Map<string, string>();
  for (const solver of solvers) {
    for (const role of solver.roles ?? []) if (!needs.has(role)) needs.set(role, `the ${solver.name} solver`);
  }
  for (const role of task.roles ?? []) {
    if (role.required && !needs.has(role.name)) needs.set(role.name, `${task.name} (${role.description})`);
  }
  const optional = new Set((task.roles ?? []).filter((r) => !r.required).map((r) => r.name));
  for (const [name, setting] of settings) {
    if (!needs.has(name) && !optional.has(name)) {
      const flag = setting.flags.model === "role" ? `--role ${name}=…` : `--${setting.flags.model}`;
      throw new ConfigError(`${flag}: nothing in this run calls a ${name} (e.g. --ablation pivot:en does)`);
    }
  }
  // Every role given is needed or optional by now: plan the needed ones and the optional ones given.
  const plans: RolePlan[] = [];
  for (const name of new Set([...needs.keys(), ...settings.keys()])) {
    const setting = settings.get(name);
    if (!setting) {
      const [flag, value] = name === "translator" ? ["translator", "NAME"] : ["role", `${name}=NAME`];
      throw new ConfigError(`--${flag}: ${needs.get(name)} needs a ${name}: pass --${flag} ${value}`);
    }
    const modelBaseUrl = sharedBaseUrl(config);
    plans.push({
      name,
      providers: [provide(endpoints, name, {
        model: setting.model,
        baseUrl: setting.baseUrl ?? modelBaseUrl,
        baseUrlFlag: setting.baseUrl || !modelBaseUrl ? `--${setting.flags.baseUrl}` : "--base-url",
        who: `--${setting.flags.model}: ${name} "${setting.model}"`,
        apiKeyEnv: keyVariable(name, setting.apiKeyEnv, setting.flags.apiKeyEnv),
        apiKeyEnvFlag: setting.apiKeyEnv ? `--${setting.flags.apiKeyEnv}` : undefined,
        timeoutMs: timeoutMs(config),
        concurrency: setting.concurrency ?? config.concurrency ?? 8,
        offline: OFFLINE_ROLES[name] ?? {},
      })],
      defaults: {},
    });
  }
  return plans;
}

/** Returns the embeddings role when `--embed-model` is given. */
function planEmbed(config: EvalConfig, endpoints: RoleEndpoints): RolePlan | undefined {
  if (!config.embedModel) return undefined;
  return {
    name: "embed",
    providers: [provide(endpoints, "embed", {
      model: config.embedModel,
      baseUrl: config.embedBaseUrl ?? config.baseUrl,
      baseUrlFlag: config.embedBaseUrl ? "--embed-base-url" : "--embed-base-url (or --base-url)",
      who: `--embed-model: embeddings model "${config.embedModel}"`,
      apiKeyEnv: config.apiKeyEnv ?? "OPENAI_API_KEY",
      apiKeyEnvFlag: config.apiKeyEnv ? "--api-key-env" : undefined,
      timeoutMs: timeoutMs(config),
      concurrency: config.concurrency,
      offline: {},
      embeddings: true,
    })],
    defaults: {},
  };
}

/**
 * Returns every role of a run: the model under test (`corpus` feeds the retrieval baseline) with the
 * generation parameters of the task and the flags, the judges, the roles `solvers` and the task call, and
 * the embeddings model.
 */
export function planRoles(
  config: EvalConfig,
  task: Task,
  solvers: readonly Solver[],
  corpus: readonly Sample[],
  generation: GenerationParams,
): PlannedRoles {
  const endpoints: RoleEndpoints = {};
  const judge = planJudges(config, task, endpoints);
  const model = provide(endpoints, "model", {
    model: config.model,
    baseUrl: config.baseUrl,
    apiKeyEnv: config.apiKeyEnv,
    apiKeyEnvFlag: "--api-key-env",
    timeoutMs: timeoutMs(config),
    concurrency: config.concurrency,
    rpm: config.rpm,
    tpm: config.tpm,
    who: "--model",
  }, corpus);
  const plans: RolePlan[] = [
    { name: "model", providers: [model], defaults: generation },
    ...(judge ? [judge] : []),
    ...planExtraRoles(config, task, solvers, endpoints),
  ];
  const embed = planEmbed(config, endpoints);
  if (embed) plans.push(embed);
  if (config.batch) batchRoleProviders(plans, { pollMs: (config.batchPollSeconds ?? 30) * 1000 });
  const byRole = Object.fromEntries(
    plans.filter((p) => endpoints[p.name]).map((p) => [p.name, endpoints[p.name]]),
  );
  return { plans, judges: judge ? judge.providers.map((p) => p.label) : [], endpoints: byRole };
}
