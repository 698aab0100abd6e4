/**
 * Experimental conditions: the baseline and the ablations `eval` can run beside it in the same run store
 * (`--ablation cot`, `--ablation pivot:en`, `--ablation role`, `--ablation fewshot:5`,
 * `--ablation perturb:homophone@0.12`). A condition changes the solver (CoT, pivot translation, role
 * prompting, few-shot exemplars) or the samples (perturbations); outputs and scores are stored under its
 * name, so tables can set conditions side by side and pair them sample by sample.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver, Task } from "../core/task.ts";
import { cotSolver } from "../solvers/cot.ts";
import { DEFAULT_SHOTS, fewShotSolver, plainTextKey, TRAIN_SPLIT } from "../solvers/few_shot.ts";
import { languageName, pivotSolver } from "../solvers/pivot.ts";
import { mpsSolver } from "../solvers/mps.ts";
import { roleSolver } from "../solvers/role.ts";
import { parsePerturbSpec, perturbSample, type PerturbSpec } from "./perturb.ts";

/** One condition of a run. */
export interface Condition {
  /** Name under which outputs and scores are stored: `default`, `cot`, `perturb:homophone@0.12`. */
  name: string;
  /** `baseline`, `cot`, `pivot`, `role`, `fewshot`, `perturb` or `mps`. */
  kind: "baseline" | "cot" | "pivot" | "role" | "fewshot" | "perturb" | "mps";
  /** The debater's role name, for `mps`. */
  debater?: string;
  /** Exemplars per question, for `fewshot`. */
  shots?: number;
  /** Seed of the exemplar draws, for `fewshot`. */
  seed?: string;
  /** The perturbation, for `perturb`. */
  perturb?: PerturbSpec;
  /** The pivot language (a language code such as `en`), for `pivot`. */
  pivot?: string;
}

/** The baseline condition (vanilla prompts, clean samples). */
export function baselineCondition(name = "default"): Condition {
  return { name, kind: "baseline" };
}

/** The perturbation kinds `task` declares, split into character kinds (with `mixed`) and `nota`. */
function perturbationsOf(task: Pick<Task, "perturbations">): { chars: string[]; nota: boolean } {
  const kinds = task.perturbations ?? [];
  return { chars: kinds.filter((k) => k !== "nota"), nota: kinds.includes("nota") };
}

/**
 * Returns the `--ablation` forms that apply to `task`, one line each with what it does: CoT, pivot
 * translation and MPS always; role prompting with a role table; few-shot with a train split; the
 * perturbation kinds the task declares.
 */
export function ablationsFor(task: Pick<Task, "perturbations" | "rolePrompting" | "auxiliary">): string[] {
  const { chars, nota } = perturbationsOf(task);
  return [
    "cot (chain of thought)",
    "pivot:LANG (asked through LANG by --translator, answers translated back)",
    ...(task.rolePrompting ? ["role (system role per sample from the benchmark's role table)"] : []),
    ...(task.auxiliary?.some((a) => a.name === TRAIN_SPLIT)
      ? [`fewshot[:K] (K exemplars from the ${TRAIN_SPLIT} split, default ${DEFAULT_SHOTS})`]
      : []),
    "mps[:ROLE] (generation, debate by --role ROLE=MODEL (default debater), reflection)",
    ...(chars.length ? [`perturb:KIND[@RATE] (KIND ${chars.join(", ")}; rate default 0.12)`] : []),
    ...(nota ? ["perturb:nota (the correct option's text replaced by 'none of the above')"] : []),
  ];
}

/**
 * Throws a {@linkcode ConfigError} when `condition` cannot apply to `task`: a perturbation kind the task does
 * not declare (e.g. Han-character kinds on Persian questions), role prompting without a role table, few-shot
 * without a train split. The message names what does apply.
 */
export function checkAblation(condition: Condition, task: Task): void {
  const applies = () =>
    `ablations for ${task.name}: ${ablationsFor(task).map((a) => a.split(" (")[0]).join(", ")}`;
  if (condition.kind === "perturb") {
    const { chars, nota } = perturbationsOf(task);
    const ok = condition.perturb!.kind === "nota" ? nota : chars.includes(condition.perturb!.kind);
    if (!ok) {
      throw new ConfigError(
        `--ablation ${condition.name}: perturb:${condition.perturb!.kind} does not apply to ${task.name} ` +
          `(${task.language} inputs); ${applies()}`,
      );
    }
  }
  if (condition.kind === "role" && !task.rolePrompting) {
    throw new ConfigError(`--ablation role: ${task.name} has no role table; ${applies()}`);
  }
  if (condition.kind === "fewshot" && !task.auxiliary?.some((a) => a.name === TRAIN_SPLIT)) {
    throw new ConfigError(
      `--ablation ${condition.name}: ${task.name} has no ${TRAIN_SPLIT} split to draw exemplars from; ${applies()}`,
    );
  }
}

/** Parses an `--ablation` value (`cot`, `perturb:KIND[@RATE]`); `seed` fixes perturbations. */
export function parseAblation(text: string, seed = "0"): Condition {
  if (text === "cot") return { name: "cot", kind: "cot" };
  if (text.startsWith("pivot:")) {
    const via = text.slice("pivot:".length);
    if (!/^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(via)) {
      throw new ConfigError(`--ablation ${text}: expected pivot:LANG with a language code such as pivot:en`);
    }
    return { name: `pivot:${via}`, kind: "pivot", pivot: via };
  }
  if (text === "role") return { name: "role", kind: "role" };
  if (text === "mps" || text.startsWith("mps:")) {
    const debater = text === "mps" ? "debater" : text.slice("mps:".length);
    if (!/^[a-z][a-z0-9_-]*$/.test(debater) || ["model", "judge", "embed", "translator"].includes(debater)) {
      throw new ConfigError(`--ablation ${text}: expected mps or mps:ROLE with a role name such as debater2`);
    }
    return { name: text, kind: "mps", debater };
  }
  if (text === "fewshot" || text.startsWith("fewshot:")) {
    const k = text === "fewshot" ? DEFAULT_SHOTS : Number(text.slice("fewshot:".length));
    if (!Number.isInteger(k) || k < 1 || k > 64) {
      throw new ConfigError(`--ablation ${text}: expected fewshot or fewshot:K with 1 <= K <= 64`);
    }
    return { name: `fewshot:${k}`, kind: "fewshot", shots: k, seed };
  }
  if (text.startsWith("perturb:")) {
    const spec = parsePerturbSpec(text.slice("perturb:".length), seed);
    const name = spec.kind === "nota" ? "perturb:nota" : `perturb:${spec.kind}@${spec.rate}`;
    return { name, kind: "perturb", perturb: spec };
  }
  throw new ConfigError(
    `unknown ablation "${text}"; known: cot, pivot:LANG, role, fewshot[:K], mps[:ROLE], perturb:{shape,homophone,traditional,symbol,mixed}@RATE, perturb:nota`,
  );
}

/**
 * Returns the solver a condition uses with `task` (a run with robustness sets wraps it: see
 * `withRobustness` in `lib/robustness/sets.ts`).
 */
export function conditionSolver(condition: Condition, task: Task): Solver {
  if (condition.kind === "cot") return task.cotSolver ?? cotSolver(task.solver);
  if (condition.kind === "pivot") {
    return pivotSolver(task.solverIn?.(condition.pivot!) ?? task.solver, {
      via: condition.pivot!,
      from: task.language,
    });
  }
  if (condition.kind === "mps") return mpsSolver(task.solver, condition.debater);
  if (condition.kind === "role") {
    if (!task.rolePrompting) {
      throw new ConfigError(`--ablation role: ${task.name} has no role table (Task.rolePrompting)`);
    }
    return roleSolver(task.rolePrompting);
  }
  if (condition.kind === "fewshot") {
    if (!task.auxiliary?.some((a) => a.name === TRAIN_SPLIT)) {
      throw new ConfigError(
        `--ablation ${condition.name}: ${task.name} has no ${TRAIN_SPLIT} split to draw exemplars from`,
      );
    }
    return fewShotSolver(task.solver, {
      k: condition.shots!,
      seed: condition.seed!,
      textKey: task.textKey ?? plainTextKey,
    });
  }
  return task.solver;
}

/** Returns the note a condition's summary carries about how it was run (`undefined` for none). */
export function conditionNote(
  condition: Condition,
  task: Task,
  roleLabel: (role: string) => string,
): string | undefined {
  switch (condition.kind) {
    case "pivot":
      return `pivot translation: ${languageName(task.language)} → ${languageName(condition.pivot!)} → ${
        languageName(task.language)
      }, question and answer translated by ${roleLabel("translator")}`;
    case "role":
      return `role prompting: system role chosen by ${task.rolePrompting!.field} through ${
        task.rolePrompting!.source
      } (fallback: ${task.rolePrompting!.fallback})`;
    case "fewshot":
      return `few-shot: ${condition.shots} exemplars per question drawn from the ${TRAIN_SPLIT} split (seed ${condition.seed}), duplicates of the question excluded; ids in samples.jsonl`;
    case "cot":
      return "chain of thought: the model is asked to reason step by step before answering";
    case "mps":
      return `multi-agent participant: ${roleLabel("model")} generates, ${
        roleLabel(condition.debater!)
      } debates, ${roleLabel("model")} reflects and answers (CliMedBench Algorithm 1)`;
    default:
      return undefined;
  }
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

/** Returns the samples under `condition` (perturbed copies for `perturb`, the same samples otherwise). */
export function applyCondition(condition: Condition, samples: readonly Sample[]): AppliedCondition {
  if (condition.kind !== "perturb") return { samples: [...samples], achievedRate: null, notApplicable: 0 };
  let changed = 0, countable = 0, notApplicable = 0;
  const out = samples.map((sample) => {
    const result = perturbSample(sample, condition.perturb!);
    changed += result.changed;
    countable += result.countable;
    if (!result.applied) notApplicable++;
    return result.sample;
  });
  return { samples: out, achievedRate: countable ? changed / countable : 0, notApplicable };
}
