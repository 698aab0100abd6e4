/**
 * The registry of conditions `--ablation` can add beside the baseline, in the order `--help` lists them.
 * A new kind of condition is one entry here (see {@linkcode ConditionEntry}); nothing else switches on kinds.
 * @module
 */
import { COT } from "./cot.ts";
import { FEWSHOT } from "./fewshot.ts";
import { MPS } from "./mps.ts";
import { NOTA } from "./nota.ts";
import { PERTURB } from "./perturb.ts";
import { PIVOT } from "./pivot.ts";
import { ROLE } from "./role.ts";
import type { ConditionEntry } from "./types.ts";

/** Every kind of condition, in `--help` order. */
export const CONDITIONS: readonly ConditionEntry[] = [COT, PIVOT, ROLE, FEWSHOT, MPS, PERTURB, NOTA];
