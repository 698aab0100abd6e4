/**
 * `--ablation perturb:KIND[@RATE]`: Han-character perturbations of the inputs (similar shapes, homophones,
 * traditional forms, symbols, or a mix) at a requested rate of non-whitespace characters, seeded; for tasks
 * with Chinese inputs.
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import { CHAR_KINDS, parsePerturbSpec, perturbSample } from "../perturb.ts";
import { CHINESE } from "./needs.ts";
import type { AppliedCondition, Condition, ConditionEntry } from "./types.ts";

/** The character perturbation kinds, with `mixed`. */
export const CHARACTER_KINDS: readonly string[] = [...CHAR_KINDS, "mixed"];

/** Returns the samples with `condition`'s perturbation applied, and what it changed. */
export function perturbSamples(condition: Condition, samples: readonly Sample[]): AppliedCondition {
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

/** The character-perturbation condition. */
export const PERTURB: ConditionEntry = {
  name: "perturb",
  forms: "perturb:{shape,homophone,traditional,symbol,mixed}@RATE",
  usage: () => `perturb:KIND[@RATE] (KIND ${CHARACTER_KINDS.join(", ")}; rate default 0.12)`,
  parse(text, seed) {
    if (!text.startsWith("perturb:") || text.startsWith("perturb:nota")) return undefined;
    const spec = parsePerturbSpec(text.slice("perturb:".length), seed);
    return { name: `perturb:${spec.kind}@${spec.rate}`, kind: "perturb", perturb: spec };
  },
  needs: [CHINESE],
  solver: (_condition, _task, base) => base,
  apply: perturbSamples,
  note: (condition, { applied, perturbSeed }) =>
    `perturbation ${condition.name}: ${
      (applied.achievedRate! * 100).toFixed(2)
    }% of non-whitespace input characters changed (requested ${
      (condition.perturb!.rate * 100).toFixed(1)
    }%), seed ${perturbSeed}`,
};
