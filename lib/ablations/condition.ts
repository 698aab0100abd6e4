/**
 * Experimental conditions: the baseline and the ablations `eval` can run beside it in the same run store
 * (`--ablation cot`, `--ablation pivot:en`, `--ablation perturb:homophone@0.12`). A condition changes the
 * solver (CoT, pivot translation) or the samples (perturbations); outputs and scores are stored under its
 * name, so tables can set conditions side by side and pair them sample by sample.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver, Task } from "../core/task.ts";
import { cotSolver } from "../solvers/cot.ts";
import { pivotSolver } from "../solvers/pivot.ts";
import { parsePerturbSpec, perturbSample, type PerturbSpec } from "./perturb.ts";

/** One condition of a run. */
export interface Condition {
  /** Name under which outputs and scores are stored: `default`, `cot`, `perturb:homophone@0.12`. */
  name: string;
  /** `baseline`, `cot`, `pivot` or `perturb`. */
  kind: "baseline" | "cot" | "pivot" | "perturb";
  /** The perturbation, for `perturb`. */
  perturb?: PerturbSpec;
  /** The pivot language (a language code such as `en`), for `pivot`. */
  pivot?: string;
}

/** The baseline condition (vanilla prompts, clean samples). */
export function baselineCondition(name = "default"): Condition {
  return { name, kind: "baseline" };
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
  if (text.startsWith("perturb:")) {
    const spec = parsePerturbSpec(text.slice("perturb:".length), seed);
    const name = spec.kind === "nota" ? "perturb:nota" : `perturb:${spec.kind}@${spec.rate}`;
    return { name, kind: "perturb", perturb: spec };
  }
  throw new ConfigError(
    `unknown ablation "${text}"; known: cot, pivot:LANG, perturb:{shape,homophone,traditional,symbol,mixed}@RATE, perturb:nota`,
  );
}

/** Returns the solver a condition uses with `task`. */
export function conditionSolver(condition: Condition, task: Task): Solver {
  if (condition.kind === "cot") return task.cotSolver ?? cotSolver(task.solver);
  if (condition.kind === "pivot") {
    return pivotSolver(task.solver, { via: condition.pivot!, from: task.language });
  }
  return task.solver;
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
