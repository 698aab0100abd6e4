/**
 * Reference values for the interval choice, cluster and two-level bootstraps, paired tests, multiplicity
 * adjustments, rank intervals, letter displays and power. Reference numbers come from SciPy 1.17
 * (`scipy.stats`), R's documented examples, or hand calculation, as noted beside each.
 */
import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { wilsonInterval } from "../lib/stats/agreement.ts";
import { bootstrapMean } from "../lib/stats/bootstrap.ts";
import { clopperPearsonInterval } from "../lib/stats/clopper_pearson.ts";
import {
  clusterBootstrapMean,
  clusteredStandardError,
  clusteredTInterval,
  clusterTotals,
} from "../lib/stats/cluster_bootstrap.ts";
import {
  betaCdf,
  betaQuantile,
  betaQuantileSearch,
  normalCdf,
  normalQuantile,
  tCdf,
  tQuantile,
} from "../lib/stats/distributions.ts";
import { expandedPercentileLevel } from "../lib/stats/expanded_percentile.ts";
import { chooseInterval } from "../lib/stats/interval_choice.ts";
import { compactLetterDisplay } from "../lib/stats/letters.ts";
import { benjaminiHochbergAdjust, holmAdjust } from "../lib/stats/multiplicity.ts";
import { mcnemarWithEffect, pairedMeanDifference, wilcoxonSignedRank } from "../lib/stats/paired_tests.ts";
import {
  benchmarkPower,
  pairedBinaryDetectable,
  pairedMeanDetectable,
  pairsForBinary,
  pairsForMean,
  perGroupForMeans,
  perGroupForProportions,
  twoMeansDetectable,
  twoProportionsDetectable,
} from "../lib/stats/power.ts";
import { bootstrapRankIntervals } from "../lib/stats/rank_intervals.ts";
import { clusterRepeatsBootstrapMean } from "../lib/stats/cluster_repeats_bootstrap.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";
import { twoLevelBootstrapMean } from "../lib/stats/two_level_bootstrap.ts";

/** Asserts two intervals agree to `tolerance` at both ends. */
function assertInterval(actual: [number, number] | null, expected: [number, number], tolerance = 1e-9) {
  assert(actual !== null, "no interval");
  assertAlmostEquals(actual[0], expected[0], tolerance);
  assertAlmostEquals(actual[1], expected[1], tolerance);
}

/** Returns 0/1 values with `successes` ones out of n. */
function binaryValues(successes: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => (i < successes ? 1 : 0));
}

// --- distributions -------------------------------------------------------------------------------------------

Deno.test("distribution functions match SciPy to 1e-10", () => {
  assertAlmostEquals(normalQuantile(0.975), 1.959963984540054, 1e-12); // stats.norm.ppf(.975)
  assertAlmostEquals(normalQuantile(1e-10), -6.361340902404056, 1e-10);
  assertAlmostEquals(normalQuantile(0.8), 0.8416212335729143, 1e-12);
  assertAlmostEquals(normalCdf(1.5), 0.9331927987311419, 1e-12);
  assertAlmostEquals(normalCdf(-8) / 6.22096057427174e-16, 1, 1e-9);
  assertAlmostEquals(tQuantile(0.975, 9), 2.262157162798205, 1e-10); // stats.t.ppf(.975, 9)
  assertAlmostEquals(tQuantile(0.975, 1), 12.706204736174694, 1e-9);
  assertAlmostEquals(tQuantile(0.025, 99), -1.9842169515864174, 1e-10);
  assertAlmostEquals(tCdf(2.1, 7), 0.9630644018935387, 1e-12);
  assertAlmostEquals(betaCdf(0.3, 2.5, 7.5), 0.6789434858661821, 1e-12);
  assertAlmostEquals(betaQuantile(0.025, 5000, 5001), 0.4901513805899805, 1e-10);
});

/** The p-quantile of Beta(a, b) by plain bisection on its CDF: slow, and a reference for the fast one. */
function bisectedBetaQuantile(p: number, a: number, b: number): number {
  let lo = 0, hi = 1;
  for (let i = 0; i < 1100; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (betaCdf(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

Deno.test("betaQuantile matches bisection to double precision, for shapes below 1, at 20,000 and in the far tails", () => {
  const shapes = [0.05, 0.5, 1, 2.5, 9, 140, 20_000];
  const levels = [1e-12, 1e-6, 0.0125, 0.025, 0.3, 0.5, 0.8, 0.975, 0.9875, 1 - 1e-9];
  for (const a of shapes) {
    for (const b of shapes) {
      for (const p of levels) {
        const fast = betaQuantile(p, a, b);
        const slow = bisectedBetaQuantile(p, a, b);
        // It agrees with bisection's to 1e-12, or its CDF is p as nearly as at bisection's (in the far tails the
        // quantile itself is ill-conditioned: a flat CDF leaves it loose by ~1e-10 either way, and the CDF's own
        // rounding decides among neighbouring doubles).
        const miss = Math.abs(betaCdf(fast, a, b) - p);
        const bisectionMiss = Math.abs(betaCdf(slow, a, b) - p);
        // Where the CDF is steep (a U-shaped beta near its ends), a double's step moves it by more than that.
        const steps = Math.abs(fast - slow) / (Number.EPSILON * Math.max(fast, Number.MIN_VALUE));
        assert(
          Math.abs(fast - slow) <= 1e-10 * slow || miss <= bisectionMiss + 1e-14 * Math.min(p, 1 - p) ||
            steps <= 64,
          `Beta(${a}, ${b}) at ${p}: CDF off by ${miss} at ${fast}, by ${bisectionMiss} at ${slow}`,
        );
        if (a >= 1 && b >= 1 && p >= 0.01 && p <= 0.99) {
          assert(Math.abs(fast - slow) <= 1e-12, `Beta(${a}, ${b}) at ${p}: ${fast} against ${slow}`);
        }
      }
    }
  }
  assertEquals([betaQuantile(0, 2, 3), betaQuantile(1, 2, 3)], [0, 1]);
  assertEquals(betaQuantileSearch(0.5, 2, 3).x, betaQuantile(0.5, 2, 3));
  assert(Number.isNaN(betaQuantile(1.5, 2, 3)) && Number.isNaN(betaQuantile(Number.NaN, 2, 3)));
});

Deno.test("betaQuantile takes a few CDF evaluations for Clopper–Pearson bounds and t quantiles, not bisection's ~55", () => {
  const evaluations: number[] = [];
  for (const n of [10, 100, 2000, 33_735]) {
    for (const k of [0, 1, Math.floor(n / 3), n - 1, n]) {
      if (k > 0) evaluations.push(betaQuantileSearch(0.025, k, n - k + 1).evaluations);
      if (k < n) evaluations.push(betaQuantileSearch(0.975, k + 1, n - k).evaluations);
    }
  }
  for (const df of [1, 2, 9, 99, 1999, 33_734]) {
    evaluations.push(betaQuantileSearch(0.025, df / 2, 0.5).evaluations); // the t quantile's tail of 5%
  }
  evaluations.sort((a, b) => a - b);
  assert(evaluations.at(-1)! <= 25, `at most ${evaluations.at(-1)}`);
  assert(evaluations[evaluations.length >> 1] <= 10, `median ${evaluations[evaluations.length >> 1]}`);
});

// --- proportions and the interval choice ---------------------------------------------------------------------

Deno.test("Clopper–Pearson: 0/10 = [0, 0.3085], 10/10 = [0.6915, 1], 3/20 as SciPy's beta quantiles", () => {
  assertInterval(clopperPearsonInterval(0, 10), [0, 0.3084971078187607]); // 1 − 0.025^(1/10)
  assertInterval(clopperPearsonInterval(10, 10), [0.6915028921812392, 1]);
  assertInterval(clopperPearsonInterval(3, 20), [0.0320709371854637, 0.37892682654531396]);
  assertEquals(clopperPearsonInterval(0, 0), null);
  assertThrows(() => clopperPearsonInterval(11, 10), Error, "0 ≤ successes ≤ n");
});

Deno.test("expanded percentile level: wider for few units, 95% in the limit, none for one unit", () => {
  assertAlmostEquals(expandedPercentileLevel(10), 0.9828987219511872, 1e-10); // 1 − 2Φ(−√(10/9)·t₉)
  assertAlmostEquals(expandedPercentileLevel(1000), 0.9503913881888714, 1e-10);
  assert(Number.isNaN(expandedPercentileLevel(1)));
});

Deno.test("chooseInterval: a proportion gets Clopper–Pearson below 30 values, Wilson from 30; never collapses at 0%", () => {
  const small = chooseInterval({ kind: "proportion", values: binaryValues(0, 10) }, { seed: "s" });
  assertEquals(small.method, "Clopper–Pearson");
  assertEquals(small.value, 0);
  assertInterval(small.ci95, [0, 0.3084971078187607]);
  assertEquals(small.n, 10);
  const large = chooseInterval({ kind: "proportion", values: binaryValues(0, 30) }, { seed: "s" });
  assertEquals(large.method, "Wilson");
  assertInterval(large.ci95, wilsonInterval(0, 30)!);
  assert(large.ci95![1] > 0.1, "a 0/30 rate has an upper bound above 0");
  // The percentile bootstrap it replaces collapses to the point for such a rate.
  assertEquals(bootstrapMean(binaryValues(0, 30)).ci95, [0, 0]);
  const empty = chooseInterval({ kind: "proportion", values: [] }, { seed: "s" });
  assertEquals([empty.value, empty.ci95, empty.n], [null, null, 0]);
  assertThrows(
    () => chooseInterval({ kind: "proportion", values: [0, 2] }, { seed: "s" }),
    Error,
    "value 1 is 2",
  );
});

Deno.test("chooseInterval: clusters → cluster bootstrap; judge repeats → two-level; otherwise the expanded percentile bootstrap", () => {
  const values = [1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1];
  const clusters = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e", "f", "f"];
  const clustered = chooseInterval({ kind: "proportion", values, clusters, clusterName: "conversations" }, {
    seed: "c",
  });
  assertEquals(clustered.method, "cluster bootstrap (conversations)");
  assertEquals(clustered.clusters, 6);
  assertEquals(clustered.n, 12);
  assertEquals(clustered.ci95, clusterBootstrapMean(values, clusters, { seed: "c" }).ci95);
  assertEquals(
    chooseInterval({ kind: "mean", values, clusters }, { seed: "c" }).method,
    "cluster bootstrap (clusters)",
  );

  const repeats = [[4, 5, 4], [2, 2, 3], [5, 5, 5], [3, 4, 3], [1, 2, 1]];
  const judged = chooseInterval({ kind: "judged mean", repeats }, { seed: "j" });
  assertEquals(judged.method, "two-level bootstrap (items, judge repeats)");
  assertEquals(judged.n, 5);
  assertEquals(judged.ci95, twoLevelBootstrapMean(repeats, { seed: "j" }).ci95);
  const once = chooseInterval({ kind: "judged mean", repeats: repeats.map((r) => [r[0]]) }, { seed: "j" });
  assertEquals(once.method, "percentile bootstrap");

  const scores = [3, 4, 5, 2, 4, 4, 3, 5, 1, 4];
  const plain = chooseInterval({ kind: "mean", values: scores }, { seed: "m" });
  assertEquals(plain.method, "percentile bootstrap");
  assertEquals(plain.clusters, undefined);
  assertEquals(plain.ci95, bootstrapMean(scores, { seed: "m", level: expandedPercentileLevel(10) }).ci95);
  const unexpanded = bootstrapMean(scores, { seed: "m" }).ci95!;
  assert(
    plain.ci95![1] - plain.ci95![0] > unexpanded[1] - unexpanded[0],
    "10 values: wider than the 2.5–97.5% one",
  );
  assertEquals(chooseInterval({ kind: "mean", values: [3] }, { seed: "m" }).ci95, null);
  assertThrows(
    () => chooseInterval({ kind: "mean", values: [1, 2], clusters: ["a"] }, { seed: "m" }),
    Error,
    "2 values but 1 cluster ids",
  );
});

// --- cluster bootstrap ---------------------------------------------------------------------------------------

Deno.test("cluster bootstrap: ratio mean over all values, seeded, wider than treating values as independent", () => {
  const values = [
    1,
    1,
    1,
    1,
    5,
    5,
    5,
    5,
    3,
    3,
    3,
    3,
    2,
    2,
    2,
    2,
    4,
    4,
    4,
    4,
    3,
    3,
    3,
    3,
    1,
    1,
    1,
    1,
    5,
    5,
    5,
    5,
  ];
  const ids = values.map((_, i) => Math.floor(i / 4));
  const a = clusterBootstrapMean(values, ids, { seed: "x" });
  assertEquals(a, clusterBootstrapMean(values, ids, { seed: "x" }));
  assertEquals(a.value, 3);
  // Identical values within clusters (ICC 1): the clusters are the 8 independent units, not the 32 values.
  const independent = chooseInterval({ kind: "mean", values }, { seed: "x" }).ci95!;
  const ratio = (a.ci95![1] - a.ci95![0]) / (independent[1] - independent[0]);
  assert(ratio > 1.8 && ratio < 3, `width ratio ${ratio}`);
  // Unequal sizes: the mean of all values, not of cluster means.
  assertEquals(clusterBootstrapMean([1, 1, 1, 0], ["a", "a", "a", "b"], { seed: "y" }).value, 0.75);
  assertEquals(clusterBootstrapMean([1, 0], ["a", "a"], { seed: "y" }).ci95, null);
});

Deno.test("clustered SE (Miller, C/(C−1)): equal sizes give the SE of the cluster means; t interval with C − 1 df", () => {
  const values = [1, 3, 2, 6, 4, 4, 9, 7];
  const ids = [0, 0, 1, 1, 2, 2, 3, 3];
  // Cluster means 2, 4, 4, 8 around 4.5: squared deviations sum to 19, SD √(19/3), SE √(19/3)/2.
  const se = Math.sqrt(19 / 3) / 2;
  assertAlmostEquals(clusteredStandardError(clusterTotals(values, ids)), se, 1e-12);
  const t = clusteredTInterval(values, ids);
  assertEquals(t.value, 4.5);
  const half = 3.182446305284263 * se; // stats.t.ppf(.975, 3)
  assertInterval(t.ci95, [4.5 - half, 4.5 + half]);
});

// --- two-level bootstrap -------------------------------------------------------------------------------------

/** Returns n items of r judge repeats: the item's true score plus the judge's noise (seeded). */
function judgedItems(n: number, r: number, itemSd: number, judgeSd: number, seed: string): number[][] {
  const random = mulberry32(seedFrom(seed));
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, () => {
    const score = 3 + itemSd * normal();
    return Array.from({ length: r }, () => score + judgeSd * normal());
  });
}

Deno.test("two-level bootstrap: its spread is that of the item means (judge noise counted once, not twice)", () => {
  // Judge noise 1.5² / 3 = 0.75 of the item means' variance 1: resampling both levels naively would add
  // (r − 1)/r · 0.75 = 0.5, an interval √1.5 ≈ 1.22 times too wide.
  const repeats = judgedItems(200, 3, 0.5, 1.5, "mostly judge noise");
  const estimate = twoLevelBootstrapMean(repeats, { seed: "t", resamples: 20000 });
  const itemMeans = repeats.map((r) => r.reduce((s, v) => s + v, 0) / r.length);
  const mean = itemMeans.reduce((s, v) => s + v, 0) / itemMeans.length;
  assertAlmostEquals(estimate.value!, mean, 1e-12);
  const plugInSe = Math.sqrt(itemMeans.reduce((s, v) => s + (v - mean) ** 2, 0) / 200 / 200);
  const z = normalQuantile((1 + expandedPercentileLevel(200)) / 2);
  const ratio = (estimate.ci95![1] - estimate.ci95![0]) / (2 * z * plugInSe);
  assert(ratio > 0.95 && ratio < 1.05, `width / expected width = ${ratio}`);
  assert(estimate.judgeShare! > 0.6 && estimate.judgeShare! < 0.9, `judge share ${estimate.judgeShare}`);
  assertEquals(estimate.scores, 600);
  // Without judge noise the share is 0 and the interval is the item bootstrap's.
  const exact = judgedItems(50, 3, 1, 0, "no judge noise");
  assertAlmostEquals(twoLevelBootstrapMean(exact, { seed: "t" }).judgeShare!, 0, 1e-12);
  assertThrows(() => twoLevelBootstrapMean([[1], []], { seed: "t" }), Error, "item 1 has no judge score");
});

// --- cluster bootstrap with judge repeats -------------------------------------------------------------------

/** Returns judged items in `clusters` clusters of 1–4 items (cluster effect, item effect, judge noise; seeded). */
function clusteredJudgedItems(
  clusters: number,
  r: number,
  sds: { cluster: number; item: number; judge: number },
  seed: string,
): { repeats: number[][]; ids: number[] } {
  const random = mulberry32(seedFrom(seed));
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const repeats: number[][] = [], ids: number[] = [];
  for (let c = 0; c < clusters; c++) {
    const effect = sds.cluster * normal();
    const size = 1 + Math.floor(random() * 4);
    for (let i = 0; i < size; i++) {
      const score = 3 + effect + sds.item * normal();
      repeats.push(Array.from({ length: r }, () => score + sds.judge * normal()));
      ids.push(c);
    }
  }
  return { repeats, ids };
}

/** Returns the mean of `values`. */
function average(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/** Returns Σ_c (S_c − m_c·ȳ)² / N² of the item means: the cluster bootstrap's variance of their mean. */
function clusterVariance(itemMeans: readonly number[], ids: readonly number[]): number {
  const totals = clusterTotals(itemMeans, ids);
  const mean = average(itemMeans);
  const squares = totals.sums.reduce((s, sum, k) => s + (sum - totals.counts[k] * mean) ** 2, 0);
  return squares / itemMeans.length ** 2;
}

for (const r of [3, 6]) {
  Deno.test(`cluster bootstrap with judge repeats (${r} repeats): its spread is the cluster bootstrap's of the item means, judge noise counted once`, () => {
    // Judge noise 1.5²/r of each item mean, most of its variance: resampling clusters and repeats without the
    // adjustment would count it twice.
    const { repeats, ids } = clusteredJudgedItems(
      150,
      r,
      { cluster: 0.4, item: 0.3, judge: 1.5 },
      `judged ${r}`,
    );
    const estimate = clusterRepeatsBootstrapMean(repeats, ids, { seed: "t", resamples: 20000 });
    const itemMeans = repeats.map(average);
    assertAlmostEquals(estimate.value!, average(itemMeans), 1e-12);
    assertEquals([estimate.n, estimate.clusters, estimate.scores], [repeats.length, 150, r * repeats.length]);
    const z = normalQuantile((1 + expandedPercentileLevel(150)) / 2);
    const ratio = (estimate.ci95![1] - estimate.ci95![0]) /
      (2 * z * Math.sqrt(clusterVariance(itemMeans, ids)));
    assert(ratio > 0.95 && ratio < 1.05, `width / expected width = ${ratio}`);
    assert(estimate.judgeShare! > 0.25 && estimate.judgeShare! < 0.9, `judge share ${estimate.judgeShare}`);
    assertEquals(clusterRepeatsBootstrapMean(repeats, ids, { seed: "t", resamples: 20000 }), estimate);
  });
}

Deno.test("cluster bootstrap with judge repeats: judge noise beyond the clusters' spread widens the interval to it; no noise is the cluster bootstrap", () => {
  // Every item's repeats are 2, 3, 4: the item means are all 3 (no spread between clusters), the judge's noise
  // s²/r = 1/3 per item. The interval then rests on the judge noise alone: variance Σ s²/r / N² = 1/(3N).
  const ids = Array.from({ length: 60 }, (_, i) => Math.floor(i / 3));
  const flat = clusterRepeatsBootstrapMean(ids.map(() => [2, 3, 4]), ids, { seed: "f", resamples: 20000 });
  assertEquals([flat.value, flat.judgeShare, flat.clusters], [3, 1, 20]);
  const z = normalQuantile((1 + expandedPercentileLevel(20)) / 2);
  const ratio = (flat.ci95![1] - flat.ci95![0]) / (2 * z * Math.sqrt(1 / 3 / 60));
  assert(ratio > 0.95 && ratio < 1.05, `width / expected width = ${ratio}`);
  // The cluster bootstrap of the averaged scores (all 3) is the point.
  assertEquals(clusterBootstrapMean(ids.map(() => 3), ids, { seed: "f" }).ci95, [3, 3]);
  // Repeats that agree add nothing: the interval is the cluster bootstrap of the item scores.
  const { repeats, ids: itemIds } = clusteredJudgedItems(
    30,
    3,
    { cluster: 1, item: 1, judge: 0 },
    "agreeing",
  );
  const agreeing = repeats.map((item) => item.map(() => item[0]));
  const both = clusterRepeatsBootstrapMean(agreeing, itemIds, { seed: "a" });
  assertAlmostEquals(both.judgeShare!, 0, 1e-12);
  assertInterval(
    both.ci95,
    clusterBootstrapMean(agreeing.map((item) => item[0]), itemIds, { seed: "a" }).ci95!,
    1e-12,
  );
  assertEquals(clusterRepeatsBootstrapMean([[1, 2], [3, 4]], ["a", "a"], { seed: "o" }).ci95, null);
  assertThrows(
    () => clusterRepeatsBootstrapMean([[1], []], ["a", "b"], { seed: "t" }),
    Error,
    "item 1 has no judge score",
  );
  assertThrows(
    () => clusterRepeatsBootstrapMean([[1]], ["a", "b"], { seed: "t" }),
    Error,
    "1 items but 2 cluster ids",
  );
});

Deno.test("chooseInterval: a clustered judged mean → clusters then judge repeats; without repeats, the cluster bootstrap", () => {
  const repeats = [[4, 5, 4], [2, 2, 3], [5, 5, 5], [3, 4, 3], [1, 2, 1], [4, 4, 5], [3, 3, 2]];
  const clusters = ["a", "a", "b", "c", "c", "c", "d"];
  const chosen = chooseInterval({ kind: "judged mean", repeats, clusters, clusterName: "conversations" }, {
    seed: "cj",
  });
  assertEquals(chosen.method, "cluster bootstrap (conversations, judge repeats)");
  assertEquals([chosen.n, chosen.clusters], [7, 4]);
  const direct = clusterRepeatsBootstrapMean(repeats, clusters, { seed: "cj" });
  assertEquals([chosen.value, chosen.ci95], [direct.value, direct.ci95]);
  const once = chooseInterval({ kind: "judged mean", repeats: repeats.map((r) => [r[0]]), clusters }, {
    seed: "cj",
  });
  assertEquals(once.method, "cluster bootstrap (clusters)");
  assertEquals(once.ci95, clusterBootstrapMean(repeats.map((r) => r[0]), clusters, { seed: "cj" }).ci95);
  assertThrows(
    () => chooseInterval({ kind: "judged mean", repeats, clusters: ["a"] }, { seed: "cj" }),
    Error,
    "7 items but 1 cluster ids",
  );
});

Deno.test("chooseInterval: a clustered rate of 0% or 100% is the rate's rule over its clusters, each counted once", () => {
  const clusters = Array.from({ length: 12 }, (_, i) => `case${i % 4}`);
  const all = chooseInterval({
    kind: "proportion",
    values: Array(12).fill(1),
    clusters,
    clusterName: "cases",
  }, {
    seed: "r",
  });
  assertEquals(all, {
    value: 1,
    ci95: clopperPearsonInterval(4, 4),
    n: 12,
    method: "Clopper–Pearson over cases",
    clusters: 4,
  });
  // From 30 clusters, Wilson over them.
  const many = Array.from({ length: 90 }, (_, i) => i % 30);
  const none = chooseInterval({ kind: "proportion", values: Array(90).fill(0), clusters: many }, {
    seed: "r",
  });
  assertEquals([none.method, none.n, none.clusters], ["Wilson over clusters", 90, 30]);
  assertInterval(none.ci95, wilsonInterval(0, 30)!);
  // A mean that happens to be constant is not a rate: the cluster bootstrap gives the point.
  assertEquals(chooseInterval({ kind: "mean", values: Array(12).fill(1), clusters }, { seed: "r" }).ci95, [
    1,
    1,
  ]);
});

// --- paired tests --------------------------------------------------------------------------------------------

/** Hollander & Wolfe's depression scores (R's `wilcox.test` example): x = first visit, y = second. */
const HW_X = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30];
const HW_Y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];

Deno.test("Wilcoxon signed-rank, exact: Hollander & Wolfe's example gives V = 40, p = 0.03906 (R, SciPy)", () => {
  const test = wilcoxonSignedRank(HW_Y, HW_X); // differences x − y, as wilcox.test(x, y, paired = TRUE)
  assertEquals([test.n, test.zeros, test.wPlus, test.wMinus, test.method], [9, 0, 40, 5, "exact"]);
  assertAlmostEquals(test.p, 0.0390625, 1e-12); // 20 of the 512 sign patterns have W+ ≥ 40 or ≤ 5
  assertAlmostEquals(test.rankBiserial!, 35 / 45, 1e-12);
  assertEquals(wilcoxonSignedRank(HW_X, HW_Y).rankBiserial, -35 / 45);
});

Deno.test("Wilcoxon signed-rank with zeros and ties: zeros dropped, normal approximation with tie and continuity corrections", () => {
  const base = [3, 4, 2, 5, 3, 4, 4, 2, 3, 5, 1, 2, 3, 4, 3];
  const other = [4, 4, 3, 5, 5, 3, 5, 4, 4, 5, 2, 2, 4, 5, 4];
  const test = wilcoxonSignedRank(base, other);
  assertEquals([test.n, test.zeros, test.wPlus, test.wMinus, test.method], [
    11,
    4,
    61,
    5,
    "normal approximation",
  ]);
  // stats.wilcoxon(other, base, zero_method="wilcox", correction=True, method="approx")
  assertAlmostEquals(test.p, 0.009166356911399973, 1e-10);
  assertEquals(wilcoxonSignedRank([1, 2], [1, 2]), {
    n: 0,
    zeros: 2,
    wPlus: 0,
    wMinus: 0,
    p: 1,
    method: "exact",
    rankBiserial: null,
  });
});

Deno.test("McNemar with the conditional odds ratio c/b and its exact interval", () => {
  // b = 3 pairs right under the baseline only, c = 12 under the condition only, 5 concordant.
  const base = [...binaryValues(3, 3), ...binaryValues(0, 12), 1, 1, 0, 0, 0];
  const other = [...binaryValues(0, 3), ...binaryValues(12, 12), 1, 1, 0, 0, 0];
  const test = mcnemarWithEffect(base, other);
  assertEquals([test.b, test.c, test.oddsRatio], [3, 12, 4]);
  assertAlmostEquals(test.p, 0.03515625, 1e-12); // 2·P(Binomial(15, ½) ≤ 3)
  // beta.ppf(.025, 12, 4) and beta.ppf(.975, 13, 3) mapped through π/(1 − π)
  assertInterval(test.oddsRatioCi95, [1.0794727323911188, 22.088286897741465], 1e-8);
  assertAlmostEquals(test.riskDifference!, 9 / 20, 1e-12);
  const oneSided = mcnemarWithEffect([0, 0, 1], [1, 1, 1]);
  assertEquals(oneSided.oddsRatio, Infinity);
  assertEquals(oneSided.oddsRatioCi95![1], Infinity);
  assertEquals(mcnemarWithEffect([1, 0], [1, 0]).oddsRatio, null);
  assertThrows(() => mcnemarWithEffect([0.5], [1]), Error, "outcomes are 0 or 1");
});

Deno.test("paired t and Cohen's d_z on Hollander & Wolfe's example (SciPy's ttest_rel)", () => {
  const test = pairedMeanDifference(HW_Y, HW_X);
  assertAlmostEquals(test.t!, 3.0353754156485917, 1e-10);
  assertAlmostEquals(test.p!, 0.016176627434908088, 1e-10);
  assertAlmostEquals(test.cohensDz!, 1.0117918052161972, 1e-10);
  assertAlmostEquals(test.sdDifference!, 0.4268554920709246, 1e-12);
  assertInterval(test.difference.ci95, [0.10377871227216856, 0.7599990655056093], 1e-10);
  assertEquals(pairedMeanDifference([1, 2], [2, 3]).cohensDz, null); // constant difference: SD 0
  assertThrows(() => pairedMeanDifference([1], [1, 2]), Error, "1 baseline values but 2 paired values");
});

// --- multiplicity --------------------------------------------------------------------------------------------

Deno.test("Holm and Benjamini–Hochberg as R's p.adjust, in input order, monotone and capped at 1", () => {
  const p = [0.01, 0.02, 0.03, 0.04, 0.05];
  // Holm: 5·0.01, 4·0.02, max(0.08, 3·0.03), max(0.09, 2·0.04), max(0.09, 0.05)
  holmAdjust(p).forEach((v, i) => assertAlmostEquals(v, [0.05, 0.08, 0.09, 0.09, 0.09][i], 1e-12));
  // BH: m/j·p = 0.05 for every j
  benjaminiHochbergAdjust(p).forEach((v) => assertAlmostEquals(v, 0.05, 1e-12));
  const shuffled = [0.04, 0.01, 0.03, 0.2, 0.01];
  holmAdjust(shuffled).forEach((v, i) => assertAlmostEquals(v, [0.09, 0.05, 0.09, 0.2, 0.05][i], 1e-12));
  // scipy.stats.false_discovery_control([0.04, 0.01, 0.03, 0.2, 0.01])
  benjaminiHochbergAdjust(shuffled).forEach((v, i) =>
    assertAlmostEquals(v, [0.05, 0.025, 0.05, 0.2, 0.025][i], 1e-12)
  );
  assertEquals(holmAdjust([0.5, 0.6]), [1, 1]);
  assertEquals(benjaminiHochbergAdjust([]), []);
  assertThrows(() => holmAdjust([0.1, 1.5]), Error, "p-value 1 is not a number in [0, 1]");
});

// --- rank intervals ------------------------------------------------------------------------------------------

Deno.test("rank intervals: a dominating model is 'rank 1 of 4', close models share ranks, identical ones tie both ways", () => {
  const random = mulberry32(seedFrom("ranks"));
  const n = 300;
  const draw = (p: number) => Array.from({ length: n }, () => (random() < p ? 1 : 0));
  const close = draw(0.6);
  const models = [
    { model: "weak", values: draw(0.3) },
    { model: "strong", values: draw(0.95) },
    { model: "close", values: close },
    { model: "close twin", values: [...close] },
  ];
  const ranks = bootstrapRankIntervals(models, { seed: "r" });
  assertEquals(ranks.map((r) => r.model), ["weak", "strong", "close", "close twin"]);
  assertEquals(ranks[1].label, "rank 1 of 4");
  assertEquals(ranks[0].label, "rank 4 of 4");
  assertEquals(ranks[2].ranks, [2, 3]);
  assertEquals(ranks[3].ranks, [2, 3]);
  assertEquals([ranks[2].rank, ranks[3].rank], [2, 2]);
  const lowerIsBetter = bootstrapRankIntervals(models, { seed: "r", higherIsBetter: false });
  assertEquals(lowerIsBetter[0].label, "rank 1 of 4");
  assertEquals(bootstrapRankIntervals(models, { seed: "r" }), ranks);
  assertThrows(
    () =>
      bootstrapRankIntervals([{ model: "a", values: [1] }, { model: "b", values: [1, 0] }], { seed: "r" }),
    Error,
    'model "b" has 2 values',
  );
});

Deno.test("rank intervals: two models a few points apart on few items overlap ('ranks 1–2 of 2')", () => {
  const a = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1];
  const b = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0];
  const ranks = bootstrapRankIntervals([{ model: "a", values: a }, { model: "b", values: b }], { seed: "o" });
  assertEquals(ranks.map((r) => r.label), ["ranks 1–2 of 2", "ranks 1–2 of 2"]);
  assertEquals(ranks.map((r) => r.rank), [1, 2]);
});

// --- compact letter display ----------------------------------------------------------------------------------

Deno.test("compact letter display: a known pattern gives a / ab / bc / c, ordered by mean", () => {
  const means = [
    { model: "C", mean: 0.6 },
    { model: "A", mean: 0.8 },
    { model: "D", mean: 0.5 },
    { model: "B", mean: 0.7 },
  ];
  const letters = compactLetterDisplay(means, [["A", "C"], ["D", "A"], ["B", "D"]]);
  assertEquals(letters.map((m) => `${m.model}:${m.letters}`), ["A:a", "B:ab", "C:bc", "D:c"]);
  assertEquals(compactLetterDisplay(means, []).map((m) => m.letters), ["a", "a", "a", "a"]);
  const all = [["A", "B"], ["A", "C"], ["A", "D"], ["B", "C"], ["B", "D"], ["C", "D"]] as const;
  assertEquals(compactLetterDisplay(means, all).map((m) => m.letters), ["a", "b", "c", "d"]);
  assertEquals(compactLetterDisplay(means, [], { higherIsBetter: false })[0].model, "D");
  assertThrows(
    () => compactLetterDisplay(means, [["A", "E"]]),
    Error,
    "A – E names a model that has no mean",
  );
});

Deno.test("compact letter display: the sweep removes a redundant letter (D would be 'abc' after insert-and-absorb)", () => {
  const means = ["A", "B", "C", "D", "E"].map((model, i) => ({ model, mean: 1 - i / 10 }));
  const letters = compactLetterDisplay(means, [["A", "E"], ["B", "C"], ["B", "E"]]);
  // D shares "a" with A and B and "c" with C and E, so its "b" (shared with A and C) says nothing new.
  assertEquals(letters.map((m) => m.letters), ["ab", "a", "bc", "ac", "c"]);
});

Deno.test("compact letter display: on random patterns, two models share a letter exactly when not significantly different", () => {
  const random = mulberry32(seedFrom("letters"));
  for (let trial = 0; trial < 200; trial++) {
    const k = 2 + Math.floor(random() * 7);
    const models = Array.from({ length: k }, (_, i) => ({ model: `m${i}`, mean: random() }));
    const significant: [string, string][] = [];
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) if (random() < 0.5) significant.push([`m${i}`, `m${j}`]);
    }
    const letters = new Map(compactLetterDisplay(models, significant).map((m) => [m.model, m.letters]));
    const differs = new Set(significant.map(([a, b]) => `${a}|${b}`));
    for (let i = 0; i < k; i++) {
      assert(letters.get(`m${i}`)!.length > 0);
      for (let j = i + 1; j < k; j++) {
        const share = [...letters.get(`m${i}`)!].some((l) => letters.get(`m${j}`)!.includes(l));
        assertEquals(share, !differs.has(`m${i}|m${j}`), `trial ${trial}: m${i} vs m${j}`);
      }
    }
  }
});

// --- power ---------------------------------------------------------------------------------------------------

Deno.test("power: two proportions 0.5 vs 0.55 need 1,565 per group (R's power.prop.test: 1564.7)", () => {
  assertEquals(perGroupForProportions(0.5, 0.55), 1565);
  const detectable = twoProportionsDetectable(0.5, 1565)!;
  assert(detectable < 0.05 && detectable > 0.0499, `${detectable}`);
  assert(twoProportionsDetectable(0.9, 1565)! < 0.05, "further from ½, smaller differences are detectable");
  // Paired means: n = ((1.95996 + 0.84162) · 0.5 / 0.05)² = 784.9; MDD at 400 pairs = 2.80158 · 0.5 / 20.
  assertEquals(pairsForMean(0.5, 0.05), 785);
  assertAlmostEquals(pairedMeanDetectable(0.5, 400), 0.07003963045282421, 1e-12);
  assertEquals(perGroupForMeans(1, 1, 0.2), 393); // 2 · 2.80158² / 0.04 = 392.4
  assertAlmostEquals(twoMeansDetectable(1, 100, 1, 100), 2.801585218 * Math.sqrt(0.02), 1e-8);
});

Deno.test("power, paired 0/1 (Connor 1987): n for ψ = 0.2, δ = 0.05 is 626, and a McNemar z test reaches 80% there", () => {
  assertEquals(pairsForBinary(0.2, 0.05), 626); // [1.95996·√0.2 + 0.84162·√(0.2 − 0.0025)]² / 0.0025 = 625.5
  assertEquals(pairsForBinary(0.04, 0.05), null);
  const detectable = pairedBinaryDetectable(0.2, 626)!;
  assert(detectable < 0.05 && detectable > 0.0499, `${detectable}`);
  // Independent check by simulation: discordant pairs split (ψ + δ)/2 vs (ψ − δ)/2, the asymptotic test.
  const random = mulberry32(seedFrom("connor"));
  let rejected = 0;
  const runs = 4000;
  for (let run = 0; run < runs; run++) {
    let b = 0, c = 0;
    for (let i = 0; i < 626; i++) {
      const u = random();
      if (u < 0.075) b++;
      else if (u < 0.2) c++;
    }
    if (Math.abs(c - b) / Math.sqrt(b + c) > 1.959963984540054) rejected++;
  }
  const power = rejected / runs;
  assert(power > 0.77 && power < 0.83, `simulated power ${power}`);
});

Deno.test("benchmarkPower: from two paired runs, binary and continuous", () => {
  const base = [...binaryValues(60, 100), ...binaryValues(0, 100)];
  const other = [...binaryValues(50, 100), ...binaryValues(30, 100)]; // 10 + 30 discordant of 200
  const binary = benchmarkPower(base, other);
  assertEquals(binary.binary, true);
  assertEquals(binary.pairedBasis, { discordance: 0.2 });
  assertEquals(binary.pairedDetectable, pairedBinaryDetectable(0.2, 200));
  assertEquals(binary.unpairedDetectable, twoProportionsDetectable(0.3, 200));
  assertEquals(binary.needed, [
    { difference: 0.02, paired: pairsForBinary(0.2, 0.02), unpaired: perGroupForProportions(0.3, 0.32) },
    { difference: 0.05, paired: pairsForBinary(0.2, 0.05), unpaired: perGroupForProportions(0.3, 0.35) },
  ]);
  const scores = benchmarkPower([1, 2, 3, 4, 5], [2, 2, 4, 4, 6], [0.5]);
  assertEquals(scores.binary, false);
  assertAlmostEquals((scores.pairedBasis as { sdDifference: number }).sdDifference, Math.sqrt(0.3), 1e-12);
  assertEquals(scores.needed[0].paired, pairsForMean(Math.sqrt(0.3), 0.5));
  assertThrows(() => benchmarkPower([1], [1]), Error, "at least 2 pairs");
});
