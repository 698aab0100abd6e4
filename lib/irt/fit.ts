/**
 * Marginal maximum likelihood (or, with priors, marginal MAP) calibration of 1PL, 2PL and 3PL items by
 * Bock–Aitkin EM over a fixed quadrature grid: E-step posteriors over the nodes, then a Newton (Fisher
 * scoring) M-step per item on the expected counts. Standard errors come from the observed information
 * (Louis), abilities from {@link ./ability.ts}.
 * @module
 */
import { eStep, type ItemState, type PackedResponses, packResponses } from "./estep.ts";
import {
  guessingPrior,
  itemCounts,
  itemTerms,
  itemValue,
  NO_PRIORS,
  type Priors,
  slopePrior,
} from "./item_terms.ts";
import { solve } from "./linear.ts";
import { type IrtModel, logistic } from "./model.ts";
import { DEFAULT_NODES, normalGrid, type Quadrature } from "./quadrature.ts";
import { examineeCount, type Responses } from "./responses.ts";
import { type StandardErrors, standardErrors } from "./standard_errors.ts";

/** Settings of one calibration. */
export interface FitOptions {
  /** Which model. */
  model: IrtModel;
  /** Priors on a and c (default none; the CLI turns the weak defaults on for 3PL). */
  priors?: Priors;
  /** Quadrature nodes over [−6, 6] (default 61, at least 61 for a reported fit). */
  nodes?: number;
  /** Stop when no a, d or c moves more than this in one cycle (default 1e-6). */
  tolerance?: number;
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
 * Default cap on EM cycles: mirt's default for EM (NCYCLES = 500); well-posed fits here converge in under 100
 * (LSAT7 2PL: 76; 2,000 × 100 3PL: 93).
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
  /** Largest parameter change in the cycle. */
  parameterChange: number;
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
  /** EM cycles run. */
  iterations: number;
  /** Largest parameter change in the last cycle. */
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

const LIMITS = { a: 50, d: 60, g: 30 };

/** Newton steps per item and EM cycle (an ECM step: EM converges without maximising each M-step fully). */
const M_STEPS = 5;

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

function valid(a: number, d: number, g: number, priors: Priors): boolean {
  if (!(Math.abs(a) < LIMITS.a && Math.abs(d) < LIMITS.d)) return false;
  if (priors.slope && !(a > 0)) return false;
  return g === -Infinity || Math.abs(g) < LIMITS.g;
}

/** Newton (Fisher scoring) ascent of one item's expected log posterior; returns its largest change in a, d, c. */
function updateItem(
  state: ItemState,
  i: number,
  model: IrtModel,
  counts: { n: Float64Array; r: Float64Array },
  quadrature: Quadrature,
  priors: Priors,
): number {
  const guessing = model === "3pl";
  const size = guessing ? 3 : 2;
  const a0 = state.a[i], d0 = state.d[i], g0 = state.g[i];
  let a = a0, d = d0, g = g0;
  const item = itemCounts(quadrature.nodes, counts, i);
  for (let step = 0; step < M_STEPS; step++) {
    const terms = itemTerms(a, d, g, guessing, item, priors, false);
    for (let u = 0; u < size; u++) terms.fisher[u * 3 + u] += 1e-9;
    const delta = solve(terms.fisher, terms.gradient, size, 3);
    if (!delta) break;
    let scale = 1;
    let moved = false;
    for (let halving = 0; halving < 40; halving++, scale /= 2) {
      const na = a + scale * delta[0];
      const nd = d + scale * delta[1];
      const ng = guessing ? g + scale * delta[2] : g;
      if (!valid(na, nd, ng, priors)) continue;
      const value = itemValue(na, nd, ng, guessing, item, priors);
      if (value >= terms.value - 1e-12 * Math.abs(terms.value)) {
        a = na, d = nd, g = ng;
        moved = true;
        break;
      }
    }
    const largest = Math.max(Math.abs(delta[0]), Math.abs(delta[1]), size === 3 ? Math.abs(delta[2]) : 0);
    if (!moved || largest * scale < 1e-9) break;
  }
  state.a[i] = a, state.d[i] = d, state.g[i] = g;
  const c = (x: number) => (x === -Infinity ? 0 : logistic(x));
  return Math.max(Math.abs(a - a0), Math.abs(d - d0), Math.abs(c(g) - c(g0)));
}

/**
 * 1PL M-step: Newton (Fisher scoring) steps on the common slope and all intercepts at once. The information
 * matrix is an arrowhead (the slope couples with every intercept, the intercepts not with each other), so each
 * step is solved through the slope's Schur complement in time linear in the items; a step is halved until the
 * expected log posterior does not fall.
 */
function updateRasch(
  state: ItemState,
  counts: { n: Float64Array; r: Float64Array },
  quadrature: Quadrature,
  priors: Priors,
): number {
  const before = { a: state.a[0], d: Float64Array.from(state.d) };
  const items = state.a.length;
  const item = (i: number) => itemCounts(quadrature.nodes, counts, i);
  const objective = (a: number, d: Float64Array) => {
    let value = priors.slope ? slopePrior(a, priors.slope).value : 0;
    for (let i = 0; i < items; i++) value += itemValue(a, d[i], -Infinity, false, item(i), NO_PRIORS);
    return value;
  };
  const gradientD = new Float64Array(items);
  const fisherAD = new Float64Array(items);
  const fisherDD = new Float64Array(items);
  const trial = new Float64Array(items);
  let value = objective(state.a[0], state.d);
  for (let step = 0; step < M_STEPS; step++) {
    const a = state.a[0];
    let gradientA = 0, fisherAA = 0;
    for (let i = 0; i < items; i++) {
      const terms = itemTerms(a, state.d[i], -Infinity, false, item(i), NO_PRIORS, false);
      gradientA += terms.gradient[0];
      fisherAA += terms.fisher[0];
      gradientD[i] = terms.gradient[1];
      fisherAD[i] = terms.fisher[1];
      fisherDD[i] = terms.fisher[4] + 1e-9;
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
      if (!valid(na, 0, -Infinity, priors)) continue;
      let inside = true;
      for (let i = 0; i < items && inside; i++) {
        trial[i] = state.d[i] + (scale * (gradientD[i] - fisherAD[i] * deltaA)) / fisherDD[i];
        inside = Math.abs(trial[i]) < LIMITS.d;
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

/**
 * Fits `model` to the responses by Bock–Aitkin EM until the tolerance is met or a cap (cycles, wall time) is
 * reached. Items without both a right and a wrong answer have no finite estimate: screen the data first
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
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_CYCLES;
  const maxSeconds = options.maxSeconds ?? DEFAULT_MAX_SECONDS;
  const state = startingState(packed, model, priors);
  let converged = false;
  let stoppedBy: FitStop = "max-cycles";
  let iterations = 0;
  let lastChange = Infinity;
  let previousLogLik = NaN;
  while (iterations < maxIterations) {
    if ((clock() - started) / 1000 >= maxSeconds) {
      stoppedBy = "max-seconds";
      break;
    }
    const counts = eStep(packed, state, quadrature);
    iterations++;
    if (model === "1pl") lastChange = updateRasch(state, counts, quadrature, priors);
    else {
      lastChange = 0;
      for (let i = 0; i < packed.items; i++) {
        lastChange = Math.max(lastChange, updateItem(state, i, model, counts, quadrature, priors));
      }
    }
    options.onCycle?.({
      cycle: iterations,
      logLik: counts.logLik,
      logLikChange: counts.logLik - previousLogLik,
      parameterChange: lastChange,
      seconds: (clock() - started) / 1000,
    });
    previousLogLik = counts.logLik;
    if (lastChange < tolerance) {
      converged = true;
      stoppedBy = "converged";
      break;
    }
  }
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
    lastChange,
    maxGradient,
    seMethod: errors?.method ?? "none",
    priors,
    nodes: K,
    items,
    seconds: (clock() - started) / 1000,
  };
}
