/**
 * Marginal maximum likelihood (or, with priors, marginal MAP) calibration of 1PL, 2PL and 3PL items by
 * Bock–Aitkin EM over a fixed quadrature grid: E-step posteriors over the nodes, then a Newton M-step per item
 * on the expected counts ({@link ./item_newton.ts}), accelerated by SQUAREM ({@link ./squarem.ts}). Standard
 * errors come from the observed information (Louis), abilities from {@link ./ability.ts}.
 * @module
 */
import {
  type EStep,
  eStep,
  eStepWorkspace,
  type ItemState,
  type PackedResponses,
  packResponses,
} from "./estep.ts";
import { guessingPrior, itemCounts, itemTerms, NO_PRIORS, type Priors, slopePrior } from "./item_terms.ts";
import {
  type ItemSlice,
  itemTermsInto,
  NEWTON_STEPS,
  newtonItem,
  newtonScratch,
  PARAMETER_LIMITS,
  TERMS,
  validItem,
} from "./item_newton.ts";
import { type IrtModel, logistic } from "./model.ts";
import { DEFAULT_NODES, normalGrid, type Quadrature } from "./quadrature.ts";
import { examineeCount, type Responses } from "./responses.ts";
import { copyState, extrapolate, nextStepMax, STEP_MAX_START } from "./squarem.ts";
import { type StandardErrors, standardErrors } from "./standard_errors.ts";

/** How the EM is accelerated: SQUAREM (the default) or not at all (plain Bock–Aitkin EM). */
export type Acceleration = "squarem" | "none";

/** The accelerations, default first. */
export const ACCELERATIONS: readonly Acceleration[] = ["squarem", "none"];

/** Settings of one calibration. */
export interface FitOptions {
  /** Which model. */
  model: IrtModel;
  /** Priors on a and c (default none; the CLI turns the weak defaults on for 3PL). */
  priors?: Priors;
  /** Quadrature nodes over [−6, 6] (default 61, at least 61 for a reported fit). */
  nodes?: number;
  /**
   * Converged when no a, d or c moves by this much in one EM step (default 1e-6), measured in units of
   * max(1, its complete-data standard error): absolutely for whatever the data determine to better than ±1…
   */
  tolerance?: number;
  /** …and the log posterior changed by less than this times max(1, |log posterior|) in the cycle (default 1e-9). */
  logLikTolerance?: number;
  /** SQUAREM (default) or plain EM; both reach the same optimum. */
  acceleration?: Acceleration;
  /** EM cycles at most (default {@linkcode DEFAULT_MAX_CYCLES}). */
  maxIterations?: number;
  /** Wall time of the EM cycles at most, in seconds (default {@linkcode DEFAULT_MAX_SECONDS}). */
  maxSeconds?: number;
  /** Milliseconds now (default `performance.now`; tests inject a clock to reach the time cap). */
  clock?: () => number;
  /** Called after every EM cycle (e.g. to show progress on a terminal). */
  onCycle?: (progress: CycleProgress) => void;
  /** Largest persons × nodes × (parameters per examinee)² for the full information matrix (default 2e8). */
  fullInformationBudget?: number;
  /** Skip the standard errors (faster, e.g. inside resampling loops). */
  skipStandardErrors?: boolean;
}

/**
 * Default cap on EM cycles: mirt's default for EM (NCYCLES = 500). A SQUAREM cycle is up to four E-steps (two
 * EM steps, the extrapolated point's stabilising step and its check); well-posed fits converge in a few dozen.
 */
export const DEFAULT_MAX_CYCLES = 500;

/** Default cap on the EM's wall time, in seconds (ten minutes). */
export const DEFAULT_MAX_SECONDS = 600;

/** Where the EM is after one cycle. */
export interface CycleProgress {
  /** Cycles run. */
  cycle: number;
  /** Marginal log-likelihood at the start of the cycle (the E-step's). */
  logLik: number;
  /** Its change from the previous cycle (NaN in the first). */
  logLikChange: number;
  /** Largest parameter change of one EM step from the start of the cycle. */
  parameterChange: number;
  /** E-steps run so far. */
  eSteps: number;
  /** Log posterior at the start of the cycle (the log-likelihood plus the log prior densities; never falls). */
  objective: number;
  /** Seconds since the fit started. */
  seconds: number;
}

/** Why the EM stopped: the tolerance was met, or a cap was reached first. */
export type FitStop = "converged" | "max-cycles" | "max-seconds";

/** One calibrated item. */
export interface FittedItem {
  /** Item id. */
  item: string;
  /** Discrimination. */
  a: number;
  /** Difficulty (−d/a). */
  b: number;
  /** Guessing (0 unless 3PL). */
  c: number;
  /** Intercept of z = aθ + d. */
  d: number;
  /** Standard errors; `null` when the information matrix could not be inverted. */
  se_a: number | null;
  /** Standard error of b (delta method). */
  se_b: number | null;
  /** Standard error of c (0 when c is fixed). */
  se_c: number | null;
  /** Standard error of d. */
  se_d: number | null;
  /** Examinees who answered it (weighted). */
  n: number;
  /** Proportion correct among them. */
  p_correct: number;
}

/** The result of {@linkcode fitIrt}. */
export interface IrtFit {
  /** The model fitted. */
  model: IrtModel;
  /** Weighted examinee count. */
  nPersons: number;
  /** Number of items. */
  nItems: number;
  /** Marginal log-likelihood at the estimates (without prior terms). */
  logLik: number;
  /** Log-likelihood plus log prior densities (equals logLik without priors). */
  logPosterior: number;
  /** Whether the tolerance was met before a cap. */
  converged: boolean;
  /** Why the EM stopped. */
  stoppedBy: FitStop;
  /** The caps in force. */
  caps: { cycles: number; seconds: number };
  /** EM cycles run (with SQUAREM, each is up to four E-steps). */
  iterations: number;
  /** E-steps run (the final one for the standard errors not counted). */
  eSteps: number;
  /** The acceleration used. */
  acceleration: Acceleration;
  /** SQUAREM cycles whose extrapolation lowered the objective and gave way to the plain EM steps. */
  fallbacks: number;
  /** Largest parameter change of one EM step in the last cycle. */
  lastChange: number;
  /** Largest absolute gradient of the marginal log posterior at the estimates (≈ 0 at a maximum). */
  maxGradient: number;
  /** How the standard errors were computed. */
  seMethod: StandardErrors["method"];
  /** The priors used. */
  priors: Priors;
  /** Quadrature nodes. */
  nodes: number;
  /** Items in input order. */
  items: FittedItem[];
  /** Seconds the fit took. */
  seconds: number;
}

function startingState(data: PackedResponses, model: IrtModel, priors: Priors): ItemState {
  const right = new Float64Array(data.items);
  const total = new Float64Array(data.items);
  for (let p = 0; p < data.persons; p++) {
    for (let e = data.start[p]; e < data.start[p + 1]; e++) {
      total[data.item[e]] += data.weights[p];
      right[data.item[e]] += data.weights[p] * data.correct[e];
    }
  }
  const guess = model === "3pl" ? 0.2 : 0;
  const g = model === "3pl" ? Math.log(guess / (1 - guess)) : -Infinity;
  const d = new Float64Array(data.items);
  for (let i = 0; i < data.items; i++) {
    const p = Math.min(0.95, Math.max(0.05, (right[i] + 0.5) / (total[i] + 1)));
    const above = Math.max(0.02, (p - guess) / (1 - guess));
    d[i] = Math.log(above / (1 - above));
  }
  const a = new Float64Array(data.items).fill(priors.slope ? Math.exp(priors.slope.meanlog) : 1);
  return { a, d, g: new Float64Array(data.items).fill(g) };
}

/** Item `i`'s slice of the E-step's counts. */
function slice(quadrature: Quadrature, counts: EStep, i: number): ItemSlice {
  return { nodes: quadrature.nodes, n: counts.n, r: counts.r, offset: i * quadrature.nodes.length };
}

/**
 * 1PL M-step: Newton (Fisher scoring) steps on the common slope and all intercepts at once. The information
 * matrix is an arrowhead (the slope couples with every intercept, the intercepts not with each other), so each
 * step is solved through the slope's Schur complement in time linear in the items; a step is halved until the
 * expected log posterior does not fall.
 */
function updateRasch(state: ItemState, counts: EStep, quadrature: Quadrature, priors: Priors): number {
  const before = { a: state.a[0], d: Float64Array.from(state.d) };
  const items = state.a.length;
  const slices = Array.from({ length: items }, (_, i) => slice(quadrature, counts, i));
  const terms = new Float64Array(TERMS.size);
  const objective = (a: number, d: Float64Array) => {
    let value = priors.slope ? slopePrior(a, priors.slope).value : 0;
    for (let i = 0; i < items; i++) value += itemTermsInto(a, d[i], -Infinity, slices[i], NO_PRIORS, terms);
    return value;
  };
  const gradientD = new Float64Array(items);
  const fisherAD = new Float64Array(items);
  const fisherDD = new Float64Array(items);
  const trial = new Float64Array(items);
  let value = objective(state.a[0], state.d);
  for (let step = 0; step < NEWTON_STEPS; step++) {
    const a = state.a[0];
    let gradientA = 0, fisherAA = 0;
    for (let i = 0; i < items; i++) {
      itemTermsInto(a, state.d[i], -Infinity, slices[i], NO_PRIORS, terms);
      gradientA += terms[TERMS.gradient];
      fisherAA += terms[TERMS.fisher];
      gradientD[i] = terms[TERMS.gradient + 1];
      fisherAD[i] = terms[TERMS.fisher + 1];
      fisherDD[i] = terms[TERMS.fisher + 3] + 1e-9;
    }
    if (priors.slope) {
      const term = slopePrior(a, priors.slope);
      gradientA += term.gradient;
      fisherAA += Math.max(0, -term.curvature);
    }
    // Schur complement of the intercepts' diagonal block: the slope's step first, then each intercept's.
    let schur = fisherAA + 1e-9, reduced = gradientA;
    for (let i = 0; i < items; i++) {
      schur -= (fisherAD[i] * fisherAD[i]) / fisherDD[i];
      reduced -= (fisherAD[i] * gradientD[i]) / fisherDD[i];
    }
    const deltaA = schur > 0 ? reduced / schur : 0;
    let largest = Math.abs(deltaA);
    for (let i = 0; i < items; i++) {
      largest = Math.max(largest, Math.abs((gradientD[i] - fisherAD[i] * deltaA) / fisherDD[i]));
    }
    let scale = 1;
    let moved = false;
    for (let halving = 0; halving < 40; halving++, scale /= 2) {
      const na = a + scale * deltaA;
      if (!validItem(na, 0, -Infinity, priors)) continue;
      let inside = true;
      for (let i = 0; i < items && inside; i++) {
        trial[i] = state.d[i] + (scale * (gradientD[i] - fisherAD[i] * deltaA)) / fisherDD[i];
        inside = Math.abs(trial[i]) < PARAMETER_LIMITS.d;
      }
      if (!inside) continue;
      const next = objective(na, trial);
      if (next >= value - 1e-12 * Math.abs(value)) {
        state.a.fill(na);
        state.d.set(trial);
        value = next;
        moved = true;
        break;
      }
    }
    if (!moved || largest * scale < 1e-9) break;
  }
  let change = Math.abs(state.a[0] - before.a);
  for (let i = 0; i < items; i++) change = Math.max(change, Math.abs(state.d[i] - before.d[i]));
  return change;
}

/** Sum of the log prior densities over all items (the 1PL slope counted once; priors already fit the model). */
function logPrior(state: ItemState, model: IrtModel, priors: Priors): number {
  let sum = 0;
  const items = model === "1pl" ? Math.min(1, state.a.length) : state.a.length;
  for (let i = 0; i < items; i++) {
    if (priors.slope) sum += slopePrior(state.a[i], priors.slope).value;
    if (priors.guessing) sum += guessingPrior(state.g[i], priors.guessing).value;
  }
  return sum;
}

/** Relative size of the rounding in a log-likelihood summed over many examinees and nodes. */
const ROUNDING = 1e-12;

/**
 * One EM step's M-step: the items after it, the largest change of a, d or c (in units of max(1, SE)), and each
 * item's complete-data information on a, d, γ (`null` for 1PL).
 */
interface EmStep {
  state: ItemState;
  change: number;
  information: Float64Array | null;
}

/** A point of the EM with its E-step and objective (marginal log-likelihood plus log prior). */
interface Evaluated {
  state: ItemState;
  counts: EStep;
  objective: number;
}

/**
 * Fits `model` to the responses by Bock–Aitkin EM, accelerated by SQUAREM unless told otherwise, until the
 * tolerance is met or a cap (cycles, wall time) is reached. Converged means both: one EM step moves no a, d
 * or c by `tolerance` or more, and the log posterior changed by less than `logLikTolerance` (relative) in the
 * cycle. Items without both a right and a wrong answer have no finite estimate: screen the data first
 * ({@link ./screen.ts}; {@link ./calibrate.ts} does).
 */
export function fitIrt(data: Responses, options: FitOptions): IrtFit {
  const clock = options.clock ?? (() => performance.now());
  const started = clock();
  const model = options.model;
  const priors: Priors = {
    slope: options.priors?.slope ?? null,
    guessing: model === "3pl" ? options.priors?.guessing ?? null : null,
  };
  const quadrature = normalGrid(options.nodes ?? DEFAULT_NODES);
  const packed = packResponses(data);
  const tolerance = options.tolerance ?? 1e-6;
  const logLikTolerance = options.logLikTolerance ?? 1e-9;
  const acceleration = options.acceleration ?? "squarem";
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_CYCLES;
  const maxSeconds = options.maxSeconds ?? DEFAULT_MAX_SECONDS;
  const scratch = newtonScratch();
  const workspace = eStepWorkspace(packed.items, quadrature.nodes.length);
  let eSteps = 0;
  const evaluate = (state: ItemState): Evaluated => {
    const counts = eStep(packed, state, quadrature, false, workspace);
    eSteps++;
    return { state, counts, objective: counts.logLik + logPrior(state, model, priors) };
  };
  const emStep = (from: Evaluated): EmStep => {
    const state = copyState(from.state);
    if (model === "1pl") {
      return { state, change: updateRasch(state, from.counts, quadrature, priors), information: null };
    }
    const information = new Float64Array(3 * packed.items);
    let change = 0;
    for (let i = 0; i < packed.items; i++) {
      const item = slice(quadrature, from.counts, i);
      const moved = newtonItem(state.a, state.d, state.g, i, item, priors, scratch, information);
      if (moved > change) change = moved;
    }
    return { state, change, information };
  };
  /** Whether the objective moved by less than the log-likelihood tolerance (relative) from `before` to `after`. */
  const steady = (before: number, after: number) =>
    Math.abs(after - before) < logLikTolerance * Math.max(1, Math.abs(after));
  let current = evaluate(startingState(packed, model, priors));
  let previousObjective = NaN;
  let previousLogLik = NaN;
  let converged = false;
  let stoppedBy: FitStop = "max-cycles";
  let iterations = 0;
  let lastChange = Infinity;
  let stepMax = STEP_MAX_START;
  let fallbacks = 0;
  while (iterations < maxIterations) {
    if ((clock() - started) / 1000 >= maxSeconds) {
      stoppedBy = "max-seconds";
      break;
    }
    iterations++;
    const first = emStep(current);
    lastChange = first.change;
    options.onCycle?.({
      cycle: iterations,
      logLik: current.counts.logLik,
      logLikChange: current.counts.logLik - previousLogLik,
      parameterChange: lastChange,
      eSteps,
      objective: current.objective,
      seconds: (clock() - started) / 1000,
    });
    previousLogLik = current.counts.logLik;
    if (lastChange < tolerance && steady(previousObjective, current.objective)) {
      current = { ...current, state: first.state };
      converged = true;
      stoppedBy = "converged";
      break;
    }
    previousObjective = current.objective;
    if (acceleration === "none") {
      current = evaluate(first.state);
      continue;
    }
    const x1 = evaluate(first.state);
    const second = emStep(x1);
    const x2 = second.state;
    // The second EM step may already meet the tolerance: stop there, as plain EM would.
    if (second.change < tolerance && steady(current.objective, x1.objective)) {
      lastChange = second.change;
      current = { ...x1, state: x2 };
      converged = true;
      stoppedBy = "converged";
      break;
    }
    const { state: jumped, alpha } = extrapolate(
      current.state,
      x1.state,
      x2,
      stepMax,
      priors,
      first.information,
      model === "1pl",
    );
    let next = evaluate(alpha > 1 ? emStep(evaluate(jumped)).state : x2);
    // The monotonicity safeguard: an extrapolation that lowers the objective (beyond the sums' rounding) gives
    // way to the plain EM steps.
    const fellBack = alpha > 1 &&
      !(next.objective >= current.objective - ROUNDING * Math.abs(current.objective));
    if (fellBack) {
      next = evaluate(x2);
      fallbacks++;
    }
    stepMax = nextStepMax(stepMax, alpha, fellBack);
    current = next;
  }
  const state = current.state;
  const final = eStep(packed, state, quadrature, true);
  const errors = options.skipStandardErrors
    ? null
    : standardErrors(packed, state, model, quadrature, final, priors, {
      fullBudget: options.fullInformationBudget ?? 2e8,
    });
  const K = quadrature.nodes.length;
  let maxGradient = 0;
  let slopeGradient = 0;
  const items: FittedItem[] = data.items.map((item, i) => {
    const terms = itemTerms(
      state.a[i],
      state.d[i],
      state.g[i],
      model === "3pl",
      itemCounts(quadrature.nodes, final, i),
      model === "1pl" ? NO_PRIORS : priors,
    );
    if (model === "1pl") slopeGradient += terms.gradient[0];
    else maxGradient = Math.max(maxGradient, Math.abs(terms.gradient[0]));
    maxGradient = Math.max(
      maxGradient,
      Math.abs(terms.gradient[1]),
      model === "3pl" ? Math.abs(terms.gradient[2]) : 0,
    );
    let n = 0, right = 0;
    for (let k = 0; k < K; k++) {
      n += final.n[i * K + k];
      right += final.r[i * K + k];
    }
    const a = state.a[i], d = state.d[i];
    return {
      item,
      a,
      b: -d / a,
      c: state.g[i] === -Infinity ? 0 : logistic(state.g[i]),
      d,
      se_a: errors?.a[i] ?? null,
      se_b: errors?.b[i] ?? null,
      se_c: errors?.c[i] ?? null,
      se_d: errors?.d[i] ?? null,
      n,
      p_correct: n > 0 ? right / n : NaN,
    };
  });
  if (model === "1pl" && priors.slope) slopeGradient += slopePrior(state.a[0], priors.slope).gradient;
  maxGradient = Math.max(maxGradient, Math.abs(slopeGradient));
  return {
    model,
    nPersons: examineeCount(data),
    nItems: data.items.length,
    logLik: final.logLik,
    logPosterior: final.logLik + logPrior(state, model, priors),
    converged,
    stoppedBy,
    caps: { cycles: maxIterations, seconds: maxSeconds },
    iterations,
    eSteps,
    acceleration,
    fallbacks,
    lastChange,
    maxGradient,
    seMethod: errors?.method ?? "none",
    priors,
    nodes: K,
    items,
    seconds: (clock() - started) / 1000,
  };
}
