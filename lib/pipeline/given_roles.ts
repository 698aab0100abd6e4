/**
 * The settings of a run's roles, in one place: {@linkcode RoleConfig} (model, base URL, key variable, API
 * version, concurrency, rate limits, generation parameters, judge runs, extra body parameters), the table of its
 * keys with their ranges and defaults ({@linkcode ROLE_KEYS}), and {@linkcode givenRoles}, which gathers every
 * way a role is set — the generic `--role NAME=MODEL` and `--role-opt NAME.KEY=VALUE`, `EvalConfig.roles`, and
 * the short aliases users know (`--model`, `--judge-runs`, `--translator`, `--embed-model`, ...) — into one
 * record per role, each value with the flag that set it (for errors). Nothing is sent; every problem is a
 * one-line {@linkcode ConfigError}.
 * @module
 */
import { closestName } from "../core/closest.ts";
import { ConfigError } from "../core/errors.ts";
import type { EvalConfig } from "./eval_config.ts";
import { EVAL_OPTIONS } from "./eval_options.ts";
import { ROLE_KEYS, type RoleConfig, type RoleKey } from "./role_keys.ts";
import { parseExtraValue } from "../providers/transport/extra_body.ts";

/** A role as given: its settings and, for each one set, the flag that set it. */
export interface GivenRole {
  /** The settings given. */
  config: RoleConfig;
  /** The flag that set each field, e.g. `--judge-runs` or `--role-opt judge.runs`. */
  flags: Partial<Record<keyof RoleConfig, string>>;
}

/** Returns the flag that sets `field` of `role` for errors and help: its alias, else the generic one. */
export function roleFlag(role: string, field: keyof RoleConfig): string {
  const alias = EVAL_OPTIONS.find((o) => o.role?.name === role && o.role.field === field);
  if (alias) return `--${alias.flag}`;
  if (field === "model") return "--role";
  if (field === "baseUrl") return "--role-base-url";
  if (field === "apiKeyEnv") return "--role-api-key-env";
  if (field === "extraBody") return `--role-opt ${role}`;
  return `--role-opt ${role}.${ROLE_KEYS.find((k) => k.field === field)!.key}`;
}

/** `" (did you mean X?)"` when a known name is close to `name`, else `""`. */
function suggestion(name: string, names: readonly string[]): string {
  const near = closestName(name, names);
  return near ? `; did you mean ${near}?` : "";
}

/** Checks a number given for `key` and returns it; errors name `source`. */
function roleNumber(key: RoleKey, raw: string, source: string): number {
  const n = Number(raw);
  const range = [
    key.min !== undefined ? `${key.exclusiveMin ? ">" : ">="} ${key.min}` : "",
    key.max !== undefined ? `<= ${key.max}` : "",
  ].filter(Boolean).join(" and ");
  const wrong = raw.trim() === "" || !Number.isFinite(n) ||
    (key.kind === "integer" && !Number.isInteger(n)) ||
    (key.min !== undefined && (key.exclusiveMin ? n <= key.min : n < key.min)) ||
    (key.max !== undefined && n > key.max);
  if (wrong) {
    throw new ConfigError(
      `${source} expects ${key.kind === "integer" ? "an integer" : "a number"}${range ? ` ${range}` : ""}, ` +
        `got "${raw}"`,
    );
  }
  return n;
}

/**
 * Returns the key `--role-opt ROLE.KEY` names, refusing keys the role does not take. A key that is no role key
 * is refused too unless `extra` allows it, in which case `undefined` says it is an extra body parameter — but
 * not when it is written as role keys are (with a dash) or is near one (a typo: `rnus` for `runs`).
 */
function roleKey(role: string, key: string, source: string, extra = false): RoleKey | undefined {
  const known = ROLE_KEYS.filter((k) => (!k.only || k.only.includes(role)) && !k.not?.includes(role));
  const found = known.find((k) => k.key === key);
  if (found) return found;
  const names = known.map((k) => k.key);
  if (ROLE_KEYS.some((k) => k.key === key)) {
    throw new ConfigError(`${source}: the ${role} role takes no ${key} (its keys: ${names.join(", ")})`);
  }
  if (extra && !key.includes("-") && closestName(key, names) === undefined) return undefined;
  throw new ConfigError(
    `${source}: unknown key "${key}"${suggestion(key, names)} (keys: ${names.join(", ")})`,
  );
}

/** The roles being gathered, with a setter that refuses a field given twice. */
class Gathered {
  readonly roles = new Map<string, GivenRole>();

  /** Sets `field` of `role` to `value`, set by `flag`; a second setting of one field is an error. */
  set(role: string, field: keyof RoleConfig, value: RoleConfig[keyof RoleConfig], flag: string): void {
    const given = this.roles.get(role) ?? { config: {}, flags: {} };
    this.roles.set(role, given);
    const before = given.flags[field];
    if (before !== undefined) {
      throw new ConfigError(
        `${flag}: ${before === flag ? `${role} is given twice` : `also given as ${before}`}`,
      );
    }
    (given.config as Record<string, unknown>)[field] = value;
    given.flags[field] = flag;
  }

  /** Adds the extra body parameter `name` of `role`, set by `flag` (without the name); twice is an error. */
  setExtra(role: string, name: string, value: unknown, flag: string): void {
    const given = this.roles.get(role) ?? { config: {}, flags: {} };
    this.roles.set(role, given);
    const extra = given.config.extraBody ??= {};
    if (name in extra) throw new ConfigError(`${flag}.${name}: given twice`);
    extra[name] = value;
    given.flags.extraBody ??= flag;
  }
}

/** Splits `NAME=VALUE` (`--role`, `--role-base-url`, ...) into its parts; errors name `flag`. */
function nameValue(value: string, flag: string): [string, string] {
  const match = value.match(/^([a-z][a-z0-9_-]*)=(.+)$/);
  if (!match) throw new ConfigError(`--${flag}: expected NAME=VALUE, got "${value}"`);
  return [match[1], match[2]];
}

/**
 * Gathers every role setting of `config`: the alias fields (`model`, `judgeRuns`, `translatorConcurrency`,
 * `embedModel`, ...), `roles` (`--role NAME=MODEL` strings, or a record of {@linkcode RoleConfig}),
 * `roleBaseUrls`, `roleApiKeyEnvs` and `roleOptions` (`--role-opt NAME.KEY=VALUE`; a key that is no role key
 * is an extra body parameter, its value read as JSON when it is JSON, e.g. `top_k=20`, else as text, e.g.
 * `reasoning_effort=low`). A setting given two ways, a mistyped key, a key the role does not take or a value out
 * of range is a one-line error naming the flag.
 * Roles are returned in the order first given, `model` first; a role may lack a model here
 * ({@linkcode checkModelsGiven} refuses that once the run's roles are known).
 */
export function givenRoles(config: EvalConfig): Map<string, GivenRole> {
  const gathered = new Gathered();
  for (const option of EVAL_OPTIONS) {
    const value = (config as Record<string, unknown>)[option.key];
    if (!option.role || value === undefined) continue;
    gathered.set(option.role.name, option.role.field, value as RoleConfig["model"], `--${option.flag}`);
  }
  if (Array.isArray(config.roles)) {
    for (const entry of config.roles) {
      const [name, model] = nameValue(entry, "role");
      const before = gathered.roles.get(name)?.config.model;
      if (name === "judge" && before !== undefined && gathered.roles.get(name)!.flags.model === "--role") {
        // Repeating --role judge=… makes a jury, as repeating --judge does.
        gathered.roles.get(name)!.config.model = [...[before].flat(), model];
        continue;
      }
      gathered.set(name, "model", model, "--role");
    }
  } else if (config.roles) {
    for (const [name, role] of Object.entries(config.roles)) {
      for (const [field, value] of Object.entries(role)) {
        if (value === undefined) continue;
        if (field === "extraBody") {
          if (value === null || typeof value !== "object" || Array.isArray(value)) {
            throw new ConfigError(`roles.${name}.extraBody: expected an object of body parameters`);
          }
          for (const [key, v] of Object.entries(value)) {
            gathered.setExtra(name, key, v, `roles.${name}.extraBody`);
          }
          continue;
        }
        const key = ROLE_KEYS.find((k) => k.field === field);
        if (!key) throw new ConfigError(`roles.${name}: unknown field "${field}"`);
        const source = `roles.${name}.${field}`;
        const checked = key.kind === "string" ? value : roleNumber(key, String(value), source);
        gathered.set(name, key.field, checked, source);
      }
    }
  }
  for (
    const [list, flag, field] of [[config.roleBaseUrls, "role-base-url", "baseUrl"], [
      config.roleApiKeyEnvs,
      "role-api-key-env",
      "apiKeyEnv",
    ]] as const
  ) {
    for (const entry of list ?? []) {
      const [name, value] = nameValue(entry, flag);
      gathered.set(name, field, value, `--${flag}`);
    }
  }
  for (const entry of config.roleOptions ?? []) {
    const match = entry.match(/^([a-z][a-z0-9_-]*)\.([a-z][a-z0-9_-]*)=(.*)$/s);
    if (!match) {
      throw new ConfigError(`--role-opt: expected NAME.KEY=VALUE (e.g. judge.runs=2), got "${entry}"`);
    }
    const [, name, keyName, raw] = match;
    const source = `--role-opt ${name}.${keyName}`;
    const key = roleKey(name, keyName, source, true);
    if (raw === "") throw new ConfigError(`${source}: no value`);
    if (!key) gathered.setExtra(name, keyName, parseExtraValue(raw, source), `--role-opt ${name}`);
    else gathered.set(name, key.field, key.kind === "string" ? raw : roleNumber(key, raw, source), source);
  }
  for (const [name, given] of gathered.roles) {
    for (const field of Object.keys(given.config) as (keyof RoleConfig)[]) {
      if (field === "extraBody") continue;
      roleKey(name, ROLE_KEYS.find((k) => k.field === field)!.key, given.flags[field]!);
    }
    const [extra] = Object.keys(given.config.extraBody ?? {});
    if (name === "embed" && extra !== undefined) {
      const source = `${given.flags.extraBody}.${extra}`;
      throw new ConfigError(
        `${source}: the embed role takes no extra body parameter (it asks for embeddings)`,
      );
    }
    if (Array.isArray(given.config.model) && name !== "judge" && given.config.model.length > 1) {
      throw new ConfigError(`${given.flags.model}: ${name} takes one model (only judges make a jury)`);
    }
  }
  const model = gathered.roles.get("model");
  if (!model) return gathered.roles;
  return new Map([["model", model], ...[...gathered.roles].filter(([name]) => name !== "model")]);
}

/** Refuses a role given settings but no model (`--role-base-url x=URL` without `--role x=MODEL`). */
export function checkModelsGiven(roles: ReadonlyMap<string, GivenRole>): void {
  for (const [name, given] of roles) {
    if (given.config.model === undefined) {
      const flag = Object.values(given.flags)[0]!;
      throw new ConfigError(`${flag}: ${name} has no model: pass ${modelHint(name)}`);
    }
  }
}

/** How to give `role` a model, e.g. `--judge NAME` or `--role rephraser=MODEL` (`placeholder` the `MODEL`). */
export function modelHint(role: string, placeholder = "MODEL"): string {
  const flag = roleFlag(role, "model");
  return flag === "--role" ? `--role ${role}=${placeholder}` : `${flag} NAME`;
}

/** Returns the one model of a role given (a jury's first). */
export function oneModel(given: GivenRole): string {
  return [given.config.model!].flat()[0];
}

/** Returns the names of `roles` that are near `name`, for "did you mean" in errors. */
export function roleSuggestion(name: string, roles: readonly string[]): string {
  return suggestion(name, roles);
}
