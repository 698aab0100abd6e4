import { assert, assertAlmostEquals, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import {
  alphaWithCi,
  cohenKappa,
  fleissKappa,
  iccTwoWayRandom,
  krippendorffAlpha,
  percentAgreement,
  type Rating,
  wilsonInterval,
} from "../lib/stats/agreement.ts";

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
