/**
 * Rapid assessment (CliMedBench §7, Figure 11): a fixed subset of a calibrated pool (243 items by default)
 * chosen to carry as much information as possible across the examinees' abilities, each examinee's ability
 * estimated from the subset alone, and the ranking it gives compared with the full benchmark's.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { wilsonInterval } from "../stats/agreement.ts";
import { kendallEstimate, spearmanEstimate } from "../stats/rank.ts";
import { type Answer, eapAbility } from "./ability.ts";
import { itemInformation, type ItemParams, probability } from "./model.ts";
import type { Responses } from "./responses.ts";

/** The paper's subset size. */
export const RAPID_SUBSET_SIZE = 243;

/**
 * Picks `size` items greedily so that the test information is high everywhere over `thetas` (the examinees'
 * calibrated abilities): each step adds the item that most increases Σ log(test information) over those
 * points, which spreads information instead of piling it at one ability. Returns the ids in pick order.
 */
export function selectSubset(
  pool: ReadonlyMap<string, ItemParams>,
  size: number,
  thetas: readonly number[],
): string[] {
  const points = thetas.length ? [...thetas] : [-2, -1, 0, 1, 2];
  const ids = [...pool.keys()].filter((id) => pool.get(id)!.a > 0);
  const info = ids.map((id) => points.map((t) => itemInformation(pool.get(id)!, t)));
  const total = points.map(() => 1e-6);
  const chosen: string[] = [];
  const taken = new Uint8Array(ids.length);
  for (let step = 0; step < Math.min(size, ids.length); step++) {
    let best = -1, bestGain = -Infinity;
    for (let i = 0; i < ids.length; i++) {
      if (taken[i]) continue;
      let gain = 0;
      for (let k = 0; k < points.length; k++) gain += Math.log1p(info[i][k] / total[k]);
      if (gain > bestGain) {
        bestGain = gain;
        best = i;
      }
    }
    taken[best] = 1;
    chosen.push(ids[best]);
    for (let k = 0; k < points.length; k++) total[k] += info[best][k];
  }
  return chosen;
}

/** One examinee in the rapid assessment. */
export interface RapidPerson {
  /** Examinee. */
  person: string;
  /** Accuracy on every item of the full benchmark they answered, with n and a Wilson interval. */
  full: Estimate;
  /** Accuracy on the subset items alone. */
  subset: Estimate;
  /** EAP ability from the subset responses. */
  theta: number;
  /** Its standard error. */
  se: number;
  /** Full-benchmark accuracy predicted from θ: the mean of P_i(θ) over the items they answered. */
  predicted: number;
}

/** The rapid-assessment report. */
export interface RapidAssessment {
  /** Subset size. */
  size: number;
  /** The subset's items, in pick order. */
  items: string[];
  /** Items in the full benchmark (the response data's columns). */
  fullItems: number;
  /** Examinees. */
  persons: RapidPerson[];
  /** Kendall's τ-b between the full accuracy and the subset θ, with its interval and n examinees. */
  kendall: Estimate;
  /** Spearman's ρ between them. */
  spearman: Estimate;
}

function accuracy(right: number, n: number): Estimate {
  return { value: n ? right / n : null, ci95: wilsonInterval(right, n), n };
}

/** Compares the subset's ranking of the examinees in `data` with the full benchmark's. */
export function rapidAssessment(
  data: Responses,
  pool: ReadonlyMap<string, ItemParams>,
  subset: readonly string[],
): RapidAssessment {
  const inSubset = new Set(subset);
  const persons = data.persons.map((person, p): RapidPerson => {
    let right = 0, n = 0, subRight = 0, subN = 0;
    const answers: Answer[] = [];
    const answered: ItemParams[] = [];
    for (const [i, v] of data.values[p].entries()) {
      if (v === null) continue;
      right += v;
      n++;
      const params = pool.get(data.items[i]);
      if (params) answered.push(params);
      if (!inSubset.has(data.items[i]) || !params) continue;
      subRight += v;
      subN++;
      answers.push({ item: params, correct: v });
    }
    const ability = eapAbility(answers);
    const predicted = answered.reduce((s, item) => s + probability(item, ability.theta), 0) / answered.length;
    return { person, full: accuracy(right, n), subset: accuracy(subRight, subN), ...ability, predicted };
  });
  const full = persons.map((p) => p.full.value ?? 0);
  const theta = persons.map((p) => p.theta);
  return {
    size: subset.length,
    items: [...subset],
    fullItems: data.items.length,
    persons,
    kendall: kendallEstimate(full, theta),
    spearman: spearmanEstimate(full, theta),
  };
}
