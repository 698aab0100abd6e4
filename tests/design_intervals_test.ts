/**
 * Intervals that fit the design: every summary chooses each metric's interval from what the metric is
 * (`chooseInterval`) — Wilson or Clopper–Pearson for declared rates, the cluster bootstrap over the task's
 * clusters, the two-level bootstrap for judge scores run several times (clusters, then judge repeats, when they
 * are clustered) — records it in `summary.intervals`, and every table's footnote names it with its n.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  aggregateLlmEvalMed,
  CONVERSATIONS,
  llmEvalMedRows,
} from "../lib/benchmarks/llmeval_med/aggregate.ts";
import { itemToSample, loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { LLMEVAL_MED_JUDGE } from "../lib/benchmarks/llmeval_med/scorer.ts";
import { getTask } from "../lib/benchmarks/registry.ts";
import { InputError } from "../lib/core/errors.ts";
import type { StoredScore } from "../lib/core/records.ts";
import { type Sample, toConversations } from "../lib/core/sample.ts";
import {
  type RunLabels,
  type SampleRow,
  type Summary,
  summaryLabels,
  SummarySchema,
} from "../lib/core/summary.ts";
import type { RunView } from "../lib/core/task.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { summarize } from "../lib/report/summary.ts";
import { intervalLine, summaryNotes } from "../lib/report/tables.ts";
import { wilsonInterval } from "../lib/stats/agreement.ts";
import { bootstrapMean } from "../lib/stats/bootstrap.ts";
import { clopperPearsonInterval } from "../lib/stats/clopper_pearson.ts";
import { chooseInterval } from "../lib/stats/interval_choice.ts";
import { loadTaskFile } from "../lib/task_file/index.ts";
import { loadTaskFileParser, parseTaskFile } from "../lib/task_file/schema.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

// parseTaskFile reads with the YAML parser, loaded on demand.
await loadTaskFileParser();

/** Returns a row with one metric value. */
function row(
  id: string,
  fields: SampleRow["fields"],
  values: SampleRow["values"],
  cluster?: string,
): SampleRow {
  return { id, fields, values, ...(cluster ? { cluster } : {}) };
}

/** Returns a summary around the parts `summarize` computed, as an aggregate writes it. */
function summaryOf(core: ReturnType<typeof summarize>): Summary {
  return {
    ...summaryLabels({
      benchmark: "t",
      model: "m",
      judge: null,
      condition: "default",
      offline: false,
      judgeRuns: 1,
    }),
    n: core.n,
    metrics: core.metrics,
    groups: core.groups,
    counts: {},
    ci_method: "x",
    ...core.design,
    notes: [],
  };
}

/** Returns the width of an interval. */
function width(ci: [number, number] | null): number {
  assert(ci, "an interval");
  return ci[1] - ci[0];
}

Deno.test("a declared rate gets Wilson's interval (Clopper–Pearson below 30), overall and per group; summary.json and the footnote say so", () => {
  // 40 rows: 32 in group "big", 8 in "small"; u = 1 for three rows in four.
  const rows = Array.from(
    { length: 40 },
    (_, i) => row(`r${i}`, { g: i < 32 ? "big" : "small" }, { u: i % 4 === 0 ? 0 : 1, z: 0 }),
  );
  const core = summarize(rows, ["u", "z"], ["g"], { seed: "t", proportions: ["u"] });
  assertEquals(core.metrics.u, { value: 0.75, ci95: wilsonInterval(30, 40), n: 40 });
  assertEquals(core.groups.g.big.u.ci95, wilsonInterval(24, 32));
  assertEquals(core.groups.g.small.u.ci95, clopperPearsonInterval(6, 8));
  assertEquals(core.design.intervals.u, {
    kind: "proportion",
    method: "Wilson",
    n: 40,
    group_methods: ["Clopper–Pearson"],
  });
  // A metric of 0/1 values that is not declared a rate stays a mean, even when every value is 0.
  assertEquals(core.design.intervals.z, { kind: "mean", method: "percentile bootstrap", n: 40 });
  assertEquals(core.metrics.z.ci95, [0, 0]);
  const summary = SummarySchema.parse(summaryOf(core));
  const line = intervalLine(summary)!;
  assertStringIncludes(line, "95% CI: Wilson for u (n = 40; in some groups Clopper–Pearson)");
  assertStringIncludes(line, "percentile bootstrap for z (n = 40)");
  assertEquals(summaryNotes(summary)[1], line);
  // A summary of an earlier version (no intervals) still parses and keeps its CI method line.
  const { intervals: _, ...old } = summary;
  assertEquals(
    summaryNotes(SummarySchema.parse({ ...old, ci_method: "percentile bootstrap" }))[1],
    "values with 95% CI (percentile bootstrap)",
  );
});

Deno.test("a rate of 0% or 100% has an interval wider than the point, clustered or not", () => {
  const ones = Array.from({ length: 10 }, (_, i) => row(`a${i}`, {}, { u: 1 }));
  const zeros = Array.from({ length: 40 }, (_, i) => row(`b${i}`, {}, { u: 0 }));
  const small = summarize(ones, ["u"], [], { seed: "t", proportions: ["u"] });
  assertEquals(small.metrics.u.ci95, clopperPearsonInterval(10, 10));
  assert(small.metrics.u.ci95![0] < 0.75);
  const large = summarize(zeros, ["u"], [], { seed: "t", proportions: ["u"] });
  assertEquals(large.metrics.u.ci95, wilsonInterval(0, 40));
  assert(large.metrics.u.ci95![1] > 0.08);
  // 12 values in 4 clusters, all 1: the cluster bootstrap would give the point; the rate's rule over the 4
  // clusters does not.
  const clustered = Array.from({ length: 12 }, (_, i) => row(`c${i}`, {}, { u: 1 }, `case${i % 4}`));
  const names = { name: "cases", unit: "questions" };
  const core = summarize(clustered, ["u"], [], { seed: "t", proportions: ["u"], clusters: names });
  assertEquals(core.metrics.u, { value: 1, ci95: clopperPearsonInterval(4, 4), n: 12 });
  assertEquals(core.design.intervals.u.method, "Clopper–Pearson over cases");
  assertEquals(core.design.intervals.u.clusters, 4);
  assertEquals(core.design.clustered_by, names);
});

Deno.test("chooseInterval itself gives a clustered rate of 100% an interval wider than the point, counting each cluster once", () => {
  const values = Array(12).fill(1);
  const clusters = values.map((_, i) => `case${i % 4}`);
  const chosen = chooseInterval({ kind: "proportion", values, clusters, clusterName: "cases" }, {
    seed: "t",
  });
  assertEquals(chosen, {
    value: 1,
    ci95: clopperPearsonInterval(4, 4),
    n: 12,
    method: "Clopper–Pearson over cases",
    clusters: 4,
  });
  assert(chosen.ci95![0] < 0.5, `${chosen.ci95}`);
  // Any rate between 0% and 100% resamples the clusters.
  const mixed = chooseInterval({ kind: "proportion", values: [0, ...values.slice(1)], clusters }, {
    seed: "t",
  });
  assertEquals(mixed.method, "cluster bootstrap (clusters)");
});

Deno.test("a group in which no two rows share a cluster gets the unclustered rule; the others resample clusters", () => {
  // Group "multi": 10 cases of 3 questions; group "single": 10 one-question cases.
  const multi = Array.from(
    { length: 30 },
    (_, i) => row(`m${i}`, { g: "multi" }, { u: i % 6 < 3 ? 1 : 0 }, `m${Math.floor(i / 3)}`),
  );
  const single = Array.from({ length: 10 }, (_, i) => row(`s${i}`, { g: "single" }, { u: i % 2 }, `s${i}`));
  const clusters = { name: "cases", unit: "questions" };
  const core = summarize([...multi, ...single], ["u"], ["g"], { seed: "t", proportions: ["u"], clusters });
  assertEquals(core.groups.g.single.u.ci95, clopperPearsonInterval(5, 10));
  const expected = chooseInterval({
    kind: "proportion",
    values: multi.map((r) => r.values.u!),
    clusters: multi.map((r) => r.cluster!),
    clusterName: "cases",
  }, { seed: "t:g=multi:u" });
  assertEquals(core.groups.g.multi.u.ci95, expected.ci95);
  assertEquals(core.design.intervals.u.method, "cluster bootstrap (cases)");
  assertEquals(core.design.intervals.u.clusters, 20);
  assertEquals(core.design.intervals.u.group_methods, ["Clopper–Pearson"]);
});

const LABELS: RunLabels = {
  benchmark: "llmeval-med",
  model: "m",
  judge: "j",
  condition: "default",
  offline: false,
  judgeRuns: 1,
};

/** LLMEval-Med rounds: `conversations` conversations of `rounds` rounds, in three categories. */
function conversationSamples(conversations: number, rounds: number): Sample[] {
  return Array.from(
    { length: conversations },
    (_, c) =>
      Array.from({ length: rounds }, (_, r) =>
        itemToSample(
          {
            category1: "x",
            category2: "y",
            round: r + 1,
            problem: `conversation ${c}, round ${r + 1}`,
            groupCode: c,
          },
          ["MK", "MR", "MLU"][c % 3],
          { file: "t", record: `${c}-${r}` },
        )),
  ).flat();
}

/** Returns a run view in which each sample's judge gave `score(sample)` in each of its runs. */
function judgedView(
  samples: readonly Sample[],
  score: (sample: Sample, run: number) => number,
  runs = 1,
): RunView {
  const judging = (sample: Sample, run: number): StoredScore => ({
    sampleId: sample.id,
    condition: "default",
    scorer: LLMEVAL_MED_JUDGE.name,
    judge: "j",
    run,
    value: score(sample, run),
    values: null,
    valid: true,
    reason: null,
    callKey: null,
    detail: null,
  });
  return {
    samples: [...samples],
    outputs: new Map(samples.map((s) => [s.id, { answered: true, error: null } as never])),
    scores: new Map(samples.map((s) => [s.id, Array.from({ length: runs }, (_, r) => judging(s, r + 1))])),
  };
}

Deno.test("LLMEval-Med: rounds of one conversation are clustered, every group too; with correlated rounds the interval is wider than Wilson's over rounds", async () => {
  assertEquals((await getTask("llmeval-med")).clusters, CONVERSATIONS);
  // 30 conversations of 3 rounds; every round of an even conversation scores 5 (usable), of an odd one 2.
  const samples = conversationSamples(30, 3);
  const view = judgedView(samples, (s) => (Number(s.conversation!.id.split("-")[1]) % 2 ? 2 : 5));
  const rows = llmEvalMedRows(view, LABELS);
  assertEquals(new Set(rows.map((r) => r.cluster)).size, 30);
  const summary = SummarySchema.parse(aggregateLlmEvalMed(rows, view, LABELS));
  const usability = summary.metrics.usability;
  assertEquals(usability.value, 0.5);
  assertEquals(summary.intervals!.usability, {
    kind: "proportion",
    method: "cluster bootstrap (conversations)",
    n: 90,
    clusters: 30,
  });
  assertEquals(summary.clustered_by, { name: "conversations", unit: "rounds" });
  const values = rows.map((r) => r.values.usability!);
  const clusters = rows.map((r) => r.cluster!);
  const expected = chooseInterval({ kind: "proportion", values, clusters, clusterName: "conversations" }, {
    seed: "llmeval-med:default:all:usability",
  });
  assertEquals(usability.ci95, expected.ci95);
  // Resampling rounds as if independent (Wilson over 90 rounds) is far narrower than resampling conversations.
  assert(width(usability.ci95) > 1.4 * width(wilsonInterval(45, 90)), `${usability.ci95}`);
  // Groups use the same method, over their own conversations.
  const mk = rows.filter((r) => r.fields.category === "MK");
  const mkExpected = chooseInterval({
    kind: "proportion",
    values: mk.map((r) => r.values.usability!),
    clusters: mk.map((r) => r.cluster!),
    clusterName: "conversations",
  }, { seed: "llmeval-med:default:category=MK:usability" });
  assertEquals(summary.groups.category.MK.usability.ci95, mkExpected.ci95);
  assertStringIncludes(
    intervalLine(summary)!,
    "cluster bootstrap (conversations) for usability, mean_score, op (90 rounds in 30 conversations)",
  );
});

Deno.test("an LLMEval-Med run on the shipped sample: summary.json and every table name its clusters, one per conversation", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-design-" });
  try {
    const data = `${ROOT}data/llmeval_med/sample.json`;
    const result = await runCli([
      "eval",
      "llmeval-med",
      "--model",
      "offline:reference",
      "--judge",
      "offline:overlap",
      "--data",
      data,
      "--out",
      out,
      "--no-render",
      "--quiet",
    ]);
    assertEquals(result.code, 0, result.stderr);
    const { samples } = await loadLlmEvalMed(data);
    const conversations = toConversations(samples).length;
    assert(conversations < samples.length, "the sample has multi-round conversations");
    const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    assertEquals(summary.intervals!.usability.clusters, conversations);
    assertEquals(summary.intervals!.usability.n, samples.length);
    const named = `${samples.length} rounds in ${conversations} conversations`;
    let tables = 0;
    for await (const entry of Deno.readDir(`${out}/tables`)) {
      if (!entry.name.endsWith(".md")) continue;
      tables++;
      assertStringIncludes(await Deno.readTextFile(`${out}/tables/${entry.name}`), named, entry.name);
    }
    assert(tables >= 4, `${tables} tables`);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

/** One LLMEval-Med question of the scripted-judge runs: conversation `group`, round `round`. */
interface ScriptedQuestion {
  problem: string;
  group: number;
  round: number;
}

/**
 * Runs LLMEval-Med on `questions` (category MK) against the fake server with the scripted judge, 3 judge runs,
 * in `dir`; returns the run's summary and the overview table.
 */
async function runScriptedJudge(
  dir: string,
  questions: readonly ScriptedQuestion[],
): Promise<{ summary: Summary; overview: string }> {
  const server = await startFakeServer({ reply: scriptedReply });
  Deno.env.set("MEDEVAL_DESIGN_KEY", "sk-test-design");
  try {
    await Deno.writeTextFile(
      `${dir}/data.jsonl`,
      questions.map((q) =>
        JSON.stringify({
          category: "MK",
          category1: "x",
          category2: "y",
          round: q.round,
          problem: q.problem,
          groupCode: q.group,
          sanswer: "rest",
        })
      ).join("\n") + "\n",
    );
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      apiKeyEnv: "MEDEVAL_DESIGN_KEY",
      judge: "fake-judge",
      judgeBaseUrl: server.url,
      judgeApiKeyEnv: "MEDEVAL_DESIGN_KEY",
      judgeRuns: 3,
      data: `${dir}/data.jsonl`,
      out: `${dir}/run`,
      concurrency: 4,
      progress: false,
      renderFigures: false,
    });
    assertEquals(result.failures, 0);
    return {
      summary: SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`))),
      overview: await Deno.readTextFile(`${dir}/run/tables/overview.md`),
    };
  } finally {
    await server.close();
    Deno.env.delete("MEDEVAL_DESIGN_KEY");
  }
}

/**
 * Returns a question's judge repeats as the summary has them, from the script: its valid scores over the 3
 * runs when two or more, else its one score; `null` when the judge never gave one.
 */
function scriptedRepeats(problem: string): number[] | null {
  const valid = [1, 2, 3].map((run) => plannedScore(questionTag(problem), run)).filter((s) => s !== null);
  return valid.length ? valid : null;
}

/** Returns the mean of `values`. */
function meanOf(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

Deno.test("judge repeats: a noisy judge's runs widen mean_score's interval over the one of repeats averaged first", async () => {
  // 40 one-round questions (no clusters), judged 3 times by the scripted judge, whose score varies by run.
  const dir = await Deno.makeTempDir({ prefix: "medeval-design-" });
  try {
    const questions = Array.from(
      { length: 40 },
      (_, i) => ({ problem: `Question ${i + 1}: what helps with symptom ${i}?`, group: i, round: 1 }),
    );
    const { summary, overview } = await runScriptedJudge(dir, questions);
    const repeats = questions.map((q) => scriptedRepeats(q.problem)).filter((r) => r !== null);
    assert(repeats.some((r) => new Set(r).size > 1), "the judge varies by run");
    const seed = "llmeval-med:default:all:mean_score";
    const twoLevel = chooseInterval({ kind: "judged mean", repeats }, { seed });
    assertEquals(summary.metrics.mean_score.ci95, twoLevel.ci95);
    assertEquals(summary.intervals!.mean_score, {
      kind: "judged mean",
      method: "two-level bootstrap (items, judge repeats)",
      n: repeats.length,
      repeats: 3,
    });
    assertEquals(summary.clustered_by, undefined);
    const averaged = bootstrapMean(repeats.map(meanOf), { seed });
    assert(
      width(twoLevel.ci95) > 1.2 * width(averaged.ci95),
      `two-level ${twoLevel.ci95} vs averaged ${averaged.ci95}`,
    );
    assertStringIncludes(
      overview,
      `two-level bootstrap (items, 3 judge repeats) for mean_score (n = ${repeats.length})`,
    );
    assertStringIncludes(overview, "Wilson for usability, op (n = 40)");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge repeats in conversations: mean_score resamples conversations, then each round's judge repeats; a noisy judge widens it over the repeats averaged first", async () => {
  // 30 conversations of 1–3 rounds, each round judged 3 times by the scripted judge.
  const dir = await Deno.makeTempDir({ prefix: "medeval-design-" });
  try {
    const questions = Array.from({ length: 30 }, (_, c) =>
      Array.from({ length: 1 + (c % 3) }, (_, r) => ({
        problem: `Conversation ${c}, round ${r + 1}: and what about symptom ${c}-${r}?`,
        group: c,
        round: r + 1,
      }))).flat();
    const { summary, overview } = await runScriptedJudge(dir, questions);
    const scored = questions
      .map((q) => ({ repeats: scriptedRepeats(q.problem), cluster: `MK-${q.group}` }))
      .filter((q): q is { repeats: number[]; cluster: string } => q.repeats !== null);
    const repeats = scored.map((q) => q.repeats);
    const clusters = scored.map((q) => q.cluster);
    const conversations = new Set(clusters).size;
    assert(conversations < repeats.length && repeats.some((r) => new Set(r).size > 1));
    const seed = "llmeval-med:default:all:mean_score";
    const chosen = chooseInterval(
      { kind: "judged mean", repeats, clusters, clusterName: "conversations" },
      { seed },
    );
    assertEquals(summary.metrics.mean_score, { value: chosen.value, ci95: chosen.ci95, n: repeats.length });
    assertEquals(summary.intervals!.mean_score, {
      kind: "judged mean",
      method: "cluster bootstrap (conversations, judge repeats)",
      n: repeats.length,
      clusters: conversations,
      repeats: 3,
    });
    // The script's judge noise is larger than the spread of the rounds' means: the cluster bootstrap of the
    // averaged scores, which can only see that spread, is narrower.
    const averaged = chooseInterval(
      { kind: "mean", values: repeats.map(meanOf), clusters, clusterName: "conversations" },
      { seed },
    );
    assertEquals(averaged.method, "cluster bootstrap (conversations)");
    assert(
      width(chosen.ci95) > 1.3 * width(averaged.ci95),
      `clusters then repeats ${chosen.ci95} vs averaged first ${averaged.ci95}`,
    );
    assertStringIncludes(
      overview,
      `cluster bootstrap (conversations, 3 judge repeats) for mean_score (${repeats.length} rounds in ${conversations} conversations)`,
    );
    assert(!overview.includes("averaged first"), overview);
    // A summary of an earlier version, whose cluster bootstrap took the averaged scores, keeps saying so.
    const earlier = {
      ...summary,
      intervals: {
        ...summary.intervals,
        mean_score: { ...summary.intervals!.mean_score, method: "cluster bootstrap (conversations)" },
      },
    };
    assertStringIncludes(
      intervalLine(earlier)!,
      `mean_score (${repeats.length} rounds in ${conversations} conversations; 3 judge repeats averaged first)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Writes a choice task file clustered by `case` and its data: 8 cases of 3 questions, cases 0-2 answered wrong. */
async function writeClusteredTask(dir: string, cluster = "case"): Promise<void> {
  const lines = Array.from({ length: 24 }, (_, i) => {
    const kase = Math.floor(i / 3);
    // The offline reference model answers with the reference: the wrong letter in cases 0-2.
    return JSON.stringify({
      id: `q${i}`,
      question: `Case ${kase}, question ${i}: which option?`,
      options: { A: "one", B: "two", C: "three" },
      answer: "B",
      reference: kase < 3 ? "Answer: A" : "Answer: B",
      case: `case-${kase}`,
    });
  });
  await Deno.writeTextFile(`${dir}/data.jsonl`, lines.join("\n") + "\n");
  await Deno.writeTextFile(
    `${dir}/task.yaml`,
    `name: clustered_mcq
data:
  path: data.jsonl
columns:
  choices: options
cluster: ${cluster}
scorer:
  kind: choice
`,
  );
}

Deno.test("a task file's cluster: column clusters its samples in summary.json and the footnotes; a bad one is one line", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-design-" });
  try {
    await t.step("a cluster column works", async () => {
      await writeClusteredTask(dir);
      const result = await runCli([
        "eval",
        `${dir}/task.yaml`,
        "--model",
        "offline:reference",
        "--out",
        `${dir}/run`,
        "--no-render",
        "--quiet",
      ]);
      assertEquals(result.code, 0, result.stderr);
      const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`)));
      assertEquals(summary.metrics.accuracy.value, 15 / 24);
      assertEquals(summary.intervals!.accuracy, {
        kind: "proportion",
        method: "cluster bootstrap (case clusters)",
        n: 24,
        clusters: 8,
      });
      assertEquals(summary.clustered_by, { name: "case clusters", unit: "samples" });
      // Whole cases right or wrong: 8 clusters carry less information than 24 independent questions.
      assert(width(summary.metrics.accuracy.ci95) > width(clopperPearsonInterval(15, 24)));
      const overview = await Deno.readTextFile(`${dir}/run/tables/overview.md`);
      assertStringIncludes(
        overview,
        "cluster bootstrap (case clusters) for accuracy (24 samples in 8 case clusters)",
      );
    });
    await t.step("a cluster column the data lacks", async () => {
      await writeClusteredTask(dir, "cas");
      const task = await loadTaskFile(`${dir}/task.yaml`);
      const error = await assertRejects(() => task.load(`${dir}/data.jsonl`), InputError);
      assertStringIncludes(error.message, `no column "cas", named by key "cluster"`);
      assertStringIncludes(error.message, `did you mean "case"?`);
      assert(!error.message.includes("\n"));
    });
    await t.step("a cluster value that is not text or a number", async () => {
      await writeClusteredTask(dir);
      const data = await Deno.readTextFile(`${dir}/data.jsonl`);
      await Deno.writeTextFile(`${dir}/data.jsonl`, data.replace('"case":"case-0"', '"case":["case-0"]'));
      const task = await loadTaskFile(`${dir}/task.yaml`);
      const error = await assertRejects(() => task.load(`${dir}/data.jsonl`), InputError);
      assertStringIncludes(error.message, `${dir}/data.jsonl: line 1: field "case": expected a cluster id`);
      assert(!error.message.includes("\n"));
    });
    await t.step("a cluster key that is not a column name", () => {
      const source = "data:\n  path: d.jsonl\ncluster: [a, b]\nscorer:\n  kind: exact\n";
      const error = (() => {
        try {
          parseTaskFile(source, "x.yaml");
        } catch (err) {
          return err as Error;
        }
        throw new Error("accepted");
      })();
      assertEquals(error.message, 'x.yaml: line 3: key "cluster": expected text, found a list');
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
