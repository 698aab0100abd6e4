/**
 * Item fit of a calibration, from each examinee's EAP ability: infit and outfit mean squares (information- and
 * unweighted means of squared standardised residuals, 1 under the model) and Yen's Q1 χ² over ability groups
 * (examinees split into up to ten groups of equal size by θ; df = groups − item parameters).
 * @module
 */
import { logGamma } from "../stats/distributions.ts";
import { type ItemParams, probability } from "./model.ts";
import type { Responses } from "./responses.ts";

/** Fit statistics of one item. */
export interface ItemFit {
  /** Item id. */
  item: string;
  /** Information-weighted mean square. */
  infit: number | null;
  /** Unweighted mean square. */
  outfit: number | null;
  /**
   * Yen's Q1 χ²; `null` with fewer than `minimumForChiSquare` respondents or when the median examinee answered
   * fewer than {@linkcode MINIMUM_TEST_LENGTH} items (θ too noisy to group by).
   */
  q1: number | null;
  /** Its degrees of freedom. */
  df: number | null;
  /** Upper-tail p-value of Q1. */
  p: number | null;
}

/** Q1 is computed only when the median examinee answered at least this many items. */
export const MINIMUM_TEST_LENGTH = 20;

/** Regularised upper incomplete gamma Q(s, x) (series below s + 1, continued fraction above). */
export function gammaQ(s: number, x: number): number {
  if (x <= 0) return 1;
  const logPrefix = s * Math.log(x) - x - logGamma(s);
  if (x < s + 1) {
    let term = 1 / s, sum = term;
    for (let n = 1; n < 500; n++) {
      term *= x / (s + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.max(0, 1 - sum * Math.exp(logPrefix));
  }
  // Lentz's method for the continued fraction of Γ(s, x).
  let b = x + 1 - s, c = 1e300, d = 1 / b, h = d;
  for (let n = 1; n < 500; n++) {
    const an = -n * (n - s);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.exp(logPrefix) * h;
}

/** Upper-tail probability of a χ² statistic with `df` degrees of freedom. */
export function chiSquareUpper(statistic: number, df: number): number {
  return gammaQ(df / 2, statistic / 2);
}

/** Computes the fit of every item; `parameters` is the count per item the model estimated (1, 2 or 3). */
export function itemFit(
  data: Responses,
  items: readonly ItemParams[],
  thetas: readonly number[],
  parameters: number,
  options: { groups?: number; minimumForChiSquare?: number } = {},
): ItemFit[] {
  const groups = options.groups ?? 10;
  const minimum = options.minimumForChiSquare ?? 100;
  // Q1 groups examinees by estimated θ, which needs tests long enough for θ to be reliable.
  const lengths = data.values.map((row) => row.filter((v) => v !== null).length).sort((x, y) => x - y);
  const reliable = (lengths[Math.floor(lengths.length / 2)] ?? 0) >= MINIMUM_TEST_LENGTH;
  // Examinees in order of θ (stable: ties keep their order), for Q1's groups; sorted once for every item.
  const byTheta = thetas.map((_, p) => p).sort((x, y) => thetas[x] - thetas[y]);
  const probs = new Float64Array(data.persons.length);
  return data.items.map((id, i) => {
    let squared = 0, variance = 0, standardised = 0, weight = 0, last = -1;
    for (let p = 0; p < data.persons.length; p++) {
      const x = data.values[p][i];
      const w = data.weights[p];
      probs[p] = NaN;
      if (x === null || w === 0) continue;
      const prob = probability(items[i], thetas[p]);
      const v = prob * (1 - prob);
      squared += w * (x - prob) ** 2;
      variance += w * v;
      standardised += v > 0 ? (w * (x - prob) ** 2) / v : 0;
      weight += w;
      probs[p] = prob;
    }
    const result: ItemFit = {
      item: id,
      infit: variance > 0 ? squared / variance : null,
      outfit: weight > 0 ? standardised / weight : null,
      q1: null,
      df: null,
      p: null,
    };
    if (weight < minimum || !reliable) return result;
    for (const p of byTheta) if (!Number.isNaN(probs[p])) last = p;
    let q1 = 0, used = 0, cumulative = 0, group = { n: 0, observed: 0, expected: 0 };
    for (const p of byTheta) {
      if (Number.isNaN(probs[p])) continue;
      const w = data.weights[p];
      group.n += w;
      group.observed += w * data.values[p][i]!;
      group.expected += w * probs[p];
      cumulative += w;
      if (cumulative >= ((used + 1) * weight) / groups - 1e-9 || p === last) {
        const e = group.expected / group.n;
        q1 += (group.n * (group.observed / group.n - e) ** 2) / (e * (1 - e));
        used++;
        group = { n: 0, observed: 0, expected: 0 };
      }
    }
    const df = used - parameters;
    if (df > 0) Object.assign(result, { q1, df, p: chiSquareUpper(q1, df) });
    return result;
  });
}
