import { assert, assertAlmostEquals, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import {
  alphaWithCi,
  cohenKappa,
  fleissKappa,
  iccTwoWayRandom,
  kappaWithCi,
  krippendorffAlpha,
  pairAgreement,
  percentAgreement,
  type Rating,
  weightedKappa,
  wilsonInterval,
} from "../lib/stats/agreement.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";

const _ = null;

/** Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 coders × 12 units, values 1–5. */
const CODERS: Rating[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _], // A
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3], // B
  [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _], // C
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _], // D
];

/** The reliability data as units: one row per unit, one entry per coder. */
const KRIPPENDORFF_UNITS: Rating[][] = CODERS[0].map((_, u) => CODERS.map((coder) => coder[u]));

Deno.test("krippendorffAlpha reproduces Krippendorff's 2011 worked example", () => {
  assertAlmostEquals(krippendorffAlpha(KRIPPENDORFF_UNITS, "nominal")!, 0.743, 5e-4);
  assertAlmostEquals(krippendorffAlpha(KRIPPENDORFF_UNITS, "ordinal")!, 0.815, 5e-4);
  assertAlmostEquals(krippendorffAlpha(KRIPPENDORFF_UNITS, "interval")!, 0.849, 5e-4);
});

Deno.test("krippendorffAlpha nominal ignores what the labels are; ordinal and interval need numbers", () => {
  const labelled = KRIPPENDORFF_UNITS.map((unit) => unit.map((v) => (v === null ? null : `c${v}`)));
  assertAlmostEquals(
    krippendorffAlpha(labelled, "nominal")!,
    krippendorffAlpha(KRIPPENDORFF_UNITS, "nominal")!,
  );
  assertThrows(() => krippendorffAlpha(labelled, "ordinal"), Error, "finite numbers");
  assertThrows(() => krippendorffAlpha(labelled, "interval"), Error, "finite numbers");
});

Deno.test("krippendorffAlpha degenerate cases", () => {
  // One value everywhere: expected disagreement D_e = 0, so alpha = 1 − D_o / D_e is 0/0 → null.
  const constant = [[3, 3, 3], [3, 3, null], [3, 3, 3]];
  for (const level of ["nominal", "ordinal", "interval"] as const) {
    assertEquals(krippendorffAlpha(constant, level), null);
  }
  // Raters agree within every unit but units differ: D_o = 0 < D_e, alpha = 1.
  assertEquals(krippendorffAlpha([[1, 1, 1], [2, 2, 2], [3, 3, null]], "interval"), 1);
  // No unit with two ratings: nothing to pair → null.
  assertEquals(krippendorffAlpha([[1, null, null], [null, 2, null]], "nominal"), null);
  assertEquals(krippendorffAlpha([], "nominal"), null);
  assertEquals(alphaWithCi([[1, null]], "nominal", { seed: "s" }), { value: null, ci95: null, n: 0 });
});

Deno.test("alphaWithCi: seeded, deterministic, brackets the estimate, n = pairable units", () => {
  const a = alphaWithCi(KRIPPENDORFF_UNITS, "interval", { seed: "agreement", resamples: 1000 });
  const b = alphaWithCi(KRIPPENDORFF_UNITS, "interval", { seed: "agreement", resamples: 1000 });
  assertEquals(a, b);
  assertEquals(a.n, 11); // unit 12 has a single rating
  assertAlmostEquals(a.value!, krippendorffAlpha(KRIPPENDORFF_UNITS, "interval")!);
  assert(a.ci95![0] < a.value! && a.value! < a.ci95![1], `ci ${a.ci95} value ${a.value}`);
  const other = alphaWithCi(KRIPPENDORFF_UNITS, "interval", { seed: "another", resamples: 1000 });
  assertNotEquals(other.ci95, a.ci95);
});

Deno.test("iccTwoWayRandom reproduces Shrout & Fleiss (1979) Table 2", () => {
  const table2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]];
  const icc = iccTwoWayRandom(table2);
  assertAlmostEquals(icc.single, 0.29, 5e-3);
  assertAlmostEquals(icc.average, 0.62, 5e-3);
});

Deno.test("iccTwoWayRandom rejects ragged, too small, or incomplete matrices", () => {
  assertThrows(() => iccTwoWayRandom([[1, 2], [3]]), Error, "not rectangular");
  assertThrows(() => iccTwoWayRandom([[1, 2]]), Error, "at least 2 targets");
  assertThrows(() => iccTwoWayRandom([[1], [2]]), Error, "at least 2 raters");
  assertThrows(() => iccTwoWayRandom([[1, 2], [3, NaN]]), Error, "missing");
  assertThrows(() => iccTwoWayRandom([[1, 2], [3, null]] as unknown as number[][]), Error, "missing");
});

Deno.test("fleissKappa reproduces the Fleiss (1971) style example: 10 subjects, 14 raters", () => {
  // Wikipedia "Fleiss' kappa" worked example: raters per category for each subject; P̄ = 0.378, P_e = 0.213.
  const counts = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
  ];
  const units = counts.map((row) => row.flatMap((count, category) => Array(count).fill(category + 1)));
  assert(units.every((unit) => unit.length === 14));
  assertAlmostEquals(fleissKappa(units)!, 0.21, 5e-4);
});

Deno.test("fleissKappa: unequal rater counts throw; undefined cases are null", () => {
  assertThrows(() => fleissKappa([["a", "b"], ["a"]]), Error, "all must be equal");
  assertEquals(fleissKappa([]), null);
  assertEquals(fleissKappa([["a", "a"], ["a", "a"]]), null);
  assertEquals(fleissKappa([["a", "a"], ["b", "b"]]), 1);
});

Deno.test("cohenKappa on a hand-computed 2×2 table; null pairs dropped", () => {
  // 50 items: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
  // p_o = 35/50 = 0.7; A says yes 25/50 = 0.5, B says yes 30/50 = 0.6;
  // p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = (0.7 − 0.5) / (1 − 0.5) = 0.4.
  const a: Rating[] = [], b: Rating[] = [];
  const cells: [string, string, number][] = [
    ["yes", "yes", 20],
    ["yes", "no", 5],
    ["no", "yes", 10],
    ["no", "no", 15],
  ];
  for (const [x, y, count] of cells) {
    for (let i = 0; i < count; i++) a.push(x), b.push(y);
  }
  assertAlmostEquals(cohenKappa(a, b)!, 0.4, 1e-12);
  assertAlmostEquals(cohenKappa([...a, null, "yes"], [...b, "no", null])!, 0.4, 1e-12);
  assertEquals(cohenKappa([null], ["yes"]), null);
  assertEquals(cohenKappa(["yes", "yes"], ["yes", "yes"]), null);
  assertThrows(() => cohenKappa(["yes"], []), Error, "1 vs 0");
});

Deno.test("percentAgreement counts units where all present raters agree, with a Wilson interval", () => {
  // Units 2, 6 and 8 disagree; unit 12 has one rating and is dropped: 8 of 11.
  const agreement = percentAgreement(KRIPPENDORFF_UNITS);
  assertEquals(agreement.n, 11);
  assertAlmostEquals(agreement.value!, 8 / 11);
  assertEquals(agreement.ci95, wilsonInterval(8, 11));
  // Wilson 95% for 8/10 is [0.490, 0.943].
  const [lo, hi] = wilsonInterval(8, 10)!;
  assertAlmostEquals(lo, 0.4902, 1e-4);
  assertAlmostEquals(hi, 0.9433, 1e-4);
  assertEquals(percentAgreement([[1, null]]), { value: null, ci95: null, n: 0 });
});

/** Returns two raters' ratings from a contingency table: `table[i][j]` units rated levels[i] by A, levels[j] by B. */
function fromTable<T extends Rating>(
  table: readonly (readonly number[])[],
  levels: readonly T[],
): [T[], T[]] {
  const a: T[] = [], b: T[] = [];
  table.forEach((row, i) =>
    row.forEach((count, j) => {
      for (let c = 0; c < count; c++) a.push(levels[i]), b.push(levels[j]);
    })
  );
  return [a, b];
}

/**
 * A 3 × 3 table, rows rater A, columns rater B, levels 1 < 2 < 3, n = 15:
 *   [4 1 0]  row totals r = 5 6 4
 *   [2 3 1]  column totals s = 6 6 3
 *   [0 2 2]
 * Expected counts E_ij = r_i s_j / 15; off-diagonal: E_12 = 2, E_21 = 2.4, E_23 = 1.2, E_32 = 1.6 (adjacent,
 * sum 7.2), E_13 = 1, E_31 = 1.6 (two apart, sum 2.6). Observed off-diagonal: adjacent 1 + 2 + 1 + 2 = 6, two
 * apart 0.
 * Quadratic (w = 1/4 adjacent, 1 two apart): Σ w·O = 6/4 = 1.5; Σ w·E = 7.2/4 + 2.6 = 4.4;
 *   κ_w = 1 − 1.5/4.4 = 29/44.
 * Linear (w = 1/2 adjacent, 1 two apart): Σ w·O = 3; Σ w·E = 3.6 + 2.6 = 6.2; κ_w = 1 − 3/6.2 = 16/31.
 * Unweighted: p_o = 9/15, p_e = (5·6 + 6·6 + 4·3)/225 = 78/225; κ = (135 − 78)/(225 − 78) = 57/147 = 19/49.
 */
const TABLE_3X3 = [[4, 1, 0], [2, 3, 1], [0, 2, 2]];
const LEVELS_3 = [1, 2, 3];

Deno.test("weightedKappa on a hand-computed 3×3 table (quadratic and linear)", () => {
  const [a, b] = fromTable(TABLE_3X3, LEVELS_3);
  assertEquals(a.length, 15);
  assertAlmostEquals(weightedKappa(a, b, LEVELS_3, "quadratic")!, 29 / 44, 1e-12);
  assertAlmostEquals(weightedKappa(a, b, LEVELS_3, "linear")!, 16 / 31, 1e-12);
  assertAlmostEquals(cohenKappa(a, b)!, 19 / 49, 1e-12);
  // The rank is the position in `levels`, not the value: reversing the scale changes nothing for symmetric
  // weights, and labels work as well as numbers.
  assertAlmostEquals(weightedKappa(a, b, [3, 2, 1], "quadratic")!, 29 / 44, 1e-12);
  const label = (v: Rating) => ["low", "mid", "high"][(v as number) - 1];
  assertAlmostEquals(
    weightedKappa(a.map(label), b.map(label), ["low", "mid", "high"], "quadratic")!,
    29 / 44,
    1e-12,
  );
  // Another order of the levels is another scale. Levels [2, 1, 3], linear: w = 1/2 for values (1,2), (1,3) and
  // 1 for (2,3). Σ w·O = 1/2·(1 + 2) + 1·(1 + 2) = 4.5; Σ w·E = 1/2·(2 + 2.4) + 1·(1.2 + 1.6) + 1/2·(1 + 1.6)
  // = 6.3; κ_w = 1 − 4.5/6.3 = 2/7.
  assertAlmostEquals(weightedKappa(a, b, [2, 1, 3], "linear")!, 2 / 7, 1e-12);
});

Deno.test("weightedKappa reproduces the published quadratic weighted kappa of Maple's EssayTools examples", () => {
  // Maple help page "EssayTools[QuadraticWeightedKappa]", Examples 1 and 2: scores 1–10 (Min and Max taken from
  // the data), published outputs 0.758620689655172 and 0.438095238095238 (= 22/29 and 46/105).
  const levels = Array.from({ length: 10 }, (_, i) => i + 1);
  const first = [9, 7, 8, 7, 6, 8, 3, 5, 10];
  assertAlmostEquals(
    weightedKappa(first, [8, 8, 6, 6, 7, 6, 1, 4, 8], levels, "quadratic")!,
    0.758620689655172,
    1e-12,
  );
  assertAlmostEquals(
    weightedKappa(first, [3, 5, 6, 6, 7, 6, 1, 4, 8], levels, "quadratic")!,
    0.438095238095238,
    1e-12,
  );
});

Deno.test("quadratic weighted kappa equals 2·cov / (var_a + var_b + (mean_a − mean_b)²) on rank scores", () => {
  // With (i − j)² weights, Σ w·O ∝ mean (x − y)² = var_x + var_y − 2 cov + (x̄ − ȳ)² and Σ w·E ∝ the same
  // without −2 cov (moments with divisor n), so κ_w is Lin's concordance correlation of the level indices.
  const random = mulberry32(seedFrom("weighted-kappa-identity"));
  const levels = [0, 1, 2, 3, 4];
  for (let trial = 0; trial < 20; trial++) {
    const a = Array.from({ length: 40 }, () => Math.floor(random() * 5));
    const b = a.map((x) => Math.min(4, Math.max(0, x + Math.floor(random() * 3) - 1 + (trial % 2))));
    const meanA = a.reduce((s, x) => s + x, 0) / a.length, meanB = b.reduce((s, y) => s + y, 0) / b.length;
    const varA = a.reduce((s, x) => s + (x - meanA) ** 2, 0) / a.length;
    const varB = b.reduce((s, y) => s + (y - meanB) ** 2, 0) / b.length;
    const cov = a.reduce((s, x, i) => s + (x - meanA) * (b[i] - meanB), 0) / a.length;
    const concordance = (2 * cov) / (varA + varB + (meanA - meanB) ** 2);
    assertAlmostEquals(weightedKappa(a, b, levels, "quadratic")!, concordance, 1e-12);
  }
});

Deno.test("weightedKappa with two levels equals unweighted Cohen's kappa; perfect agreement is 1", () => {
  // The 2×2 table of the cohenKappa test above: κ = 0.4.
  const [a, b] = fromTable([[20, 5], [10, 15]], ["yes", "no"]);
  assertAlmostEquals(weightedKappa(a, b, ["yes", "no"], "linear")!, 0.4, 1e-12);
  assertAlmostEquals(weightedKappa(a, b, ["yes", "no"], "quadratic")!, 0.4, 1e-12);
  assertAlmostEquals(weightedKappa(a, b, ["yes", "no"], "linear")!, cohenKappa(a, b)!, 1e-12);
  const perfect = [1, 2, 3, 3, 2, 1, 1];
  assertEquals(weightedKappa(perfect, perfect, LEVELS_3, "quadratic"), 1);
  assertEquals(weightedKappa(perfect, perfect, LEVELS_3, "linear"), 1);
  assertEquals(weightedKappa(perfect, perfect, [1, 2, 3, 4, 5], "quadratic"), 1); // unused levels are fine
});

Deno.test("weightedKappa drops incomplete pairs, rejects unknown values, and is null when undefined", () => {
  const [a, b] = fromTable(TABLE_3X3, LEVELS_3);
  assertAlmostEquals(weightedKappa([...a, null, 2], [...b, 3, null], LEVELS_3, "quadratic")!, 29 / 44, 1e-12);
  assertThrows(
    () => weightedKappa([1, 4], [1, 2], LEVELS_3, "linear"),
    Error,
    "value 4 is not one of the levels",
  );
  assertThrows(() => weightedKappa(["1"], [1], LEVELS_3, "linear"), Error, 'value "1"');
  assertThrows(() => weightedKappa([1], [], LEVELS_3, "linear"), Error, "1 vs 0");
  assertThrows(() => weightedKappa([1], [1], [1, 2, 1], "linear"), Error, "listed twice");
  assertEquals(weightedKappa([null, 1], [2, null], LEVELS_3, "quadratic"), null); // no complete pair
  assertEquals(weightedKappa([], [], LEVELS_3, "quadratic"), null);
  assertEquals(weightedKappa([2, 2], [2, 2], LEVELS_3, "quadratic"), null); // expected disagreement 0
  assertEquals(weightedKappa([1, 1], [1, 1], [1], "linear"), null); // a single level
  // One rater always 1, the other always 3: no observed agreement beyond chance, κ_w = 1 − 1/1 = 0.
  assertEquals(weightedKappa([1, 1], [3, 3], LEVELS_3, "linear"), 0);
});

Deno.test("kappaWithCi: seeded, deterministic, brackets the estimate, n = complete pairs", () => {
  // The 3×3 table four times (60 pairs) plus three incomplete pairs.
  const [a0, b0] = fromTable(TABLE_3X3, LEVELS_3);
  const a: Rating[] = [...a0, ...a0, ...a0, ...a0, null, 1, null];
  const b: Rating[] = [...b0, ...b0, ...b0, ...b0, 2, null, null];
  const options = { levels: LEVELS_3, weights: "quadratic" as const, seed: "kappa", resamples: 1000 };
  const first = kappaWithCi(a, b, options);
  assertEquals(kappaWithCi(a, b, options), first);
  assertEquals(first.n, 60);
  assertAlmostEquals(first.value!, 29 / 44, 1e-12);
  assertEquals(first.value, weightedKappa(a, b, LEVELS_3, "quadratic"));
  assert(
    first.ci95![0] < first.value! && first.value! < first.ci95![1],
    `ci ${first.ci95} value ${first.value}`,
  );
  assert(first.ci95![0] > -1 && first.ci95![1] <= 1, `ci ${first.ci95}`);
  assertNotEquals(kappaWithCi(a, b, { ...options, seed: "other" }).ci95, first.ci95);
  // Unweighted: Cohen's kappa, with or without levels.
  const plain = kappaWithCi(a, b, { seed: "kappa", resamples: 500 });
  assertAlmostEquals(plain.value!, 19 / 49, 1e-12);
  assertAlmostEquals(plain.value!, cohenKappa(a, b)!, 1e-12);
  assertEquals(plain.n, 60);
  assert(
    plain.ci95![0] < plain.value! && plain.value! < plain.ci95![1],
    `ci ${plain.ci95} value ${plain.value}`,
  );
  assertAlmostEquals(kappaWithCi(a, b, { levels: LEVELS_3, seed: "kappa" }).value!, 19 / 49, 1e-12);
  const linear = kappaWithCi(a, b, { levels: LEVELS_3, weights: "linear", seed: "kappa", resamples: 200 });
  assertAlmostEquals(linear.value!, 16 / 31, 1e-12);
});

Deno.test("kappaWithCi: undefined and small cases, bad options", () => {
  assertEquals(kappaWithCi([1, null], [null, 2], { seed: "s" }), { value: null, ci95: null, n: 0 });
  // Two agreeing pairs: κ = 1; resamples of one category twice are undefined and left out, the rest give 1.
  assertEquals(kappaWithCi([1, 2], [1, 2], { seed: "s" }), { value: 1, ci95: [1, 1], n: 2 });
  // One complete pair: κ may be defined, but there is no interval from fewer than 2 pairs.
  assertEquals(kappaWithCi([1, null], [3, 2], { levels: LEVELS_3, weights: "linear", seed: "s" }), {
    value: 0,
    ci95: null,
    n: 1,
  });
  // Every pair rated 2 by both: expected disagreement 0, κ undefined, no interval.
  assertEquals(kappaWithCi([2, 2, 2], [2, 2, 2], { seed: "s" }), { value: null, ci95: null, n: 3 });
  assertThrows(
    () => kappaWithCi([1], [1], { weights: "linear", seed: "s" }),
    Error,
    "weights need ordered levels",
  );
  assertThrows(() => kappaWithCi([1, 7], [1, 2], { levels: LEVELS_3, seed: "s" }), Error, "value 7");
  assertThrows(() => kappaWithCi([1], [], { seed: "s" }), Error, "1 vs 0");
});

Deno.test("pairAgreement: share of complete pairs that agree, with the exact Wilson 95% interval", () => {
  // 10 complete pairs, 8 agree; two incomplete pairs are dropped.
  const a: Rating[] = ["x", "x", "y", "y", "z", "z", "x", "y", "x", "z", null, "x"];
  const b: Rating[] = ["x", "x", "y", "y", "z", "z", "x", "y", "y", "x", "y", null];
  const agreement = pairAgreement(a, b);
  assertEquals(agreement.n, 10);
  assertEquals(agreement.value, 0.8);
  // Wilson: (p + z²/2n ± z √(p(1 − p)/n + z²/4n²)) / (1 + z²/n), p = 0.8, n = 10, z = 1.959963984540054.
  const z = 1.959963984540054, p = 0.8, n = 10;
  const center = p + (z * z) / (2 * n), half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const [lo, hi] = agreement.ci95!;
  assertAlmostEquals(lo, (center - half) / (1 + (z * z) / n), 1e-12);
  assertAlmostEquals(hi, (center + half) / (1 + (z * z) / n), 1e-12);
  assertAlmostEquals(lo, 0.4902, 1e-4); // published Wilson interval for 8/10: [0.490, 0.943]
  assertAlmostEquals(hi, 0.9433, 1e-4);
  assertEquals(pairAgreement([1, 1, 1], [1, 1, 1]), { value: 1, ci95: wilsonInterval(3, 3), n: 3 });
  assertEquals(pairAgreement([null], [1]), { value: null, ci95: null, n: 0 });
  assertThrows(() => pairAgreement([1], []), Error, "1 vs 0");
});
