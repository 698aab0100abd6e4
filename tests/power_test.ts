/**
 * `deno task power` (lib/cli/power.ts, lib/compare/benchmark_power.ts): its numbers are lib/stats/power.ts's
 * for the n and variance it states — each benchmark's published n from the paper data, the conservative
 * defaults, one run's and two runs' observed variance — the power to detect --delta agrees with the closed
 * form, the screen fits one screen, and every bad flag is one line with exit code 2.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { powerOutput } from "../lib/cli/power.ts";
import { readFinishedRuns } from "../lib/cli/compare.ts";
import { publishedSizes } from "../lib/compare/published_sizes.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { normalCdf, normalQuantile } from "../lib/stats/distributions.ts";
import {
  benchmarkPower,
  pairedBinaryDetectable,
  pairedMeanDetectable,
  pairsForBinary,
  pairsForMean,
  perGroupForMeans,
  perGroupForProportions,
  twoMeansDetectable,
  twoProportionsDetectable,
} from "../lib/stats/power.ts";
import { type CliResult, runCli } from "./run_cli.ts";

/** Runs `lib/cli/power.ts` with `args`; returns exit code, stdout and stderr. */
function powerCli(args: string[]): Promise<CliResult> {
  return runCli(["power", ...args]);
}

Deno.test("published sizes come from the paper data: 667, 29,797 (33,735 stated), 3,513, 34", async () => {
  const sizes = await publishedSizes();
  assertEquals(
    Object.fromEntries([...sizes].map(([b, s]) => [b, s.n])),
    { "llmeval-med": 667, climedbench: 29797, permedcqa: 3513, medgpteval: 34 },
  );
  assertStringIncludes(
    sizes.get("llmeval-med")!.source,
    "data/papers/llmeval_med.json, table facts, row test_questions",
  );
  assertStringIncludes(sizes.get("climedbench")!.source, "states 33,735");
  assertStringIncludes(sizes.get("medgpteval")!.source, "rows dialogues + case_reports");
  assertStringIncludes(sizes.get("permedcqa")!.source, "table split, row test");
});

Deno.test("a rate at its published n with the conservative default: lib/stats/power.ts's numbers", async () => {
  const output = await powerOutput({ benchmark: "llmeval-med", delta: "0.03" });
  const { answer } = output;
  assertEquals([answer.n, answer.alpha, answer.power], [667, 0.05, 0.8]);
  assertEquals(answer.basis.kind === "rate" && [answer.basis.rate, answer.basis.discordance], [0.5, 0.5]);
  assertEquals(answer.detectable, {
    paired: pairedBinaryDetectable(0.5, 667),
    unpaired: twoProportionsDetectable(0.5, 667),
  });
  assertEquals(answer.needed, [
    { difference: 0.02, paired: pairsForBinary(0.5, 0.02), unpaired: perGroupForProportions(0.5, 0.52) },
    { difference: 0.05, paired: pairsForBinary(0.5, 0.05), unpaired: perGroupForProportions(0.5, 0.55) },
  ]);
  // The power to detect 3 points: where lib/stats's detectable difference is 0.03, and the closed form agrees.
  const power = answer.delta!.power;
  assertAlmostEquals(pairedBinaryDetectable(0.5, 667, { power: power.paired! })!, 0.03, 1e-9);
  assertAlmostEquals(twoProportionsDetectable(0.5, 667, { power: power.unpaired! })!, 0.03, 1e-9);
  const z = normalQuantile(0.975);
  assertAlmostEquals(
    power.paired!,
    normalCdf((0.03 * Math.sqrt(667) - z * Math.sqrt(0.5)) / Math.sqrt(0.5 - 0.03 ** 2)),
    1e-9,
  );
  const pooled = 0.515;
  assertAlmostEquals(
    power.unpaired!,
    normalCdf(
      (0.03 * Math.sqrt(667) - z * Math.sqrt(2 * pooled * (1 - pooled))) / Math.sqrt(0.25 + 0.53 * 0.47),
    ),
    1e-9,
  );
  assertEquals(answer.delta!.needed, {
    paired: pairsForBinary(0.5, 0.03),
    unpaired: perGroupForProportions(0.5, 0.53),
  });
  assertEquals(
    (await powerOutput({ benchmark: "llmeval-med", n: "500" })).answer.detectable.paired,
    pairedBinaryDetectable(0.5, 500),
  );
  for (const [benchmark, n] of [["climedbench", 29797], ["permedcqa", 3513]] as const) {
    const other = await powerOutput({ benchmark });
    assertEquals([other.answer.n, other.answer.detectable.unpaired], [n, twoProportionsDetectable(0.5, n)]);
  }
});

Deno.test("a bounded score (MedGPTEval's total, 0–16) at 34 items: SD 8, points of 0.16, lib/stats's means", async () => {
  const { answer, scale } = await powerOutput({ benchmark: "medgpteval", delta: "1" });
  assertEquals(scale, { percent: false, range: [0, 16] });
  assertEquals(answer.n, 34);
  const sdDiff = 8 * Math.SQRT2;
  assertEquals(answer.detectable, {
    paired: pairedMeanDetectable(sdDiff, 34),
    unpaired: twoMeansDetectable(8, 34, 8, 34),
  });
  assertEquals(answer.needed.map((d) => d.difference), [0.32, 0.8]);
  assertEquals(answer.needed[1], {
    difference: 0.8,
    paired: pairsForMean(sdDiff, 0.8),
    unpaired: perGroupForMeans(8, 8, 0.8),
  });
  assertAlmostEquals(pairedMeanDetectable(sdDiff, 34, { power: answer.delta!.power.paired! }), 1, 1e-9);
});

Deno.test({
  name:
    "variance from runs: one run's rate (ψ = 2p(1 − p)); two runs' observed discordance as benchmarkPower reads it",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "power-test-" });
    try {
      for (const model of ["offline:reference", "offline:retrieval"]) {
        await runEval({
          benchmark: "llmeval-med",
          model,
          judge: "offline:overlap",
          judgeRuns: 1,
          out: `${root}/${model.slice(8)}`,
          progress: false,
          renderFigures: false,
        });
      }
      const [reference, retrieval] = await readFinishedRuns([`${root}/reference`, `${root}/retrieval`]);
      const values = (run: typeof reference, metric: string) =>
        run.conditions[0].rows.map((r) => r.values[metric]!);
      const a = values(reference, "usability"), b = values(retrieval, "usability");
      const one = await powerOutput({ benchmark: "llmeval-med", run: [`${root}/reference`] });
      const p = a.reduce((s, v) => s + v, 0) / a.length;
      assertEquals(one.answer.basis.kind === "rate" && one.answer.basis.discordance, 2 * p * (1 - p));
      assertEquals(one.answer.detectable.unpaired, twoProportionsDetectable(p, 667));
      // Two runs on the same items (the CLI's --json): the numbers benchmarkPower gives at n = their items.
      const cli = await powerCli([
        "--benchmark",
        "llmeval-med",
        "--run",
        `${root}/reference`,
        "--run",
        `${root}/retrieval`,
        "--n",
        String(a.length),
        "--paired",
        "--json",
      ]);
      assertEquals(cli.code, 0, cli.stderr);
      const json = JSON.parse(cli.stdout);
      const expected = benchmarkPower(a, b);
      assertEquals(json.answer.detectable, {
        paired: expected.pairedDetectable,
        unpaired: expected.unpairedDetectable,
      });
      assertEquals(json.answer.needed, expected.needed);
      assertEquals(json.design, "paired");
      // The graded metric of the same runs: the SDs benchmarkPower reads.
      const graded = await powerOutput({
        benchmark: "llmeval-med",
        metric: "mean_score",
        run: [`${root}/reference`, `${root}/retrieval`],
        n: String(a.length),
      });
      const scores = benchmarkPower(values(reference, "mean_score"), values(retrieval, "mean_score"));
      assertAlmostEquals(graded.answer.detectable.paired!, scores.pairedDetectable!, 1e-12);
      assertAlmostEquals(graded.answer.detectable.unpaired!, scores.unpairedDetectable!, 1e-12);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("the screen: n with its source, the variance, both designs, one screen", async () => {
  const result = await powerCli(["--benchmark", "llmeval-med", "--delta", "0.03", "--paired"]);
  assertEquals(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split("\n");
  assert(lines.length <= 24, `${lines.length} lines`);
  assertStringIncludes(lines[1], "n = 667 questions in the public test set: data/papers/llmeval_med.json");
  assertStringIncludes(result.stdout, "conservative default: p = 0.5");
  assertMatch(result.stdout, /minimum detectable difference +7\.7 points +7\.6 points/);
  assertMatch(
    result.stdout,
    /paired design: 3 points is detected with \d+\.\d% power at n = 667; 80% power needs [\d,]+ paired items/,
  );
});

Deno.test("bad flags: one line naming the flag, exit code 2", async () => {
  const cases: [string[], RegExp][] = [
    [["--delta", "0.03"], /^error: --benchmark: name the benchmark/],
    [["--benchmark", "nope"], /^error: unknown benchmark "nope"/],
    [["--benchmark", "llmeval-med", "--delta", "abc"], /^error: --delta expects a difference > 0/],
    [["--benchmark", "llmeval-med", "--delta", "0"], /^error: --delta expects a difference > 0/],
    [
      ["--benchmark", "llmeval-med", "--delta", "3"],
      /^error: --delta expects a difference of a rate below 1/,
    ],
    [["--benchmark", "llmeval-med", "--n", "1"], /^error: --n expects a whole number of items >= 2, got "1"/],
    [
      ["--benchmark", "llmeval-med", "--detla", "0.03"],
      /^error: unknown option --detla; did you mean --delta\?/,
    ],
    [
      ["--benchmark", "llmeval-med", "--metric", "nope"],
      /^error: --metric nope: not one of the benchmark's metrics/,
    ],
    [
      ["--benchmark", "llmeval-med", "--run", "/nonexistent/run"],
      /^error: \/nonexistent\/run: no such directory/,
    ],
    [
      ["--benchmark", "llmeval-med", "--run", "a", "--run", "b", "--run", "c"],
      /^error: --run: give one run or two \(got 3\)/,
    ],
    [["--benchmark", "llmeval-med", "runs/x"], /^error: power: unexpected argument "runs\/x"/],
  ];
  for (const [args, pattern] of cases) {
    const result = await powerCli(args);
    assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    const lines = result.stderr.split("\n").filter(Boolean);
    assertEquals(lines.length, 1, result.stderr);
    assertMatch(lines[0], pattern);
    assertEquals(result.stdout, "");
  }
});
