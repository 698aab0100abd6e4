import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { defaultFakeReply, type FakeChatBody, startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

/** The fake translator marks what it translated, so the test can follow each text through the pipeline. */
function reply(body: FakeChatBody): string {
  if (body.model !== "fake-translator") return defaultFakeReply(body);
  const into = body.messages[0].content.match(/into (\w+)/)![1];
  return `[${into}] ${body.messages[1].content}`;
}

Deno.test("pivot translation: a solver using the translator role end to end, stored and skipped on --resume", async () => {
  const server = await startFakeServer({ reply });
  const out = await Deno.makeTempDir({ prefix: "medeval-pivot-" });
  const config = {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: server.url,
    judge: "offline:overlap",
    judgeRuns: 1,
    translator: "fake-translator",
    ablations: ["pivot:en"],
    data: SAMPLE,
    out,
    progress: false,
    renderFigures: false,
  };
  try {
    const { samples } = await loadLlmEvalMed(SAMPLE);
    const first = await runEval(config);
    assertEquals(first.failures, 0);
    // Two translations per answer (question in, answer back), and the baseline asks no translator.
    assertEquals(first.calls.translator.sent, 2 * samples.length);
    const store = new RunStore(`${out}/run.sqlite`);
    const calls = store.calls();
    const outputs = new Map(store.outputs("pivot:en").map((o) => [o.sampleId, o]));
    store.close();
    assertEquals(calls.filter((c) => c.role === "translator").length, 2 * samples.length);

    // The model is asked the translated question; the stored answer is its translation back into Chinese.
    const chats = server.requests.map((r) => r.body as FakeChatBody).filter((b) => b?.model === "fake-model");
    const turn3 = samples.find((s) => s.id === "MTG-2-3")!;
    const asked = chats.find((b) => b.messages.at(-1)?.content === `[English] ${turn3.input}`)!;
    assert(asked, "the model saw the English question");
    // History keeps what the model was actually sent and answered: the translated earlier turns.
    const turn1 = samples.find((s) => s.id === "MTG-2-1")!;
    assertEquals(asked.messages[1].content, `[English] ${turn1.input}`);
    assertStringIncludes(asked.messages[2].content, "Fake answer");
    const answer = outputs.get(turn3.id)!.text!;
    assert(answer.startsWith("[Chinese] Fake answer"), answer);

    // Resumed: every call of every role comes from the store; nothing reaches the server.
    const before = server.requests.length;
    const again = await runEval({ ...config, resume: true });
    assertEquals(server.requests.length, before);
    assertEquals(again.calls.translator, { cached: 2 * samples.length, sent: 0, retries: 0, failed: 0 });
    assertEquals(again.calls.model.sent, 0);
    assertEquals(again.conditions[1].metrics, first.conditions[1].metrics);
    assertEquals(first.conditions[1].condition, "pivot:en");
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("pivot translation without a translator, or a translator nothing calls, is a one-line error", async () => {
  const base = {
    benchmark: "llmeval-med",
    model: "offline:reference",
    judge: "offline:overlap",
    data: SAMPLE,
    out: "/nonexistent/never-written",
    progress: false,
    renderFigures: false,
  };
  await assertRejects(
    () => runEval({ ...base, ablations: ["pivot:en"] }),
    ConfigError,
    "--translator: the pivot:en(chat) solver needs a translator",
  );
  await assertRejects(
    () => runEval({ ...base, translator: "t", translatorBaseUrl: "http://127.0.0.1:9/v1" }),
    ConfigError,
    "--translator: nothing in this run calls a translator",
  );
});
