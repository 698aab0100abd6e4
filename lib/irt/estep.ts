/**
 * The E-step of Bock–Aitkin EM: each examinee's posterior over the quadrature nodes given the current items,
 * accumulated into expected counts per item and node. Examinees are held in a compressed sparse row layout so
 * that missing responses cost nothing.
 *
 * Two shortcuts keep the cost per examinee near half the responses times the nodes, without changing what is
 * computed (only the order of the additions):
 * - A row that answers most items (a "dense" row) starts its log-likelihood from the sum over all items of
 *   log Q (or log P), removes the items it did not answer and adds log P − log Q for its right answers (or
 *   subtracts it for its wrong ones, whichever are fewer).
 * - Counts: each item accumulates only the side of its answers that is rarer (right or wrong), the other side
 *   following as the total minus it; dense rows add their posterior once to a running total and subtract it
 *   from the items they did not answer.
 * @module
 */
import { logistic } from "./model.ts";
import type { Quadrature } from "./quadrature.ts";
import type { Responses } from "./responses.ts";

/** Responses in compressed sparse rows: examinee p answered `items[start[p] .. start[p + 1])`, in item order. */
export interface PackedResponses {
  /** Number of examinee rows. */
  persons: number;
  /** Number of items. */
  items: number;
  /** Frequency weight per row. */
  weights: Float64Array;
  /** Row starts (length persons + 1). */
  start: Int32Array;
  /** Item index of each response (ascending within a row). */
  item: Int32Array;
  /** The response (1 or 0). */
  correct: Uint8Array;
  /** Per row, 1 when it answers more than half of the items (its log-likelihood starts from the all-item sums). */
  dense: Uint8Array;
  /** Per row, how many of its answers are right. */
  rightInRow: Int32Array;
  /** Per item, the answer whose posterior mass the E-step accumulates (1: right, 0: wrong; the rarer one). */
  countedAnswer: Uint8Array;
}

/** Packs responses into sparse rows (missing cells are left out). */
export function packResponses(data: Responses): PackedResponses {
  let count = 0;
  for (const row of data.values) for (const v of row) if (v !== null) count++;
  const persons = data.persons.length;
  const items = data.items.length;
  const start = new Int32Array(persons + 1);
  const item = new Int32Array(count);
  const correct = new Uint8Array(count);
  const dense = new Uint8Array(persons);
  const rightInRow = new Int32Array(persons);
  const right = new Int32Array(items);
  const answered = new Int32Array(items);
  let e = 0;
  for (let p = 0; p < persons; p++) {
    const row = data.values[p];
    start[p] = e;
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (v === null) continue;
      item[e] = i;
      correct[e] = v;
      rightInRow[p] += v;
      right[i] += v;
      answered[i]++;
      e++;
    }
    dense[p] = 2 * (e - start[p]) > items ? 1 : 0;
  }
  start[persons] = e;
  const countedAnswer = new Uint8Array(items);
  for (let i = 0; i < items; i++) countedAnswer[i] = 2 * right[i] <= answered[i] ? 1 : 0;
  return {
    persons,
    items,
    weights: Float64Array.from(data.weights),
    start,
    item,
    correct,
    dense,
    rightInRow,
    countedAnswer,
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

/** Tables the E-step fills and drops each time; a fit keeps one set and hands it to every E-step. */
export interface EStepWorkspace {
  /** log P per item and node. */
  logP: Float64Array;
  /** log Q per item and node. */
  logQ: Float64Array;
  /** log P − log Q per item and node (for dense rows). */
  logOdds: Float64Array;
}

/** Returns a workspace for E-steps over `items` items and `nodes` nodes. */
export function eStepWorkspace(items: number, nodes: number): EStepWorkspace {
  const size = items * nodes;
  return { logP: new Float64Array(size), logQ: new Float64Array(size), logOdds: new Float64Array(size) };
}

/**
 * Returns log P and log Q per item and node (item-major, `i * K + k`), one `exp` and one `log1p` per cell (and
 * one `log` with guessing), written into `into` when given.
 */
export function logTables(
  state: ItemState,
  nodes: Float64Array,
  into?: { logP: Float64Array; logQ: Float64Array },
): { logP: Float64Array; logQ: Float64Array } {
  const items = state.a.length;
  const K = nodes.length;
  const logP = into?.logP ?? new Float64Array(items * K);
  const logQ = into?.logQ ?? new Float64Array(items * K);
  for (let i = 0; i < items; i++) {
    const a = state.a[i], d = state.d[i], g = state.g[i];
    const guessing = g > -Infinity;
    const c = guessing ? logistic(g) : 0;
    const logOneMinusC = guessing ? -(g > 0 ? g + Math.log1p(Math.exp(-g)) : Math.log1p(Math.exp(g))) : 0;
    const base = i * K;
    for (let k = 0; k < K; k++) {
      const z = a * nodes[k] + d;
      const e = Math.exp(-Math.abs(z));
      const tail = Math.log1p(e);
      logQ[base + k] = logOneMinusC - ((z > 0 ? z : 0) + tail);
      logP[base + k] = guessing
        ? Math.log(c + (1 - c) * (z >= 0 ? 1 / (1 + e) : e / (1 + e)))
        : -((z < 0 ? -z : 0) + tail);
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

/** Sums over all items per node of log Q and log P, and the log-odds table log P − log Q (for dense rows). */
function denseBaselines(
  logP: Float64Array,
  logQ: Float64Array,
  items: number,
  K: number,
  into: Float64Array | undefined,
) {
  const sumQ = new Float64Array(K);
  const sumP = new Float64Array(K);
  const logOdds = into ?? new Float64Array(items * K);
  for (let i = 0; i < items; i++) {
    const base = i * K;
    for (let k = 0; k < K; k++) {
      sumQ[k] += logQ[base + k];
      sumP[k] += logP[base + k];
      logOdds[base + k] = logP[base + k] - logQ[base + k];
    }
  }
  return { sumQ, sumP, logOdds };
}

/** A node whose posterior weight is below this fraction of the mode's adds nothing to the expected counts. */
const NEGLIGIBLE = 1e-17;

/**
 * Runs one E-step; `keepPosterior` also returns every examinee's posterior over the nodes. A `workspace` (from
 * {@linkcode eStepWorkspace}) spares the allocation of its temporary tables.
 */
export function eStep(
  data: PackedResponses,
  state: ItemState,
  quadrature: Quadrature,
  keepPosterior = false,
  workspace?: EStepWorkspace,
): EStep {
  const K = quadrature.nodes.length;
  const items = data.items;
  const { logP, logQ } = logTables(state, quadrature.nodes, workspace);
  const anyDense = data.dense.some((x) => x === 1);
  const baselines = anyDense ? denseBaselines(logP, logQ, items, K, workspace?.logOdds) : null;
  // n: sparse rows' mass on the items they answered, minus dense rows' mass on the items they did not.
  const n = new Float64Array(items * K);
  // Mass of the answers each item counts (its rarer side).
  const counted = new Float64Array(items * K);
  // Dense rows' total mass per node.
  const denseTotal = new Float64Array(K);
  const posterior = keepPosterior ? new Float64Array(data.persons * K) : undefined;
  const ll = new Float64Array(K);
  const mass = new Float64Array(K);
  const itemOf = data.item, answerOf = data.correct, countedAnswer = data.countedAnswer;
  let logLik = 0;
  for (let p = 0; p < data.persons; p++) {
    const w = data.weights[p];
    if (w === 0) continue;
    const first = data.start[p], last = data.start[p + 1];
    const dense = data.dense[p] === 1;
    ll.set(quadrature.logWeights);
    if (dense && baselines) {
      // Start from every item's log Q (or log P), drop the unanswered items, then move the answers that differ.
      const fromWrong = 2 * data.rightInRow[p] <= last - first;
      const sum = fromWrong ? baselines.sumQ : baselines.sumP;
      const table = fromWrong ? logQ : logP;
      const odds = baselines.logOdds;
      for (let k = 0; k < K; k++) ll[k] += sum[k];
      let e = first;
      for (let i = 0; i < items; i++) {
        if (e < last && itemOf[e] === i) {
          if (answerOf[e] === (fromWrong ? 1 : 0)) {
            const base = i * K;
            if (fromWrong) { for (let k = 0; k < K; k++) ll[k] += odds[base + k]; }
            else for (let k = 0; k < K; k++) ll[k] -= odds[base + k];
          }
          e++;
        } else {
          const base = i * K;
          for (let k = 0; k < K; k++) ll[k] -= table[base + k];
        }
      }
    } else {
      for (let e = first; e < last; e++) {
        const base = itemOf[e] * K;
        const table = answerOf[e] ? logP : logQ;
        for (let k = 0; k < K; k++) ll[k] += table[base + k];
      }
    }
    let max = -Infinity;
    for (let k = 0; k < K; k++) if (ll[k] > max) max = ll[k];
    let sum = 0;
    // The counts take the nodes [low, high) that hold the posterior; nodes below NEGLIGIBLE of the mode's
    // weight add less than the sum's rounding.
    let low = K, high = 0;
    for (let k = 0; k < K; k++) {
      const gap = ll[k] - max;
      mass[k] = gap < -745 ? 0 : Math.exp(gap);
      sum += mass[k];
      if (mass[k] >= NEGLIGIBLE) {
        if (k < low) low = k;
        high = k + 1;
      }
    }
    logLik += w * (max + Math.log(sum));
    if (posterior) {
      for (let k = 0; k < K; k++) posterior[p * K + k] = mass[k] / sum;
    }
    const scale = w / sum;
    for (let k = low; k < high; k++) mass[k] = mass[k] >= NEGLIGIBLE ? mass[k] * scale : 0;
    for (let e = first; e < last; e++) {
      const i = itemOf[e];
      if (answerOf[e] !== countedAnswer[i]) continue;
      const base = i * K;
      for (let k = low; k < high; k++) counted[base + k] += mass[k];
    }
    if (dense) {
      for (let k = low; k < high; k++) denseTotal[k] += mass[k];
      let e = first;
      for (let i = 0; i < items; i++) {
        if (e < last && itemOf[e] === i) {
          e++;
          continue;
        }
        const base = i * K;
        for (let k = low; k < high; k++) n[base + k] -= mass[k];
      }
    } else {
      for (let e = first; e < last; e++) {
        const base = itemOf[e] * K;
        for (let k = low; k < high; k++) n[base + k] += mass[k];
      }
    }
  }
  const r = counted;
  for (let i = 0; i < items; i++) {
    const base = i * K;
    const countsRight = countedAnswer[i] === 1;
    for (let k = 0; k < K; k++) {
      // Differences of sums round: what is below the dense total's last digits is zero.
      let nk = n[base + k] + denseTotal[k];
      if (nk <= 1e-14 * denseTotal[k]) nk = 0;
      const side = Math.min(counted[base + k], nk);
      n[base + k] = nk;
      r[base + k] = countsRight ? side : Math.max(0, nk - side);
    }
  }
  return { logLik, n, r, posterior };
}
