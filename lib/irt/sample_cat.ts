/**
 * The toolkit's own CAT result on a benchmark's shipped sample, offline: the sample's choice items get
 * 3PL parameters from the seeded generator, simulated examinees answer them, the pool is calibrated from those
 * answers, and new simulated examinees take adaptive tests. Reported as CliMedBench Table 3 reports a CAT:
 * the accuracy with which the CAT ability predicts the responses the test did not ask (n and a 95% interval for responses clustered within examinees).
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { calibrate } from "./calibrate.ts";
import { type CatOptions, heldOutAccuracy, simulateCat } from "./cat.ts";
import type { ItemParams } from "./model.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "./simulate.ts";

/** Settings of {@linkcode sampleCat}. */
export interface SampleCatOptions {
  /** Simulated examinees that calibrate the pool (default 1,000). */
  calibrationExaminees?: number;
  /** Simulated examinees that take adaptive tests (default 200). */
  testExaminees?: number;
  /** The adaptive test's rules (default: SE 0.5 or 10 items). */
  cat?: CatOptions;
  /** Seed (default `sample-cat`). */
  seed?: string;
}

/** The result: held-out prediction accuracy of the CAT abilities, with the settings that produced it. */
export interface SampleCatResult {
  /** Items in the pool. */
  items: number;
  /** Examinees the pool was calibrated on. */
  calibrationExaminees: number;
  /** Whether the calibration converged. */
  converged: boolean;
  /** Adaptive tests run. */
  tests: number;
  /** Mean items per test. */
  meanItems: number;
  /** Held-out responses predicted right from the CAT θ (P ≥ 0.5), with n and a clustered Wilson interval. */
  accuracy: Estimate;
  /** Design effect of the responses clustered within examinees (widens the interval). */
  designEffect: number;
  /** The CAT rules. */
  cat: CatOptions;
}

/** Runs the offline CAT on the items `ids` (e.g. a sample's choice items). */
export function sampleCat(ids: readonly string[], options: SampleCatOptions = {}): SampleCatResult {
  const seed = options.seed ?? "sample-cat";
  const cat = options.cat ?? { stopSe: 0.5, maxItems: 10, seed };
  const truth = simulateItems(ids.length, "3pl", seed);
  const named = <T extends { items: string[] }>(data: T): T => ({ ...data, items: [...ids] });
  const calibrationExaminees = options.calibrationExaminees ?? 1000;
  const training = named(
    simulateResponses(truth, simulateAbilities(calibrationExaminees, `${seed}:calibrate`), seed),
  );
  const calibration = calibrate(training, { model: "3pl" });
  const pool = new Map<string, ItemParams>(calibration.fit.items.map((it) => [it.item, it]));
  const testing = named(
    simulateResponses(truth, simulateAbilities(options.testExaminees ?? 200, `${seed}:test`), `${seed}:test`),
  );
  const tests = simulateCat(testing, pool, cat);
  const held = heldOutAccuracy(testing, pool, tests);
  return {
    items: ids.length,
    calibrationExaminees,
    converged: calibration.fit.converged,
    tests: tests.length,
    meanItems: tests.reduce((s, t) => s + t.items_used, 0) / Math.max(1, tests.length),
    accuracy: held.estimate,
    designEffect: held.designEffect,
    cat,
  };
}
