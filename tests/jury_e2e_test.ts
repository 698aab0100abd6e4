import { assert, assertEquals } from "@std/assert";
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
    // The jury's mean per question: (a + b + 1) / 3 over valid runs, so no answer reaches 4 unless a and b give 5s.
    assert(result.summary.metrics.mean_score.value! < 4);
    const table = await Deno.readTextFile(`${out}/tables/jury_judge.md`);
    for (const label of labels) assert(table.includes(label!), label!);
    assert(table.includes("Krippendorff's alpha (interval)"));
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
