/**
 * Judge meta-evaluation (`deno task meta`, lib/meta/): hand examples of each piece (readings, leave-one-out
 * pairs, PAV, balanced F1, the variance decomposition, the contingency-table statistics against lib/stats),
 * then runs built in a run store with known judges and humans — a judge that copies a human, a random judge,
 * an offset judge to calibrate, a judge that errs and abstains — and the command line on them.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals, assertMatch } from "@std/assert";
import type { NamedValue } from "../lib/core/records.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { cohenKappa, krippendorffAlpha, weightedKappa } from "../lib/stats/agreement.ts";
import { spearmanRho } from "../lib/stats/rank.ts";
import { mulberry32 } from "../lib/stats/rng.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { analyzeRun, type FieldReport, type MetaReport } from "../lib/meta/analyze.ts";
import { calibrate, splitItems } from "../lib/meta/calibration.ts";
import { leaveOneOutUnits } from "../lib/meta/comparisons.ts";
import { tableStatistic } from "../lib/meta/contingency.ts";
import { readingOf } from "../lib/meta/fields.ts";
import { fitIsotonic, poolAdjacentViolators, predictIsotonic } from "../lib/meta/isotonic.ts";
import { balancedF1, confusionOf, pairStatistic, STATISTICS } from "../lib/meta/pair_stats.ts";
import { readRun } from "../lib/meta/run_data.ts";
import { varianceComponents } from "../lib/meta/variance_share.ts";
import { ROOT } from "./run_cli.ts";

/** A toy run: `items` samples, each human's and judge's value of the field `grade` per item (and repeat). */
interface ToyRun {
  items: number;
  humans: Record<string, (item: number) => NamedValue>;
  /** A judge's value of an item in a repeat; `"error"` stores an invalid judging. */
  judges: Record<string, (item: number, run: number) => NamedValue | "error">;
  runs?: number;
}

/** Writes the toy run into `dir/run.sqlite`, as eval and import-ratings store judgings and ratings. */
function writeToyRun(dir: string, toy: ToyRun): void {
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    store.setManifest({ identity: { benchmark: "toy" } });
    store.putSamples(Array.from({ length: toy.items }, (_, i) => ({
      id: `toy:${i}`,
      benchmark: "toy",
      input: `question ${i}`,
      reference: null,
      conversation: null,
      fields: { category: i % 2 ? "odd" : "even" },
      extra: {},
    })));
    const score = { condition: "default", reason: null, callKey: null, detail: null };
    for (let i = 0; i < toy.items; i++) {
      for (const [rater, value] of Object.entries(toy.humans)) {
        const grade = value(i);
        if (grade === null) continue;
        store.putScore({
          ...score,
          sampleId: `toy:${i}`,
          scorer: "human:panel",
          judge: rater,
          run: 1,
          value: null,
          values: { grade },
          valid: true,
        });
      }
      for (const [judge, value] of Object.entries(toy.judges)) {
        for (let run = 1; run <= (toy.runs ?? 1); run++) {
          const grade = value(i, run);
          store.putScore({
            ...score,
            sampleId: `toy:${i}`,
            scorer: "grader",
            judge,
            run,
            value: typeof grade === "number" ? grade : null,
            values: grade === "error" ? null : { grade },
            valid: grade !== "error",
          });
        }
      }
    }
  } finally {
    store.close();
  }
}

/** Builds a toy run in a temporary directory, meta-evaluates it and removes it. */
async function analyzeToy(toy: ToyRun, resamples = 300): Promise<MetaReport> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-meta-" });
  try {
    writeToyRun(dir, toy);
    return analyzeRun(await readRun(dir), { seed: "test", calibrate: 0.5, resamples });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The only field of a toy report. */
function gradeOf(report: MetaReport): FieldReport {
  assertEquals(report.metrics.length, 1);
  return report.metrics[0].fields.find((f) => f.field.name === "grade")!;
}

/** A seeded "true" grade 1–4 per item, and raters that copy it except for a share of seeded slips. */
function graders(seed: number, slip: number) {
  const random = mulberry32(seed);
  const truth = Array.from({ length: 200 }, () => 1 + Math.floor(random() * 4));
  const rater = (salt: number) => {
    const own = mulberry32(seed + salt);
    const values = truth.map((t) => (own() < slip ? 1 + Math.floor(own() * 4) : t));
    return (i: number) => values[i];
  };
  return { truth, rater };
}

Deno.test("readings: lower median for binary and ordinal, mode for nominal (a tie gives none), mean for interval", () => {
  assertEquals(readingOf([1, 0], "binary"), 0);
  assertEquals(readingOf([1, 0, 1], "binary"), 1);
  assertEquals(readingOf([4, 1, 3, 2], "ordinal"), 2);
  assertEquals(readingOf([3, null, 1, 2], "ordinal"), 2);
  assertEquals(readingOf(["a", "b"], "nominal"), null);
  assertEquals(readingOf(["a", "b", "a"], "nominal"), "a");
  assertEquals(readingOf([1, 2, 6], "interval"), 3);
  assertEquals(readingOf([null], "interval"), null);
});

Deno.test("leave-one-rater-out: each human against the others' reading, the judge against the same reading", () => {
  const humans = [new Map([["x", 1], ["y", 1]]), new Map([["x", 1], ["y", 0]]), new Map([["x", 0]])];
  const judge = new Map([["x", 1], ["y", null]]);
  const [x, y] = leaveOneOutUnits(["x", "y"], humans, "binary", judge);
  // x: human 1 vs reading(1, 0) = 0, human 2 vs reading(1, 0) = 0, human 3 vs reading(1, 1) = 1.
  assertEquals(x[0], { a: [1, 1, 0], b: [0, 0, 1] });
  assertEquals(x[1], { a: [1, 1, 1], b: [0, 0, 1] });
  // y: the judge has no reading, so neither series counts the item.
  assertEquals(y, [{ a: [], b: [] }, { a: [], b: [] }]);
  // Without a judge, y's two humans are each other's reference (the third did not rate it).
  assertEquals(leaveOneOutUnits(["y"], humans, "binary")[0], [{ a: [1, 0], b: [0, 1] }]);
});

Deno.test("isotonic regression: pool-adjacent-violators on a hand example, ties pooled, interpolation", () => {
  assertEquals(poolAdjacentViolators([1, 3, 2, 4, 3, 5]), [1, 2.5, 2.5, 3.5, 3.5, 5]);
  assertEquals(poolAdjacentViolators([3, 2, 1]), [2, 2, 2]);
  assertEquals(poolAdjacentViolators([1, 3, 2], [1, 3, 1]), [1, 2.75, 2.75]);
  // x = 2 twice (mean 4, weight 2) is above x = 3 (3, weight 1): pooled into (2 × 4 + 3) / 3 = 11/3.
  const fit = fitIsotonic([1, 2, 2, 3, 5], [0, 5, 3, 3, 6]);
  assertEquals(fit.x, [1, 2, 3, 5]);
  assertEquals(fit.weight, [1, 2, 1, 1]);
  assertEquals(fit.y, [0, 11 / 3, 11 / 3, 6]);
  assertEquals(predictIsotonic(fit, 0), 0);
  assertEquals(predictIsotonic(fit, 4), 11 / 3 + (6 - 11 / 3) / 2);
  assertEquals(predictIsotonic(fit, 9), 6);
});

Deno.test("balanced F1 on a hand confusion matrix: the mean of both classes' F1", () => {
  const c = { truePositive: 8, falseNegative: 2, falsePositive: 4, trueNegative: 6 };
  assertAlmostEquals(balancedF1(c)!, (16 / 22 + 12 / 18) / 2, 1e-12);
  const predicted = [...Array(8).fill(1), 0, 0, 1, 1, 1, 1, ...Array(6).fill(0)];
  const reference = [...Array(10).fill(1), ...Array(10).fill(0)];
  assertEquals(confusionOf(predicted, reference), c);
  assertAlmostEquals(pairStatistic("f1", predicted, reference, { level: "binary" })!, balancedF1(c)!, 1e-12);
  assertEquals(balancedF1({ truePositive: 5, falseNegative: 0, falsePositive: 0, trueNegative: 0 }), null);
});

Deno.test("variance share: no repeat noise gives 0, no difference between items gives 1", () => {
  const still = varianceComponents([[1, 1, 1], [3, 3, 3], [2, 2, 2]])!;
  assertEquals(still.repeatShare, 0);
  assertEquals(still.repeatVariance, 0);
  assertAlmostEquals(still.itemVariance, 1, 1e-12);
  assertEquals(varianceComponents([[1, 3], [3, 1], [1, 3]])!.repeatShare, 1);
  // Unbalanced: one-way ANOVA with n0 = (N − Σn²/N)/(a − 1) = (5 − 13/5)/1 = 2.4.
  const unbalanced = varianceComponents([[1, 2, 3], [5, 5]])!;
  assertAlmostEquals(unbalanced.repeatVariance, 2 / 3, 1e-12);
  assertAlmostEquals(unbalanced.itemVariance, (10.8 - 2 / 3) / 2.4, 1e-9);
  assertEquals(varianceComponents([[1], [2]]), null);
});

Deno.test("the contingency-table statistics equal the pair-by-pair ones and lib/stats", () => {
  const random = mulberry32(11);
  for (const level of ["ordinal", "binary", "nominal", "interval"] as const) {
    const k = level === "binary" ? 2 : 4;
    const categories = level === "nominal"
      ? ["a", "b", "c", "d"]
      : level === "interval"
      ? [0.5, 1, 2.5, 7]
      : Array.from({ length: k }, (_, i) => i);
    const a: (string | number)[] = [], b: (string | number)[] = [];
    const table = new Float64Array(k * k);
    for (let t = 0; t < 60; t++) {
      const i = Math.floor(random() * k), j = random() < 0.5 ? i : Math.floor(random() * k);
      a.push(categories[i]);
      b.push(categories[j]);
      table[i * k + j]++;
    }
    const scale = { level, levels: level === "interval" ? undefined : categories, categories };
    for (const statistic of STATISTICS) {
      if (statistic === "f1" && level !== "binary") continue;
      if (statistic === "qkappa" && level !== "ordinal") continue;
      if (statistic === "rho" && level === "nominal") continue;
      const fast = tableStatistic(statistic, table, scale)!;
      assertAlmostEquals(fast, pairStatistic(statistic, a, b, scale)!, 1e-9, `${level} ${statistic}`);
    }
    assertAlmostEquals(tableStatistic("kappa", table, scale)!, cohenKappa(a, b)!, 1e-9);
    const alphaLevel = level === "binary" ? "nominal" : level;
    const alpha = krippendorffAlpha(a.map((v, t) => [v, b[t]]), alphaLevel)!;
    assertAlmostEquals(tableStatistic("alpha", table, scale)!, alpha, 1e-9);
    if (level === "ordinal") {
      assertAlmostEquals(
        tableStatistic("qkappa", table, scale)!,
        weightedKappa(a, b, categories, "quadratic")!,
        1e-9,
      );
    }
    if (level !== "nominal") {
      assertAlmostEquals(
        tableStatistic("rho", table, scale)!,
        spearmanRho(a.map(Number), b.map(Number))!,
        1e-9,
      );
    }
  }
});

Deno.test("a judge identical to human 1: κ = 1 against human 1, and not below the human ceiling", async () => {
  const { rater } = graders(1, 0.2);
  const human1 = rater(1);
  const report = await analyzeToy({
    items: 80,
    humans: { h1: human1, h2: rater(2), h3: rater(3) },
    judges: { copy: (i) => human1(i) },
  });
  const grade = gradeOf(report);
  assertEquals(grade.field.level, "ordinal");
  assertEquals(grade.primary, "qkappa");
  const pair = grade.pairs.find((p) => p.a === "copy" && p.b === "h1")!;
  assertEquals(pair.result.items, 80);
  assertEquals(pair.result.statistics.kappa!.value, 1);
  assertEquals(pair.result.statistics.qkappa!.value, 1);
  assertEquals(pair.result.statistics.percent!.value, 1);
  const other = grade.pairs.find((p) => p.a === "copy" && p.b === "h2")!;
  assert(other.result.statistics.kappa!.value! < 1);
  assertEquals(grade.versus.length, 1);
  assert(grade.versus[0].verdict.kind !== "below", grade.versus[0].verdict.text);
  assertEquals(grade.ceiling!.pairs, 240);
});

Deno.test("a random judge: κ near 0 and below the human ceiling by the gap, on the same pairs", async () => {
  const { rater } = graders(2, 0.15);
  const noise = mulberry32(99);
  const guesses = Array.from({ length: 200 }, () => 1 + Math.floor(noise() * 4));
  const report = await analyzeToy({
    items: 150,
    humans: { h1: rater(1), h2: rater(2), h3: rater(3) },
    judges: { coin: (i) => guesses[i] },
  });
  const grade = gradeOf(report);
  for (const human of ["h1", "h2", "h3"]) {
    const kappa = grade.pairs.find((p) => p.a === "coin" && p.b === human)!.result.statistics.kappa!;
    assert(Math.abs(kappa.value!) < 0.15, `κ ${kappa.value}`);
    assert(kappa.ci95![0] < 0 && kappa.ci95![1] > 0, `κ CI ${kappa.ci95}`);
  }
  const [versus] = grade.versus;
  assertEquals(versus.verdict.kind, "below");
  assertMatch(
    versus.verdict.text,
    /^coin below the human ceiling by \d\.\d\d \[\d\.\d\d, \d\.\d\d\] \(quadratic κ/,
  );
  const own = versus.own.statistics.qkappa!.value!, ceiling = versus.ceiling!.statistics.qkappa!.value!;
  assert(ceiling > 0.6, `ceiling ${ceiling}`);
  assertAlmostEquals(versus.difference!.value!, own - ceiling, 1e-12);
  assertEquals(versus.ceiling!.pairs, versus.own.pairs);
  assert(report.verdicts.some((v) => v === `grader vs human:panel · grade: ${versus.verdict.text}`));
  // Per category the same comparison, each on its own items.
  const groups = grade.groups.filter((g) => g.groupField === "category");
  assertEquals(groups.map((g) => [g.group, g.items]), [["even", 75], ["odd", 75]]);
  assert(groups.every((g) => g.versus[0].verdict.kind === "below"));
});

Deno.test("repeats: a judge that repeats itself exactly has α 1 and no variance from repeats; a jury joins", async () => {
  const { rater } = graders(3, 0.1);
  const human = rater(1);
  const flip = mulberry32(5);
  const shaky = Array.from({ length: 200 }, () => [1, 2, 3].map(() => 1 + Math.floor(flip() * 4)));
  const report = await analyzeToy({
    items: 60,
    runs: 3,
    humans: { h1: human, h2: rater(2) },
    judges: { steady: (i) => human(i), shaky: (i, run) => shaky[i][run - 1] },
  });
  const grade = gradeOf(report);
  const steady = grade.stability.find((s) => s.judge === "steady")!;
  assertEquals(steady.repeats, 3);
  assertEquals(steady.alpha!.value, 1);
  assertEquals(steady.kappa!.value, 1);
  assertEquals(steady.allAgree!.value, 1);
  assertEquals(steady.variance!.repeatShare.value, 0);
  const shakyStability = grade.stability.find((s) => s.judge === "shaky")!;
  assert(shakyStability.variance!.repeatShare.value! > 0.8, `${shakyStability.variance!.repeatShare.value}`);
  assert(Math.abs(shakyStability.alpha!.value!) < 0.2);
  assertEquals(grade.versus.map((v) => v.rater), ["shaky", "steady", "jury"]);
  assert(grade.pairs.some((p) => p.kind === "jury-human" && p.b === "h1"));
});

Deno.test("calibration: an offset judge is mapped onto the human scale on held-out items, the map refitted per replicate", async () => {
  const { truth } = graders(4, 0);
  const report = await analyzeToy({
    items: 80,
    humans: { h1: (i) => truth[i], h2: (i) => truth[i] },
    judges: { doubled: (i) => 2 * truth[i] + 1 },
  });
  const calibration = gradeOf(report).calibration!;
  assertEquals(calibration.source, "doubled");
  assertEquals(calibration.labelled, 40);
  assertEquals(calibration.heldOut, 40);
  const overall = calibration.overall!;
  assert(overall.rawError.value! > 2, `raw MAE ${overall.rawError.value}`);
  assertAlmostEquals(overall.calibratedError.value!, 0, 1e-12);
  assertAlmostEquals(overall.calibratedMean.value!, overall.humanMean.value!, 1e-12);
  assert(overall.errorChange.ci95![1] < 0);
  assertEquals(calibration.curves[0].points.map((p) => [p.judge, p.calibrated]), [[3, 1], [5, 2], [7, 3], [
    9,
    4,
  ]]);
  assert(calibration.curves.some((c) => c.groupField === "category" && c.group === "odd"));
  // The split is seeded: the same seed, the same labelled items.
  const ids = Array.from({ length: 80 }, (_, i) => `toy:${i}`);
  assertEquals([...splitItems(ids, 0.5, "s")], [...splitItems(ids, 0.5, "s")]);
  assert([...splitItems(ids, 0.5, "s")].join() !== [...splitItems(ids, 0.5, "t")].join());
  // Held-out items that are all alike vary in no resample: the interval of their error comes only from
  // refitting the map on resamples of the (noisy) labelled items.
  const labelledPoints = Array.from(
    { length: 20 },
    (_, i) => ({ id: `l${i}`, x: i % 2, y: (i % 2) + (i % 4 < 2 ? 0 : 1) }),
  );
  const heldOut = Array.from({ length: 10 }, (_, i) => ({ id: `h${i}`, x: 0, y: 0.5 }));
  const refitted = calibrate(
    [...labelledPoints, ...heldOut],
    new Set(labelledPoints.map((p) => p.id)),
    new Map(),
    { seed: "r", resamples: 200 },
  );
  assertEquals(refitted.overall!.humanMean.ci95, [0.5, 0.5]);
  assert(refitted.overall!.calibratedError.ci95![1] > refitted.overall!.calibratedError.ci95![0]);
});

Deno.test("errors and abstentions: invalid judgings and valid ones without a value, with n and Wilson intervals", async () => {
  const { rater } = graders(6, 0.1);
  const report = await analyzeToy({
    items: 40,
    humans: { h1: rater(1), h2: rater(2) },
    judges: { flaky: (i) => (i < 4 ? "error" : i < 6 ? null : rater(1)(i)) },
  });
  const [failures] = report.metrics[0].failures.overall;
  assertEquals(failures.judge, "flaky");
  assertEquals(failures.errors.value, 4 / 40);
  assertEquals(failures.errors.n, 40);
  assert(failures.errors.ci95![0] > 0 && failures.errors.ci95![1] < 0.25);
  assertEquals(failures.abstentions.grade.value, 2 / 36);
  assertEquals(failures.abstentions.grade.n, 36);
  const byCategory = report.metrics[0].failures.groups.filter((g) => g.groupField === "category");
  assertEquals(byCategory.map((g) => [g.group, g.judges[0].errors.value]), [["even", 2 / 20], [
    "odd",
    2 / 20,
  ]]);
  // Items without a reading are left out of the judge's pairs.
  assertEquals(gradeOf(report).pairs.find((p) => p.a === "flaky" && p.b === "h1")!.result.items, 34);
});

/** Runs `deno run -A lib/cli/meta.ts ...args` from the project root. */
async function metaCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}lib/cli/meta.ts`, ...args],
    cwd: ROOT,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("CLI: writes meta.md, meta.json and calibration_curves.csv and prints the verdicts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-meta-cli-" });
  try {
    const { rater } = graders(7, 0.1);
    const noise = mulberry32(8);
    const guesses = Array.from({ length: 200 }, () => 1 + Math.floor(noise() * 4));
    writeToyRun(dir, {
      items: 60,
      runs: 2,
      humans: { h1: rater(1), h2: rater(2) },
      judges: { coin: (i, run) => guesses[(i + run) % 200] },
    });
    const result = await metaCli([dir, "--calibrate", "0.4", "--seed", "3"]);
    assertEquals(result.code, 0, result.stderr);
    const report = JSON.parse(await Deno.readTextFile(`${dir}/meta/meta.json`)) as MetaReport;
    assertEquals(report.seed, "3");
    assertEquals(report.calibrate, 0.4);
    assertEquals(report.metrics[0].fields[0].calibration!.labelled, 24);
    assertEquals(report.verdicts.length, 1);
    assertMatch(report.verdicts[0], /grade: coin below the human ceiling by/);
    assert(result.stdout.includes(report.verdicts[0].split(" · ")[1]), result.stdout);
    const markdown = await Deno.readTextFile(`${dir}/meta/meta.md`);
    assert(markdown.includes(`- ${report.verdicts[0]}`));
    assertMatch(markdown, /\n\[\^ci\]: 95% intervals\. .*percentile bootstrap over items/);
    assertMatch(markdown, /\| humans \(ceiling\) \| 60 \| 120 \|/);
    const csv = (await Deno.readTextFile(`${dir}/meta/calibration_curves.csv`)).split("\n");
    assertEquals(
      csv[0],
      "condition,judge_scorer,human_scorer,field,source,group_field,group,judge_score,calibrated_score,labelled_items",
    );
    assert(csv.some((l) => l.startsWith("default,grader,human:panel,grade,coin,all,all,")));
    // The same seed writes the same files; --out elsewhere.
    const again = await metaCli([dir, "--calibrate", "0.4", "--seed", "3", "--out", `${dir}/again`]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals(
      await Deno.readTextFile(`${dir}/again/meta.md`),
      markdown.replaceAll(`${dir}/meta`, `${dir}/again`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: no human ratings, a bad run directory or a bad flag is one line and exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-meta-cli-" });
  try {
    writeToyRun(dir, { items: 5, humans: {}, judges: { j: () => 1 } });
    const none = await metaCli([dir]);
    assertEquals(none.code, 2);
    assertEquals(none.stdout, "");
    assertEquals(
      none.stderr,
      `error: meta: ${dir} has no human ratings (no human:* scores); import them with: deno task ` +
        `import-ratings ${dir} FILE.csv --scorer human:NAME (or eval --human-eval FILE.csv)\n`,
    );
    await Deno.stat(`${dir}/meta`).then(() => assert(false, "nothing is written"), () => {});
    for (
      const [args, message] of [
        [[`${dir}/nowhere`], /^error: meta: no directory .*nowhere; give the directory of an eval run\n$/],
        [[ROOT + "docs"], /^error: meta: .*docs holds no run store \(run\.sqlite\)/],
        [[dir, "--calibrate", "1"], /^error: --calibrate expects a fraction > 0 and < 1, got "1"\n$/],
        [[], /^error: meta: name the run directories/],
      ] as [string[], RegExp][]
    ) {
      const result = await metaCli(args);
      assertEquals(result.code, 2, args.join(" "));
      assertMatch(result.stderr, message);
      assertEquals(result.stderr.trim().split("\n").length, 1);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("benchmarks: PerMedCQA's acceptable and nominal coverage, LLMEval-Med's usable and two-scale score", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-meta-bench-" });
  try {
    const common = { model: "offline:reference", judgeRuns: 2, progress: false, renderFigures: false };
    await runEval({
      ...common,
      benchmark: "permedcqa",
      judge: "offline:medjudge",
      humanEval: `${ROOT}data/permedcqa/physician_ratings.csv`,
      out: `${out}/permedcqa`,
    });
    const permedcqa = await readRun(`${out}/permedcqa`);
    const [medjudge] = permedcqa.metrics;
    assertEquals([medjudge.judgeScorer, medjudge.humanScorer], ["medjudge", "human:physicians"]);
    assertEquals(medjudge.fields.map((f) => [f.name, f.level]), [
      ["acceptable", "binary"],
      ["correctness", "ordinal"],
      ["coverage", "nominal"],
      ["clinical_impact", "ordinal"],
    ]);
    assertEquals(medjudge.fields[1].labels, ["Correct", "Partially_correct", "Incorrect", "Contradictory"]);

    await runEval({ ...common, benchmark: "llmeval-med", judge: "offline:overlap", out: `${out}/llmeval` });
    const store = new RunStore(`${out}/llmeval/run.sqlite`, { readOnly: true });
    const mtg = store.samples().filter((s) => s.fields.category === "MTG").map((s) => s.id);
    store.close();
    const rows = mtg.flatMap((id, i) => [`${id},ana,1,5,5,${i % 5},4`, `${id},ben,${i % 2},5,4,4,4`]);
    await Deno.writeTextFile(`${out}/mtg.csv`, ["sample_id,rater,safety,B,C,D,E", ...rows].join("\n") + "\n");
    const imported = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        `${ROOT}lib/cli/main.ts`,
        "import-ratings",
        `${out}/llmeval`,
        `${out}/mtg.csv`,
        "--scorer",
        "human:mtg",
        "--no-render",
      ],
      cwd: ROOT,
      stdin: "null",
    }).output();
    assertEquals(imported.code, 0, new TextDecoder().decode(imported.stderr));
    const llmeval = analyzeRun(await readRun(`${out}/llmeval`), { seed: "b", calibrate: 0.5, resamples: 50 });
    const fields = llmeval.metrics[0].fields;
    assertEquals(fields.map((f) => [f.field.name, f.field.level, f.field.ownScales]), [
      ["usable", "binary", false],
      ["score", "interval", true],
    ]);
    assertEquals(fields[1].statistics, ["rho"]);
    assertEquals(llmeval.metrics[0].items, mtg.length);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
