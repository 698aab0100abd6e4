/**
 * One item's part of the expected complete-data log-likelihood (the EM "Q function"), given the expected counts
 * at each quadrature node: its value, gradient, Fisher (expected) information and exact Hessian in the
 * slope–intercept–logit parameters (a, d, γ), with c = logistic(γ). Used by the standard errors and the fit's
 * final gradient; the M-step has its own allocation-free pass ({@link ./item_newton.ts}).
 * @module
 */
import { logGamma } from "../stats/distributions.ts";
import { logistic, softplus } from "./model.ts";

/** Weak priors (MAP instead of ML) on the slope and the guessing parameter; `null` switches one off. */
export interface Priors {
  /** log a ~ N(meanlog, sdlog²), a density on a (requires a > 0). */
  slope: { meanlog: number; sdlog: number } | null;
  /** c ~ Beta(alpha, beta), a density on c. */
  guessing: { alpha: number; beta: number } | null;
}

/** No priors: plain marginal maximum likelihood. */
export const NO_PRIORS: Priors = { slope: null, guessing: null };

/** The default weak priors: log a ~ N(0, 0.5²) and c ~ Beta(5, 17) (mode 0.2). */
export const DEFAULT_PRIORS: Priors = { slope: { meanlog: 0, sdlog: 0.5 }, guessing: { alpha: 5, beta: 17 } };

/** A log prior density at one parameter value, with its first and second derivative. */
export interface PriorTerm {
  /** log density. */
  value: number;
  /** First derivative. */
  gradient: number;
  /** Second derivative. */
  curvature: number;
}

/** The log-normal prior on a slope: log a ~ N(meanlog, sdlog²), as a density on a. */
export function slopePrior(a: number, slope: NonNullable<Priors["slope"]>): PriorTerm {
  const { meanlog, sdlog } = slope;
  const la = Math.log(a);
  const v2 = sdlog * sdlog;
  return {
    value: -la - Math.log(sdlog * Math.sqrt(2 * Math.PI)) - ((la - meanlog) ** 2) / (2 * v2),
    gradient: -1 / a - (la - meanlog) / (v2 * a),
    curvature: 1 / (a * a) - (1 - la + meanlog) / (v2 * a * a),
  };
}

/** The Beta prior on c = logistic(γ), as a density on c, differentiated in γ. */
export function guessingPrior(g: number, guessing: NonNullable<Priors["guessing"]>): PriorTerm {
  const { alpha, beta } = guessing;
  const c = logistic(g);
  return {
    value: (alpha - 1) * -softplus(-g) + (beta - 1) * -softplus(g) - cachedLogBeta(alpha, beta),
    gradient: (alpha - 1) * (1 - c) - (beta - 1) * c,
    curvature: -(alpha + beta - 2) * c * (1 - c),
  };
}

/** The last (α, β) whose log B was asked for, and that value (the M-step asks for the same one every time). */
const lastLogBeta = { alpha: NaN, beta: NaN, value: NaN };

function cachedLogBeta(alpha: number, beta: number): number {
  if (alpha !== lastLogBeta.alpha || beta !== lastLogBeta.beta) {
    lastLogBeta.value = logBeta(alpha, beta);
    lastLogBeta.alpha = alpha;
    lastLogBeta.beta = beta;
  }
  return lastLogBeta.value;
}

/** Value, gradient and curvature of one item's expected log-likelihood over (a, d, γ) (γ unused without guessing). */
export interface ItemTerms {
  /** Expected complete-data log-likelihood, plus the log prior densities. */
  value: number;
  /** Gradient over (a, d, γ). */
  gradient: Float64Array;
  /** Expected (Fisher) information, 3 × 3 row-major, prior curvature included where it is negative. */
  fisher: Float64Array;
  /** Exact negative Hessian, 3 × 3 row-major, prior included (zeros unless asked for). */
  negHessian: Float64Array;
  /** The prior's contribution to `value` alone. */
  prior: number;
}

/**
 * One item's slice of the E-step's expected counts: `n[offset + k]` examinees at node k answered it,
 * `r[offset + k]` of them correctly.
 */
export interface ItemCounts {
  /** Quadrature nodes. */
  nodes: Float64Array;
  /** Expected examinees answering, per item and node. */
  n: Float64Array;
  /** Expected examinees answering correctly, per item and node. */
  r: Float64Array;
  /** Where the item's nodes start in `n` and `r`. */
  offset: number;
}

/** Returns item `i`'s counts in E-step arrays holding `nodes.length` entries per item. */
export function itemCounts(
  nodes: Float64Array,
  counts: { n: Float64Array; r: Float64Array },
  i: number,
): ItemCounts {
  return { nodes, n: counts.n, r: counts.r, offset: i * nodes.length };
}

/** Evaluates one item's terms from its expected counts. */
export function itemTerms(
  a: number,
  d: number,
  g: number,
  guessing: boolean,
  item: ItemCounts,
  priors: Priors,
  exact = true,
): ItemTerms {
  const { nodes, n, r, offset } = item;
  const gradient = new Float64Array(3);
  const fisher = new Float64Array(9);
  const negHessian = new Float64Array(9);
  const c = guessing ? logistic(g) : 0;
  const logOneMinusC = guessing ? -softplus(g) : 0;
  let value = 0;
  const dp = [0, 0, 0];
  const second = new Float64Array(9);
  for (let k = 0; k < nodes.length; k++) {
    const nk = n[offset + k];
    if (nk === 0) continue;
    const rk = r[offset + k];
    const wk = nk - rk;
    const theta = nodes[k];
    const z = a * theta + d;
    const s = logistic(z);
    const sm = logistic(-z);
    const p = c + (1 - c) * s;
    const q = (1 - c) * sm;
    const logP = guessing ? Math.log(p) : -softplus(-z);
    const logQ = logOneMinusC - softplus(z);
    value += rk * logP + wk * logQ;
    const dz = (1 - c) * s * sm;
    dp[0] = dz * theta;
    dp[1] = dz;
    dp[2] = guessing ? c * (1 - c) * sm : 0;
    const l1 = rk / p - wk / q;
    const l2 = -rk / (p * p) - wk / (q * q);
    const info = nk / (p * q);
    // Second derivatives of P: z-direction terms scale with s·sm·(1 − 2s), the γ ones with c(1 − c).
    for (let u = 0; u < 3; u++) {
      gradient[u] += l1 * dp[u];
      for (let v = 0; v < 3; v++) fisher[u * 3 + v] += info * dp[u] * dp[v];
    }
    if (!exact) continue;
    const dzz = (1 - c) * s * sm * (1 - 2 * s);
    const dzg = guessing ? -c * (1 - c) * s * sm : 0;
    const dgg = guessing ? c * (1 - c) * (1 - 2 * c) * sm : 0;
    second[0] = dzz * theta * theta;
    second[1] = second[3] = dzz * theta;
    second[2] = second[6] = dzg * theta;
    second[4] = dzz;
    second[5] = second[7] = dzg;
    second[8] = dgg;
    for (let u = 0; u < 3; u++) {
      for (let v = 0; v < 3; v++) negHessian[u * 3 + v] -= l2 * dp[u] * dp[v] + l1 * second[u * 3 + v];
    }
  }
  let prior = 0;
  if (priors.slope) {
    const term = slopePrior(a, priors.slope);
    prior += term.value;
    gradient[0] += term.gradient;
    negHessian[0] -= term.curvature;
    fisher[0] += Math.max(0, -term.curvature);
  }
  if (guessing && priors.guessing) {
    const term = guessingPrior(g, priors.guessing);
    prior += term.value;
    gradient[2] += term.gradient;
    negHessian[8] -= term.curvature;
    fisher[8] += Math.max(0, -term.curvature);
  }
  return { value: value + prior, gradient, fisher, negHessian, prior };
}

/** log B(α, β), the Beta function's logarithm. */
export function logBeta(alpha: number, beta: number): number {
  return logGamma(alpha) + logGamma(beta) - logGamma(alpha + beta);
}
