/**
 * The compact letter display of all pairwise comparisons: each model gets letters, and two models share a
 * letter exactly when they are not significantly different (Piepho 2004).
 * @module
 */

/** A model and the mean it is ordered by. */
export interface ModelMean {
  /** Model label. */
  model: string;
  /** Its mean (the best model gets the first letter). */
  mean: number;
}

/** Options of {@linkcode compactLetterDisplay}. */
export interface LetterOptions {
  /** Whether a higher mean is better, so ranked first (default `true`). */
  higherIsBetter?: boolean;
}

/** A model with its letters. */
export interface ModelLetters {
  /** Model label. */
  model: string;
  /** Its mean. */
  mean: number;
  /** Its letters, e.g. `"ab"`: models sharing a letter are not significantly different. */
  letters: string;
}

/** Letters in the order they are handed out: a–z, then A–Z. */
const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Returns true when every member of `a` is in `b`. */
function isSubset(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Returns `columns` without those contained in another (the first of equal columns is kept). */
function absorb(columns: readonly Set<number>[]): Set<number>[] {
  return columns.filter((column, i) =>
    column.size > 0 &&
    !columns.some((other, j) => j !== i && isSubset(column, other) && (column.size < other.size || j < i))
  );
}

/** Piepho's insert step for a significant pair (a, b): each column holding both is split into one without a and one without b. */
function insert(columns: readonly Set<number>[], a: number, b: number): Set<number>[] {
  return columns.flatMap((column) => {
    if (!column.has(a) || !column.has(b)) return [column];
    const withoutA = new Set(column), withoutB = new Set(column);
    withoutA.delete(a);
    withoutB.delete(b);
    return [withoutA, withoutB];
  });
}

/**
 * Piepho's sweep: removes a model from a column when it shares another column with every other member of it
 * (that letter connects it to no one the other letters do not), then drops columns left empty or absorbed.
 */
function sweep(columns: Set<number>[]): Set<number>[] {
  for (const column of columns) {
    for (const member of [...column]) {
      const redundant = [...column].every((other) =>
        other === member || columns.some((c) => c !== column && c.has(member) && c.has(other))
      );
      if (redundant && column.size > 1) column.delete(member);
    }
  }
  return absorb(columns);
}

/** Returns the models ordered best first, with each label's position; throws on a repeated label. */
function orderModels(models: readonly ModelMean[], higherIsBetter: boolean): ModelMean[] {
  const seen = new Set<string>();
  for (const m of models) {
    if (seen.has(m.model)) throw new Error(`compactLetterDisplay: model "${m.model}" appears twice`);
    seen.add(m.model);
  }
  const sign = higherIsBetter ? -1 : 1;
  return [...models].sort((a, b) => sign * (a.mean - b.mean));
}

/** Returns the pairs of positions in `ordered` for the significant pairs; throws on an unknown model. */
function pairPositions(ordered: readonly ModelMean[], significant: readonly (readonly [string, string])[]) {
  const position = new Map(ordered.map((m, i) => [m.model, i]));
  return significant.map(([x, y]) => {
    const a = position.get(x), b = position.get(y);
    if (a === undefined || b === undefined) {
      throw new Error(`compactLetterDisplay: pair ${x} – ${y} names a model that has no mean`);
    }
    return [Math.min(a, b), Math.max(a, b)] as const;
  }).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}

/**
 * Returns the compact letter display of `models` (ordered by mean, best first) given the pairs that are
 * significantly different (in either order; every other pair counts as not different). Piepho's (2004, "An
 * algorithm for a letter-based representation of all-pairwise comparisons", JCGS 13:456–466) insert-and-absorb:
 * start with one letter shared by all; for each significant pair, split every column holding both into one
 * without each, and drop columns contained in another; then sweep redundant letters. Letters are handed out
 * in order of the best model in each column, so the best model has "a". Two models share a letter if and
 * only if they are not significantly different. Throws on a repeated model or a pair naming an unknown one.
 */
export function compactLetterDisplay(
  models: readonly ModelMean[],
  significant: readonly (readonly [string, string])[],
  options: LetterOptions = {},
): ModelLetters[] {
  const ordered = orderModels(models, options.higherIsBetter ?? true);
  let columns = ordered.length ? [new Set(ordered.map((_, i) => i))] : [];
  for (const [a, b] of pairPositions(ordered, significant)) {
    if (a !== b) columns = absorb(insert(columns, a, b));
  }
  columns = sweep(columns);
  const sorted = columns.map((c) => [...c].sort((x, y) => x - y)).sort((p, q) => {
    for (let i = 0; i < Math.min(p.length, q.length); i++) if (p[i] !== q[i]) return p[i] - q[i];
    return p.length - q.length;
  });
  if (sorted.length > ALPHABET.length) {
    throw new Error(
      `compactLetterDisplay: ${sorted.length} letters needed, at most ${ALPHABET.length} exist`,
    );
  }
  return ordered.map((m, i) => ({
    model: m.model,
    mean: m.mean,
    letters: sorted.flatMap((column, l) => column.includes(i) ? [ALPHABET[l]] : []).join(""),
  }));
}
