/**
 * Answer outcomes against the fake server: truncated, refused (content filter, `refusal` field) and empty
 * answers, reasoning kept apart from the answer, context-limit errors and missing usage, through `eval` of
 * LLMEval-Med and CliMedBench, counted in the summary exactly as the fake produced them.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { parseBatchResults } from "../lib/providers/batch/batch_jsonl.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { isRefused } from "../lib/core/refusal.ts";
import { perMedCqaRows } from "../lib/benchmarks/permedcqa/aggregate.ts";
import type { Sample } from "../lib/core/sample.ts";
import { scriptedReply } from "./fake_judge.ts";
import {
  everyKth,
  type FakeAnswerOutcome,
  type FakeChatBody,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { llmevalCommand, ROOT, runCli } from "./run_cli.ts";

const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;
const MODEL = "fake-model";

/** What the fake answered the model under test (not the judge), by call key. */
function modelOutcomes(
  requests: { body: unknown; callKey: string | null; status: number | null; outcome?: FakeAnswerOutcome }[],
) {
  const byKey = new Map<string, FakeAnswerOutcome | "stop" | "400">();
  const bodies = new Map<string, FakeChatBody>();
  const sent = new Map<string, number>();
  for (const r of requests) {
    const body = r.body as FakeChatBody | null;
    if (body?.model !== MODEL || !r.callKey) continue;
    byKey.set(r.callKey, r.status === 400 ? "400" : r.outcome ?? "stop");
    bodies.set(r.callKey, body);
    sent.set(r.callKey, (sent.get(r.callKey) ?? 0) + 1);
  }
  const count = (o: string) => [...byKey.values()].filter((v) => v === o).length;
  return { byKey, bodies, sent, count };
}

/** Runs `args` against a fake with `options`; returns the summary, the fake's model outcomes and the store. */
async function runAgainst(
  benchmark: "llmeval-med" | "climedbench",
  options: FakeServerOptions,
  extra: string[] = [],
) {
  const server = await startFakeServer({ reply: scriptedReply, ...options });
  const out = await Deno.makeTempDir({ prefix: "medeval-outcomes-" });
  try {
    const result = benchmark === "llmeval-med"
      ? await (async () => {
        const o = await llmevalCommand(server.url, out, false, ["--quiet", ...extra]).output();
        const text = (b: Uint8Array) => new TextDecoder().decode(b);
        return { code: o.code, stdout: text(o.stdout), stderr: text(o.stderr) };
      })()
      : await runCli([
        "eval",
        "climedbench",
        "--model",
        MODEL,
        "--base-url",
        server.url,
        "--embed-model",
        "fake-embed",
        "--data",
        CLIMED,
        "--out",
        out,
        "--no-render",
        "--quiet",
        ...extra,
      ]);
    const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
    try {
      return { result, summary, fake: modelOutcomes(server.requests), calls: store.calls(), out };
    } finally {
      store.close();
    }
  } finally {
    await server.close();
  }
}

const MODES: { name: string; outcome: (body: FakeChatBody) => FakeAnswerOutcome | undefined }[] = [
  { name: "length truncation, 1 in 3", outcome: (b) => everyKth(3, b) ? "length" : undefined },
  { name: "content filter, 1 in 4", outcome: (b) => everyKth(4, b) ? "content_filter" : undefined },
  { name: "refusal field, 1 in 4", outcome: (b) => everyKth(4, b) ? "refusal" : undefined },
];

for (const benchmark of ["llmeval-med", "climedbench"] as const) {
  for (const mode of MODES) {
    Deno.test(`${benchmark}, ${mode.name}: exit 0, the summary counts the fake's outcomes exactly`, async () => {
      const { result, summary, fake } = await runAgainst(benchmark, {
        answerOutcome: (b) => b.model === MODEL ? mode.outcome(b) : undefined,
      });
      assertEquals(result.code, 0, result.stderr);
      const truncated = fake.count("length");
      const refused = fake.count("content_filter") + fake.count("refusal");
      assert(truncated + refused > 0, "the fake produced no outcome to count");
      assertEquals(summary.counts.truncated, truncated);
      assertEquals(summary.counts.refused, refused);
      // A filtered or refused reply is empty, but counted as refused, not as an empty answer.
      assertEquals(summary.counts.empty_answers, 0);
      assertEquals(summary.counts.context_errors, 0);
      const note = summary.notes.find((n: string) => n.startsWith("model outputs:"));
      assert(note, summary.notes.join("\n"));
      assertStringIncludes(note, `${truncated} of ${summary.counts.samples} truncated`);
      assertStringIncludes(note, `${refused} refused`);
      assertStringIncludes(note, "scored as given");
      // More than 5% truncated: the run says to raise --max-tokens; otherwise it does not.
      assertEquals(result.stderr.includes("--max-tokens"), truncated / summary.counts.samples > 0.05);
    });
  }
}

Deno.test("empty answers are counted as empty, not refused", async () => {
  const { result, summary, fake } = await runAgainst("climedbench", {
    reply: (b) => b.model === MODEL && everyKth(3, b) ? "" : scriptedReply(b),
  });
  assertEquals(result.code, 0, result.stderr);
  const empty = [...fake.bodies.values()].filter((b) => everyKth(3, b)).length;
  assert(empty > 0);
  assertEquals(summary.counts.empty_answers, empty);
  assertEquals(summary.counts.refused, 0);
  assertEquals(summary.counts.truncated, 0);
  assertStringIncludes(summary.notes.join("\n"), `${empty} empty`);
});

Deno.test("an answer without any outcome adds zero counts and no note", async () => {
  const { result, summary } = await runAgainst("climedbench", {});
  assertEquals(result.code, 0, result.stderr);
  for (const key of ["truncated", "refused", "empty_answers", "context_errors"]) {
    assertEquals(summary.counts[key], 0, key);
  }
  assert(!summary.notes.some((n: string) => n.startsWith("model outputs:")));
});

for (const field of ["reasoning_content", "reasoning"] as const) {
  Deno.test(`${field}: the reasoning is stored on the call, apart from the answer`, async () => {
    const { result, calls, out } = await runAgainst("climedbench", {
      reasoning: { field, text: (b) => b.model === MODEL ? `THOUGHT about ${b.messages.length}` : undefined },
    });
    assertEquals(result.code, 0, result.stderr);
    const model = calls.filter((c) => c.role === "model");
    assert(model.length > 0);
    for (const call of model) {
      assert(call.reasoning?.startsWith("THOUGHT about"), JSON.stringify(call));
      assert(!call.text.includes("THOUGHT"));
    }
    assert(!(await Deno.readTextFile(`${out}/samples.jsonl`)).includes("THOUGHT"));
  });
}

Deno.test("missing usage: calls counted as without usage, tokens and cost unknown, never 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-outcomes-prices-" });
  const prices = `${dir}/prices.json`;
  await Deno.writeTextFile(
    prices,
    JSON.stringify({ currency: "USD", per_tokens: 1000, models: { [MODEL]: { input: 0.1, output: 0.1 } } }),
  );
  const { result, summary } = await runAgainst("climedbench", { omitUsage: true }, ["--prices", prices]);
  assertEquals(result.code, 0, result.stderr);
  const row = summary.usage.find((r: { role: string }) => r.role === "model");
  assert(row.calls > 0);
  assertEquals(row.calls_without_usage, row.calls);
  assertEquals(row.prompt_tokens, null);
  assertEquals(row.completion_tokens, null);
  assertEquals(row.cost, null);
  assertStringIncludes(result.stdout, "tokens unknown");
  assertStringIncludes(result.stdout, "cost unknown");
});

Deno.test("context-limit errors: counted in the summary as the fake refused them, never sent twice", async () => {
  const { result, summary, fake } = await runAgainst("climedbench", {
    contextLimit: { tokens: 60, style: "vllm", models: (m) => m === MODEL },
  });
  const refused = fake.count("400");
  assert(refused > 0 && refused < fake.byKey.size, `${refused} of ${fake.byKey.size}`);
  assertEquals(summary.counts.context_errors, refused);
  assertEquals(summary.counts.failed, 0);
  assertEquals(summary.complete, true);
  assertEquals(summary.n, summary.counts.samples);
  assertStringIncludes(summary.notes.join("\n"), `${refused} context-limit errors`);
  assertStringIncludes(summary.notes.join("\n"), "scored as a failed answer (in n)");
  assertEquals(result.code, 0, result.stderr);
  for (const [key, outcome] of fake.byKey) {
    if (outcome === "400") assertEquals(fake.sent.get(key), 1, `context-limit request ${key} sent again`);
  }
});

Deno.test("a store written before calls kept refusal and reasoning is read, and takes them once opened", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-outcomes-old-" });
  const db = new DatabaseSync(`${dir}/run.sqlite`);
  db.exec(`CREATE TABLE calls (
    key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL, text TEXT NOT NULL,
    finish_reason TEXT, usage TEXT, attempts INTEGER NOT NULL, latency_ms REAL NOT NULL, created_at TEXT NOT NULL,
    endpoint TEXT, condition TEXT);
    INSERT INTO calls VALUES ('old', 'model', 'm', '{"messages":[],"params":{}}', 'A', 'stop', NULL, 1, 5,
      '2025-01-01T00:00:00Z', NULL, NULL);`);
  db.close();
  const readOnly = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  const [old] = readOnly.calls();
  readOnly.close();
  assertEquals([old.text, old.refusal, old.reasoning], ["A", undefined, undefined]);
  const store = new RunStore(`${dir}/run.sqlite`);
  store.putCall({ ...old, key: "new", text: "", finishReason: "stop", refusal: "no", reasoning: "why" });
  store.flush();
  const again = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  assertEquals([again.getCall("new")?.refusal, again.getCall("new")?.reasoning], ["no", "why"]);
  assertEquals(again.getCall("old")?.refusal, undefined);
  again.close();
  store.close();
});

Deno.test("batch output lines: a refusal without content is an answer, reasoning is kept apart", () => {
  const line = (id: string, message: Record<string, unknown>, finish: string) =>
    JSON.stringify({
      custom_id: id,
      response: { status_code: 200, body: { model: "m", choices: [{ message, finish_reason: finish }] } },
      error: null,
    });
  const results = parseBatchResults([
    line("refused", { content: null, refusal: "I can't help with that." }, "stop"),
    line("filtered", { content: null }, "content_filter"),
    line("reasoned", { content: "B", reasoning_content: "thinking" }, "stop"),
    line("broken", { content: null }, "stop"),
  ].join("\n"));
  assertEquals(results.get("refused"), {
    ok: true,
    response: {
      text: "",
      refusal: "I can't help with that.",
      finishReason: "stop",
      usage: undefined,
      servedModel: "m",
    },
  });
  assertEquals(results.get("filtered")?.ok, true);
  assertEquals(results.get("reasoned"), {
    ok: true,
    response: { text: "B", reasoning: "thinking", finishReason: "stop", usage: undefined, servedModel: "m" },
  });
  assertEquals(results.get("broken")?.ok, false);
});

Deno.test("PerMedCQA: a question longer than the model's context is not acceptable and stays in n", () => {
  const sample = { id: "q1", input: "پرسش", fields: {} } as unknown as Sample;
  const rows = (error: string) =>
    perMedCqaRows(
      {
        samples: [sample],
        outputs: new Map([["q1", { sampleId: "q1", answered: false, error }]]),
        scores: new Map(),
      },
      { benchmark: "permedcqa", model: "m", judge: "j", condition: "default", offline: false, judgeRuns: 1 },
    );
  assertEquals(
    rows("context length exceeded (the model's limit is 20 tokens): HTTP 400").at(0)?.values.acceptable,
    0,
  );
  // Any other answer error leaves the question unscored (the run is incomplete).
  assertEquals(rows("HTTP 500: down").at(0)?.values.acceptable, null);
});

Deno.test("the store counts answer outcomes in SQL as isRefused and String.prototype.trim define them", async () => {
  const { withTempStore } = await import("./temp_store.ts");
  const { answerOutcomes } = await import("../lib/pipeline/outcomes.ts");
  // Each answer: its text (null: failed, with `error`), and the call behind it (none: an answer without a call).
  const cases: {
    text: string | null;
    error?: string;
    call?: { text: string; finishReason: string | null; refusal?: string };
  }[] = [
    { text: "A", call: { text: "A", finishReason: "stop" } },
    { text: "cut", call: { text: "cut", finishReason: "length" } },
    { text: "", call: { text: "", finishReason: "content_filter" } },
    // A refusal whose reply is white space of other scripts (ideographic space, no-break space) is refused.
    {
      text: "\u3000\n",
      call: { text: "\u3000\n", finishReason: "stop", refusal: "I can't help with that." },
    },
    // A refusal beside real content is an answer.
    { text: "B", call: { text: "B", finishReason: "stop", refusal: "partly" } },
    // Empty once trimmed, not refused: empty answers (SQLite's own trim() removes spaces only).
    { text: "\u00a0 \u2028\ufeff", call: { text: "\u00a0 \u2028\ufeff", finishReason: "stop" } },
    { text: "\t", call: { text: "\t", finishReason: "length" } },
    { text: "\u200b", call: { text: "\u200b", finishReason: "stop" } },
    { text: "  " },
    { text: null, error: "context length exceeded: This model's maximum context length is 8192 tokens" },
    { text: null, error: "HTTP 500: upstream failed" },
  ];
  await withTempStore((store) => {
    for (const [i, c] of cases.entries()) {
      const key = c.call ? `k${i}` : null;
      if (c.call) {
        store.putCall({
          key: key!,
          role: "model",
          model: MODEL,
          request: { messages: [], params: {} },
          text: c.call.text,
          finishReason: c.call.finishReason,
          refusal: c.call.refusal ?? null,
          usage: null,
          attempts: 1,
          latencyMs: 1,
          createdAt: new Date(0).toISOString(),
        });
      }
      store.putOutput({
        sampleId: `s${i}`,
        condition: "default",
        callKey: key,
        text: c.text,
        error: c.error ?? null,
      });
    }
    const counted = answerOutcomes(store.outputOutcomeCounts("default"));
    // The same counts, by the JavaScript definitions.
    const answers = cases.filter((c) => c.text !== null);
    const refused = answers.filter((c) =>
      c.call && isRefused({ ...c.call, refusal: c.call.refusal ?? null })
    );
    assertEquals(counted, {
      outputs: cases.length,
      truncated: answers.filter((c) => c.call?.finishReason === "length").length,
      refused: refused.length,
      empty_answers: answers.filter((c) => !refused.includes(c) && c.text!.trim() === "").length,
      context_errors: 1,
    });
    assertEquals([counted.truncated, counted.refused, counted.empty_answers], [2, 2, 3]);
    return Promise.resolve();
  });
});

Deno.test("the store counts other roles' call outcomes in SQL, by role and model, as the JavaScript definitions do", async () => {
  const { withTempStore } = await import("./temp_store.ts");
  type Call = {
    role: string;
    model: string;
    text: string;
    finishReason: string | null;
    refusal?: string;
    condition: string | null;
    scoredIn?: string;
  };
  const calls: Call[] = [
    { role: "judge", model: "j1", text: '{"score": 4}', finishReason: "stop", condition: "default" },
    { role: "judge", model: "j1", text: '{"sc', finishReason: "length", condition: "default" },
    { role: "judge", model: "j1", text: "\u3000", finishReason: "stop", condition: "default" },
    { role: "judge", model: "j2", text: "", finishReason: "content_filter", condition: "default" },
    { role: "judge", model: "j2", text: " \n", finishReason: "stop", refusal: "no", condition: "default" },
    // Recorded before calls kept their condition: counts towards the baseline.
    { role: "judge", model: "j2", text: "ok", finishReason: "stop", refusal: "partly", condition: null },
    // Made in another condition, but behind a score of this one: counted here too.
    { role: "judge", model: "j1", text: "\t", finishReason: "length", condition: "cot", scoredIn: "default" },
    { role: "translator", model: "t", text: "ترجمه", finishReason: "stop", condition: "default" },
    // Another condition's own call, an excluded role's and the model's: not counted.
    { role: "judge", model: "j1", text: "", finishReason: "stop", condition: "cot" },
    { role: "embed", model: "e", text: "", finishReason: null, condition: "default" },
    { role: "model", model: MODEL, text: "", finishReason: "length", condition: "default" },
  ];
  await withTempStore((store) => {
    for (const [i, c] of calls.entries()) {
      store.putCall({
        key: `k${i}`,
        role: c.role,
        model: c.model,
        request: { messages: [], params: {} },
        text: c.text,
        finishReason: c.finishReason,
        refusal: c.refusal ?? null,
        usage: null,
        attempts: 1,
        latencyMs: 1,
        createdAt: new Date(i).toISOString(),
        condition: c.condition,
      });
      if (c.scoredIn) {
        store.putScore({
          sampleId: `s${i}`,
          condition: c.scoredIn,
          scorer: "judge",
          judge: c.model,
          run: 1,
          value: 1,
          values: null,
          valid: true,
          reason: null,
          callKey: `k${i}`,
          detail: null,
        });
      }
    }
    const counted = store.callEndCounts("default", "default", ["embed", "model"]);
    const counts = (role: string, model: string) => {
      const own = calls.filter((c) =>
        c.role === role && c.model === model && ((c.condition ?? "default") === "default" || c.scoredIn)
      );
      const refused = own.filter((c) => isRefused({ ...c, refusal: c.refusal ?? null }));
      return {
        role,
        model,
        calls: own.length,
        truncated: own.filter((c) => c.finishReason === "length").length,
        refused: refused.length,
        empty: own.filter((c) => !refused.includes(c) && c.text.trim() === "").length,
      };
    };
    assertEquals(counted, [counts("judge", "j1"), counts("judge", "j2"), counts("translator", "t")]);
    assertEquals(counted[0], { role: "judge", model: "j1", calls: 4, truncated: 2, refused: 0, empty: 2 });
    assertEquals(counted[1], { role: "judge", model: "j2", calls: 3, truncated: 0, refused: 2, empty: 0 });
    // Every role of the store left out: none counted; a call of another role stored since is counted.
    const allRoles = ["embed", "model", "judge", "translator"];
    assertEquals(store.callEndCounts("default", "default", allRoles), []);
    store.putCall({
      key: "late",
      role: "grader",
      model: "g",
      request: { messages: [], params: {} },
      text: "",
      finishReason: "length",
      refusal: null,
      usage: null,
      attempts: 1,
      latencyMs: 1,
      createdAt: new Date(99).toISOString(),
      condition: "default",
    });
    assertEquals(store.callEndCounts("default", "default", allRoles), [
      { role: "grader", model: "g", calls: 1, truncated: 1, refused: 0, empty: 1 },
    ]);
    return Promise.resolve();
  });
});
