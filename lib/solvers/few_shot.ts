/**
 * Few-shot prompting (`--ablation fewshot[:K]`): before each question the model sees K question–answer pairs
 * drawn from the task's `train` split (never the evaluated split), as user/assistant turns after the system
 * message. The draw is
 * seeded by the run's ablation seed and the sample id, so it is the same on every resume; exemplars without an
 * answer, whose question is the sample's own (same id, or the same text under the task's comparison key), or
 * that repeat an exemplar already drawn, are never drawn. The ids drawn are recorded with the output.
 * @module
 */
import type { ChatMessage } from "../core/chat.ts";
import type { Sample } from "../core/sample.ts";
import type { Solver } from "../core/task.ts";
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { changeModelRequests } from "./context.ts";

/** Name of the auxiliary input exemplars come from. */
export const TRAIN_SPLIT = "train";

/** Default number of exemplars (the PerMedCQA protocol's). */
export const DEFAULT_SHOTS = 5;

/** Options of {@linkcode fewShotSolver}. */
export interface FewShotOptions {
  /** Exemplars per question. */
  k: number;
  /** Seed text of the draws. */
  seed: string;
  /** Comparison key of question texts (duplicates share a key). */
  textKey: (text: string) => string;
}

/** The default comparison key: NFKC, whitespace collapsed, lower case. */
export function plainTextKey(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

/** Train samples that can serve as exemplars (they have an answer), cached per split. */
const eligibleCache = new WeakMap<readonly Sample[], Sample[]>();

function eligible(train: readonly Sample[]): Sample[] {
  let list = eligibleCache.get(train);
  if (!list) eligibleCache.set(train, list = train.filter((s) => s.reference !== null && s.reference !== ""));
  return list;
}

/**
 * Returns `k` exemplars for `sample` from `train`: a seeded draw without replacement that skips the sample
 * itself, questions with its key, and questions with the key of one already drawn. Fewer than `k` when the split has fewer eligible samples.
 */
export function drawExemplars(
  sample: Sample,
  train: readonly Sample[],
  options: FewShotOptions,
): Sample[] {
  const pool = eligible(train);
  const random = mulberry32(seedFrom(`fewshot:${options.seed}:${sample.id}`));
  const seen = new Set([options.textKey(sample.input)]);
  const picked: Sample[] = [];
  // A partial Fisher–Yates shuffle over positions, so a draw costs O(k) however large the split is.
  const swapped = new Map<number, number>();
  for (let i = 0; i < pool.length && picked.length < options.k; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    const at = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    const candidate = pool[at];
    const key = options.textKey(candidate.input);
    if (candidate.id === sample.id || seen.has(key)) continue;
    seen.add(key);
    picked.push(candidate);
  }
  return picked;
}

/** Returns the exemplars as earlier turns of the conversation. */
export function exemplarMessages(exemplars: readonly Sample[]): ChatMessage[] {
  return exemplars.flatMap((e) => [
    { role: "user" as const, content: e.input },
    { role: "assistant" as const, content: e.reference ?? "" },
  ]);
}

/** Returns `base` with `k` exemplars from the train split inserted after the system message(s). */
export function fewShotSolver(base: Solver, options: FewShotOptions): Solver {
  return {
    name: `fewshot:${options.k}(${base.name})`,
    templates: { ...base.templates, fewshot: `k=${options.k}; seed=${options.seed}; split=${TRAIN_SPLIT}` },
    roles: base.roles,
    auxiliary: [...new Set([TRAIN_SPLIT, ...(base.auxiliary ?? [])])],
    async solve(state, ctx) {
      const exemplars = drawExemplars(state.sample, ctx.auxiliary(TRAIN_SPLIT), options);
      const shots = exemplarMessages(exemplars);
      const result = await base.solve(
        state,
        changeModelRequests(ctx, (request) => {
          const at = request.messages.findIndex((m) => m.role !== "system");
          const messages = [...request.messages.slice(0, at), ...shots, ...request.messages.slice(at)];
          return { ...request, messages };
        }),
      );
      return { ...result, detail: { ...result.detail, exemplars: exemplars.map((e) => e.id) } };
    },
  };
}
