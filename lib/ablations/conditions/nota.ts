/**
 * `--ablation perturb:nota`: the correct option's text of single-answer choice items replaced by "none of the
 * above"; for tasks with multiple-choice items.
 * @module
 */
import { parsePerturbSpec } from "../perturb.ts";
import { CHOICES } from "./needs.ts";
import { perturbSamples } from "./perturb.ts";
import type { ConditionEntry } from "./types.ts";

/** The "none of the above" condition. */
export const NOTA: ConditionEntry = {
  name: "nota",
  forms: "perturb:nota",
  usage: () => "perturb:nota (the correct option's text replaced by 'none of the above')",
  parse(text, seed) {
    if (!text.startsWith("perturb:nota")) return undefined;
    const spec = parsePerturbSpec(text.slice("perturb:".length), seed);
    return { name: "perturb:nota", kind: "perturb", perturb: spec };
  },
  needs: [CHOICES],
  solver: (_condition, _task, base) => base,
  apply: perturbSamples,
  note: (condition, { applied, total }) =>
    `perturbation ${condition.name}: correct option replaced by "none of the above" in ${
      total - applied.notApplicable
    } of ${total} items (single-answer choice items only)`,
};
