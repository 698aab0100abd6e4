/**
 * The fixed quadrature grid of marginal maximum likelihood: equally spaced nodes over [−6, 6] with standard
 * normal weights, normalised to sum to 1 (the rectangular rule, accurate for the smooth integrands of IRT).
 * @module
 */

/** Nodes and weights of a quadrature grid for a standard normal ability distribution. */
export interface Quadrature {
  /** Ability values θ_k. */
  nodes: Float64Array;
  /** Prior weights w_k (sum 1). */
  weights: Float64Array;
  /** log w_k. */
  logWeights: Float64Array;
}

/** Default node count (at least 61 keeps the grid step at 0.2 over [−6, 6]). */
export const DEFAULT_NODES = 61;

/** Returns `count` equally spaced nodes on [−limit, limit] with N(0, 1) weights. */
export function normalGrid(count = DEFAULT_NODES, limit = 6): Quadrature {
  if (!Number.isInteger(count) || count < 3) {
    throw new RangeError(`quadrature needs >= 3 nodes, got ${count}`);
  }
  const nodes = new Float64Array(count);
  const weights = new Float64Array(count);
  let total = 0;
  for (let k = 0; k < count; k++) {
    nodes[k] = -limit + (2 * limit * k) / (count - 1);
    weights[k] = Math.exp(-0.5 * nodes[k] * nodes[k]);
    total += weights[k];
  }
  const logWeights = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    weights[k] /= total;
    logWeights[k] = Math.log(weights[k]);
  }
  return { nodes, weights, logWeights };
}
