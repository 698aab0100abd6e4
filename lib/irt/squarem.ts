/**
 * SQUAREM (Varadhan & Roland 2008, scheme S3) for the item parameters: from x₀ and two EM steps x₁ = F(x₀),
 * x₂ = F(x₁), with r = x₁ − x₀ and v = x₂ − 2x₁ + x₀, the step length α = ‖r‖/‖v‖ (at least 1, at most a cap
 * that grows fourfold while it binds, as in the SQUAREM R package) gives x' = x₀ + 2αr + α²v. The fit then takes
 * one EM step from x' and keeps it only if the objective has not fallen (otherwise it keeps x₂, the plain EM
 * steps). Extrapolation runs over a, d and, for 3PL, γ = logit(c); an item that leaves the parameter box keeps
 * its x₂ values.
 * @module
 */
import type { ItemState } from "./estep.ts";
import type { Priors } from "./item_terms.ts";
import { validItem } from "./item_newton.ts";

/** The smallest step-length cap, and the factor by which the cap grows while it binds (or shrinks on failure). */
export const STEP_MAX_START = 1;
const STEP_FACTOR = 4;

/** Returns a copy of `state`. */
export function copyState(state: ItemState): ItemState {
  return { a: Float64Array.from(state.a), d: Float64Array.from(state.d), g: Float64Array.from(state.g) };
}

/** The extrapolated point and the step length used (α = 1 means x₂ itself). */
export interface Extrapolation {
  /** x'. */
  state: ItemState;
  /** The step length α, within [1, cap]. */
  alpha: number;
}

/**
 * The squared lengths of r and v over a, d and (when finite) γ, each parameter weighted by its complete-data
 * information (`information[3i + u]`; `null`: all weights 1). In that metric the EM's rate matrix is
 * self-adjoint, and parameters the data barely determine do not set the step length of those they do.
 */
function norms(
  x0: ItemState,
  x1: ItemState,
  x2: ItemState,
  information: Float64Array | null,
): { rr: number; vv: number } {
  let rr = 0, vv = 0;
  const add = (p0: Float64Array, p1: Float64Array, p2: Float64Array, u: number) => {
    for (let i = 0; i < p0.length; i++) {
      const r = p1[i] - p0[i];
      const v = p2[i] - 2 * p1[i] + p0[i];
      const weight = information ? information[3 * i + u] : 1;
      rr += weight * r * r;
      vv += weight * v * v;
    }
  };
  add(x0.a, x1.a, x2.a, 0);
  add(x0.d, x1.d, x2.d, 1);
  if (guessing(x0)) add(x0.g, x1.g, x2.g, 2);
  return { rr, vv };
}

function guessing(state: ItemState): boolean {
  return state.g.length > 0 && state.g[0] !== -Infinity;
}

/**
 * SQUAREM's extrapolation from x₀, x₁ = F(x₀), x₂ = F(x₁) with the step length capped at `stepMax`, lengths
 * measured with the items' `information` (see {@linkcode norms}). With a `commonSlope` (1PL) an item leaving the box sends every item back to x₂, so that the slopes stay equal.
 */
export function extrapolate(
  x0: ItemState,
  x1: ItemState,
  x2: ItemState,
  stepMax: number,
  priors: Priors,
  information: Float64Array | null,
  commonSlope = false,
): Extrapolation {
  const { rr, vv } = norms(x0, x1, x2, information);
  const ratio = vv > 0 ? Math.sqrt(rr / vv) : rr > 0 ? stepMax : 1;
  const alpha = Math.max(1, Math.min(stepMax, Number.isFinite(ratio) ? ratio : 1));
  if (alpha === 1) return { state: copyState(x2), alpha };
  const at = (p0: Float64Array, p1: Float64Array, p2: Float64Array, i: number) =>
    p0[i] + 2 * alpha * (p1[i] - p0[i]) + alpha * alpha * (p2[i] - 2 * p1[i] + p0[i]);
  const withGuessing = guessing(x0);
  const state = copyState(x2);
  for (let i = 0; i < x0.a.length; i++) {
    const a = at(x0.a, x1.a, x2.a, i);
    const d = at(x0.d, x1.d, x2.d, i);
    const g = withGuessing ? at(x0.g, x1.g, x2.g, i) : x2.g[i];
    if (!validItem(a, d, g, priors)) {
      if (commonSlope) return { state: copyState(x2), alpha };
      continue;
    }
    state.a[i] = a, state.d[i] = d, state.g[i] = g;
  }
  return { state, alpha };
}

/** The step-length cap after a cycle: grown while α reached it, shrunk (not below the start) after a fallback. */
export function nextStepMax(stepMax: number, alpha: number, fellBack: boolean): number {
  if (fellBack) return alpha === stepMax ? Math.max(STEP_MAX_START, stepMax / STEP_FACTOR) : stepMax;
  return alpha === stepMax ? stepMax * STEP_FACTOR : stepMax;
}
