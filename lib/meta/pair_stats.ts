/**
 * The agreement statistics of two aligned lists of codes (rater A's and rater B's code of the same item, pair
 * by pair): percent agreement, Cohen's κ, quadratic-weighted κ, Krippendorff's α at the field's level,
 * Spearman's ρ and, for binary fields, balanced F1 (the macro mean of the F1 of each class, with B as the
 * reference). Which of them a field gets depends on its level; a field rated on two scales gets ρ only.
 * @module
 */
import { cohenKappa, krippendorffAlpha, weightedKappa } from "../stats/agreement.ts";
import { spearmanRho } from "../stats/rank.ts";
import type { Code, FieldScale } from "./fields.ts";

/** The statistics, in the order tables show them. */
export const STATISTICS = ["percent", "kappa", "qkappa", "alpha", "rho", "f1"] as const;

/** A statistic's name. */
export type Statistic = typeof STATISTICS[number];

/** How each statistic is named in tables and verdicts. */
export const STATISTIC_LABELS: Readonly<Record<Statistic, string>> = {
  percent: "agreement",
  kappa: "κ",
  qkappa: "quadratic κ",
  alpha: "α",
  rho: "ρ",
  f1: "balanced F1",
};

/** A 2 × 2 confusion matrix of a binary prediction against a reference. */
export interface Confusion {
  /** Reference 1, predicted 1. */
  truePositive: number;
  /** Reference 0, predicted 1. */
  falsePositive: number;
  /** Reference 1, predicted 0. */
  falseNegative: number;
  /** Reference 0, predicted 0. */
  trueNegative: number;
}

/**
 * Returns balanced F1: the mean of the F1 of class 1 (2TP / (2TP + FP + FN)) and of class 0 (2TN / (2TN + FN
 * + FP)), so both classes count alike whatever their prevalence; `null` when a class occurs on neither side.
 */
export function balancedF1(c: Confusion): number | null {
  const wrong = c.falsePositive + c.falseNegative;
  const positive = 2 * c.truePositive + wrong, negative = 2 * c.trueNegative + wrong;
  if (positive === 0 || negative === 0) return null;
  return ((2 * c.truePositive) / positive + (2 * c.trueNegative) / negative) / 2;
}

/** Returns the confusion matrix of 0/1 `predicted` against 0/1 `reference` (pair by pair). */
export function confusionOf(predicted: readonly Code[], reference: readonly Code[]): Confusion {
  const c = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 };
  predicted.forEach((p, i) => {
    const r = reference[i];
    if (p === 1 && r === 1) c.truePositive++;
    else if (p === 1) c.falsePositive++;
    else if (r === 1) c.falseNegative++;
    else c.trueNegative++;
  });
  return c;
}

/** Returns the statistics that apply to a field, in table order. */
export function statisticsOf(scale: Pick<FieldScale, "level" | "ownScales">): Statistic[] {
  if (scale.ownScales) return ["rho"];
  switch (scale.level) {
    case "binary":
      return ["percent", "kappa", "alpha", "rho", "f1"];
    case "nominal":
      return ["percent", "kappa", "alpha"];
    case "ordinal":
      return ["percent", "kappa", "qkappa", "alpha", "rho"];
    case "interval":
      return ["alpha", "rho"];
  }
}

/**
 * Returns the statistic a verdict compares with the human ceiling: quadratic κ for ordinal fields, Cohen's κ
 * for binary and nominal ones, α for interval ones, ρ for a field rated on two scales.
 */
export function primaryStatistic(scale: Pick<FieldScale, "level" | "ownScales">): Statistic {
  if (scale.ownScales) return "rho";
  if (scale.level === "ordinal") return "qkappa";
  return scale.level === "interval" ? "alpha" : "kappa";
}

/** Returns one statistic of aligned codes `a` and `b`, or `null` when it is undefined there. */
export function pairStatistic(
  statistic: Statistic,
  a: readonly Code[],
  b: readonly Code[],
  scale: Pick<FieldScale, "level" | "levels">,
): number | null {
  const value = rawPairStatistic(statistic, a, b, scale);
  // Rounding noise around 0 is 0 (a κ of exactly chance agreement, not −2e-16).
  return value !== null && Math.abs(value) < 1e-12 ? 0 : value;
}

/** {@linkcode pairStatistic} before rounding noise is removed. */
function rawPairStatistic(
  statistic: Statistic,
  a: readonly Code[],
  b: readonly Code[],
  scale: Pick<FieldScale, "level" | "levels">,
): number | null {
  if (a.length === 0) return null;
  switch (statistic) {
    case "percent":
      return a.filter((v, i) => v === b[i]).length / a.length;
    case "kappa":
      return cohenKappa(a, b);
    case "qkappa":
      return weightedKappa(a, b, scale.levels!, "quadratic");
    case "alpha":
      return krippendorffAlpha(
        a.map((v, i) => [v, b[i]]),
        scale.level === "binary" ? "nominal" : scale.level,
      );
    case "rho":
      return spearmanRho(a.map(Number), b.map(Number));
    case "f1":
      return balancedF1(confusionOf(a, b));
  }
}
