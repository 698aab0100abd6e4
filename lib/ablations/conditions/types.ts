/**
 * The shape of a condition: what `--ablation SPEC` parses into, and the registry entry that declares a kind of
 * condition (how its spec is parsed, what a task must declare for it, its solver, what it does to the samples
 * and the note its summary carries).
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import type { Solver, Task } from "../../core/task.ts";
import type { PerturbSpec } from "../perturb.ts";

/** One condition of a run. */
export interface Condition {
  /** Name under which outputs and scores are stored: `default`, `cot`, `perturb:homophone@0.12`. */
  name: string;
  /** Stored kind (in the manifest): `baseline`, `cot`, `pivot`, `role`, `fewshot`, `perturb` or `mps`. */
  kind: "baseline" | "cot" | "pivot" | "role" | "fewshot" | "perturb" | "mps";
  /** The debater's role name, for `mps`. */
  debater?: string;
  /** Exemplars per question, for `fewshot`. */
  shots?: number;
  /** Seed of the exemplar draws, for `fewshot`. */
  seed?: string;
  /** The perturbation, for `perturb` and `nota`. */
  perturb?: PerturbSpec;
  /** The pivot language (a language code such as `en`), for `pivot`. */
  pivot?: string;
}

/** What applying a condition did to the samples. */
export interface AppliedCondition {
  /** The samples as the model sees them (same ids). */
  samples: Sample[];
  /** Perturbations only: characters changed / non-whitespace characters, over all samples. */
  achievedRate: number | null;
  /** Perturbations only: samples the perturbation could not apply to (they are asked unchanged). */
  notApplicable: number;
}

/** Something a task must declare for a condition to apply to it. */
export interface Need {
  /** What is needed, for `--help`, errors and docs, e.g. `a role table (Task.roleTable)`. */
  what: string;
  /** Returns `true` when `task` declares it. */
  met(task: Task): boolean;
  /** The one-line refusal when `task` lacks it, after `--ablation SPEC: ` (default: `TASK lacks WHAT`). */
  refusal?(task: Task, condition?: Condition): string;
}

/** What a condition's note may read beyond the condition and the task. */
export interface NoteContext {
  /** The task. */
  task: Task;
  /** The label of the models serving a role (e.g. `gpt-4o @ api.openai.com/v1`). */
  roleLabel: (role: string) => string;
  /** What applying the condition did to the samples of the run. */
  applied: AppliedCondition;
  /** Samples of the run (all shards). */
  total: number;
  /** Seed of the perturbations, as given. */
  perturbSeed: string;
  /** The auxiliary inputs of the run by name (the train split few-shot draws from), when loaded. */
  auxiliary?: ReadonlyMap<string, readonly Sample[]>;
}

/** A kind of condition, as the registry declares it. */
export interface ConditionEntry {
  /** Entry name, e.g. `cot`, `nota`. */
  readonly name: string;
  /** The `--ablation` form with what it does, one line for `--help` (it may list what `task` declares). */
  usage(task: Task): string;
  /** The `--ablation` forms it parses, for the list of known forms, e.g. `fewshot[:K]`. */
  readonly forms: string;
  /** Parses `text` into a condition; `undefined` when `text` is not of this entry; a one-line ConfigError when malformed. */
  parse(text: string, seed: string): Condition | undefined;
  /** What a task must declare for the condition to apply. */
  readonly needs: readonly Need[];
  /** The solver the condition uses with `task`, from the task's solver `base`. */
  solver(condition: Condition, task: Task, base: Solver): Solver;
  /** The samples under the condition (default: the samples unchanged). */
  apply?(condition: Condition, samples: readonly Sample[]): AppliedCondition;
  /** The note the condition's summary carries about how it was run (default none). */
  note?(condition: Condition, context: NoteContext): string | undefined;
}
