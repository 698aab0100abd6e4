/**
 * The E-step of Bock–Aitkin EM: each examinee's posterior over the quadrature nodes given the current items,
 * accumulated into expected counts per item and node. Examinees are held in a compressed sparse row layout so
 * that missing responses cost nothing.
 * @module
 */
import { logistic, softplus } from "./model.ts";
import type { Quadrature } from "./quadrature.ts";
import type { Responses } from "./responses.ts";

/** Responses in compressed sparse rows: examinee p answered `items[start[p] .. start[p + 1])`. */
export interface PackedResponses {
  /** Number of examinee rows. */
  persons: number;
  /** Number of items. */
  items: number;
  /** Frequency weight per row. */
  weights: Float64Array;
  /** Row starts (length persons + 1). */
  start: Int32Array;
  /** Item index of each response. */
  item: Int32Array;
  /** The response (1 or 0). */
  correct: Uint8Array;
}

/** Packs responses into sparse rows (missing cells are left out). */
export function packResponses(data: Responses): PackedResponses {
  let count = 0;
  for (const row of data.values) for (const v of row) if (v !== null) count++;
  const start = new Int32Array(data.persons.length + 1);
  const item = new Int32Array(count);
  const correct = new Uint8Array(count);
  let e = 0;
  for (const [p, row] of data.values.entries()) {
    start[p] = e;
    for (const [i, v] of row.entries()) {
      if (v === null) continue;
      item[e] = i;
      correct[e] = v;
      e++;
    }
  }
  start[data.persons.length] = e;
  return {
    persons: data.persons.length,
    items: data.items.length,
    weights: Float64Array.from(data.weights),
    start,
    item,
    correct,
  };
}

/** Item parameters in slope–intercept–logit form, one entry per item (γ = −∞ means c = 0). */
export interface ItemState {
  /** Slopes. */
  a: Float64Array;
  /** Intercepts (z = aθ + d). */
  d: Float64Array;
  /** logit(c); −Infinity without guessing. */
  g: Float64Array;
}

/** Returns log P and log Q per item and node (item-major, `i * K + k`). */
export function logTables(state: ItemState, nodes: Float64Array): { logP: Float64Array; logQ: Float64Array } {
  const items = state.a.length;
  const K = nodes.length;
  const logP = new Float64Array(items * K);
  const logQ = new Float64Array(items * K);
  for (let i = 0; i < items; i++) {
    const a = state.a[i], d = state.d[i], g = state.g[i];
    const guessing = g > -Infinity;
    const c = guessing ? logistic(g) : 0;
    const logOneMinusC = guessing ? -softplus(g) : 0;
    for (let k = 0; k < K; k++) {
      const z = a * nodes[k] + d;
      logP[i * K + k] = guessing ? Math.log(c + (1 - c) * logistic(z)) : -softplus(-z);
      logQ[i * K + k] = logOneMinusC - softplus(z);
    }
  }
  return { logP, logQ };
}

/** What one E-step yields. */
export interface EStep {
  /** Marginal log-likelihood of the data at the current items (frequency-weighted). */
  logLik: number;
  /** Expected examinees answering item i at node k (`i * K + k`). */
  n: Float64Array;
  /** Expected correct answers to item i at node k. */
  r: Float64Array;
  /** Posterior weights per examinee row (`p * K + k`), when asked for. */
  posterior?: Float64Array;
}

/** Runs one E-step; `keepPosterior` also returns every examinee's posterior over the nodes. */
export function eStep(
  data: PackedResponses,
  state: ItemState,
  quadrature: Quadrature,
  keepPosterior = false,
): EStep {
  const K = quadrature.nodes.length;
  const { logP, logQ } = logTables(state, quadrature.nodes);
  const n = new Float64Array(data.items * K);
  const r = new Float64Array(data.items * K);
  const posterior = keepPosterior ? new Float64Array(data.persons * K) : undefined;
  const ll = new Float64Array(K);
  const post = new Float64Array(K);
  let logLik = 0;
  for (let p = 0; p < data.persons; p++) {
    const w = data.weights[p];
    if (w === 0) continue;
    ll.set(quadrature.logWeights);
    for (let e = data.start[p]; e < data.start[p + 1]; e++) {
      const base = data.item[e] * K;
      const table = data.correct[e] ? logP : logQ;
      for (let k = 0; k < K; k++) ll[k] += table[base + k];
    }
    let max = -Infinity;
    for (let k = 0; k < K; k++) if (ll[k] > max) max = ll[k];
    let sum = 0;
    for (let k = 0; k < K; k++) {
      post[k] = Math.exp(ll[k] - max);
      sum += post[k];
    }
    logLik += w * (max + Math.log(sum));
    for (let k = 0; k < K; k++) post[k] /= sum;
    if (posterior) posterior.set(post, p * K);
    for (let e = data.start[p]; e < data.start[p + 1]; e++) {
      const base = data.item[e] * K;
      if (data.correct[e]) {
        for (let k = 0; k < K; k++) {
          const x = w * post[k];
          n[base + k] += x;
          r[base + k] += x;
        }
      } else {
        for (let k = 0; k < K; k++) n[base + k] += w * post[k];
      }
    }
  }
  return { logLik, n, r, posterior };
}
