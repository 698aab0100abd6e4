/**
 * `--ablation fewshot[:K]`: K exemplars from the task's train split before each question. Duplicates of the
 * question are found by a comparison key chosen by the task's language (Persian letters and digits unified
 * for `fa`, else whitespace-collapsed NFKC).
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import {
  DEFAULT_SHOTS,
  drawExemplars,
  fewShotSolver,
  plainTextKey,
  TRAIN_SPLIT,
} from "../../solvers/few_shot.ts";
import { persianKey } from "../../text/persian.ts";
import { TRAIN } from "./needs.ts";
import type { Condition, ConditionEntry, NoteContext } from "./types.ts";

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
  note: (condition, context) =>
    `few-shot: ${
      shotsUsed(condition, context)
    } per question drawn from the ${TRAIN_SPLIT} split (seed ${condition.seed}), duplicates of the question excluded; ids in samples.jsonl`,
};

/**
 * Returns how many exemplars the questions got, in words: `5 exemplars` when each got the K asked for, else
 * the number (or range) actually drawn, with K and the train split's usable size (the draw is the solver's,
 * repeated: it is seeded, so it is the same).
 */
function shotsUsed(condition: Condition, context: NoteContext): string {
  const k = condition.shots!;
  const train = context.auxiliary?.get(TRAIN_SPLIT);
  if (!train) return `${k} exemplars`;
  const options = { k, seed: condition.seed!, textKey: textKeyFor(context.task.language) };
  const counts = context.applied.samples.map((sample) => drawExemplars(sample, train, options).length);
  const [min, max] = [Math.min(...counts), Math.max(...counts)];
  if (counts.length === 0 || min === k) return `${k} exemplars`;
  const usable = train.filter((s) => s.reference !== null && s.reference !== "").length;
  return `${
    min === max ? min : `${min}-${max}`
  } exemplars (not the ${k} asked for: the ${TRAIN_SPLIT} split has ${usable} with an answer)`;
}
