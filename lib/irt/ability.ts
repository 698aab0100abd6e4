/**
 * Ability estimates for calibrated items: EAP (posterior mean and SD over the quadrature grid, N(0, 1) prior),
 * MAP (posterior mode, Newton) and ML (likelihood maximum, defined once both a right and a wrong answer are seen).
 * @module
 */
import { itemInformation, type ItemParams, logistic, softplus } from "./model.ts";
import { DEFAULT_NODES, normalGrid, type Quadrature } from "./quadrature.ts";
import type { Responses } from "./responses.ts";

/** An ability estimate with its standard error. */
export interface Ability {
  /** θ. */
  theta: number;
  /** Standard error (posterior SD for EAP; 1/√information for MAP and ML). */
  se: number;
}

/** One answered item. */
export interface Answer {
  /** The item's parameters. */
  item: ItemParams;
  /** 1 right, 0 wrong. */
  correct: 0 | 1;
}

/** Adds one answer's log-likelihood at every node to `logLik` (in place). */
export function addAnswer(logLik: Float64Array, nodes: Float64Array, answer: Answer): void {
  const { a, b, c } = answer.item;
  for (let k = 0; k < nodes.length; k++) {
    const z = a * (nodes[k] - b);
    logLik[k] += answer.correct
      ? (c === 0 ? -softplus(-z) : Math.log(c + (1 - c) * logistic(z)))
      : Math.log1p(-c) - softplus(z);
  }
}

/** EAP from a log-likelihood over the grid's nodes (the grid's weights are the prior). */
export function eapFromLogLik(logLik: Float64Array, quadrature: Quadrature): Ability {
  let max = -Infinity;
  for (let k = 0; k < logLik.length; k++) max = Math.max(max, logLik[k] + quadrature.logWeights[k]);
  let sum = 0, first = 0, second = 0;
  for (let k = 0; k < logLik.length; k++) {
    const w = Math.exp(logLik[k] + quadrature.logWeights[k] - max);
    const t = quadrature.nodes[k];
    sum += w;
    first += w * t;
    second += w * t * t;
  }
  const theta = first / sum;
  return { theta, se: Math.sqrt(Math.max(0, second / sum - theta * theta)) };
}

/** EAP ability of one examinee's answers. */
export function eapAbility(
  answers: readonly Answer[],
  quadrature: Quadrature = normalGrid(DEFAULT_NODES),
): Ability {
  const logLik = new Float64Array(quadrature.nodes.length);
  for (const answer of answers) addAnswer(logLik, quadrature.nodes, answer);
  return eapFromLogLik(logLik, quadrature);
}

/** First and second derivative of the log-likelihood of the answers at θ. */
function derivatives(answers: readonly Answer[], theta: number): { gradient: number; info: number } {
  let gradient = 0, info = 0;
  for (const { item, correct } of answers) {
    const s = logistic(item.a * (theta - item.b));
    const p = item.c + (1 - item.c) * s;
    // ∂ log L/∂θ = a·s·(x − P)/P (which is a(x − P) when c = 0).
    gradient += (item.a * s * (correct - p)) / p;
    info += itemInformation(item, theta);
  }
  return { gradient, info };
}

/** Newton–Raphson on θ with the expected information, clamped to [−limit, limit]. */
function newton(answers: readonly Answer[], withPrior: boolean, start: number, limit: number): Ability {
  let theta = start;
  for (let step = 0; step < 100; step++) {
    const { gradient, info } = derivatives(answers, theta);
    const g = gradient - (withPrior ? theta : 0);
    const h = info + (withPrior ? 1 : 0);
    const next = Math.max(-limit, Math.min(limit, theta + g / h));
    const done = Math.abs(next - theta) < 1e-9;
    theta = next;
    if (done) break;
  }
  const info = derivatives(answers, theta).info + (withPrior ? 1 : 0);
  return { theta, se: info > 0 ? 1 / Math.sqrt(info) : Infinity };
}

/** MAP ability under a N(0, 1) prior. */
export function mapAbility(answers: readonly Answer[]): Ability {
  return newton(answers, true, eapAbility(answers).theta, 6);
}

/** Whether ML is defined: at least one right and one wrong answer. */
export function mixedAnswers(answers: readonly Answer[]): boolean {
  return answers.some((x) => x.correct === 1) && answers.some((x) => x.correct === 0);
}

/** ML ability (null unless both outcomes are present); bounded to [−6, 6]. */
export function mleAbility(answers: readonly Answer[]): Ability | null {
  if (!mixedAnswers(answers)) return null;
  return newton(answers, false, eapAbility(answers).theta, 6);
}

/** Ability estimator names. */
export type AbilityMethod = "eap" | "map";

/** Returns every examinee's ability (EAP or MAP) from response data and item parameters keyed by item id. */
export function abilities(
  data: Responses,
  items: ReadonlyMap<string, ItemParams>,
  method: AbilityMethod = "eap",
): Ability[] {
  const quadrature = normalGrid(DEFAULT_NODES);
  const columns = data.items.map((id) => items.get(id));
  if (method === "eap") return eapAbilities(data, columns, quadrature);
  return data.values.map((row) => {
    const answers: Answer[] = [];
    for (const [i, v] of row.entries()) {
      if (v !== null && columns[i]) answers.push({ item: columns[i]!, correct: v });
    }
    return mapAbility(answers);
  });
}

/**
 * EAP abilities of every examinee, each item's log-likelihood at the nodes computed once (by
 * {@linkcode addAnswer}, so each examinee's sum is the one {@linkcode eapAbility} forms).
 */
function eapAbilities(
  data: Responses,
  columns: readonly (ItemParams | undefined)[],
  quadrature: Quadrature,
): Ability[] {
  const K = quadrature.nodes.length;
  const tables = columns.map((item) => {
    if (!item) return null;
    const right = new Float64Array(K);
    const wrong = new Float64Array(K);
    addAnswer(right, quadrature.nodes, { item, correct: 1 });
    addAnswer(wrong, quadrature.nodes, { item, correct: 0 });
    return { right, wrong };
  });
  return data.values.map((row) => {
    const logLik = new Float64Array(K);
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      const table = tables[i];
      if (v === null || !table) continue;
      const values = v ? table.right : table.wrong;
      for (let k = 0; k < K; k++) logLik[k] += values[k];
    }
    return eapFromLogLik(logLik, quadrature);
  });
}
