import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import {
  binomialCdf,
  bootstrapMean,
  percentileInterval,
  quantileSorted,
  resampleMean,
} from "../lib/stats/bootstrap.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";
import { summarize } from "../lib/report/summary.ts";

Deno.test("quantile uses linear interpolation (numpy default)", () => {
  assertEquals(quantileSorted([1, 2, 3, 4], 0.5), 2.5);
  assertAlmostEquals(quantileSorted([0, 10], 0.025), 0.25);
});

Deno.test("bootstrap: same seed same interval, interval brackets the mean, empty has no value", () => {
  const values = Array.from({ length: 200 }, (_, i) => (i % 10 < 6 ? 1 : 0));
  const a = bootstrapMean(values, { seed: "s" });
  const b = bootstrapMean(values, { seed: "s" });
  assertEquals(a, b);
  assertEquals(a.value, 0.6);
  assertEquals(a.n, 200);
  assert(a.ci95![0] < 0.6 && 0.6 < a.ci95![1]);
  // Normal approximation half-width for p=0.6, n=200 is 1.96*sqrt(.24/200) = 0.0679; bootstrap is close to it.
  assertAlmostEquals((a.ci95![1] - a.ci95![0]) / 2, 0.0679, 0.01);
  assertEquals(bootstrapMean([]), { value: null, ci95: null, n: 0 });
});

Deno.test("bootstrap coverage of a known mean is near 95% over repeated samples", () => {
  const random = mulberry32(7);
  let covered = 0;
  const trials = 200;
  for (let t = 0; t < trials; t++) {
    const values = Array.from({ length: 80 }, () => (random() < 0.3 ? 1 : 0));
    const { ci95 } = bootstrapMean(values, { seed: `t${t}`, resamples: 500 });
    if (ci95![0] <= 0.3 && 0.3 <= ci95![1]) covered++;
  }
  assert(covered / trials > 0.88, `coverage ${covered / trials}`);
});

Deno.test("summarize groups by field (nulls left out) and weights overall by sample", () => {
  const rows = [
    { id: "a", fields: { c: "X", d: "hard" }, values: { u: 1 } },
    { id: "b", fields: { c: "X", d: null }, values: { u: 0 } },
    { id: "c", fields: { c: "Y", d: "hard" }, values: { u: 1 } },
    { id: "d", fields: { c: "Y", d: "easy" }, values: { u: null } },
  ];
  const s = summarize(rows, ["u"], ["c", "d"], { seed: "x", order: { d: ["easy", "hard"] } });
  assertEquals(s.n, 4);
  assertEquals(s.metrics.u.value, 2 / 3);
  assertEquals(s.metrics.u.n, 3);
  assertEquals(Object.keys(s.groups.c), ["X", "Y"]);
  assertEquals(s.groups.c.X.u.value, 0.5);
  assertEquals(Object.keys(s.groups.d), ["easy", "hard"]);
  assertEquals(s.groups.d.easy.u.n, 0);
  assertEquals(s.groups.d.hard.u.value, 1);
});

Deno.test("bootstrap of 0/1 values: resampled counts follow Binomial(n, rate), the CI matches a direct resampling", () => {
  // The binomial CDF against exact values: Binomial(4, 0.5) = 1, 4, 6, 4, 1 over 16.
  const cdf = binomialCdf(4, 0.5);
  [1, 5, 11, 15, 16].forEach((c, i) => assertAlmostEquals(cdf[i], c / 16, 1e-12));
  // A large n does not underflow: the CDF reaches 1 and is 0.5 at the median of a symmetric case.
  const big = binomialCdf(3513 * 2, 0.5);
  assertAlmostEquals(big[big.length - 1], 1, 1e-12);
  assertAlmostEquals(big[3513], 0.5 + 0.5 * (big[3513] - big[3512]), 1e-9);
  // The interval equals (within resampling noise) the one from resampling the values themselves.
  const values = Array.from({ length: 300 }, (_, i) => (i % 10 < 3 ? 1 : 0));
  const fast = bootstrapMean(values, { seed: "x", resamples: 20000 }).ci95!;
  const random = mulberry32(seedFrom("direct"));
  const direct = new Float64Array(20000).map(() => resampleMean(values, random));
  const slow = percentileInterval(direct);
  assertAlmostEquals(fast[0], slow[0], 0.01);
  assertAlmostEquals(fast[1], slow[1], 0.01);
  // The normal approximation as a third opinion: 0.3 ± 1.96 sqrt(0.3·0.7/300).
  const half = 1.96 * Math.sqrt(0.3 * 0.7 / 300);
  assertAlmostEquals(fast[0], 0.3 - half, 0.01);
  assertAlmostEquals(fast[1], 0.3 + half, 0.01);
  assertEquals(bootstrapMean([1, 1, 1]).ci95, [1, 1]);
});
