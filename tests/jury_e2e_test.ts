import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

/** Judges a and b follow the script; judge c always says 1, so the jury disagrees where a and b do not. */
function reply(body: FakeChatBody): string {
  if (body.model === "judge-c" && body.messages[1]?.content.includes("### Student's answer")) {
    return JSON.stringify({ score: 1, reason: "harsh" });
  }
  return scriptedReply(body);
}

Deno.test("a 3-judge jury end to end: each judge's verdicts stored and reported, the jury's mean, agreement", async () => {
  const server = await startFakeServer({ reply });
  const out = await Deno.makeTempDir({ prefix: "medeval-jury-" });
  try {
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      judge: ["judge-a", "judge-b", "judge-c"],
      judgeRuns: 2,
      data: SAMPLE,
      out,
      progress: false,
      renderFigures: false,
    });
    const n = result.samples.length;
    assert(result.calls.judge.sent >= 3 * 2 * n);
    const store = new RunStore(`${out}/run.sqlite`);
    const scores = store.scores("default").filter((s) => s.scorer === "judge");
    store.close();
    assertEquals(scores.length, 3 * 2 * n);
    const labels = [...new Set(scores.map((s) => s.judge))];
    assertEquals(labels.length, 3);
    const jury = result.summary.juries![0];
    assertEquals(jury.judges, labels);
    assertEquals(jury.aggregate, "mean");
    const c = labels.find((l) => l!.startsWith("judge-c"))!;
    assertEquals(jury.by_judge[c].mean.value, 1);
    assert(jury.agreement.alpha.value! < 0.5, "a judge that always says 1 disagrees");
    assertEquals(result.summary.judge, labels.join(" + "));
    // The jury's mean per question, recomputed from the stored scores: each judge's mean over its valid runs,
    // then the mean of the judges'; the summary's mean score is the mean of those over questions.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const perQuestion = [...Map.groupBy(scores, (s) => s.sampleId).values()].map((list) => {
      const byJudge = [...Map.groupBy(list.filter((s) => s.valid), (s) => s.judge).values()]
        .map((js) => mean(js.map((s) => s.value!)));
      return byJudge.length ? mean(byJudge) : null;
    }).filter((v) => v !== null);
    assertAlmostEquals(result.summary.metrics.mean_score.value!, mean(perQuestion), 1e-12);
    assertEquals(result.summary.metrics.mean_score.n, perQuestion.length);
    const table = await Deno.readTextFile(`${out}/tables/jury_judge.md`);
    for (const label of labels) assert(table.includes(label!), label!);
    assert(table.includes("Krippendorff's alpha (interval)"));
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
