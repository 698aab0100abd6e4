/**
 * Standard errors of calibrated items from the observed information of the marginal likelihood by Louis's
 * identity: I = E[−∂²ℓ_complete | data] − Var[∂ℓ_complete | data] (minus the prior curvature), evaluated with
 * the final E-step's posteriors. The full matrix is used when it is affordable; otherwise each item's own block
 * (which ignores the covariance between items, so its errors are somewhat smaller).
 * @module
 */
import type { EStep, ItemState, PackedResponses } from "./estep.ts";
import { itemCounts, itemTerms, NO_PRIORS, type Priors, slopePrior } from "./item_terms.ts";
import { invert } from "./linear.ts";
import { type IrtModel, logistic } from "./model.ts";
import type { Quadrature } from "./quadrature.ts";

/** Standard errors per item (`null` where the information could not be inverted). */
export interface StandardErrors {
  /** `louis-full`: the whole observed information; `louis-item-blocks`: each item's block alone. */
  method: "louis-full" | "louis-item-blocks" | "none";
  /** SE of a. */
  a: (number | null)[];
  /** SE of d. */
  d: (number | null)[];
  /** SE of b = −d/a by the delta method. */
  b: (number | null)[];
  /** SE of c (0 when c is fixed). */
  c: (number | null)[];
}

/** Where each item's (a, d, γ) sit in the global parameter vector. */
function layout(
  model: IrtModel,
  items: number,
): { size: number; local: number; index: (i: number, u: number) => number } {
  if (model === "1pl") return { size: 1 + items, local: 2, index: (i, u) => (u === 0 ? 0 : 1 + i) };
  const local = model === "3pl" ? 3 : 2;
  return { size: local * items, local, index: (i, u) => local * i + u };
}

/** Computes the standard errors of a converged fit. */
export function standardErrors(
  data: PackedResponses,
  state: ItemState,
  model: IrtModel,
  quadrature: Quadrature,
  final: EStep,
  priors: Priors,
  options: { fullBudget: number },
): StandardErrors {
  const K = quadrature.nodes.length;
  const nodes = quadrature.nodes;
  const posterior = final.posterior!;
  const { size, local, index } = layout(model, data.items);
  const guessing = model === "3pl";
  // Per item and node: logistic(z), P and c, for the complete-data scores.
  const s = new Float64Array(data.items * K);
  const prob = new Float64Array(data.items * K);
  const cOf = new Float64Array(data.items);
  for (let i = 0; i < data.items; i++) {
    cOf[i] = state.g[i] === -Infinity ? 0 : logistic(state.g[i]);
    for (let k = 0; k < K; k++) {
      const v = logistic(state.a[i] * nodes[k] + state.d[i]);
      s[i * K + k] = v;
      prob[i * K + k] = cOf[i] + (1 - cOf[i]) * v;
    }
  }
  /** Complete-data score of one response at node k, per local parameter. */
  const score = (i: number, correct: number, k: number, out: Float64Array, at: number) => {
    const c = cOf[i];
    const si = s[i * K + k];
    const sm = 1 - si;
    const zScore = correct ? ((1 - c) * si * sm) / prob[i * K + k] : -si;
    out[at] = zScore * nodes[k];
    out[at + 1] = zScore;
    if (guessing) out[at + 2] = correct ? (c * (1 - c) * sm) / prob[i * K + k] : -c;
  };
  let cost = 0;
  for (let p = 0; p < data.persons; p++) {
    const m = (data.start[p + 1] - data.start[p]) * local;
    cost += K * m * m;
  }
  const full = cost <= options.fullBudget && size <= 3000;
  const itemPriors: Priors = model === "1pl" ? NO_PRIORS : priors;
  const result: StandardErrors = {
    method: full ? "louis-full" : "louis-item-blocks",
    a: [],
    d: [],
    b: [],
    c: [],
  };
  if (full) {
    const info = new Float64Array(size * size);
    for (let i = 0; i < data.items; i++) {
      const h =
        itemTerms(state.a[i], state.d[i], state.g[i], guessing, itemCounts(nodes, final, i), itemPriors)
          .negHessian;
      for (let u = 0; u < local; u++) {
        for (let v = 0; v < local; v++) info[index(i, u) * size + index(i, v)] += h[u * 3 + v];
      }
    }
    if (model === "1pl" && priors.slope) info[0] -= slopePrior(state.a[0], priors.slope).curvature;
    const vals = new Float64Array(size);
    for (let p = 0; p < data.persons; p++) {
      const w = data.weights[p];
      if (w === 0) continue;
      // The examinee's parameters (the 1PL slope once), then E[SSᵀ] − E[S]E[S]ᵀ over the posterior.
      const touched = new Set<number>();
      for (let e = data.start[p]; e < data.start[p + 1]; e++) {
        for (let u = 0; u < local; u++) touched.add(index(data.item[e], u));
      }
      const ids = [...touched];
      const position = new Map(ids.map((id, j) => [id, j]));
      const m = ids.length;
      const outer = new Float64Array(m * m);
      const mean = new Float64Array(m);
      const local3 = new Float64Array(3);
      for (let k = 0; k < K; k++) {
        const post = posterior[p * K + k];
        if (post < 1e-300) continue;
        vals.fill(0, 0, m);
        for (let e = data.start[p]; e < data.start[p + 1]; e++) {
          score(data.item[e], data.correct[e], k, local3, 0);
          for (let u = 0; u < local; u++) vals[position.get(index(data.item[e], u))!] += local3[u];
        }
        for (let x = 0; x < m; x++) {
          const px = post * vals[x];
          mean[x] += px;
          for (let y = x; y < m; y++) outer[x * m + y] += px * vals[y];
        }
      }
      for (let x = 0; x < m; x++) {
        for (let y = x; y < m; y++) {
          const v = w * (outer[x * m + y] - mean[x] * mean[y]);
          info[ids[x] * size + ids[y]] -= v;
          if (x !== y) info[ids[y] * size + ids[x]] -= v;
        }
      }
    }
    const cov = invert(info, size);
    for (let i = 0; i < data.items; i++) {
      const at = (u: number, v: number) => (cov ? cov[index(i, u) * size + index(i, v)] : NaN);
      record(result, state, i, at, guessing);
    }
    return result;
  }
  // Item blocks: each item's information alone (the 1PL slope conditional on the intercepts and vice versa).
  const blocks: Float64Array[] = [];
  for (let i = 0; i < data.items; i++) {
    const h = itemTerms(state.a[i], state.d[i], state.g[i], guessing, itemCounts(nodes, final, i), itemPriors)
      .negHessian;
    const block = new Float64Array(local * local);
    for (let u = 0; u < local; u++) for (let v = 0; v < local; v++) block[u * local + v] = h[u * 3 + v];
    blocks.push(block);
  }
  // Σ_p w_p·E[S Sᵀ | x_p] over the examinees answering item i is, node by node, the E-step's counts times the
  // scores' outer products (right answers r_ik, wrong ones n_ik − r_ik); only E[S]E[S]ᵀ needs each posterior.
  const right = new Float64Array(3);
  const wrong = new Float64Array(3);
  for (let i = 0; i < data.items; i++) {
    for (let k = 0; k < K; k++) {
      const nk = final.n[i * K + k];
      if (nk === 0) continue;
      const rk = final.r[i * K + k];
      score(i, 1, k, right, 0);
      score(i, 0, k, wrong, 0);
      for (let u = 0; u < local; u++) {
        for (let v = 0; v < local; v++) {
          blocks[i][u * local + v] -= rk * right[u] * right[v] + (nk - rk) * wrong[u] * wrong[v];
        }
      }
    }
  }
  // The scores of z (a = θ·z, d = z) and of γ at each item and node, for a right and a wrong answer.
  const zRight = new Float64Array(data.items * K);
  const zWrong = new Float64Array(data.items * K);
  const gRight = new Float64Array(data.items * K);
  for (let i = 0; i < data.items; i++) {
    const c = cOf[i];
    for (let k = 0; k < K; k++) {
      const si = s[i * K + k];
      zRight[i * K + k] = ((1 - c) * si * (1 - si)) / prob[i * K + k];
      zWrong[i * K + k] = -si;
      gRight[i * K + k] = (c * (1 - c) * (1 - si)) / prob[i * K + k];
    }
  }
  for (let p = 0; p < data.persons; p++) {
    const w = data.weights[p];
    if (w === 0) continue;
    // The nodes that hold the examinee's posterior.
    let low = K, high = 0, mass = 0;
    for (let k = 0; k < K; k++) {
      if (posterior[p * K + k] < 1e-300) continue;
      if (k < low) low = k;
      high = k + 1;
      mass += posterior[p * K + k];
    }
    for (let e = data.start[p]; e < data.start[p + 1]; e++) {
      const i = data.item[e];
      const z = data.correct[e] ? zRight : zWrong;
      let meanA = 0, meanD = 0, meanG = 0;
      for (let k = low; k < high; k++) {
        const weight = posterior[p * K + k] * z[i * K + k];
        meanA += weight * nodes[k];
        meanD += weight;
      }
      if (guessing) {
        if (data.correct[e]) {
          for (let k = low; k < high; k++) meanG += posterior[p * K + k] * gRight[i * K + k];
        } else meanG = -cOf[i] * mass;
      }
      const block = blocks[i];
      block[0] += w * meanA * meanA;
      block[1] += w * meanA * meanD;
      block[local] += w * meanD * meanA;
      block[local + 1] += w * meanD * meanD;
      if (guessing) {
        block[2] += w * meanA * meanG;
        block[5] += w * meanD * meanG;
        block[6] += w * meanG * meanA;
        block[7] += w * meanG * meanD;
        block[8] += w * meanG * meanG;
      }
    }
  }
  if (model === "1pl") {
    let slopeInfo = 0;
    for (const block of blocks) slopeInfo += block[0];
    if (priors.slope) slopeInfo -= slopePrior(state.a[0], priors.slope).curvature;
    for (let i = 0; i < data.items; i++) {
      const dd = 1 / blocks[i][3];
      record(
        result,
        state,
        i,
        (u, v) => (u === 0 && v === 0 ? 1 / slopeInfo : u === 1 && v === 1 ? dd : 0),
        false,
      );
    }
    return result;
  }
  for (let i = 0; i < data.items; i++) {
    const cov = invert(blocks[i], local);
    record(result, state, i, (u, v) => (cov ? cov[u * local + v] : NaN), guessing);
  }
  return result;
}

function root(variance: number): number | null {
  return Number.isFinite(variance) && variance > 0 ? Math.sqrt(variance) : null;
}

function record(
  result: StandardErrors,
  state: ItemState,
  i: number,
  cov: (u: number, v: number) => number,
  guessing: boolean,
): void {
  const a = state.a[i], d = state.d[i];
  result.a.push(root(cov(0, 0)));
  result.d.push(root(cov(1, 1)));
  // b = −d/a: ∂b/∂a = d/a², ∂b/∂d = −1/a.
  result.b.push(
    root((d / (a * a)) ** 2 * cov(0, 0) + cov(1, 1) / (a * a) - (2 * d / (a * a * a)) * cov(0, 1)),
  );
  if (!guessing) result.c.push(0);
  else {
    const c = logistic(state.g[i]);
    const se = root(cov(2, 2));
    result.c.push(se === null ? null : c * (1 - c) * se);
  }
}
