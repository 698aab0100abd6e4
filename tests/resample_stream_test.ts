import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import {
  bootstrapMean,
  mean,
  percentileInterval,
  resampleMean,
  RESAMPLES,
  ResampleStream,
} from "../lib/stats/bootstrap.ts";
import { independentDifference, macroMean } from "../lib/stats/compare.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";

Deno.test("ResampleStream gives exactly resampleMean's means from the same seed, in the same order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 1, maxLength: 40 }), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      (groups, seed) => {
        const random = mulberry32(seed);
        const stream = new ResampleStream(seed);
        for (let round = 0; round < 3; round++) {
          for (const g of groups) assertEquals(stream.mean(Float64Array.from(g)), resampleMean(g, random));
        }
      },
    ),
  );
});

/** macroMean as it was written before the stream (one resampleMean call per group and resample). */
function macroMeanByCalls(groups: number[][], seed: string) {
  const present = groups.filter((g) => g.length > 0);
  const random = mulberry32(seedFrom(seed));
  const stats = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) {
    let total = 0;
    for (const g of present) total += resampleMean(g, random);
    stats[r] = total / present.length;
  }
  return {
    value: mean(present.map((g) => mean(g))),
    ci95: percentileInterval(stats),
    n: present.reduce((s, g) => s + g.length, 0),
  };
}

Deno.test("ResampleStream.uniform gives mulberry32's next number, between means too", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      (values, seed) => {
        const random = mulberry32(seed);
        const stream = new ResampleStream(seed);
        for (let round = 0; round < 3; round++) {
          assertEquals(stream.uniform(), random());
          assertEquals(stream.mean(Float64Array.from(values)), resampleMean(values, random));
        }
      },
    ),
  );
});

Deno.test("macroMean of 0/1 groups (one binomial count per resample) agrees with resampling every value", () => {
  const groups = [
    Array.from({ length: 57 }, (_, i) => (i * 7) % 3 === 0 ? 1 : 0),
    Array.from({ length: 23 }, (_, i) => Math.round(((i * 0.37) % 1) * 100) / 100),
    Array.from({ length: 301 }, (_, i) => i % 2),
    Array(40).fill(1),
    Array.from({ length: 9 }, (_, i) => i === 4 ? 1 : 0),
  ];
  for (const seed of ["a", "b", "c"]) {
    const drawn = macroMean(groups, seed);
    const byCalls = macroMeanByCalls(groups, seed);
    assertEquals([drawn.value, drawn.n], [byCalls.value, byCalls.n]);
    // Two bootstraps of the same distribution: their 2.5% and 97.5% points differ by Monte Carlo error only.
    for (const i of [0, 1]) {
      assert(
        Math.abs(drawn.ci95![i] - byCalls.ci95![i]) < 0.012,
        `${seed}: ${drawn.ci95} vs ${byCalls.ci95}`,
      );
    }
  }
});

Deno.test("macroMean, independentDifference and bootstrapMean keep their numbers for the same seed", () => {
  const groups = [
    Array.from({ length: 57 }, (_, i) => (i * 7) % 3 === 0 ? 1 : 0),
    [],
    Array.from({ length: 23 }, (_, i) => Math.round(((i * 0.37) % 1) * 100) / 100),
    Array.from({ length: 101 }, (_, i) => i % 2),
  ];
  // Groups of other values than 0/1 are resampled value by value, as before.
  const continuous = [[], groups[2], groups[2].map((v) => v / 2)];
  assertEquals(
    macroMean(continuous, "climedbench:default:macro"),
    macroMeanByCalls(continuous, "climedbench:default:macro"),
  );

  const [a, , b] = groups;
  const random = mulberry32(seedFrom("gap"));
  const stats = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) stats[r] = resampleMean(b, random) - resampleMean(a, random);
  assertEquals(independentDifference(a, b, "gap"), {
    value: mean(b) - mean(a),
    ci95: percentileInterval(stats),
    n: a.length + b.length,
  });

  const values = groups[2];
  const byCalls = mulberry32(seedFrom("medeval"));
  const means = new Float64Array(RESAMPLES);
  for (let r = 0; r < RESAMPLES; r++) means[r] = resampleMean(values, byCalls);
  assertEquals(bootstrapMean(values), {
    value: mean(values),
    ci95: percentileInterval(means),
    n: values.length,
  });
});
