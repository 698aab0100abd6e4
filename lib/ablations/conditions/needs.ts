/**
 * What conditions need a task to declare: a role table, a train split, Chinese inputs, multiple-choice items.
 * Each is read from data the task declares, never from a per-condition hook.
 * @module
 */
import { TRAIN_SPLIT } from "../../solvers/few_shot.ts";
import type { Need } from "./types.ts";

/** A role table (`Task.roleTable`), for role prompting. */
export const ROLE_TABLE: Need = {
  what: "a role table (Task.roleTable)",
  met: (task) => task.roleTable !== undefined,
  refusal: (task) => `${task.name} has no role table`,
};

/** A train split (the auxiliary input `train`), for few-shot exemplars. */
export const TRAIN: Need = {
  what: `a ${TRAIN_SPLIT} split (auxiliary input ${TRAIN_SPLIT})`,
  met: (task) => task.auxiliary?.some((a) => a.name === TRAIN_SPLIT) ?? false,
  refusal: (task) => `${task.name} has no ${TRAIN_SPLIT} split to draw exemplars from`,
};

/** Chinese inputs (`Task.language` `zh`), for the Han-character perturbations. */
export const CHINESE: Need = {
  what: "Chinese inputs (Task.language zh or zh-*)",
  met: (task) => task.language === "zh" || task.language.startsWith("zh-"),
  refusal: (task, condition) =>
    `perturb:${condition!.perturb!.kind} does not apply to ${task.name} (${task.language} inputs)`,
};

/** Multiple-choice items (`Task.choices`), for "none of the above". */
export const CHOICES: Need = {
  what: "multiple-choice items (Task.choices, Sample.choices)",
  met: (task) => task.choices === true,
  refusal: (task) => `perturb:nota does not apply to ${task.name} (it declares no multiple-choice items)`,
};

/**
 * Robustness sources (`Task.robustness`), for `--robustness`. Robustness sets are not a condition (their
 * variants are answered under every condition, and `lib/robustness/` sits above `lib/ablations/`), but they
 * state their need the same way.
 */
export const ROBUSTNESS_SOURCES: Need = {
  what: "robustness sources (Task.robustness)",
  met: (task) => task.robustness !== undefined,
  refusal: (task) => `${task.name} has no robustness sources`,
};
