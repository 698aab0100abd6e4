/**
 * Model comparisons (`deno task compare`, lib/compare/): rows built by hand where the answer is known
 * (identical models, a model right on a superset of another's items), the multiplicity columns against
 * lib/stats, the paper-table letters; then real runs against the fake server — three scripted models on
 * LLMEval-Med, a model compared with itself — and the command line: its files, one-line errors, the conditions
 * of one run, and `reproduce` with two models putting the comparison beside the report and letters in the
 * paper tables.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { compareModels, type Comparison } from "../lib/compare/analyze.ts";
import { type CompareEntry, type CompareSet, compareSet } from "../lib/compare/entries.ts";
import { comparisonFigures } from "../lib/compare/figure.ts";
import { letterLookup } from "../lib/compare/paper_letters.ts";
import { comparisonMarkdown } from "../lib/compare/report.ts";
import { compareRuns } from "../lib/cli/compare.ts";
import { reproduce } from "../lib/cli/reproduce.ts";
import type { SampleRow } from "../lib/core/summary.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { loadPaper } from "../lib/papers/paper.ts";
import { comparisonEntries, paperTable } from "../lib/papers/paper_tables.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { mcnemarExact } from "../lib/stats/compare.ts";
import { benjaminiHochbergAdjust, holmAdjust } from "../lib/stats/multiplicity.ts";
import { wilcoxonSignedRank } from "../lib/stats/paired_tests.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { type CliResult, ROOT, runCli } from "./run_cli.ts";

/** A toy benchmark: a 0/1 metric `right` and a graded `score`, grouped by `half`. */
const TOY_TASK = {
  name: "toy",
  title: "Toy",
  groupFields: ["half"],
  report: {
    metrics: [
      { name: "right", label: "right", percent: true, proportion: true },
      { name: "score", label: "score", percent: false },
    ],
  },
};

/** Rows of `n` items: item i is right when `right(i)`, scored `score(i)`. */
function toyRows(n: number, right: (i: number) => boolean, score: (i: number) => number): SampleRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `toy:${i}`,
    fields: { half: i < n / 2 ? "first" : "second" },
    values: { right: right(i) ? 1 : 0, score: score(i) },
  }));
}

/** A comparison set of toy entries. */
function toySet(...entries: [string, SampleRow[]][]): CompareSet {
  return {
    task: TOY_TASK,
    entries: entries.map(([label, rows]): CompareEntry => ({
      label,
      model: label,
      condition: "default",
      offline: false,
      run: `runs/${label}`,
      rows,
    })),
  };
}

/** Returns the pair `a`–`b` of the overall scope of `metric`. */
function overallPair(comparison: Comparison, metric: string, a: string, b: string) {
  const result = comparison.metrics.find((m) => m.metric.name === metric)!;
  return result.overall.pairs.find((p) => p.a === a && p.b === b)!;
}

/** Returns the model `label` of the overall scope of `metric`. */
function overallModel(comparison: Comparison, metric: string, label: string) {
  return comparison.metrics.find((m) => m.metric.name === metric)!.overall.models.find((m) =>
    m.label === label
  )!;
}

Deno.test("identical models: no difference, McNemar p = 1, Wilcoxon p = 1, the same letter, ranks 1–2", () => {
  const rows = toyRows(60, (i) => i % 3 !== 0, (i) => 1 + (i % 5));
  const comparison = compareModels(toySet(["A", rows], ["B", structuredClone(rows)]));
  const right = overallPair(comparison, "right", "A", "B");
  assertEquals([right.test, right.statistic, right.p, right.pHolm, right.pBh], [
    "McNemar (exact)",
    "b=0 c=0",
    1,
    1,
    1,
  ]);
  assertEquals(right.difference, 0);
  assertEquals(right.effect.value, null);
  const score = overallPair(comparison, "score", "A", "B");
  assertEquals([score.test, score.p], ["Wilcoxon signed-rank", 1]);
  for (const metric of ["right", "score"]) {
    for (const label of ["A", "B"]) {
      const model = overallModel(comparison, metric, label);
      assertEquals(model.letters, "a");
      assertEquals(model.rank.ranks, [1, 2]);
      assertEquals(model.rank.label, "ranks 1–2 of 2");
    }
  }
});

Deno.test("a model right on a superset of another's items: significant, different letters, ranks [1,1] and [2,2]", () => {
  // B is right on every item A is right on, and on 20 more; its score is higher on those 20.
  const a = toyRows(80, (i) => i % 2 === 0, (i) => (i % 2 === 0 ? 4 : 2));
  const b = toyRows(80, (i) => i % 2 === 0 || i % 4 === 1, (i) => (i % 2 === 0 || i % 4 === 1 ? 4 : 2));
  const comparison = compareModels(toySet(["A", a], ["B", b]));
  const right = overallPair(comparison, "right", "A", "B");
  const expected = mcnemarExact(a.map((r) => r.values.right!), b.map((r) => r.values.right!));
  assertEquals([right.discordant, right.p], [{ b: 0, c: 20 }, expected.p]);
  assert(right.p < 1e-5 && right.pHolm <= 0.05);
  assertEquals(right.effect.value, Infinity);
  assertAlmostEquals(right.difference, 20 / 80, 1e-12);
  assert(right.ci95![0] > 0, "the paired interval excludes 0");
  assertEquals(overallModel(comparison, "right", "B").letters, "a");
  assertEquals(overallModel(comparison, "right", "A").letters, "b");
  assertEquals(overallModel(comparison, "right", "B").rank.ranks, [1, 1]);
  assertEquals(overallModel(comparison, "right", "A").rank.ranks, [2, 2]);
  const score = overallPair(comparison, "score", "A", "B");
  const wilcoxon = wilcoxonSignedRank(a.map((r) => r.values.score!), b.map((r) => r.values.score!));
  assertEquals([score.p, score.effect.value], [wilcoxon.p, 1]);
  assert(score.pHolm <= 0.05);
});

Deno.test("Holm and BH columns adjust over each table's comparisons, as lib/stats/multiplicity computes them", () => {
  const n = 90;
  const comparison = compareModels(toySet(
    ["A", toyRows(n, (i) => i % 3 === 0, (i) => i % 4)],
    ["B", toyRows(n, (i) => i % 3 === 0 || i % 7 === 1, (i) => (i % 4) + (i % 5 === 0 ? 1 : 0))],
    ["C", toyRows(n, (i) => i % 2 === 0, (i) => (i * 7) % 4)],
  ));
  for (const result of comparison.metrics) {
    const overall = result.overall.pairs;
    assertEquals(overall.length, 3);
    assertEquals(overall.map((p) => p.pHolm), holmAdjust(overall.map((p) => p.p)));
    assertEquals(overall.map((p) => p.pBh), benjaminiHochbergAdjust(overall.map((p) => p.p)));
    // A group field's table is one family: the pairs of both halves together.
    const byHalf = result.fields[0].scopes.flatMap((s) => s.pairs);
    assertEquals(byHalf.length, 6);
    assertEquals(byHalf.map((p) => p.pHolm), holmAdjust(byHalf.map((p) => p.p)));
    assertEquals(byHalf.map((p) => p.pBh), benjaminiHochbergAdjust(byHalf.map((p) => p.p)));
    // Two models share a letter exactly when their Holm-adjusted p is above 0.05.
    for (const pair of overall) {
      const letters = (label: string) =>
        new Set(result.overall.models.find((m) => m.label === label)!.letters);
      const share = [...letters(pair.a)].some((l) => letters(pair.b).has(l));
      assertEquals(share, pair.pHolm > 0.05, `${result.metric.name} ${pair.a}–${pair.b}`);
    }
  }
  const markdown = comparisonMarkdown(comparison);
  for (
    const column of [
      "| p | p_holm | p_bh | effect size |",
      "| model | n | mean [95% CI] | rank (95% interval) | letters |",
    ]
  ) {
    assertStringIncludes(markdown, column);
  }
  for (
    const method of [
      "McNemar's exact test",
      "Wilcoxon's signed-rank",
      "Holm's step-down",
      "Benjamini–Hochberg",
      "Piepho",
      "rank-biserial",
      "odds ratio",
    ]
  ) {
    assertStringIncludes(markdown, method);
  }
  const figure = comparisonFigures(comparison).comparison_right;
  assertEquals(figure.data.map((t) => t.name), ["A", "B", "C"]);
  assertEquals(figure.data[0].x as string[], ["all items", "first", "second"]);
  assertEquals(
    (figure.data[1].text as string[])[0],
    comparison.metrics[0].overall.models.find((m) => m.label === "B")!.letters,
  );
});

Deno.test("entries: one benchmark, the condition in every run, labels made unique by run; items shared", () => {
  const run = (dir: string, benchmark: string, conditions: string[], model = "m") => ({
    dir,
    task: { ...TOY_TASK, name: benchmark },
    conditions: conditions.map((condition) => ({
      summary: { model, condition, offline: false } as never,
      rows: toyRows(4, () => true, () => 1),
    })),
  });
  const two = compareSet([run("runs/x", "toy", ["default"]), run("runs/y", "toy", ["default"])]);
  assertEquals(two.entries.map((e) => e.label), ["m (x)", "m (y)"]);
  const conditions = compareSet([run("runs/x", "toy", ["default", "cot"])]);
  assertEquals(conditions.entries.map((e) => e.label), ["default", "cot"]);
  const oneLine = (fn: () => unknown, pattern: RegExp) => {
    try {
      fn();
    } catch (err) {
      assertMatch((err as Error).message, pattern);
      assert(!(err as Error).message.includes("\n"));
      return;
    }
    throw new Error("no error");
  };
  oneLine(
    () => compareSet([run("runs/x", "toy", ["default"]), run("runs/z", "other", ["default"])]),
    /runs\/z is a other run but runs\/x a toy run/,
  );
  oneLine(
    () => compareSet([run("runs/x", "toy", ["default"]), run("runs/y", "toy", ["default"])], "cot"),
    /--condition cot: runs\/x has no condition "cot"; it has default/,
  );
  oneLine(() => compareSet([run("runs/x", "toy", ["default"])]), /runs\/x has one condition \(default\)/);
  const disjoint = toySet(["A", toyRows(4, () => true, () => 1)], [
    "B",
    toyRows(4, () => true, () => 1).map((r) => ({ ...r, id: `other:${r.id}` })),
  ]);
  oneLine(
    () => compareModels(disjoint),
    /runs\/B shares no sample with runs\/A \(by sample id: 0 of its 4 samples/,
  );
});

Deno.test("paper tables: our models' values carry their letters, with a footnote; without letters nothing changes", async () => {
  const paper = await loadPaper(`${ROOT}tests/fixtures/papers/toy_llmeval.json`);
  const spec = paper.file.tables.find((t) => t.compare)!;
  const estimate = { value: 0.5, ci95: [0.4, 0.6] as [number, number], n: 40 };
  const summary = (model: string) =>
    ({
      benchmark: spec.compare!.benchmark,
      model,
      offline: false,
      condition: "default",
      metrics: { usability: estimate },
      groups: { category: { MK: { usability: estimate } } },
    }) as never;
  const comparison = compareModels(toySet(
    ["m1", toyRows(40, (i) => i < 30, () => 1)],
    ["m2", toyRows(40, (i) => i < 8, () => 1)],
  ));
  const letters = letterLookup(comparison);
  assertEquals([letters({ metric: "right" }, "m1"), letters({ metric: "right" }, "m2")], ["a", "b"]);
  // Every cell of the toy paper reads our overall `right` letters.
  const lookup = (_cell: unknown, model: string) => letters({ metric: "right" }, model);
  const entries = comparisonEntries(spec.compare!, [summary("m1"), summary("m2")], lookup);
  assert(Object.values(entries[0].values).every((v) => v.endsWith("(n=40) a")), JSON.stringify(entries[0]));
  assert(Object.values(entries[1].values).every((v) => v.endsWith("(n=40) b")));
  const table = paperTable(paper, spec, entries);
  assertEquals(table.notes.filter((n) => n.startsWith("Letters after a medeval value")).length, 1);
  const plain = comparisonEntries(spec.compare!, [summary("m1")]);
  assert(Object.values(plain[0].values).every((v) => v.endsWith("(n=40)")));
  assertEquals(plain[0].notes, undefined);
});

/** The fake's answers: `answer of <model> <tag>`, tag = first 8 hex of SHA-256 of the last user message. */
function answerTag(body: FakeChatBody): string {
  const last = [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  return sha256Hex(last).slice(0, 8);
}

/** Whether `mid` is usable on the item with `tag` (about half of the items, all of them usable for `strong`). */
function midUsable(tag: string): boolean {
  return parseInt(tag, 16) % 2 === 0;
}

/**
 * The fake's replies: a model answers `answer of <model> <tag>`; the judge gives `strong` 5, `weak` 2, and
 * `mid` 5 on the items `midUsable` picks, else 2.
 */
function scriptedModels(body: FakeChatBody): string {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  const judged = user.match(/### Student's answer\nanswer of (\w+) ([0-9a-f]{8})/);
  if (!judged) return `answer of ${body.model} ${answerTag(body)}`;
  const [, model, tag] = judged;
  const score = model === "strong" ? 5 : model === "mid" && midUsable(tag) ? 5 : 2;
  return JSON.stringify({ score, reason: `scripted for ${model}` });
}

/** Runs LLMEval-Med's sample with `model` against the fake server into `out` (judge run once). */
async function llmevalRun(url: string, model: string, out: string): Promise<void> {
  await runEval({
    benchmark: "llmeval-med",
    model,
    baseUrl: url,
    judge: "fake-judge",
    judgeBaseUrl: url,
    judgeRuns: 1,
    out,
    progress: false,
    renderFigures: false,
  });
}

/** Runs `lib/cli/compare.ts` with `args`; returns exit code, stdout and stderr. */
function compareCli(args: string[]): Promise<CliResult> {
  return runCli(["compare", ...args]);
}

Deno.test({
  name:
    "three models against the fake server: the CLI writes comparison.md/.csv/.json and figures; known results",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    Deno.env.set("OPENAI_API_KEY", "sk-compare-test-0000");
    const server = await startFakeServer({ reply: scriptedModels });
    const root = await Deno.makeTempDir({ prefix: "compare-test-" });
    try {
      for (const model of ["strong", "mid", "weak", "strong"]) {
        const dir = `${root}/${model}`;
        await llmevalRun(server.url, model, (await Deno.stat(dir).catch(() => null)) ? `${dir}-twin` : dir);
      }
      const out = `${root}/compared`;
      const result = await compareCli([
        `${root}/strong`,
        `${root}/mid`,
        `${root}/weak`,
        "--out",
        out,
        "--no-render",
      ]);
      assertEquals(result.code, 0, result.stderr);
      for (const file of ["comparison.md", "comparison.csv", "comparison_models.csv", "comparison.json"]) {
        assert((await Deno.stat(`${out}/${file}`)).isFile, file);
      }
      assert((await Deno.stat(`${out}/figures/comparison_usability.html`)).isFile);
      const comparison = JSON.parse(await Deno.readTextFile(`${out}/comparison.json`)) as Comparison;
      const usability = comparison.metrics.find((m) => m.metric.name === "usability")!;
      const n = usability.overall.n;
      assertEquals(n, 23);
      // What the script makes: strong usable on every item, weak on none, mid on the items midUsable picks.
      const midCount = usability.overall.models.find((m) => m.label.startsWith("mid"))!.estimate.value! * n;
      const pair = (a: string, b: string) =>
        usability.overall.pairs.find((p) => p.a.startsWith(a) && p.b.startsWith(b))!;
      assertEquals(pair("strong", "weak").discordant, { b: n, c: 0 });
      assertEquals(pair("strong", "mid").discordant, { b: n - Math.round(midCount), c: 0 });
      assertEquals(pair("mid", "weak").discordant, { b: Math.round(midCount), c: 0 });
      assert(
        midCount >= 6 && n - midCount >= 6,
        `mid usable on ${midCount} of ${n}: the script needs both sides`,
      );
      const letters = usability.overall.models.map((m) => m.letters);
      assertEquals(new Set(letters).size, 3, `three distinct letters: ${letters}`);
      const model = (name: string) => usability.overall.models.find((m) => m.label.startsWith(name))!;
      assertEquals([model("strong").letters, model("mid").letters, model("weak").letters], ["a", "b", "c"]);
      assertEquals(model("strong").rank.ranks, [1, 1]);
      assertEquals(model("weak").rank.ranks, [3, 3]);
      const csv = await Deno.readTextFile(`${out}/comparison.csv`);
      assertStringIncludes(csv.split("\n")[0], "p,p_holm,p_bh,effect");
      const markdown = await Deno.readTextFile(`${out}/comparison.md`);
      assertStringIncludes(markdown, "| category | A | B | n |");
      assertStringIncludes(result.stdout, "LLMEval-Med: 3 models compared on 23 shared samples");

      // A model against itself (two runs): nothing to tell apart.
      const twin = await compareRuns([`${root}/strong`, `${root}/strong-twin`]);
      const same = twin.comparison.metrics.find((m) => m.metric.name === "usability")!;
      assertEquals([same.overall.pairs[0].p, same.overall.pairs[0].statistic], [1, "b=0 c=0"]);
      assertEquals(same.overall.models.map((m) => m.letters), ["a", "a"]);
      const labels = same.overall.models.map((m) => m.label);
      assert(labels[0].endsWith(" (strong)") && labels[1].endsWith(" (strong-twin)"), labels.join(" | "));
      assertEquals(same.overall.models.map((m) => m.rank.label), ["ranks 1–2 of 2", "ranks 1–2 of 2"]);
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** Runs LLMEval-Med's sample offline (`offline:overlap` judge, run once) with `extra` settings into `out`. */
async function offlineRun(out: string, extra: Record<string, unknown> = {}): Promise<void> {
  await runEval({
    benchmark: "llmeval-med",
    model: "offline:reference",
    judge: "offline:overlap",
    judgeRuns: 1,
    out,
    progress: false,
    renderFigures: false,
    ...extra,
  });
}

Deno.test({
  name:
    "compare CLI: runs without shared samples, a missing run, --out with several runs: one line each, exit 2",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "compare-cli-" });
    try {
      // The two shards of one run hold different samples.
      await offlineRun(`${root}/shard1`, { shard: "1/2" });
      await offlineRun(`${root}/shard2`, { shard: "2/2" });
      const cases: [string[], RegExp][] = [
        [
          [`${root}/shard1`, `${root}/shard2`, "--out", `${root}/out`],
          /^error: compare: .*shard2 shares no sample with .*shard1 \(by sample id: 0 of its \d+ samples are among the \d+ of/,
        ],
        [[`${root}/shard1`, `${root}/absent`, "--out", `${root}/out`], /^error: .*absent: no such directory/],
        [[`${root}/shard1`, `${root}/shard2`], /^error: --out is required with several runs/],
        [[`${root}/shard1`], /^error: compare: .*shard1 has one condition \(default\)/],
        [
          [`${root}/shard1`, `${root}/shard1`, "--out", `${root}/out`, "--metric", "nope"],
          /^error: --metric nope: the runs' rows have no metric "nope"; they have usability/,
        ],
        [[`${root}/shard1`, "--ot", "x"], /^error: unknown option --ot; did you mean --out\?/],
      ];
      for (const [args, pattern] of cases) {
        const result = await compareCli(args);
        assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
        const lines = result.stderr.split("\n").filter((l) => l && !l.startsWith("npm warn"));
        assertEquals(lines.length, 1, result.stderr);
        assertMatch(lines[0], pattern);
      }
      assertEquals(await Deno.stat(`${root}/out`).catch(() => null), null, "nothing written");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "compare CLI on one run: its conditions, labelled by condition, written into the run directory",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "compare-conditions-" });
    try {
      await offlineRun(`${root}/run`, { model: "offline:retrieval", ablations: ["role"] });
      const result = await compareCli([`${root}/run`, "--metric", "mean_score", "--no-render"]);
      assertEquals(result.code, 0, result.stderr);
      const comparison = JSON.parse(await Deno.readTextFile(`${root}/run/comparison.json`)) as Comparison;
      assertEquals(comparison.entries.map((e) => e.label), ["default", "role"]);
      assertEquals(comparison.metrics.map((m) => m.metric.name), ["mean_score"]);
      assertEquals(comparison.metrics[0].binary, false);
      assertEquals(comparison.metrics[0].overall.pairs[0].test, "Wilcoxon signed-rank");
      assert((await Deno.stat(`${root}/run/figures/comparison_mean_score.html`)).isFile);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "reproduce with two models: comparison and power beside the report, letters in the paper table rows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await startFakeServer({ reply: scriptedModels });
    Deno.env.set("OPENAI_API_KEY", "sk-compare-reproduce-0000");
    const root = await Deno.makeTempDir({ prefix: "compare-reproduce-" });
    try {
      await reproduce({
        root,
        models: ["strong", "mid"],
        judge: "fake-judge",
        baseUrl: server.url,
        render: false,
        log: false,
        papersDir: `${ROOT}tests/fixtures/papers/`,
      });
      const dir = `${root}/reports/runs/llmeval-med`;
      const comparison = JSON.parse(await Deno.readTextFile(`${dir}/comparison.json`)) as Comparison;
      assertEquals(comparison.entries.map((e) => e.model.split(" @ ")[0]), ["strong", "mid"]);
      const usability = comparison.metrics.find((m) => m.metric.name === "usability")!;
      assertEquals(usability.overall.models.map((m) => m.letters), ["a", "b"]);
      assert((await Deno.stat(`${root}/figures/runs/llmeval-med/comparison_usability.html`)).isFile);
      // The paper table's rows of our models end with their letters in the category's comparison.
      const table = await Deno.readTextFile(`${root}/reports/papers/toy_llmeval/usability.md`);
      const row = (model: string) => table.split("\n").find((l) => l.startsWith(`| ${model} @ 127.0.0.1`))!;
      const mk = (model: string) =>
        usability.fields.find((f) => f.field === "category")!.scopes
          .find((s) => s.group === "MK")!.models.find((m) => m.label.startsWith(model))!.letters;
      assert(row("strong").split(" | ")[1].endsWith(`) ${mk("strong")}`), row("strong"));
      assert(row("mid").split(" | ")[1].endsWith(`) ${mk("mid")}`), row("mid"));
      assertStringIncludes(table, "Letters after a medeval value");
      // Power: observed on the two models (paired), and the conservative default, at these runs' n and 667.
      const power = await Deno.readTextFile(`${dir}/power.md`);
      assertStringIncludes(power, "| observed: strong @ 127.0.0.1");
      assertStringIncludes(power, "| conservative default | 667 (published set)");
      const index = await Deno.readTextFile(`${root}/reports/index.html`);
      assertStringIncludes(index, 'href="runs/llmeval-med/comparison.md"');
      // Without two real models (climedbench has no judge: both ran, so it is compared too); one benchmark check.
      assert((await Deno.stat(`${root}/reports/runs/permedcqa/power.md`)).isFile);
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
