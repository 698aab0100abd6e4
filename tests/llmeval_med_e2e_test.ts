import { assert, assertAlmostEquals, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { defaultFakeReply, type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { walkFiles } from "./walk.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;
const SECRET = "sk-test-DO-NOT-LEAK-0123456789abcdef";

Deno.test("LLMEval-Med end to end against the fake server: usability recomputed independently", async () => {
  const server = await startFakeServer({
    reply: scriptedReply,
    latencyMs: 5,
    fault: (r) => {
      if (r.index === 3) return { status: 429, retryAfterSeconds: 0 };
      if (r.index === 7) return { status: 500 };
      if (r.index === 11) return { malformed: true };
      if (r.index === 15) return { hang: true };
      return undefined;
    },
  });
  Deno.env.set("MEDEVAL_TEST_KEY", SECRET);
  const out = await Deno.makeTempDir({ prefix: "medeval-e2e-" });
  try {
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      apiKeyEnv: "MEDEVAL_TEST_KEY",
      judge: "fake-judge",
      judgeBaseUrl: server.url,
      judgeApiKeyEnv: "MEDEVAL_TEST_KEY",
      judgeRuns: 3,
      data: SAMPLE,
      out,
      concurrency: 4,
      timeoutSeconds: 1,
      progress: false,
      renderFigures: true,
      retryPolicy: { maxRetries: 4, baseDelayMs: 10, maxDelayMs: 50 },
    });
    assertEquals(result.failures, 0);

    // Independent recomputation from the script: mean of valid scores over 3 runs, usable if >= 4.
    const { samples } = await loadLlmEvalMed(SAMPLE);
    const byCategory = new Map<string, { usable: number; n: number }>();
    let usableAll = 0;
    let judgeErrors = 0;
    for (const sample of samples) {
      const scores = [1, 2, 3].map((run) => plannedScore(questionTag(sample.input), run));
      judgeErrors += scores.filter((s) => s === null).length;
      const valid = scores.filter((s): s is number => s !== null);
      const usable = valid.length > 0 && valid.reduce((a, b) => a + b, 0) / valid.length >= 4 ? 1 : 0;
      const c = String(sample.fields.category);
      const entry = byCategory.get(c) ?? { usable: 0, n: 0 };
      entry.usable += usable;
      entry.n += 1;
      byCategory.set(c, entry);
      usableAll += usable;
    }
    const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    for (const [category, { usable, n }] of byCategory) {
      const est = summary.groups.category[category].usability;
      assertEquals(est.n, n, category);
      assertAlmostEquals(est.value!, usable / n, 1e-12, category);
      assert(est.ci95![0] <= est.value! && est.value! <= est.ci95![1]);
    }
    assertAlmostEquals(summary.metrics.op.value!, usableAll / samples.length, 1e-12);
    assertEquals(summary.metrics.op.n, samples.length);
    assertEquals(summary.counts.judge_errors, judgeErrors);
    assert(
      judgeErrors > 0 && usableAll > 0 && usableAll < samples.length,
      "the script must exercise all branches",
    );

    // Multi-turn: round 3 of MTG-2 carries rounds 1-2 with the model's own answers; the judge sees only round 3.
    const chats = server.requests.filter((r) => r.status === 200 && r.path.endsWith("/chat/completions"))
      .map((r) => r.body as FakeChatBody);
    const answerTo = (input: string) =>
      defaultFakeReply({ model: "fake-model", messages: [{ role: "user", content: input }] });
    const [turn1, turn2, turn3] = ["MTG-2-1", "MTG-2-2", "MTG-2-3"].map((id) =>
      samples.find((s) => s.id === id)!
    );
    const modelCall = chats.find((b) => b.messages.at(-1)?.content === turn3.input && b.messages.length > 2)!;
    assertEquals(modelCall.messages, [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: turn1.input },
      { role: "assistant", content: answerTo(turn1.input) },
      { role: "user", content: turn2.input },
      { role: "assistant", content: answerTo(turn2.input) },
      { role: "user", content: turn3.input },
    ]);
    // Every judging shows one round: its question and the model's answer to it, nothing of another round.
    const judgeCalls = chats.filter((b) => b.messages[1]?.content.includes("### Student's answer"));
    assert(judgeCalls.length >= 3 * samples.length, `${judgeCalls.length} judge calls`);
    for (const call of judgeCalls) {
      assertEquals(call.messages.map((m) => m.role), ["system", "user"]);
      assertEquals(call.response_format?.type, "json_object");
      const user = call.messages[1].content;
      const judged = samples.filter((s) =>
        user.includes(`### Question\n${s.input}\n\n### Reference answer\n`)
      );
      assertEquals(judged.length, 1, user.slice(0, 200));
      const [sample] = judged;
      assertStringIncludes(user, `### Student's answer\n${answerTo(sample.input)}\n\n`);
      assertEquals(user.match(/Fake answer [0-9a-f]{8}/g), [`Fake answer ${questionTag(sample.input)}`]);
      for (const other of samples) {
        if (other !== sample && other.conversation && other.conversation.id === sample.conversation?.id) {
          assert(!user.includes(other.input), `the judging of ${sample.id} shows ${other.id}`);
        }
      }
    }
    const round3 = judgeCalls.filter((b) => b.messages[1].content.includes(`### Question\n${turn3.input}\n`));
    assertEquals(new Set(round3.map((b) => b.seed! % 1000)), new Set([0, 1, 2]));
    assertEquals(new Set(judgeCalls.map((b) => b.seed! % 1000)), new Set([0, 1, 2]));

    // Retries happened and were logged; the key reached the server but is written nowhere.
    const store = new RunStore(`${out}/run.sqlite`);
    const retries = store.events().filter((e) => e.kind === "retry").length;
    store.close();
    // The 500, the malformed body and the hang use the caller's retries; the 429 is waited out inside the
    // endpoint pool (queued, never counted against the retry budget).
    assert(retries >= 3, `expected >= 3 retries, saw ${retries}`);
    assertEquals(server.requests.filter((r) => r.status === 429).length, 1);
    assert(server.requests.every((r) => r.authorization === `Bearer ${SECRET}`));
    for await (const path of walkFiles(out)) {
      if (path.endsWith(".png") || path.endsWith(".pdf") || path.endsWith("plotly.js")) continue;
      const text = new TextDecoder().decode(await Deno.readFile(path));
      assert(!text.includes(SECRET), `secret leaked into ${path}`);
    }

    // Outputs: per-sample rows, tables in three formats, figures in four.
    const lines = (await Deno.readTextFile(`${out}/samples.jsonl`)).trim().split("\n");
    assertEquals(lines.length, samples.length);
    for (const name of ["overview", "by_category", "by_category2", "by_difficulty"]) {
      for (const ext of ["md", "csv", "tex"]) {
        assert((await Deno.stat(`${out}/tables/${name}.${ext}`)).size > 0);
      }
    }
    for (const ext of ["html", "svg", "png", "pdf"]) {
      assert((await Deno.stat(`${out}/figures/usability_by_category.${ext}`)).size > 500, ext);
    }
    assertStringIncludes(
      await Deno.readTextFile(`${out}/tables/overview.md`),
      "| MK | MLU | MR | MSE | MTG | OP |",
    );
  } finally {
    await server.close();
  }
});

Deno.test("a judge-scored benchmark without --judge is an error, not a silent self-judge", async () => {
  const out = await Deno.makeTempDir();
  await assertRejects(
    () =>
      runEval({ benchmark: "llmeval-med", model: "offline:reference", data: SAMPLE, out, progress: false }),
    ConfigError,
    "--judge",
  );
});

Deno.test("an existing run is never overwritten without --resume", async () => {
  const out = await Deno.makeTempDir();
  const config = {
    benchmark: "llmeval-med",
    model: "offline:reference",
    judge: "offline:overlap",
    judgeRuns: 1,
    data: SAMPLE,
    out,
    progress: false,
    renderFigures: false,
  };
  const first = await runEval(config);
  assert(first.summary.offline);
  await assertRejects(() => runEval(config), ConfigError, "--resume");
  const again = await runEval({ ...config, resume: true });
  assertEquals(again.calls.model.sent, 0);
  assertEquals(again.summary.metrics, first.summary.metrics);
  await assertRejects(() => runEval({ ...config, resume: true, judgeRuns: 2 }), ConfigError, "judge_runs");
});
