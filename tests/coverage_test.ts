/**
 * Coverage of the 95% intervals `chooseInterval` picks: for each kind of metric, 2,000 simulated data sets
 * (seeded, so the numbers below are the same on every run) and the share of intervals that contain the
 * truth, which must lie in [94%, 96%]. Every bootstrap inside uses the production default of 2,000
 * resamples. The measured numbers are printed and quoted in docs/statistics.md.
 */
import { assert } from "@std/assert";
import { binomialCdf } from "../lib/stats/bootstrap.ts";
import { clusteredTInterval } from "../lib/stats/cluster_bootstrap.ts";
import { chooseInterval, type MetricData } from "../lib/stats/interval_choice.ts";
import { mulberry32, seedFrom } from "../lib/stats/rng.ts";

const RUNS = 2000;
const BAND: [number, number] = [0.94, 0.96];

/** Returns a seeded generator of uniforms and standard normals (Box–Muller) for one simulated case. */
function simulator(name: string) {
  const uniform = mulberry32(seedFrom(`coverage:${name}`));
  return {
    uniform,
    integer: (lo: number, hi: number) => lo + Math.floor(uniform() * (hi - lo + 1)),
    normal: () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform()),
  };
}

/** Returns true when `ci` contains `truth`. */
function covers(ci: [number, number] | null, truth: number): boolean {
  return ci !== null && ci[0] <= truth && truth <= ci[1];
}

/** Runs `RUNS` simulations, returns the share of intervals covering `truth` and asserts it is in the band. */
function coverage(name: string, truth: number, simulate: (run: number) => [number, number] | null): number {
  let covered = 0;
  for (let run = 0; run < RUNS; run++) if (covers(simulate(run), truth)) covered++;
  const share = covered / RUNS;
  console.log(`coverage ${name}: ${(100 * share).toFixed(2)}% (${covered}/${RUNS})`);
  assert(share >= BAND[0] && share <= BAND[1], `${name}: coverage ${share} outside [${BAND}]`);
  return share;
}

/** Returns 0/1 values with `successes` ones out of n. */
function binaryValues(successes: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => (i < successes ? 1 : 0));
}

/** Returns the exact coverage at true rate p of the proportion interval `chooseInterval` picks for n values. */
function exactProportionCoverage(p: number, n: number): number {
  const cdf = binomialCdf(n, p);
  let total = 0;
  for (let k = 0; k <= n; k++) {
    const ci = chooseInterval({ kind: "proportion", values: binaryValues(k, n) }, { seed: "exact" }).ci95;
    if (covers(ci, p)) total += cdf[k] - (k > 0 ? cdf[k - 1] : 0);
  }
  return total;
}

/** The sizes a simulated proportion is drawn from: about 200 items (any single n oscillates, see below). */
const PROPORTION_N: [number, number] = [150, 250];

for (const p of [0.02, 0.5]) {
  Deno.test(`a proportion at p = ${p}, n uniform on ${PROPORTION_N.join("–")}: Wilson covers 94–96%`, () => {
    const sim = simulator(`proportion ${p}`);
    coverage(`proportion p=${p}`, p, (run) => {
      const n = sim.integer(...PROPORTION_N);
      const values = Array.from({ length: n }, () => (sim.uniform() < p ? 1 : 0));
      const chosen = chooseInterval({ kind: "proportion", values }, { seed: `p${p}:${run}` });
      assert(chosen.method === "Wilson");
      return chosen.ci95;
    });
  });

  Deno.test(`a proportion at p = ${p}: exact coverage averaged over n = ${PROPORTION_N.join("–")} is 94–96%`, () => {
    const sizes = Array.from(
      { length: PROPORTION_N[1] - PROPORTION_N[0] + 1 },
      (_, i) => PROPORTION_N[0] + i,
    );
    const exact = sizes.map((n) => exactProportionCoverage(p, n));
    const average = exact.reduce((s, c) => s + c, 0) / exact.length;
    console.log(
      `exact coverage p=${p}: n=200 ${(100 * exact[200 - PROPORTION_N[0]]).toFixed(2)}%, ` +
        `average ${(100 * average).toFixed(2)}%, range ${(100 * Math.min(...exact)).toFixed(2)}–` +
        `${(100 * Math.max(...exact)).toFixed(2)}%`,
    );
    assert(average >= BAND[0] && average <= BAND[1], `average exact coverage ${average}`);
  });
}

/** True item scores 1–5 with these probabilities; the judge adds −1/0/+1 (0.3/0.4/0.3) to scores 2–4. */
const SCORE_PROBABILITIES = [0.1, 0.15, 0.25, 0.3, 0.2];
const TRUE_MEAN = SCORE_PROBABILITIES.reduce((s, q, i) => s + q * (i + 1), 0);

Deno.test("a 1–5 judge-scored mean, 100 items × 3 noisy judge repeats: the two-level bootstrap covers 94–96%", () => {
  const sim = simulator("judged mean");
  const trueScore = () => {
    let u = sim.uniform(), score = 1;
    for (const q of SCORE_PROBABILITIES) {
      if ((u -= q) < 0) break;
      score++;
    }
    return Math.min(score, 5);
  };
  const judge = (score: number) => {
    if (score === 1 || score === 5) return score; // symmetric noise only where it cannot leave 1–5
    const u = sim.uniform();
    return u < 0.3 ? score - 1 : u < 0.6 ? score + 1 : score;
  };
  coverage("judged mean", TRUE_MEAN, (run) => {
    const repeats = Array.from({ length: 100 }, () => {
      const score = trueScore();
      return [judge(score), judge(score), judge(score)];
    });
    const chosen = chooseInterval({ kind: "judged mean", repeats }, { seed: `judged:${run}` });
    assert(chosen.method === "two-level bootstrap (items, judge repeats)");
    return chosen.ci95;
  });
});

/**
 * Returns values in `clusters` clusters of 2–6 values (4 on average) with intraclass correlation 0.3:
 * value = 3 + cluster effect (variance 0.3) + noise (variance 0.7); the truth is 3.
 */
function clusteredSample(sim: ReturnType<typeof simulator>, clusters: number) {
  const values: number[] = [], ids: number[] = [];
  for (let c = 0; c < clusters; c++) {
    const effect = Math.sqrt(0.3) * sim.normal();
    const size = sim.integer(2, 6);
    for (let j = 0; j < size; j++) {
      values.push(3 + effect + Math.sqrt(0.7) * sim.normal());
      ids.push(c);
    }
  }
  return { values, ids };
}

/**
 * Returns judge-scored items in 100 clusters of 1–4 items: an item's true score is 3 + cluster effect
 * (variance 0.3) + item effect (variance 0.7), so ICC 0.3 between the items of a cluster; each item is scored
 * 3 times, each score its true score plus the judge's noise (standard deviation 1, so a quarter of the
 * variance of an item's mean of 3). The truth is 3.
 */
function clusteredJudgedSample(sim: ReturnType<typeof simulator>) {
  const repeats: number[][] = [], ids: number[] = [];
  for (let c = 0; c < 100; c++) {
    const effect = Math.sqrt(0.3) * sim.normal();
    const size = sim.integer(1, 4);
    for (let j = 0; j < size; j++) {
      const score = 3 + effect + Math.sqrt(0.7) * sim.normal();
      repeats.push([score + sim.normal(), score + sim.normal(), score + sim.normal()]);
      ids.push(c);
    }
  }
  return { repeats, ids };
}

Deno.test("a clustered judged mean, 100 clusters of 1–4 items, ICC 0.3, 3 noisy judge repeats: clusters then repeats covers 94–96%", () => {
  const sim = simulator("clustered judged mean");
  const averagedFirst: ([number, number] | null)[] = [];
  coverage("clustered judged mean (clusters, judge repeats)", 3, (run) => {
    const { repeats, ids } = clusteredJudgedSample(sim);
    const seed = `clustered judged:${run}`;
    const data: MetricData = { kind: "judged mean", repeats, clusters: ids, clusterName: "conversations" };
    const chosen = chooseInterval(data, { seed });
    assert(chosen.method === "cluster bootstrap (conversations, judge repeats)" && chosen.clusters === 100);
    const averaged = repeats.map((r) => (r[0] + r[1] + r[2]) / 3);
    averagedFirst.push(chooseInterval({ kind: "mean", values: averaged, clusters: ids }, { seed }).ci95);
    return chosen.ci95;
  });
  // For comparison: the cluster bootstrap of the judge-averaged scores (what summaries used before).
  coverage("clustered judged mean (repeats averaged first)", 3, (run) => averagedFirst[run]);
});

for (const clusters of [100, 20]) {
  Deno.test(`a clustered mean, ICC 0.3, ${clusters} clusters of 2–6: the cluster bootstrap covers 94–96%`, () => {
    const sim = simulator(`clustered ${clusters}`);
    const tIntervals: ([number, number] | null)[] = [];
    coverage(`clustered mean, ${clusters} clusters (cluster bootstrap)`, 3, (run) => {
      const { values, ids } = clusteredSample(sim, clusters);
      const data: MetricData = { kind: "mean", values, clusters: ids, clusterName: "conversations" };
      const chosen = chooseInterval(data, { seed: `clustered:${run}` });
      assert(chosen.method === "cluster bootstrap (conversations)" && chosen.clusters === clusters);
      tIntervals.push(clusteredTInterval(values, ids).ci95);
      return chosen.ci95;
    });
    coverage(`clustered mean, ${clusters} clusters (clustered SE, t)`, 3, (run) => tIntervals[run]);
  });
}

Deno.test("a paired difference of 0/1 outcomes, 200 items: the percentile bootstrap covers 94–96%", () => {
  const sim = simulator("paired difference");
  // Per item: only the baseline right 10%, only the condition right 15%, otherwise both agree.
  coverage("paired difference", 0.05, (run) => {
    const differences = Array.from({ length: 200 }, () => {
      const u = sim.uniform();
      return u < 0.1 ? -1 : u < 0.25 ? 1 : 0;
    });
    const chosen = chooseInterval({ kind: "mean", values: differences }, { seed: `paired:${run}` });
    assert(chosen.method === "percentile bootstrap");
    return chosen.ci95;
  });
});
