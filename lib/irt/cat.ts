/**
 * Computerized adaptive testing over a calibrated item pool: after each response the ability is re-estimated
 * (EAP, or ML once both a right and a wrong answer are seen), the next item is the one with the most Fisher
 * information at the current θ (optionally drawn at random among the k most informative: randomesque exposure
 * control), and testing stops when the standard error reaches a target, after a number of items, or both.
 * Seeded, so the same responses give the same test.
 * @module
 */
import { type ClusteredRate, clusteredRate } from "../stats/clustered.ts";
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { type Ability, addAnswer, type Answer, eapFromLogLik, mixedAnswers, mleAbility } from "./ability.ts";
import { itemInformation, type ItemParams, probability } from "./model.ts";
import { DEFAULT_NODES, normalGrid, type Quadrature } from "./quadrature.ts";
import type { Responses } from "./responses.ts";

/** Settings of an adaptive test. */
export interface CatOptions {
  /** Stop once the ability's standard error is at or below this. */
  stopSe?: number;
  /** Stop after this many items. */
  maxItems?: number;
  /** Never stop before this many items (default 1). */
  minItems?: number;
  /** Choose among the k most informative items at random (default 1: always the most informative). */
  randomesque?: number;
  /** `eap` (default) or `mle`: ML once both outcomes are seen, EAP before. */
  estimator?: "eap" | "mle";
  /** Seed of the randomesque draws. */
  seed?: string;
}

/** One administered item. */
export interface CatStep {
  /** Item id. */
  item: string;
  /** The response. */
  response: 0 | 1;
  /** Item information at the θ it was chosen at. */
  information: number;
  /** θ after this response. */
  theta: number;
  /** Its standard error. */
  se: number;
}

/** Why a test ended. */
export type StopReason = "se" | "max-items" | "pool-exhausted";

/** One adaptive test in progress: ask {@linkcode next}, answer with {@linkcode record}, until it returns null. */
export class CatSession {
  readonly #pool: Map<string, ItemParams>;
  readonly #options: CatOptions;
  readonly #quadrature: Quadrature;
  readonly #logLik: Float64Array;
  readonly #answers: Answer[] = [];
  readonly #random: () => number;
  readonly #used = new Set<string>();
  #estimate: Ability;
  #pending: { item: string; information: number } | null = null;
  /** The administered items, in order. */
  readonly steps: CatStep[] = [];
  /** Why the test ended (`null` while it runs). */
  stopReason: StopReason | null = null;

  /** Starts a test over `pool` (item id → parameters); `label` makes the seed differ per examinee. */
  constructor(pool: ReadonlyMap<string, ItemParams>, options: CatOptions, label = "") {
    if (options.stopSe === undefined && options.maxItems === undefined) {
      throw new RangeError("an adaptive test needs a stopping rule: a target SE, an item count or both");
    }
    this.#pool = new Map([...pool].filter(([, item]) => item.a > 0));
    this.#options = options;
    this.#quadrature = normalGrid(DEFAULT_NODES);
    this.#logLik = new Float64Array(this.#quadrature.nodes.length);
    this.#random = mulberry32(seedFrom(`cat:${options.seed ?? "0"}:${label}`));
    this.#estimate = eapFromLogLik(this.#logLik, this.#quadrature);
  }

  /** The current ability estimate. */
  get estimate(): Ability {
    return this.#estimate;
  }

  /** Items answered so far. */
  get answered(): number {
    return this.steps.length;
  }

  #stop(): StopReason | null {
    const { stopSe, maxItems, minItems = 1 } = this.#options;
    if (this.answered < minItems) return null;
    if (maxItems !== undefined && this.answered >= maxItems) return "max-items";
    if (stopSe !== undefined && this.answered > 0 && this.#estimate.se <= stopSe) return "se";
    return null;
  }

  /**
   * Returns the next item to ask, or `null` when the test is over. `eligible` narrows the pool (e.g. to the
   * items an examinee has a known response for).
   */
  next(eligible?: (item: string) => boolean): string | null {
    if (this.#pending) return this.#pending.item;
    const reason = this.#stop();
    if (reason) {
      this.stopReason = reason;
      return null;
    }
    const theta = this.#estimate.theta;
    const k = Math.max(1, this.#options.randomesque ?? 1);
    const best: { item: string; information: number }[] = [];
    for (const [id, params] of this.#pool) {
      if (this.#used.has(id) || (eligible && !eligible(id))) continue;
      const information = itemInformation(params, theta);
      if (best.length < k || information > best[best.length - 1].information) {
        best.push({ item: id, information });
        best.sort((x, y) => y.information - x.information || (x.item < y.item ? -1 : 1));
        if (best.length > k) best.pop();
      }
    }
    if (best.length === 0) {
      this.stopReason = "pool-exhausted";
      return null;
    }
    this.#pending = best[k === 1 ? 0 : Math.floor(this.#random() * best.length)];
    return this.#pending.item;
  }

  /** Records the response to the item {@linkcode next} returned and re-estimates θ. */
  record(item: string, response: 0 | 1): CatStep {
    if (!this.#pending || this.#pending.item !== item) {
      throw new Error(`record(${item}): the test asked ${this.#pending?.item ?? "nothing"}`);
    }
    const answer: Answer = { item: this.#pool.get(item)!, correct: response };
    this.#answers.push(answer);
    this.#used.add(item);
    addAnswer(this.#logLik, this.#quadrature.nodes, answer);
    const eap = eapFromLogLik(this.#logLik, this.#quadrature);
    this.#estimate = this.#options.estimator === "mle" && mixedAnswers(this.#answers)
      ? mleAbility(this.#answers)!
      : eap;
    const step = { item, response, information: this.#pending.information, ...this.#estimate };
    this.steps.push(step);
    this.#pending = null;
    return step;
  }
}

/** One examinee's adaptive test. */
export interface CatPerson {
  /** Examinee label. */
  person: string;
  /** Final θ. */
  theta: number;
  /** Its standard error. */
  se: number;
  /** Items administered. */
  items_used: number;
  /** Why the test ended. */
  stop: StopReason;
  /** The items in order, with the estimate after each. */
  items: CatStep[];
}

/** Simulates an adaptive test per examinee from known responses (only items the examinee answered are asked). */
export function simulateCat(
  data: Responses,
  pool: ReadonlyMap<string, ItemParams>,
  options: CatOptions,
): CatPerson[] {
  return data.persons.map((person, p) => {
    const known = new Map<string, 0 | 1>();
    for (const [i, v] of data.values[p].entries()) if (v !== null) known.set(data.items[i], v);
    const session = new CatSession(pool, options, person);
    for (let item = session.next((id) => known.has(id)); item; item = session.next((id) => known.has(id))) {
      session.record(item, known.get(item)!);
    }
    return catPerson(person, session);
  });
}

/** The result of a finished session. */
export function catPerson(person: string, session: CatSession): CatPerson {
  return {
    person,
    theta: session.estimate.theta,
    se: session.estimate.se,
    items_used: session.answered,
    stop: session.stopReason ?? "max-items",
    items: session.steps,
  };
}

/**
 * How well each examinee's CAT ability predicts the responses the test did not ask: an item counts as
 * predicted right when P(θ̂) ≥ 0.5. Returns per examinee the outcomes (1 = predicted right) of the held-out items.
 */
export function heldOutPrediction(
  data: Responses,
  pool: ReadonlyMap<string, ItemParams>,
  tests: readonly CatPerson[],
): { person: string; outcomes: number[] }[] {
  return tests.map((test, p) => {
    const used = new Set(test.items.map((s) => s.item));
    const outcomes: number[] = [];
    for (const [i, v] of data.values[p].entries()) {
      const params = pool.get(data.items[i]);
      if (v === null || !params || used.has(data.items[i])) continue;
      outcomes.push((probability(params, test.theta) >= 0.5 ? 1 : 0) === v ? 1 : 0);
    }
    return { person: test.person, outcomes };
  });
}

/**
 * The held-out prediction accuracy over all examinees, its 95% interval widened by the design effect of the
 * outcomes clustered within examinees.
 */
export function heldOutAccuracy(
  data: Responses,
  pool: ReadonlyMap<string, ItemParams>,
  tests: readonly CatPerson[],
): ClusteredRate {
  return clusteredRate(heldOutPrediction(data, pool, tests).map((h) => h.outcomes));
}
