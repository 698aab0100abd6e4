import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { bootstrapMean, quantileSorted } from "../lib/stats/bootstrap.ts";
import { mulberry32 } from "../lib/stats/rng.ts";
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
