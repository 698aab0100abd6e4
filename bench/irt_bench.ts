/**
 * IRT benchmarks: 3PL calibration at the paper's shape (16 examinees × 33,735 items, CliMedBench's size) and
 * at a classic one (2,000 × 100), and one CAT step (re-estimate θ, pick the next item) over a 33,735-item pool.
 * @module
 */
import { CatSession } from "../lib/irt/cat.ts";
import { fitIrt } from "../lib/irt/fit.ts";
import { DEFAULT_PRIORS } from "../lib/irt/item_terms.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";

const WIDE_ITEMS = simulateItems(33_735, "3pl", "bench-wide");
const WIDE = simulateResponses(WIDE_ITEMS, simulateAbilities(16, "bench-wide"), "bench-wide");
const TALL = simulateResponses(
  simulateItems(100, "3pl", "bench-tall"),
  simulateAbilities(2000, "bench-tall"),
  "bench-tall",
);
const POOL = new Map(WIDE_ITEMS.map((item, i) => [`item${i}`, item]));

// The paper's shape converges slowly (16 examinees barely identify 33,735 3PL items): timed over 20 EM
// cycles plus the final E-step and standard errors, so the per-cycle cost is the number to read.
Deno.bench("3PL fit, 16 examinees × 33,735 items (default priors), 20 EM cycles", { n: 2, warmup: 0 }, () => {
  const fit = fitIrt(WIDE, { model: "3pl", priors: DEFAULT_PRIORS, maxIterations: 20 });
  if (!Number.isFinite(fit.logLik)) throw new Error("no fit");
});

Deno.bench("3PL fit, 2,000 examinees × 100 items (default priors)", { n: 3, warmup: 0 }, () => {
  const fit = fitIrt(TALL, { model: "3pl", priors: DEFAULT_PRIORS });
  if (!fit.converged) throw new Error("not converged");
});

const session = new CatSession(POOL, { maxItems: 100_000 }, "bench");
let step = 0;
Deno.bench("one CAT step over a 33,735-item pool (record a response, choose the next item)", () => {
  const item = session.next()!;
  session.record(item, (step++ % 2) as 0 | 1);
});
