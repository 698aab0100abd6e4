/**
 * The logistic item response models (1PL, 2PL, 3PL) in the logistic metric (no 1.702 scaling):
 * P(θ) = c + (1 − c) / (1 + e^(−a(θ − b))). Internally items use the slope–intercept form z = aθ + d
 * (b = −d/a), which keeps the fit well conditioned.
 * @module
 */

/** The models this module fits: one common slope (1PL), a slope per item (2PL), plus guessing (3PL). */
export type IrtModel = "1pl" | "2pl" | "3pl";

/** The model names, in order of complexity. */
export const IRT_MODELS: readonly IrtModel[] = ["1pl", "2pl", "3pl"];

/** One item's parameters in the traditional form: discrimination a, difficulty b, guessing c. */
export interface ItemParams {
  /** Discrimination (slope). */
  a: number;
  /** Difficulty (location): the θ at which P is halfway between c and 1. */
  b: number;
  /** Guessing (lower asymptote); 0 for 1PL and 2PL. */
  c: number;
}

/** Logistic function 1 / (1 + e^(−z)), without overflow for large |z|. */
export function logistic(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** log(1 + e^z), without overflow for large z. */
export function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

/** Probability of a correct response at ability θ. */
export function probability(item: ItemParams, theta: number): number {
  return item.c + (1 - item.c) * logistic(item.a * (theta - item.b));
}

/**
 * Fisher information of one item at θ: a²·(Q/P)·((P − c)/(1 − c))², which is a²·P·Q when c = 0.
 */
export function itemInformation(item: ItemParams, theta: number): number {
  const s = logistic(item.a * (theta - item.b));
  if (item.c === 0) return item.a * item.a * s * (1 - s);
  const p = item.c + (1 - item.c) * s;
  const q = (1 - item.c) * (1 - s);
  // (P − c)/(1 − c) = s, so the information is a²·s²·Q/P.
  return (item.a * item.a * s * s * q) / p;
}

/** Test information at θ: the sum of the items' information. */
export function testInformation(items: readonly ItemParams[], theta: number): number {
  let sum = 0;
  for (const item of items) sum += itemInformation(item, theta);
  return sum;
}
