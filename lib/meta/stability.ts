/**
 * A judge against itself: the item × repeat matrix of its codes of a field (`--judge-runs` repeats of each
 * judging; judge errors and abstentions missing) gives Krippendorff's α between repeats, Cohen's κ of the
 * first two repeats (quadratic for ordinal fields), the share of items on which every repeat agrees, and, for
 * numeric fields, the share of the score's variance that comes from repeats rather than items (one-way random
 * effects, lib/meta/variance_share.ts), each with a 95% CI.
 * @module
 */
import type { StoredScore } from "../core/records.ts";
import type { Estimate } from "../core/summary.ts";
import { alphaWithCi, kappaWithCi, percentAgreement } from "../stats/agreement.ts";
import { alphaOfCoincidences } from "./contingency.ts";
import { type Code, isNumeric, type MetaField } from "./fields.ts";
import { itemBootstrap } from "./item_bootstrap.ts";
import { varianceComponents } from "./variance_share.ts";

/** The repeat stability of one judge on one field. */
export interface RepeatStability {
  /** The judge. */
  judge: string;
  /** Repeats (distinct run numbers) among its judgings. */
  repeats: number;
  /** Items with at least two coded repeats. */
  items: number;
  /** Krippendorff's α between repeats at the field's level (bootstrap CI over items). */
  alpha: Estimate | null;
  /** κ of repeat 1 against repeat 2 (quadratic for ordinal fields; none for interval ones). */
  kappa: Estimate | null;
  /** Share of items on which every repeat gives the same code (Wilson CI). */
  allAgree: Estimate | null;
  /** Variance components of numeric fields, the repeat share with a bootstrap CI over items. */
  variance: { itemVariance: number; repeatVariance: number; repeatShare: Estimate } | null;
}

/** Options of {@linkcode repeatStability}. */
export interface StabilityOptions {
  /** Seed text of the bootstraps. */
  seed: string;
  /** Bootstrap resamples. */
  resamples?: number;
}

/** Interval fields with more distinct values than this get α from lib/stats instead of a coincidence table. */
const MAX_CATEGORIES = 200;

/**
 * Returns Krippendorff's α between repeats of `units` (items with at least two coded repeats) with a
 * bootstrap 95% CI over items: each item's coincidences are computed once, a resample adds them up.
 */
function repeatAlpha(
  units: readonly (Code | null)[][],
  field: MetaField,
  options: StabilityOptions,
): Estimate {
  const level = field.level === "binary" ? "nominal" : field.level;
  const present = units.map((u) => u.filter((v): v is Code => v !== null));
  const seen = [...new Set(present.flat())];
  const categories = field.level === "nominal"
    ? seen.map(String).sort()
    : [...new Set([...(field.levels ?? []), ...seen].map(Number))].sort((a, b) => a - b);
  if (categories.length > MAX_CATEGORIES) {
    return alphaWithCi(units, level, { seed: `${options.seed}:alpha`, resamples: options.resamples });
  }
  const k = categories.length;
  const index = new Map<Code, number>(categories.map((c, i) => [c, i]));
  const coincidences = present.map((values) => {
    const cells: number[] = [];
    values.forEach((x, p) =>
      values.forEach((y, q) => p !== q && cells.push(index.get(x)! * k + index.get(y)!))
    );
    return { cells, weight: 1 / (values.length - 1) };
  });
  const o = new Float64Array(k * k);
  const scale = { categories, level: field.level };
  const [estimate] = itemBootstrap(coincidences, (sample) => {
    o.fill(0);
    for (const unit of sample) for (const cell of unit.cells) o[cell] += unit.weight;
    return [alphaOfCoincidences(o, scale)];
  }, { seed: `${options.seed}:alpha`, resamples: options.resamples });
  return { ...estimate, n: units.length };
}

/**
 * Returns how stable `judge` is across its repeats on `field`, over `items` (its judgings by sample), or
 * `null` when it judged every item once.
 */
export function repeatStability(
  field: MetaField,
  judge: string,
  judgings: ReadonlyMap<string, readonly StoredScore[]>,
  items: readonly string[],
  options: StabilityOptions,
): RepeatStability | null {
  const runs = [...new Set([...judgings.values()].flat().map((s) => s.run))].sort((a, b) => a - b);
  if (runs.length < 2) return null;
  const matrix: (Code | null)[][] = items.map((id) => {
    const scores = judgings.get(id) ?? [];
    return runs.map((run) => {
      const score = scores.find((s) => s.run === run);
      return score?.valid ? field.judge(score) : null;
    });
  });
  const rated = matrix.filter((row) => row.filter((v) => v !== null).length >= 2);
  const alpha = repeatAlpha(rated, field, options);
  const kappa = field.level === "interval" ? null : kappaWithCi(
    matrix.map((row) => row[0]),
    matrix.map((row) => row[1]),
    field.level === "ordinal"
      ? {
        levels: field.levels,
        weights: "quadratic",
        seed: `${options.seed}:kappa`,
        resamples: options.resamples,
      }
      : { seed: `${options.seed}:kappa`, resamples: options.resamples },
  );
  let variance: RepeatStability["variance"] = null;
  if (isNumeric(field.level)) {
    const rows = matrix.map((row) => row.filter((v): v is number => v !== null));
    const components = varianceComponents(rows);
    if (components) {
      const [share] = itemBootstrap(
        rows.filter((r) => r.length > 0),
        (sample) => [varianceComponents(sample)?.repeatShare ?? null],
        { seed: `${options.seed}:variance`, resamples: options.resamples },
      );
      variance = {
        itemVariance: components.itemVariance,
        repeatVariance: components.repeatVariance,
        repeatShare: { ...share, n: components.items },
      };
    }
  }
  return {
    judge,
    repeats: runs.length,
    items: rated.length,
    alpha,
    kappa,
    allAgree: percentAgreement(rated),
    variance,
  };
}
