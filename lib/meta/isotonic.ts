/**
 * Isotonic regression by pool-adjacent-violators (PAV): the non-decreasing step function closest in weighted
 * least squares to points (x, y), used to map a judge's score onto the humans' scale. Points with the same x
 * are pooled first (their weighted mean at that x); between the fitted x values a prediction is interpolated
 * linearly, and outside them it is the nearest end's value.
 * @module
 */

/** A fitted isotonic map: the distinct x values, ascending, and the fitted (non-decreasing) y at each. */
export interface IsotonicFit {
  /** Distinct x values, ascending. */
  x: number[];
  /** Fitted value at each x. */
  y: number[];
  /** How many points (total weight) each x carries. */
  weight: number[];
}

/**
 * Returns the non-decreasing sequence closest to `y` (in order) in least squares weighted by `weight`
 * (default 1 each): adjacent values that decrease are pooled into their weighted mean until none does.
 */
export function poolAdjacentViolators(y: readonly number[], weight?: readonly number[]): number[] {
  const blocks: { mean: number; weight: number; count: number }[] = [];
  y.forEach((value, i) => {
    blocks.push({ mean: value, weight: weight?.[i] ?? 1, count: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2].mean > blocks[blocks.length - 1].mean) {
      const last = blocks.pop()!, previous = blocks.pop()!;
      const total = previous.weight + last.weight;
      blocks.push({
        mean: (previous.mean * previous.weight + last.mean * last.weight) / total,
        weight: total,
        count: previous.count + last.count,
      });
    }
  });
  return blocks.flatMap((b) => new Array<number>(b.count).fill(b.mean));
}

/** Returns the isotonic (non-decreasing) fit of `y` on `x`; throws when they differ in length or are empty. */
export function fitIsotonic(x: readonly number[], y: readonly number[]): IsotonicFit {
  if (x.length !== y.length) throw new Error(`fitIsotonic: ${x.length} x values vs ${y.length} y values`);
  if (x.length === 0) throw new Error("fitIsotonic: no points");
  const byX = new Map<number, { sum: number; weight: number }>();
  x.forEach((xi, i) => {
    const entry = byX.get(xi) ?? { sum: 0, weight: 0 };
    entry.sum += y[i];
    entry.weight += 1;
    byX.set(xi, entry);
  });
  const xs = [...byX.keys()].sort((a, b) => a - b);
  const weight = xs.map((v) => byX.get(v)!.weight);
  const means = xs.map((v) => byX.get(v)!.sum / byX.get(v)!.weight);
  return { x: xs, y: poolAdjacentViolators(means, weight), weight };
}

/** Returns the fitted value at `x`: interpolated between fitted x values, the end value outside them. */
export function predictIsotonic(fit: IsotonicFit, x: number): number {
  const { x: xs, y: ys } = fit;
  if (x <= xs[0]) return ys[0];
  if (x >= xs[xs.length - 1]) return ys[ys.length - 1];
  let hi = 1;
  while (xs[hi] < x) hi++;
  const lo = hi - 1;
  return ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / (xs[hi] - xs[lo]);
}
