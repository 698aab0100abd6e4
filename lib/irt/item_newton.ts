/**
 * The M-step's inner loop, without allocation: one item's expected complete-data log posterior (the EM "Q
 * function") from the E-step's counts, with its gradient, exact Hessian and Fisher information over (a, d, γ)
 * in one pass over the nodes (one `exp`, one `log1p` and, with guessing, one `log` per node), and the damped
 * Newton ascent of it that each EM cycle runs per item. The same quantities as {@link ./item_terms.ts}'s
 * `itemTerms` (a test compares them).
 * @module
 */
import { logistic } from "./model.ts";
import { guessingPrior, type Priors, slopePrior } from "./item_terms.ts";

/** Bounds on a, d and γ = logit(c) that keep a fit away from overflow (also the extrapolation's box). */
export const PARAMETER_LIMITS = { a: 50, d: 60, g: 30 };

/** Newton steps per item and EM cycle at most (an ECM step: EM converges without maximising each M-step fully). */
export const NEWTON_STEPS = 5;

/** One item's slice of the E-step's counts: `n[offset + k]` examinees at node k answered it, `r[…]` rightly. */
export interface ItemSlice {
  /** Quadrature nodes. */
  nodes: Float64Array;
  /** Expected examinees answering, per item and node (item-major). */
  n: Float64Array;
  /** Expected examinees answering rightly, per item and node. */
  r: Float64Array;
  /** Where the item's nodes start in `n` and `r`. */
  offset: number;
}

/** Whether (a, d, γ) lie inside {@linkcode PARAMETER_LIMITS} (and a > 0 under a slope prior). */
export function validItem(a: number, d: number, g: number, priors: Priors): boolean {
  if (!(Math.abs(a) < PARAMETER_LIMITS.a && Math.abs(d) < PARAMETER_LIMITS.d)) return false;
  if (priors.slope && !(a > 0)) return false;
  return g === -Infinity || Math.abs(g) < PARAMETER_LIMITS.g;
}

/** Where {@linkcode itemTermsInto} writes: value, gradient (a, d, γ), negative Hessian and Fisher information. */
export const TERMS = {
  /** The objective. */
  value: 0,
  /** Gradient over (a, d, γ): three entries. */
  gradient: 1,
  /** Exact negative Hessian, upper triangle (aa, ad, aγ, dd, dγ, γγ): six entries. */
  negHessian: 4,
  /** Fisher (expected) information, same layout, prior curvature only where it is negative. */
  fisher: 10,
  /** Entries in all. */
  size: 16,
} as const;

/**
 * One pass over the nodes: writes the item's expected log-likelihood plus its log prior densities at (a, d, γ)
 * (γ = −∞: no guessing), its gradient, exact negative Hessian and Fisher information into `out` (layout
 * {@linkcode TERMS}) and returns the value.
 */
export function itemTermsInto(
  a: number,
  d: number,
  g: number,
  slice: ItemSlice,
  priors: Priors,
  out: Float64Array,
): number {
  const { nodes, n, r, offset } = slice;
  const guessing = g !== -Infinity;
  const c = guessing ? logistic(g) : 0;
  const logOneMinusC = guessing ? -(g > 0 ? g + Math.log1p(Math.exp(-g)) : Math.log1p(Math.exp(g))) : 0;
  let value = 0, ga = 0, gd = 0, gg = 0;
  let haa = 0, had = 0, hag = 0, hdd = 0, hdg = 0, hgg = 0;
  let faa = 0, fad = 0, fag = 0, fdd = 0, fdg = 0, fgg = 0;
  for (let k = 0; k < nodes.length; k++) {
    const nk = n[offset + k];
    if (nk === 0) continue;
    const rk = r[offset + k];
    const wk = nk - rk;
    const theta = nodes[k];
    const z = a * theta + d;
    const e = Math.exp(-Math.abs(z));
    const tail = Math.log1p(e);
    const s = z >= 0 ? 1 / (1 + e) : e / (1 + e);
    const sm = z >= 0 ? e / (1 + e) : 1 / (1 + e);
    // softplus(z) = log(1 + e^z), from the one exp.
    const softplusZ = (z > 0 ? z : 0) + tail;
    if (!guessing) {
      // P = s: log P = −softplus(−z); the score in z is r − n·s, its information n·s·(1 − s) (exact = Fisher).
      value += rk * -((z < 0 ? -z : 0) + tail) - wk * softplusZ;
      const score = rk - nk * s;
      const info = nk * s * sm;
      ga += score * theta;
      gd += score;
      faa += info * theta * theta;
      fad += info * theta;
      fdd += info;
      continue;
    }
    const p = c + (1 - c) * s;
    const q = (1 - c) * sm;
    value += rk * Math.log(p) + wk * (logOneMinusC - softplusZ);
    // ∂P/∂(a, d, γ) = (dz·θ, dz, dg); second derivatives of P: dzz·(θ², θ, 1), dzg·(θ, 1), dgg.
    const dz = (1 - c) * s * sm;
    const dg = c * (1 - c) * sm;
    const dzz = dz * (1 - 2 * s);
    const dzg = -c * (1 - c) * s * sm;
    const dgg = dg * (1 - 2 * c);
    const l1 = rk / p - wk / q;
    const l2 = -rk / (p * p) - wk / (q * q);
    const info = nk / (p * q);
    ga += l1 * dz * theta;
    gd += l1 * dz;
    gg += l1 * dg;
    const zz = l2 * dz * dz + l1 * dzz;
    const zg = l2 * dz * dg + l1 * dzg;
    haa -= zz * theta * theta;
    had -= zz * theta;
    hag -= zg * theta;
    hdd -= zz;
    hdg -= zg;
    hgg -= l2 * dg * dg + l1 * dgg;
    const fz = info * dz * dz;
    const fg = info * dz * dg;
    faa += fz * theta * theta;
    fad += fz * theta;
    fag += fg * theta;
    fdd += fz;
    fdg += fg;
    fgg += info * dg * dg;
  }
  if (!guessing) haa = faa, had = fad, hdd = fdd;
  if (priors.slope) {
    const term = slopePrior(a, priors.slope);
    value += term.value;
    ga += term.gradient;
    haa -= term.curvature;
    faa += Math.max(0, -term.curvature);
  }
  if (guessing && priors.guessing) {
    const term = guessingPrior(g, priors.guessing);
    value += term.value;
    gg += term.gradient;
    hgg -= term.curvature;
    fgg += Math.max(0, -term.curvature);
  }
  out[0] = value;
  out[1] = ga, out[2] = gd, out[3] = gg;
  out[4] = haa, out[5] = had, out[6] = hag, out[7] = hdd, out[8] = hdg, out[9] = hgg;
  out[10] = faa, out[11] = fad, out[12] = fag, out[13] = fdd, out[14] = fdg, out[15] = fgg;
  return value;
}

/**
 * Solves H·step = gradient for the symmetric matrix whose upper triangle starts at `out[at]` (a tiny ridge on
 * the diagonal) by an LDLᵀ factorisation; false when H is not positive definite.
 */
function newtonStep(out: Float64Array, at: number, guessing: boolean, step: Float64Array): boolean {
  const ridge = 1e-9;
  const g1 = out[1], g2 = out[2], g3 = out[3];
  const d1 = out[at] + ridge;
  if (!(d1 > 0)) return false;
  const l21 = out[at + 1] / d1;
  const d2 = out[at + 3] + ridge - l21 * out[at + 1];
  if (!(d2 > 0)) return false;
  if (!guessing) {
    step[1] = (g2 - l21 * g1) / d2;
    step[0] = (g1 - out[at + 1] * step[1]) / d1;
    step[2] = 0;
    return Number.isFinite(step[0]) && Number.isFinite(step[1]);
  }
  const l31 = out[at + 2] / d1;
  const l32 = (out[at + 4] - l21 * out[at + 2]) / d2;
  const d3 = out[at + 5] + ridge - l31 * out[at + 2] - l32 * l32 * d2;
  if (!(d3 > 0)) return false;
  // Forward substitution (L y = gradient), then D and Lᵀ.
  const y2 = g2 - l21 * g1;
  const y3 = g3 - l31 * g1 - l32 * y2;
  step[2] = y3 / d3;
  step[1] = y2 / d2 - l32 * step[2];
  step[0] = g1 / d1 - l21 * step[1] - l31 * step[2];
  return Number.isFinite(step[0]) && Number.isFinite(step[1]) && Number.isFinite(step[2]);
}

/** Scratch space of {@linkcode newtonItem}, allocated once per fit. */
export interface NewtonScratch {
  /** Terms at the current point. */
  here: Float64Array;
  /** Terms at a trial point. */
  trial: Float64Array;
  /** The Newton direction. */
  step: Float64Array;
}

/** Returns fresh scratch space for {@linkcode newtonItem}. */
export function newtonScratch(): NewtonScratch {
  return {
    here: new Float64Array(TERMS.size),
    trial: new Float64Array(TERMS.size),
    step: new Float64Array(3),
  };
}

/**
 * Up to {@linkcode NEWTON_STEPS} Newton steps on item `i` of `a`, `d`, `g` (in place) with the exact Hessian
 * where it is negative definite and Fisher scoring where it is not, each halved until the item's objective does
 * not fall and the parameters stay within {@linkcode PARAMETER_LIMITS}. Writes the Fisher information's
 * diagonal at the new point (a, d, γ) into `information[3i .. 3i + 2]`. Returns the largest change of a, d or
 * c = logistic(γ), each in units of max(1, its standard error from that information): the absolute change for
 * every parameter the data determine to better than ±1, and a change that is small beside its uncertainty for
 * one they barely determine (an intercept drifting towards ±∞ where P(θ) is already 0 or 1 at every node).
 */
export function newtonItem(
  a: Float64Array,
  d: Float64Array,
  g: Float64Array,
  i: number,
  slice: ItemSlice,
  priors: Priors,
  scratch: NewtonScratch,
  information: Float64Array,
): number {
  const guessing = g[i] !== -Infinity;
  const a0 = a[i], d0 = d[i], g0 = g[i];
  let ai = a0, di = d0, gi = g0;
  let { here, trial } = scratch;
  const step = scratch.step;
  let value = itemTermsInto(ai, di, gi, slice, priors, here);
  for (let iteration = 0; iteration < NEWTON_STEPS; iteration++) {
    if (
      !newtonStep(here, TERMS.negHessian, guessing, step) && !newtonStep(here, TERMS.fisher, guessing, step)
    ) {
      break;
    }
    let scale = 1;
    let moved = false;
    for (let halving = 0; halving < 40; halving++, scale /= 2) {
      const na = ai + scale * step[0];
      const nd = di + scale * step[1];
      const ng = guessing ? gi + scale * step[2] : gi;
      if (!validItem(na, nd, ng, priors)) continue;
      const next = itemTermsInto(na, nd, ng, slice, priors, trial);
      if (next >= value - 1e-12 * Math.abs(value)) {
        ai = na, di = nd, gi = ng, value = next;
        [here, trial] = [trial, here];
        moved = true;
        break;
      }
    }
    const largest = Math.max(Math.abs(step[0]), Math.abs(step[1]), guessing ? Math.abs(step[2]) : 0);
    if (!moved || largest * scale < 1e-9) break;
  }
  a[i] = ai, d[i] = di, g[i] = gi;
  const infoA = here[TERMS.fisher], infoD = here[TERMS.fisher + 3], infoG = here[TERMS.fisher + 5];
  information[3 * i] = infoA, information[3 * i + 1] = infoD, information[3 * i + 2] = infoG;
  const changeA = Math.abs(ai - a0) * Math.min(1, Math.sqrt(infoA));
  const changeD = Math.abs(di - d0) * Math.min(1, Math.sqrt(infoD));
  if (!guessing) return Math.max(changeA, changeD);
  // SE(c) = c(1 − c)·SE(γ).
  const c = logistic(gi);
  const changeC = Math.abs(c - logistic(g0)) * Math.min(1, Math.sqrt(infoG) / (c * (1 - c)));
  return Math.max(changeA, changeD, changeC);
}
