import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { eapAbility } from "../lib/irt/ability.ts";
import { calibrate } from "../lib/irt/calibrate.ts";
import { CatSession, heldOutAccuracy, simulateCat } from "../lib/irt/cat.ts";
import { fitIrt } from "../lib/irt/fit.ts";
import { fitFile, FitFileSchema } from "../lib/irt/fit_file.ts";
import { chiSquareUpper } from "../lib/irt/item_fit.ts";
import { DEFAULT_PRIORS, NO_PRIORS, type Priors } from "../lib/irt/item_terms.ts";
import type { IrtModel } from "../lib/irt/model.ts";
import { parseResponsesCsv, readResponsesCsv } from "../lib/irt/responses.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";
import { InputError } from "../lib/core/errors.ts";
import { sharedPath, testWithShared } from "./shared_data.ts";

const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/irt/lsat7_reference.json", import.meta.url)),
);

function correlation(x: readonly number[], y: readonly number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

const LSAT7_FITS: [string, IrtModel, Priors][] = [
  ["1pl", "1pl", NO_PRIORS],
  ["2pl", "2pl", NO_PRIORS],
  ["2pl_prior", "2pl", { slope: DEFAULT_PRIORS.slope, guessing: null }],
  ["3pl_prior", "3pl", DEFAULT_PRIORS],
];

testWithShared(
  "LSAT7: EM estimates, SEs and logLik equal an independent direct maximisation (scipy, exact quadrature)",
  ["data/irt/LSAT7.csv"],
  async () => {
    const data = await readResponsesCsv(sharedPath("data/irt/LSAT7.csv"));
    assertEquals(data.persons.length, 32);
    assertEquals(data.weights.reduce((s, w) => s + w, 0), 1000);
    for (const [name, model, priors] of LSAT7_FITS) {
      const fit = fitIrt(data, { model, priors });
      const reference = REFERENCE.fits[name];
      assert(fit.converged, `${name} converged`);
      assertEquals(fit.seMethod, "louis-full");
      assertAlmostEquals(fit.logLik, reference.logLik, 1e-5, `${name} logLik`);
      assertAlmostEquals(fit.logPosterior, reference.objective, 1e-5, `${name} log posterior`);
      for (const [i, item] of fit.items.entries()) {
        const want = reference.items[i];
        for (const key of ["a", "b", "c", "d"] as const) {
          assertAlmostEquals(item[key], want[key], 1e-4, `${name} ${want.item} ${key}`);
        }
        for (const key of ["se_a", "se_b", "se_c", "se_d"] as const) {
          assertAlmostEquals(item[key]!, want[key], 1e-4, `${name} ${want.item} ${key}`);
        }
      }
    }
  },
);

testWithShared(
  "LSAT7: EAP abilities of the 32 patterns match the reference",
  ["data/irt/LSAT7.csv"],
  async () => {
    const data = await readResponsesCsv(sharedPath("data/irt/LSAT7.csv"));
    const calibration = calibrate(data, { model: "2pl" });
    const byPattern = new Map<string, { theta: number; se: number }>();
    for (const [p, row] of data.values.entries()) byPattern.set(row.join(""), calibration.persons[p]);
    for (const want of REFERENCE.eap_2pl) {
      const got = byPattern.get(want.pattern)!;
      assertAlmostEquals(got.theta, want.theta, 1e-4, `theta ${want.pattern}`);
      assertAlmostEquals(got.se, want.se, 1e-4, `se ${want.pattern}`);
    }
    // 1,000 examinees are enough for every model; half of them are too few for 3PL, and fallback picks 2PL.
    assert(!calibration.warnings.some((w) => w.includes("few")));
    const half = { ...data, weights: data.weights.map((w) => w / 2) };
    assert(
      calibrate(half, { model: "3pl" }).warnings.some((w) => w.includes("500 examinees are few for 3PL")),
    );
    const small = calibrate(half, { model: "3pl", fallback: true });
    assertEquals(small.fit.model, "2pl");
    assert(small.warnings.some((w) => w.includes("fell back to 2PL")), small.warnings.join("; "));
    const document = fitFile(calibration, { responses: "LSAT7.csv" });
    FitFileSchema.parse(document);
    assertEquals(document.n_persons, 1000);
    assertEquals(document.items.map((i) => i.item), ["Item.1", "Item.2", "Item.3", "Item.4", "Item.5"]);
  },
);

Deno.test("recovery: 3PL with the default priors on 2,000 simulated examinees × 100 items", () => {
  const truth = simulateItems(100, "3pl", "recovery");
  const data = simulateResponses(truth, simulateAbilities(2000, "recovery"), "recovery");
  const fit = fitIrt(data, { model: "3pl", priors: DEFAULT_PRIORS });
  assert(fit.converged);
  const a = correlation(truth.map((t) => t.a), fit.items.map((i) => i.a));
  const b = correlation(truth.map((t) => t.b), fit.items.map((i) => i.b));
  assert(a >= 0.9, `cor(a) = ${a}`);
  assert(b >= 0.97, `cor(b) = ${b}`);
  assert(fit.items.every((i) => i.se_a! > 0 && i.se_b! > 0 && i.se_c! > 0));
});

/**
 * Expected (Fisher) information of one examinee's marginal 2PL likelihood in (a₁, d₁, a₂, d₂, ...), computed
 * here independently of the library: exactly over all 2^I response patterns, each pattern's score by Fisher's
 * identity (∂/∂a_j log P(x) = E[(x_j − p_j(θ))·θ | x], ∂/∂d_j = E[x_j − p_j(θ) | x]), θ ~ N(0, 1) integrated on
 * 161 nodes over [−8, 8].
 */
function expectedInformation(items: readonly { a: number; d: number }[]): number[][] {
  const nodes = Array.from({ length: 161 }, (_, k) => -8 + (16 * k) / 160);
  const raw = nodes.map((t) => Math.exp(-t * t / 2));
  const total = raw.reduce((s, w) => s + w, 0);
  const weights = raw.map((w) => w / total);
  const size = 2 * items.length;
  const info = Array.from({ length: size }, () => new Array(size).fill(0));
  for (let pattern = 0; pattern < 1 << items.length; pattern++) {
    const x = items.map((_, j) => (pattern >> j) & 1);
    const p = nodes.map((t) => items.map((it) => 1 / (1 + Math.exp(-(it.a * t + it.d)))));
    const joint = nodes.map((_, k) =>
      weights[k] * items.reduce((l, _, j) => l * (x[j] ? p[k][j] : 1 - p[k][j]), 1)
    );
    const px = joint.reduce((s, v) => s + v, 0);
    const score = new Array(size).fill(0);
    for (const [k, t] of nodes.entries()) {
      for (const j of items.keys()) {
        score[2 * j] += (joint[k] / px) * (x[j] - p[k][j]) * t;
        score[2 * j + 1] += (joint[k] / px) * (x[j] - p[k][j]);
      }
    }
    for (let u = 0; u < size; u++) for (let v = 0; v < size; v++) info[u][v] += px * score[u] * score[v];
  }
  return info;
}

/** Inverse of a small symmetric positive definite matrix (Gauss–Jordan with partial pivoting). */
function inverse(matrix: number[][]): number[][] {
  const n = matrix.length;
  const m = matrix.map((row, i) => [...row, ...row.map((_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    const divisor = m[c][c];
    for (let j = 0; j < 2 * n; j++) m[c][j] /= divisor;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const factor = m[r][c];
      for (let j = 0; j < 2 * n; j++) m[r][j] -= factor * m[c][j];
    }
  }
  return m.map((row) => row.slice(n));
}

Deno.test("standard errors: 2PL SEs equal the inverse expected information at the estimates (simulated, 1,000 × 5)", () => {
  // Known parameters, one seeded data set. The fit's SEs come from the observed information by Louis's identity;
  // asymptotically it equals the expected information, which is computed here exactly (every response pattern)
  // at the fitted values. The two differ only by the sampling noise of the observed information, O(N^−1/2):
  // about 2% here (seen across seeds), so 5% leaves a margin while a wrong SE — the complete-data information
  // without Louis's correction, a dropped cross-item covariance, a wrong delta method for b — misses it by far.
  const truth = [
    { a: 1.2, b: -1, c: 0 },
    { a: 0.8, b: -0.3, c: 0 },
    { a: 1.5, b: 0.2, c: 0 },
    { a: 1.0, b: 0.8, c: 0 },
    { a: 0.7, b: 1.5, c: 0 },
  ];
  const n = 1000;
  const data = simulateResponses(truth, simulateAbilities(n, "se-check"), "se-check");
  const fit = fitIrt(data, { model: "2pl" });
  assert(fit.converged);
  const cov = inverse(expectedInformation(fit.items)).map((row) => row.map((v) => v / n));
  for (const [j, item] of fit.items.entries()) {
    const [a, d] = [2 * j, 2 * j + 1];
    // b = −d/a by the delta method: ∂b/∂a = d/a², ∂b/∂d = −1/a.
    const gradient = [item.d / item.a ** 2, -1 / item.a];
    const varB = gradient[0] ** 2 * cov[a][a] + gradient[1] ** 2 * cov[d][d] +
      2 * gradient[0] * gradient[1] * cov[a][d];
    for (
      const [name, got, want] of [
        ["a", item.se_a!, Math.sqrt(cov[a][a])],
        ["d", item.se_d!, Math.sqrt(cov[d][d])],
        ["b", item.se_b!, Math.sqrt(varB)],
      ] as const
    ) {
      assert(
        Math.abs(got / want - 1) < 0.05,
        `${item.item} SE(${name}) ${got.toFixed(4)} vs ${want.toFixed(4)}`,
      );
    }
  }
});

Deno.test("recovery: 2PL with 20% of responses missing, abilities from EAP", () => {
  const truth = simulateItems(60, "2pl", "missing");
  const thetas = simulateAbilities(1500, "missing");
  const data = simulateResponses(truth, thetas, "missing", 0.2);
  assert(data.values.flat().some((v) => v === null));
  const calibration = calibrate(data, { model: "2pl" });
  const b = correlation(truth.map((t) => t.b), calibration.fit.items.map((i) => i.b));
  const a = correlation(truth.map((t) => t.a), calibration.fit.items.map((i) => i.a));
  assert(b >= 0.97 && a >= 0.85, `cor(a) ${a}, cor(b) ${b}`);
  const theta = correlation(thetas, calibration.persons.map((p) => p.theta));
  assert(theta >= 0.9, `cor(theta) ${theta}`);
  // Under the model the mean squares sit near 1 and Q1 rarely rejects.
  const infit = calibration.itemFit.map((f) => f.infit!);
  const meanInfit = infit.reduce((s, v) => s + v, 0) / infit.length;
  assert(Math.abs(meanInfit - 1) < 0.1, `mean infit ${meanInfit}`);
  const rejected = calibration.itemFit.filter((f) => f.p! < 0.01).length;
  assert(rejected <= 6, `${rejected} of 60 items rejected at 1%`);
});

Deno.test("χ² upper tail: known quantiles", () => {
  assertAlmostEquals(chiSquareUpper(3.841459, 1), 0.05, 1e-6);
  assertAlmostEquals(chiSquareUpper(18.307038, 10), 0.05, 1e-6);
  assertAlmostEquals(chiSquareUpper(2, 2), Math.exp(-1), 1e-12);
});

Deno.test("response CSV: wide with person and freq, long, and one-line errors naming line and column", () => {
  const wide = parseResponsesCsv("person,q1,q2,freq\nA,1,0,2\nB,,1,1\n", "w.csv");
  assertEquals(wide.persons, ["A", "B"]);
  assertEquals(wide.items, ["q1", "q2"]);
  assertEquals(wide.values, [[1, 0], [null, 1]]);
  assertEquals(wide.weights, [2, 1]);
  const long = parseResponsesCsv("person,item,response\nA,q1,1\nA,q2,0\nB,q2,1\n", "l.csv");
  assertEquals(long.values, [[1, 0], [null, 1]]);
  const bad = assertThrows(() => parseResponsesCsv("person,q1\nA,2\n", "bad.csv"), InputError);
  assertEquals(
    bad.message,
    'bad.csv: line 2: field "q1": expected 1, 0 or empty (missing), got "2" (read as wide, 1 item columns; ' +
      "a long file has three columns: examinee, item, response)",
  );
  assertThrows(
    () => parseResponsesCsv("person,item,response\nA,q1,1\nA,q1,0\n", "d.csv"),
    InputError,
    "line 3",
  );
  assertThrows(() => parseResponsesCsv("person,q1,freq\nA,1,-1\n", "f.csv"), InputError, 'field "freq"');
  assertThrows(() => parseResponsesCsv("person,q1\nA,1,1\n", "n.csv"), InputError, "line 2");
});

Deno.test("CAT: converges on simulated examinees, stops by SE or count, and is reproducible", () => {
  const truth = simulateItems(300, "2pl", "cat-pool");
  const pool = new Map(truth.map((item, i) => [`item${String(i + 1).padStart(3, "0")}`, item]));
  const thetas = simulateAbilities(200, "cat");
  const data = simulateResponses(truth, thetas, "cat");
  const options = { stopSe: 0.3, maxItems: 60, seed: "s" };
  const tests = simulateCat(data, pool, options);
  const estimated = tests.map((t) => t.theta);
  const r = correlation(thetas, estimated);
  assert(r >= 0.9, `cor(true θ, CAT θ) = ${r}`);
  // The first item is the most informative at the starting ability, θ = 0 (the N(0, 1) prior's mean): for a
  // 2PL item a²·P·(1 − P), computed here from the pool's parameters.
  const information = [...pool].map(([id, { a, b }]) => {
    const p = 1 / (1 + Math.exp(-a * (0 - b)));
    return { id, value: a * a * p * (1 - p) };
  });
  const most = information.reduce((x, y) => (y.value > x.value ? y : x));
  assert(information.filter((x) => x.value > most.value - 1e-9).length === 1, "one most informative item");
  for (const t of tests) {
    assert(t.stop === "se" ? t.se <= 0.3 : t.items_used === 60, JSON.stringify(t.stop));
    assertEquals(new Set(t.items.map((s) => s.item)).size, t.items_used);
    assertEquals(t.items[0].item, most.id);
  }
  const mean = tests.reduce((s, t) => s + t.items_used, 0) / tests.length;
  assert(mean < 40, `mean test length ${mean}`);
  // The SE shrinks with more items: a final SE below that of a 5-item EAP.
  assert(tests.every((t) => t.se < t.items[4].se + 1e-12));
  assertEquals(simulateCat(data, pool, options), tests);
  const randomized = simulateCat(data, pool, { ...options, randomesque: 5 });
  assert(randomized.some((t, p) => t.items[0].item !== tests[p].items[0].item));
  assertEquals(simulateCat(data, pool, { ...options, randomesque: 5 }), randomized);
  const held = heldOutAccuracy(data, pool, tests);
  assert(held.estimate.value! > 0.65, `held-out prediction ${held.estimate.value}`);
  assertEquals(held.clusters, 200);
  assertEquals(held.estimate.n, tests.reduce((s, t) => s + 300 - t.items_used, 0));
});

Deno.test("CAT session: EAP until both outcomes, then ML; asking the wrong item throws", () => {
  const pool = new Map([["x", { a: 1, b: 0, c: 0 }], ["y", { a: 1.5, b: 1, c: 0 }], ["z", {
    a: 1,
    b: -1,
    c: 0,
  }]]);
  const session = new CatSession(pool, { maxItems: 3, estimator: "mle" });
  const first = session.next()!;
  assertThrows(() => session.record(first === "x" ? "y" : "x", 1), Error, "the test asked");
  session.record(first, 1);
  const eap = eapAbility([{ item: pool.get(first)!, correct: 1 }]);
  assertAlmostEquals(session.estimate.theta, eap.theta, 1e-12);
  const second = session.next()!;
  session.record(second, 0);
  assert(Number.isFinite(session.estimate.theta));
  session.record(session.next()!, 1);
  assertEquals(session.next(), null);
  assertEquals(session.stopReason, "max-items");
  assertThrows(() => new CatSession(pool, {}), RangeError, "stopping rule");
});
