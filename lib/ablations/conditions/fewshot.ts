/**
 * `--ablation fewshot[:K]`: K exemplars from the task's train split before each question. Duplicates of the
 * question are found by a comparison key chosen by the task's language (Persian letters and digits unified
 * for `fa`, else whitespace-collapsed NFKC).
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import { DEFAULT_SHOTS, fewShotSolver, plainTextKey, TRAIN_SPLIT } from "../../solvers/few_shot.ts";
import { persianKey } from "../../text/persian.ts";
import { TRAIN } from "./needs.ts";
import type { ConditionEntry } from "./types.ts";

/** Returns the comparison key of question texts in `language` (few-shot duplicate checks). */
export function textKeyFor(language: string): (text: string) => string {
  return language === "fa" ? persianKey : plainTextKey;
}

/** The few-shot condition. */
export const FEWSHOT: ConditionEntry = {
  name: "fewshot",
  forms: "fewshot[:K]",
  usage: () => `fewshot[:K] (K exemplars from the ${TRAIN_SPLIT} split, default ${DEFAULT_SHOTS})`,
  parse(text, seed) {
    if (text !== "fewshot" && !text.startsWith("fewshot:")) return undefined;
    const k = text === "fewshot" ? DEFAULT_SHOTS : Number(text.slice("fewshot:".length));
    if (!Number.isInteger(k) || k < 1 || k > 64) {
      throw new ConfigError(`--ablation ${text}: expected fewshot or fewshot:K with 1 <= K <= 64`);
    }
    return { name: `fewshot:${k}`, kind: "fewshot", shots: k, seed };
  },
  needs: [TRAIN],
  solver: (condition, task, base) =>
    fewShotSolver(base, { k: condition.shots!, seed: condition.seed!, textKey: textKeyFor(task.language) }),
  note: (condition) =>
    `few-shot: ${condition.shots} exemplars per question drawn from the ${TRAIN_SPLIT} split (seed ${condition.seed}), duplicates of the question excluded; ids in samples.jsonl`,
};
