/**
 * Checking a run's settings against the option table before anything is read or written: flags that do not
 * apply to the benchmark (named with the benchmark's own), flags without the flag they need, numbers out of
 * range, and ablations that cannot apply.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { checkAblation, parseAblation } from "../ablations/condition.ts";
import type { EvalConfig } from "./eval_config.ts";
import { checkNumber, EVAL_OPTIONS, evalOption, optionApplies } from "./eval_options.ts";
import { givenRoles } from "./given_roles.ts";

/**
 * Checks `config` against the table for `task`: benchmark options that do not apply to the task, numbers out
 * of range or not integers, and ablations that cannot apply to the task are a {@linkcode ConfigError} naming
 * the flag.
 */
export function checkEvalOptions(config: EvalConfig, task: Task): void {
  for (const option of EVAL_OPTIONS) {
    const value = (config as Record<string, unknown>)[option.key];
    if (value === undefined) continue;
    if (!optionApplies(option, task)) {
      const own = EVAL_OPTIONS.filter((o) => o.scope === "benchmark" && optionApplies(o, task))
        .map((o) => `--${o.flag}`).join(", ") || "none";
      throw new ConfigError(`--${option.flag} is not used by ${task.name} (its own flags: ${own})`);
    }
    const needed = option.requires && evalOption(option.requires);
    // A role's alias needs the role's model, however it is given (`--judge X` or `--role judge=X`).
    const modelGiven = needed && needed.role?.field === "model" && needed.role.name === option.role?.name
      ? givenRoles(config).get(needed.role.name)?.config.model !== undefined
      : needed && (config as Record<string, unknown>)[needed.key] !== undefined;
    if (needed && !modelGiven) {
      throw new ConfigError(`--${option.flag} needs --${needed.flag}`);
    }
    if (option.kind === "integer" || option.kind === "number") checkNumber(option, value as number);
  }
  for (const ablation of config.ablations ?? []) checkAblation(parseAblation(ablation), task);
}
