/**
 * Accelerated EM (SQUAREM) and the fast paths under it: the same optimum as plain EM on LSAT7 and on simulated
 * banks, a log posterior that never falls, convergence on both the parameters and the log posterior, and the
 * E-step, M-step terms, standard errors and abilities each equal to a direct computation written here.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { abilities, type Answer, eapAbility } from "../lib/irt/ability.ts";
import { calibrate } from "../lib/irt/calibrate.ts";
import { eStep, type ItemState, packResponses } from "../lib/irt/estep.ts";
import { type CycleProgress, fitIrt, type FitOptions, type IrtFit } from "../lib/irt/fit.ts";
import { itemTermsInto, TERMS } from "../lib/irt/item_newton.ts";
import { DEFAULT_PRIORS, itemTerms, NO_PRIORS, type Priors } from "../lib/irt/item_terms.ts";
import { type IrtModel, logistic } from "../lib/irt/model.ts";
import { normalGrid } from "../lib/irt/quadrature.ts";
import { readResponsesCsv, type Responses } from "../lib/irt/responses.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";
import { screenResponses } from "../lib/irt/screen.ts";
import { standardErrors } from "../lib/irt/standard_errors.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";
import { sharedPath, testWithShared } from "./shared_data.ts";

/** Both EMs run to a tight tolerance, so that each stops within far less than 1e-6 of its optimum. */
const TIGHT: Partial<FitOptions> = { tolerance: 1e-9, maxIterations: 20_000, skipStandardErrors: true };

/** Asserts that two fits of the same data sit at the same optimum to 1e-6 (a, d, c, logLik, log posterior). */
function assertSameOptimum(plain: IrtFit, accelerated: IrtFit, name: string): void {
  assert(plain.converged && accelerated.converged, `${name}: both converged`);
  assertEquals([plain.acceleration, accelerated.acceleration], ["none", "squarem"]);
  assertAlmostEquals(accelerated.logLik, plain.logLik, 1e-6, `${name} logLik`);
  assertAlmostEquals(accelerated.logPosterior, plain.logPosterior, 1e-6, `${name} log posterior`);
  for (const [i, item] of accelerated.items.entries()) {
    for (const key of ["a", "d", "c"] as const) {
      assertAlmostEquals(item[key], plain.items[i][key], 1e-6, `${name} ${item.item} ${key}`);
    }
  }
  assert(
    accelerated.eSteps < plain.eSteps,
    `${name}: SQUAREM ${accelerated.eSteps} E-steps, plain EM ${plain.eSteps}`,
  );
}

function bothFits(data: Responses, model: IrtModel, priors: Priors): [IrtFit, IrtFit] {
  return [
    fitIrt(data, { ...TIGHT, model, priors, acceleration: "none" }),
    fitIrt(data, { ...TIGHT, model, priors, acceleration: "squarem" }),
  ];
}

testWithShared(
  "LSAT7: SQUAREM reaches plain EM's optimum to 1e-6 (parameters, logLik, log posterior) in fewer E-steps",
  ["data/irt/LSAT7.csv"],
  async () => {
    const data = await readResponsesCsv(sharedPath("data/irt/LSAT7.csv"));
    const fits: [string, IrtModel, Priors][] = [
      ["1PL", "1pl", NO_PRIORS],
      ["2PL", "2pl", NO_PRIORS],
      ["2PL with a slope prior", "2pl", { slope: DEFAULT_PRIORS.slope, guessing: null }],
      ["3PL with the default priors", "3pl", DEFAULT_PRIORS],
    ];
    for (const [name, model, priors] of fits) assertSameOptimum(...bothFits(data, model, priors), name);
  },
);

Deno.test("simulated banks: SQUAREM reaches plain EM's optimum to 1e-6, with and without missing responses", () => {
  const banks: [string, IrtModel, number, number, number][] = [
    ["3PL 800 × 25", "3pl", 800, 25, 0],
    ["2PL 500 × 40, 20% missing", "2pl", 500, 40, 0.2],
    ["3PL 500 × 40, 20% missing", "3pl", 500, 40, 0.2],
  ];
  for (const [name, model, persons, items, missing] of banks) {
    const data = simulateResponses(
      simulateItems(items, model, name),
      simulateAbilities(persons, name),
      name,
      missing,
    );
    assertSameOptimum(...bothFits(data, model, model === "3pl" ? DEFAULT_PRIORS : NO_PRIORS), name);
  }
});

Deno.test("SQUAREM never lowers the log posterior: an extrapolation that would gives way to the plain EM steps", () => {
  // 30 examinees × 30 items, 3PL without priors: a flat likelihood on which some extrapolations overshoot.
  const { data } = screenResponses(
    simulateResponses(simulateItems(30, "3pl", "overshoot"), simulateAbilities(30, "overshoot"), "overshoot"),
  );
  const seen: CycleProgress[] = [];
  const fit = fitIrt(data, { model: "3pl", priors: NO_PRIORS, onCycle: (p) => seen.push(p) });
  assert(fit.fallbacks > 0, "some extrapolation overshot on these data");
  for (let k = 1; k < seen.length; k++) {
    const floor = seen[k - 1].objective - 1e-12 * Math.abs(seen[k - 1].objective);
    assert(seen[k].objective >= floor, `cycle ${k + 1}: the log posterior fell beyond rounding`);
    assert(seen[k].eSteps > seen[k - 1].eSteps);
  }
  assertAlmostEquals(seen.at(-1)!.objective, fit.logPosterior, 1e-6);
});

Deno.test("convergence needs both: parameters steady and the log posterior steady", () => {
  const data = simulateResponses(simulateItems(10, "2pl", "both"), simulateAbilities(400, "both"), "both");
  const cycles = (options: Partial<FitOptions>) => {
    const seen: CycleProgress[] = [];
    const fit = fitIrt(data, {
      model: "2pl",
      skipStandardErrors: true,
      ...options,
      onCycle: (p) => seen.push(p),
    });
    return { fit, seen };
  };
  for (const acceleration of ["none", "squarem"] as const) {
    // Parameters alone (the log posterior's tolerance wide open), then the log posterior alone, then both.
    const parameters = cycles({ acceleration, tolerance: 1e-4, logLikTolerance: 1 });
    const logPosterior = cycles({ acceleration, tolerance: 1e9, logLikTolerance: 1e-13 });
    const both = cycles({ acceleration, tolerance: 1e-4, logLikTolerance: 1e-13 });
    for (const run of [parameters, logPosterior, both]) assertEquals(run.fit.stoppedBy, "converged");
    assert(
      logPosterior.fit.iterations > parameters.fit.iterations,
      `${acceleration}: the log posterior's tolerance keeps the EM going ` +
        `(${logPosterior.fit.iterations} vs ${parameters.fit.iterations} cycles)`,
    );
    assert(both.fit.iterations >= Math.max(parameters.fit.iterations, logPosterior.fit.iterations) - 1);
    const wide = cycles({ acceleration, tolerance: 1e9, logLikTolerance: 1e9 });
    assert(wide.fit.iterations <= 2, `${acceleration}: ${wide.fit.iterations} cycles with both wide open`);
  }
});

Deno.test("3 examinees × 200 items: intercepts the data barely determine converge in units of their standard error", () => {
  const three = simulateResponses(simulateItems(200, "2pl", "three"), [-1, 0, 1], "three");
  for (const model of ["2pl", "3pl"] as const) {
    for (const acceleration of ["none", "squarem"] as const) {
      const calibration = calibrate(three, { model, acceleration });
      assertEquals(calibration.fit.stoppedBy, "converged", `${model} ${acceleration}`);
      // Such intercepts drift towards ±∞ by shrinking steps; their standard errors are in the thousands.
      assert(
        calibration.fit.items.some((it) => (it.se_d ?? Infinity) > 1e3),
        `${model}: a drifting intercept`,
      );
    }
  }
});

/** A seeded uniform generator for the direct computations below. */
function uniformFrom(seed: string): () => number {
  return mulberry32(seedFrom(seed));
}

Deno.test("M-step terms: one pass over the nodes equals itemTerms (value, gradient, Hessian, Fisher information)", () => {
  const nodes = normalGrid(61).nodes;
  const uniform = uniformFrom("terms");
  for (const guessing of [false, true]) {
    for (const priors of [NO_PRIORS, DEFAULT_PRIORS]) {
      for (let trial = 0; trial < 20; trial++) {
        const n = new Float64Array(61), r = new Float64Array(61);
        for (let k = 0; k < 61; k++) {
          n[k] = uniform() < 0.3 ? 0 : 50 * uniform();
          r[k] = n[k] * uniform();
        }
        const a = 0.2 + 2 * uniform(), d = 4 * uniform() - 2, g = guessing ? 3 * uniform() - 3 : -Infinity;
        const want = itemTerms(a, d, g, guessing, { nodes, n, r, offset: 0 }, priors);
        const got = new Float64Array(TERMS.size);
        const value = itemTermsInto(a, d, g, { nodes, n, r, offset: 0 }, priors, got);
        const close = (x: number, y: number, what: string) =>
          assertAlmostEquals(x, y, 1e-9 * Math.max(1, Math.abs(y)), `${what} (guessing ${guessing})`);
        close(value, want.value, "value");
        const upper = [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 2]];
        for (let u = 0; u < (guessing ? 3 : 2); u++) {
          close(got[TERMS.gradient + u], want.gradient[u], "gradient");
        }
        for (const [j, [u, v]] of upper.entries()) {
          if (!guessing && (u === 2 || v === 2)) continue;
          close(got[TERMS.negHessian + j], want.negHessian[u * 3 + v], `negHessian ${u}${v}`);
          close(got[TERMS.fisher + j], want.fisher[u * 3 + v], `Fisher ${u}${v}`);
        }
      }
    }
  }
});

/** Item parameters in slope–intercept form for a fit's items. */
function stateOf(fit: IrtFit): ItemState {
  return {
    a: Float64Array.from(fit.items.map((it) => it.a)),
    d: Float64Array.from(fit.items.map((it) => it.d)),
    g: Float64Array.from(
      fit.items.map((it) => (fit.model === "3pl" ? Math.log(it.c / (1 - it.c)) : -Infinity)),
    ),
  };
}

/** Data in which some examinees answer most items (dense rows) and others few, with frequency weights. */
function mixedRows(): Responses {
  const base = simulateResponses(simulateItems(30, "3pl", "mixed"), simulateAbilities(300, "mixed"), "mixed");
  const uniform = uniformFrom("mixed rows");
  const values = base.values.map((row, p) =>
    row.map((v) => (uniform() < (p % 3 === 0 ? 0.8 : 0.1) ? null : v))
  );
  return { ...base, values, weights: base.values.map((_, p) => 1 + (p % 4)) };
}

Deno.test("E-step: the dense-row and rarer-side shortcuts give the direct sums (counts, log-likelihood, posteriors)", () => {
  const data = mixedRows();
  const packed = packResponses(data);
  assert(packed.dense.some((x) => x === 1) && packed.dense.some((x) => x === 0), "both kinds of rows");
  const quadrature = normalGrid(61);
  const K = 61;
  const state = stateOf(fitIrt(data, { model: "3pl", priors: DEFAULT_PRIORS, skipStandardErrors: true }));
  const got = eStep(packed, state, quadrature, true);
  const items = data.items.length;
  const n = new Float64Array(items * K), r = new Float64Array(items * K);
  let logLik = 0;
  for (const [p, row] of data.values.entries()) {
    const ll = Array.from(quadrature.logWeights);
    for (const [i, v] of row.entries()) {
      if (v === null) continue;
      const c = logistic(state.g[i]);
      for (let k = 0; k < K; k++) {
        const prob = c + (1 - c) * logistic(state.a[i] * quadrature.nodes[k] + state.d[i]);
        ll[k] += Math.log(v ? prob : 1 - prob);
      }
    }
    const max = Math.max(...ll);
    const weights = ll.map((x) => Math.exp(x - max));
    const sum = weights.reduce((s, x) => s + x, 0);
    logLik += data.weights[p] * (max + Math.log(sum));
    for (let k = 0; k < K; k++) {
      assertAlmostEquals(got.posterior![p * K + k], weights[k] / sum, 1e-9, `posterior ${p} ${k}`);
    }
    for (const [i, v] of row.entries()) {
      if (v === null) continue;
      for (let k = 0; k < K; k++) {
        n[i * K + k] += (data.weights[p] * weights[k]) / sum;
        if (v) r[i * K + k] += (data.weights[p] * weights[k]) / sum;
      }
    }
  }
  assertAlmostEquals(got.logLik, logLik, 1e-9 * Math.abs(logLik));
  for (let j = 0; j < items * K; j++) {
    assertAlmostEquals(got.n[j], n[j], 1e-9, `n at ${j}`);
    assertAlmostEquals(got.r[j], r[j], 1e-9, `r at ${j}`);
  }
});

Deno.test("item-block standard errors equal Louis's identity summed examinee by examinee and node by node", () => {
  const data = mixedRows();
  for (const model of ["2pl", "3pl"] as const) {
    const priors = model === "3pl" ? DEFAULT_PRIORS : NO_PRIORS;
    const state = stateOf(fitIrt(data, { model, priors, skipStandardErrors: true }));
    const packed = packResponses(data);
    const quadrature = normalGrid(61);
    const final = eStep(packed, state, quadrature, true);
    const got = standardErrors(packed, state, model, quadrature, final, priors, { fullBudget: 0 });
    assertEquals(got.method, "louis-item-blocks");
    const local = model === "3pl" ? 3 : 2;
    for (let i = 0; i < data.items.length; i++) {
      const counts = { nodes: quadrature.nodes, n: final.n, r: final.r, offset: i * 61 };
      const h = itemTerms(state.a[i], state.d[i], state.g[i], model === "3pl", counts, priors).negHessian;
      const info = Array.from(
        { length: local },
        (_, u) => Array.from({ length: local }, (_, v) => h[u * 3 + v]),
      );
      const c = model === "3pl" ? logistic(state.g[i]) : 0;
      for (const [p, row] of data.values.entries()) {
        if (row[i] === null) continue;
        // Complete-data score of the answer at each node: ∂/∂(a, d, γ) of log P or log Q.
        const scores = Array.from(quadrature.nodes, (theta) => {
          const s = logistic(state.a[i] * theta + state.d[i]);
          const prob = c + (1 - c) * s;
          const z = row[i] ? ((1 - c) * s * (1 - s)) / prob : -s;
          const g = row[i] ? (c * (1 - c) * (1 - s)) / prob : -c;
          return [z * theta, z, g].slice(0, local);
        });
        const mean = new Array(local).fill(0);
        const outer = info.map((line) => line.map(() => 0));
        for (let k = 0; k < 61; k++) {
          const post = final.posterior![p * 61 + k];
          for (let u = 0; u < local; u++) {
            mean[u] += post * scores[k][u];
            for (let v = 0; v < local; v++) outer[u][v] += post * scores[k][u] * scores[k][v];
          }
        }
        for (let u = 0; u < local; u++) {
          for (let v = 0; v < local; v++) info[u][v] -= data.weights[p] * (outer[u][v] - mean[u] * mean[v]);
        }
      }
      const inverse = invert(info);
      const close = (x: number | null, y: number, what: string) =>
        assertAlmostEquals(x!, y, 1e-8 * y, `${model} item ${i} ${what}`);
      close(got.a[i], Math.sqrt(inverse[0][0]), "SE(a)");
      close(got.d[i], Math.sqrt(inverse[1][1]), "SE(d)");
      if (model === "3pl") close(got.c[i], c * (1 - c) * Math.sqrt(inverse[2][2]), "SE(c)");
    }
  }
});

/** Inverse of a small matrix by Gauss–Jordan elimination (no pivoting: the informations here are definite). */
function invert(matrix: number[][]): number[][] {
  const size = matrix.length;
  const a = matrix.map((row, i) => [...row, ...row.map((_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < size; col++) {
    const pivot = a[col][col];
    for (let j = 0; j < 2 * size; j++) a[col][j] /= pivot;
    for (let row = 0; row < size; row++) {
      if (row === col) continue;
      const factor = a[row][col];
      for (let j = 0; j < 2 * size; j++) a[row][j] -= factor * a[col][j];
    }
  }
  return a.map((row) => row.slice(size));
}

Deno.test("EAP abilities from per-item tables equal eapAbility examinee by examinee", () => {
  const data = mixedRows();
  const truth = simulateItems(30, "3pl", "mixed");
  const items = new Map(data.items.map((id, i) => [id, truth[i]]));
  const got = abilities(data, items, "eap");
  for (const [p, row] of data.values.entries()) {
    const answers: Answer[] = row.flatMap((v, i) => (v === null ? [] : [{ item: truth[i], correct: v }]));
    assertEquals(got[p], eapAbility(answers), `examinee ${p}`);
  }
});
