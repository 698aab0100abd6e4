/**
 * One pair of entries on the same items: the difference B − A with its paired interval, the paired test that
 * fits the metric (McNemar's exact test for 0/1 values, Wilcoxon's signed-rank test for graded ones) and its
 * effect size. The multiplicity adjustment comes later, over the pairs of a whole table.
 * @module
 */
import type { ClusterNames } from "../core/summary.ts";
import { chooseInterval } from "../stats/interval_choice.ts";
import { mcnemarWithEffect, pairedMeanDifference, wilcoxonSignedRank } from "../stats/paired_tests.ts";

/** The test a pair is judged by. */
export type PairTest = "McNemar (exact)" | "Wilcoxon signed-rank";

/** An effect size with its interval when it has one. */
export interface EffectSize {
  /** `odds ratio` (McNemar: c / b) or `rank-biserial r` (Wilcoxon). */
  name: "odds ratio" | "rank-biserial r";
  /** The value (`Infinity` for an odds ratio with b = 0 < c; `null` when undefined: no discordant pair). */
  value: number | null;
  /** Its exact 95% interval (odds ratio only). */
  ci95: [number, number] | null;
}

/** One pair compared on its shared items, before the adjustment for the table's other pairs. */
export interface PairResult {
  /** Label of entry A (the earlier one). */
  a: string;
  /** Label of entry B. */
  b: string;
  /** Items (pairs of values). */
  n: number;
  /** Mean of A over the items. */
  meanA: number;
  /** Mean of B over the items. */
  meanB: number;
  /** Mean of the per-item differences B − A. */
  difference: number;
  /** 95% interval of the difference (a bootstrap of the per-item differences: paired). */
  ci95: [number, number] | null;
  /** How the interval was computed (e.g. `percentile bootstrap`, `cluster bootstrap (conversations)`). */
  interval: string;
  /** The test. */
  test: PairTest;
  /** The test's counts, e.g. `b=3 c=12` (McNemar) or `W+=210 W−=21 (n=21)` (Wilcoxon). */
  statistic: string;
  /** Two-sided p-value of the test. */
  p: number;
  /** Holm-adjusted p over the table's pairs (filled in by the table's family). */
  pHolm: number;
  /** Benjamini–Hochberg adjusted p over the table's pairs. */
  pBh: number;
  /** Effect size. */
  effect: EffectSize;
  /** McNemar: pairs right under A only (b) and under B only (c). */
  discordant?: { b: number; c: number };
  /** Wilcoxon: whether p is exact or from the normal approximation. */
  pMethod?: string;
  /** Cohen's d_z of the differences (graded metrics; `null` when their SD is 0). */
  cohensDz?: number | null;
}

/** The clusters of the items, when the metric's intervals resample them. */
export interface ItemClusters {
  /** Cluster id of each item, in item order. */
  ids: readonly string[];
  /** What a cluster is, for the interval's name. */
  names: ClusterNames;
}

/** Returns the mean of `values`. */
function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/**
 * Returns the comparison of B against A on the same items (`a[i]` and `b[i]` the same item): the mean
 * difference B − A with the interval `chooseInterval` gives the per-item differences (resampling items, or
 * their clusters when given: the pairing is kept either way), McNemar's exact test with the conditional odds
 * ratio c / b and its exact interval when `binary`, else Wilcoxon's signed-rank test with the matched-pairs
 * rank-biserial r (and Cohen's d_z). `pHolm` and `pBh` are left at `p` until the table's family adjusts them.
 */
export function comparePair(
  a: { label: string; values: readonly number[] },
  b: { label: string; values: readonly number[] },
  options: { binary: boolean; seed: string; clusters?: ItemClusters },
): PairResult {
  const differences = b.values.map((v, i) => v - a.values[i]);
  const interval = chooseInterval(
    options.clusters
      ? {
        kind: "mean",
        values: differences,
        clusters: options.clusters.ids,
        clusterName: options.clusters.names.name,
      }
      : { kind: "mean", values: differences },
    { seed: options.seed },
  );
  const common = {
    a: a.label,
    b: b.label,
    n: differences.length,
    meanA: mean(a.values),
    meanB: mean(b.values),
    difference: mean(differences),
    ci95: interval.ci95,
    interval: interval.method,
  };
  if (options.binary) {
    const test = mcnemarWithEffect(a.values, b.values);
    return {
      ...common,
      test: "McNemar (exact)",
      statistic: `b=${test.b} c=${test.c}`,
      p: test.p,
      pHolm: test.p,
      pBh: test.p,
      effect: { name: "odds ratio", value: test.oddsRatio, ci95: test.oddsRatioCi95 },
      discordant: { b: test.b, c: test.c },
    };
  }
  const test = wilcoxonSignedRank(a.values, b.values);
  return {
    ...common,
    test: "Wilcoxon signed-rank",
    statistic: `W+=${test.wPlus} W−=${test.wMinus} (n=${test.n})`,
    p: test.p,
    pHolm: test.p,
    pBh: test.p,
    effect: { name: "rank-biserial r", value: test.rankBiserial, ci95: null },
    pMethod: test.method,
    cohensDz: pairedMeanDifference(a.values, b.values).cohensDz,
  };
}
