/**
 * Experimental conditions: the baseline and the ablations `eval` can run beside it in the same run store
 * (`--ablation cot`, `--ablation pivot:en`, `--ablation role`, `--ablation fewshot:5`,
 * `--ablation perturb:homophone@0.12`). A condition changes the solver (CoT, pivot translation, role
 * prompting, few-shot exemplars) or the samples (perturbations); outputs and scores are stored under its
 * name, so tables can set conditions side by side and pair them sample by sample. Each kind of condition is
 * one entry of the registry (`conditions/registry.ts`); the functions here look the entry up.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver, Task } from "../core/task.ts";
import { CONDITIONS } from "./conditions/registry.ts";
import type { AppliedCondition, Condition, ConditionEntry, NoteContext } from "./conditions/types.ts";

export type { AppliedCondition, Condition, NoteContext } from "./conditions/types.ts";

/** The baseline condition (vanilla prompts, clean samples). */
export function baselineCondition(name = "default"): Condition {
  return { name, kind: "baseline" };
}

/** Returns the registry entry of `condition` (the one that parses its name); `undefined` for the baseline. */
function entryOf(condition: Condition): ConditionEntry | undefined {
  if (condition.kind === "baseline") return undefined;
  const entry = CONDITIONS.find((e) => e.parse(condition.name, "0") !== undefined);
  if (!entry) throw new Error(`no condition entry parses "${condition.name}"`);
  return entry;
}

/** Returns `true` when `task` allows `entry` (`Task.conditions`) and declares everything it needs. */
function applies(entry: ConditionEntry, task: Task): boolean {
  return allows(task, entry) && entry.needs.every((need) => need.met(task));
}

/** Returns `true` unless `task` lists the conditions that make sense for it and `entry` is not among them. */
function allows(task: Task, entry: ConditionEntry): boolean {
  return task.conditions === undefined || task.conditions.includes(entry.name);
}

/**
 * Returns the `--ablation` forms that apply to `task`, one line each with what it does: the registry's
 * entries whose needs the task meets, in registry order.
 */
export function ablationsFor(task: Task): string[] {
  return CONDITIONS.filter((entry) => applies(entry, task)).map((entry) => entry.usage(task));
}

/**
 * Throws a {@linkcode ConfigError} when `condition` cannot apply to `task`: the task lists its conditions
 * without it, or lacks a need (a perturbation kind for other inputs, role prompting without a role table,
 * few-shot without a train split). The message names what is missing and what does apply.
 */
export function checkAblation(condition: Condition, task: Task): void {
  const entry = entryOf(condition);
  const why = entry && refusal(entry, condition, task);
  if (!why) return;
  throw new ConfigError(
    `--ablation ${condition.name}: ${why}; ablations for ${task.name}: ${
      ablationsFor(task).map((a) => a.split(" (")[0]).join(", ")
    }`,
  );
}

/** Returns why `entry` cannot apply to `task` (`undefined` when it can). */
function refusal(entry: ConditionEntry, condition: Condition, task: Task): string | undefined {
  if (!allows(task, entry)) {
    return `${task.name} does not declare ${entry.name} among its conditions (${
      task.conditions!.join(", ")
    })`;
  }
  const missing = entry.needs.find((need) => !need.met(task));
  return missing && (missing.refusal?.(task, condition) ?? `${task.name} lacks ${missing.what}`);
}

/** Parses an `--ablation` value (`cot`, `perturb:KIND[@RATE]`); `seed` fixes perturbations and draws. */
export function parseAblation(text: string, seed = "0"): Condition {
  for (const entry of CONDITIONS) {
    const condition = entry.parse(text, seed);
    if (condition) return condition;
  }
  throw new ConfigError(`unknown ablation "${text}"; known: ${CONDITIONS.map((e) => e.forms).join(", ")}`);
}

/**
 * Returns the solver a condition uses with `task` (a run with robustness sets wraps it: see
 * `withRobustness` in `lib/robustness/sets.ts`). Throws a {@linkcode ConfigError} when the task lacks a need.
 */
export function conditionSolver(condition: Condition, task: Task): Solver {
  const entry = entryOf(condition);
  if (!entry) return task.solver;
  checkAblation(condition, task);
  return entry.solver(condition, task, task.solver);
}

/** Returns the note a condition's summary carries about how it was run (`undefined` for none). */
export function conditionNote(condition: Condition, context: NoteContext): string | undefined {
  return entryOf(condition)?.note?.(condition, context);
}

/** Returns the samples under `condition` (perturbed copies for perturbations, the same samples otherwise). */
export function applyCondition(condition: Condition, samples: readonly Sample[]): AppliedCondition {
  const entry = entryOf(condition);
  return entry?.apply?.(condition, samples) ??
    { samples: [...samples], achievedRate: null, notApplicable: 0 };
}
