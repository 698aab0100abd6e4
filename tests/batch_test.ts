import { assert, assertEquals, assertRejects } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { OpenAIBatchApi } from "../lib/providers/batch_api.ts";
import { type BatchOptions, BatchProvider, batchProviderFor } from "../lib/providers/batch.ts";
import { batchInputLine, chatBody, parseBatchResults } from "../lib/providers/batch_jsonl.ts";
import { Caller, callKey } from "../lib/providers/caller.ts";
import { OpenAIProvider } from "../lib/providers/openai.ts";
import { type ChatRequest, ProviderError } from "../lib/providers/types.ts";
import { BatchLedger } from "../lib/store/batch_ledger.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { defaultFakeReply, type FakeServer, type FakeServerOptions, startFakeServer } from "./fake_server.ts";
import { llmevalCommand, ROOT } from "./run_cli.ts";
import OpenAI from "openai";

const SAMPLE = `${ROOT}data/llmeval_med/sample.json`;
const FAST_RETRIES = { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 30 };

/** A fake server, a run store in a temporary directory and a batch provider over both, for one test. */
async function batchSetup(
  serverOptions: FakeServerOptions,
  options: BatchOptions = {},
): Promise<
  { server: FakeServer; store: RunStore; provider: BatchProvider; caller: Caller; done(): Promise<void> }
> {
  const server = await startFakeServer(serverOptions);
  const dir = await Deno.makeTempDir({ prefix: "medeval-batch-" });
  const store = new RunStore(`${dir}/run.sqlite`);
  const provider = batchProviderFor(new OpenAIProvider({ model: "fake-model", baseURL: server.url }), {
    pollMs: 20,
    idleMs: 30,
    ...options,
  });
  provider.attach(store);
  const caller = new Caller(provider, store, "model", FAST_RETRIES);
  return {
    server,
    store,
    provider,
    caller,
    done: async () => {
      store.close();
      await server.close();
    },
  };
}

function ask(text: string): ChatRequest {
  return { messages: [{ role: "user", content: text }] };
}

function assertNoRepeats(ids: readonly string[]): void {
  assertEquals(ids.length, new Set(ids).size, `a custom_id was submitted twice: ${ids.join(", ")}`);
}

Deno.test("result files: answers, failed statuses and line errors become one outcome per custom_id", () => {
  const completion = {
    model: "m-served",
    choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1 },
  };
  const text = [
    { custom_id: "a", response: { status_code: 200, body: completion }, error: null },
    {
      custom_id: "b",
      response: { status_code: 429, body: { error: { message: "slow down" } } },
      error: null,
    },
    {
      custom_id: "c",
      response: { status_code: 400, body: { error: { message: "bad field" } } },
      error: null,
    },
    { custom_id: "d", response: null, error: { code: "batch_expired", message: "not run in time" } },
    { custom_id: "e", response: { status_code: 200, body: { choices: [] } }, error: null },
  ].map((l) => JSON.stringify(l)).join("\n") + "\nnot json\n";
  const results = parseBatchResults(text);
  assertEquals(results.get("a"), {
    ok: true,
    response: {
      text: "hi",
      finishReason: "stop",
      usage: { prompt: 3, completion: 1 },
      servedModel: "m-served",
    },
  });
  assertEquals(results.get("b"), { ok: false, message: "HTTP 429: slow down", status: 429, retryable: true });
  assertEquals(results.get("c"), {
    ok: false,
    message: "HTTP 400: bad field",
    status: 400,
    retryable: false,
  });
  assertEquals(results.get("d"), { ok: false, message: "not run in time", status: null, retryable: true });
  assertEquals(results.get("e")?.ok, false);
  assertEquals(results.size, 5);
});

Deno.test("batch files are split at the request limit and the byte limit", async () => {
  const questions = Array.from({ length: 7 }, (_, i) => `question ${i}`);
  const split = await batchSetup({}, { limits: { maxRequests: 3, maxBytes: 1_000_000 } });
  try {
    const results = await Promise.all(questions.map((q) => split.caller.call(ask(q))));
    assertEquals(split.server.batches.map((b) => b.customIds.length), [3, 3, 1]);
    for (const [i, { call }] of results.entries()) {
      assertEquals(
        call.text,
        defaultFakeReply({ model: "fake-model", messages: [ask(questions[i]).messages[0]] }),
      );
      assert(call.endpoint?.startsWith("batch:batch_"), `endpoint ${call.endpoint}`);
    }
    assertEquals(split.store.calls().length, 7);
    assertNoRepeats(split.server.submittedCustomIds);
  } finally {
    await split.done();
  }

  // Every line has the same size here (same key length, same question length): 2.5 lines fit in a file.
  const line = batchInputLine(`${"0".repeat(64)}-a1`, chatBody("fake-model", ask(questions[0]), false));
  const bySize = await batchSetup({}, {
    limits: { maxRequests: 100, maxBytes: Math.floor(line.bytes * 2.5) },
  });
  try {
    await Promise.all(questions.map((q) => bySize.caller.call(ask(q))));
    assertEquals(bySize.server.batches.map((b) => b.customIds.length), [2, 2, 2, 1]);
    assertNoRepeats(bySize.server.submittedCustomIds);
  } finally {
    await bySize.done();
  }
});

Deno.test("failed lines are retried in a later batch under a new custom_id; a 400 fails the call", async () => {
  const setup = await batchSetup({
    batchLineFault: (line) => {
      const text = line.body.messages.at(-1)!.content;
      if (text.startsWith("flaky") && line.customId.endsWith("-a1")) return { status: 500 };
      if (text.startsWith("bad")) return { status: 400, message: "unsupported parameter" };
      return undefined;
    },
  });
  try {
    const flaky = ["flaky 1", "flaky 2"].map((q) => setup.caller.call(ask(q)));
    const fine = setup.caller.call(ask("fine 1"));
    const bad = assertRejects(() => setup.caller.call(ask("bad 1")), ProviderError, "HTTP 400: unsupported");
    const [first, second] = await Promise.all(flaky);
    await fine;
    await bad;
    const { batches, submittedCustomIds } = setup.server;
    assertNoRepeats(submittedCustomIds);
    for (const { call } of [first, second]) {
      assertEquals(call.attempts, 2);
      assert(batches[0].customIds.includes(`${call.key}-a1`));
      const retried = batches.find((b) => b.customIds.includes(`${call.key}-a2`));
      assert(retried && retried.index > 0, "the second attempt went into a later batch");
      assertEquals(call.endpoint, `batch:${retried.id}`);
    }
    // Four first attempts, two second ones: the 400 is not asked again.
    assertEquals(batches[0].customIds.length, 4);
    assertEquals(submittedCustomIds.length, 6);
    assertEquals(setup.store.events().filter((e) => e.kind === "call_failed").length, 1);
  } finally {
    await setup.done();
  }
});

Deno.test("an expired batch's requests are asked again in a later batch; a failed batch fails its calls", async () => {
  const setup = await batchSetup({
    batchOutcome: (batch) => batch.index === 0 ? "expired" : batch.index === 2 ? "failed" : undefined,
  });
  try {
    const { call } = await setup.caller.call(ask("first"));
    assertEquals(call.attempts, 2);
    assertEquals(call.endpoint, "batch:batch_1");
    const error = await assertRejects(
      () => setup.caller.call(ask("second")),
      ProviderError,
      "batch_2 failed",
    );
    assertEquals(error.retryable, false);
    assertEquals(setup.server.batches.length, 3);
    assertNoRepeats(setup.server.submittedCustomIds);
  } finally {
    await setup.done();
  }
});

Deno.test("a run killed after recording a submission adopts its batch, or resubmits one never created", async () => {
  const setup = await batchSetup({});
  try {
    const adopted = ask("asked before the kill, batch created");
    const lost = ask("asked before the kill, batch never created");
    const [adoptedKey, lostKey] = [adopted, lost].map((r) => callKey(setup.provider, r, 0));
    // What the killed run left: two recorded submissions, only the first of which became a batch.
    const ledger = new BatchLedger(setup.store.path);
    const createdAt = new Date().toISOString();
    ledger.addSubmission({ id: "sub-created", provider: setup.provider.label, createdAt }, [
      { customId: `${adoptedKey}-a1`, callKey: adoptedKey, attempt: 1 },
    ]);
    ledger.addSubmission({ id: "sub-lost", provider: setup.provider.label, createdAt }, [
      { customId: `${lostKey}-a1`, callKey: lostKey, attempt: 1 },
    ]);
    const api = new OpenAIBatchApi(new OpenAI({ baseURL: setup.server.url, apiKey: "x", maxRetries: 0 }));
    const line = batchInputLine(`${adoptedKey}-a1`, chatBody("fake-model", adopted, false));
    await api.create(await api.upload(`${line.json}\n`, "killed.jsonl"), "sub-created");

    const [first, second] = await Promise.all([setup.caller.call(adopted), setup.caller.call(lost)]);
    assertEquals(first.call.endpoint, "batch:batch_0");
    assertEquals(second.call.endpoint, "batch:batch_1");
    assertEquals(setup.server.submittedCustomIds, [`${adoptedKey}-a1`, `${lostKey}-a2`]);
    const statuses = Object.fromEntries(ledger.submissions().map((s) => [s.id, s.status]));
    assertEquals(statuses["sub-created"], "completed");
    assertEquals(statuses["sub-lost"], "abandoned");
    ledger.close();
  } finally {
    await setup.done();
  }
});

/** The settings of an LLMEval-Med run against the fake (model and judge on the same server). */
function llmevalConfig(url: string, out: string, batch: boolean) {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: url,
    judge: "fake-judge",
    judgeBaseUrl: url,
    judgeRuns: 3,
    data: SAMPLE,
    out,
    progress: false,
    renderFigures: false,
    retryPolicy: FAST_RETRIES,
    ...(batch ? { batch: true, batchPollSeconds: 0.02 } : {}),
  };
}

Deno.test("--batch: a judged multi-turn run completes round by round with the same results as without", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  try {
    const direct = await runEval(llmevalConfig(server.url, await Deno.makeTempDir(), false));
    const chatRequests = server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
    const out = await Deno.makeTempDir({ prefix: "medeval-batch-run-" });
    const batched = await runEval(llmevalConfig(server.url, out, true));
    assertEquals(batched.failures, 0);
    assertEquals(
      server.requests.filter((r) => r.path.endsWith("/chat/completions")).length,
      chatRequests,
      "batch mode sent no chat completion directly",
    );
    for (const key of ["n", "metrics", "groups", "counts"] as const) {
      assertEquals(batched.summary[key], direct.summary[key], key);
    }

    const store = new RunStore(`${out}/run.sqlite`);
    try {
      const calls = store.calls();
      assertEquals(calls.length, direct.calls.model.sent + direct.calls.judge.sent);
      assert(calls.every((c) => c.endpoint?.startsWith("batch:")), "every call was answered by a batch");
      assertNoRepeats(server.submittedCustomIds);
      // Rounds: each later turn of a conversation was answered by a later batch than the turn before.
      const batchOf = new Map(calls.map((c) => [c.key, Number(c.endpoint!.replace("batch:batch_", ""))]));
      const outputs = new Map(store.outputs().map((o) => [o.sampleId, o]));
      const turns = store.samples().filter((s) => s.conversation && s.conversation.turn > 1);
      assert(turns.length > 0, "the sample has multi-turn conversations");
      for (const sample of turns) {
        const { id, turn } = sample.conversation!;
        const previous = store.samples().find((s) =>
          s.conversation?.id === id && s.conversation.turn === turn - 1
        )!;
        const [before, after] = [previous, sample].map((s) => batchOf.get(outputs.get(s.id)!.callKey!)!);
        assert(
          before < after,
          `${sample.id}: turn ${turn} in batch ${after}, turn ${turn - 1} in batch ${before}`,
        );
      }
    } finally {
      store.close();
    }
  } finally {
    await server.close();
  }
});

function batchEvalCommand(url: string, out: string, resume: boolean): Deno.Command {
  return llmevalCommand(url, out, resume, ["--quiet", "--batch", "--batch-poll-seconds", "0.1"]);
}

Deno.test("--batch: a run killed while its batch runs resumes by fetching that batch, never resubmitting", async () => {
  const server = await startFakeServer({ reply: scriptedReply, batchDelayMs: 1500 });
  const out = await Deno.makeTempDir({ prefix: "medeval-batch-resume-" });
  try {
    const child = batchEvalCommand(server.url, out, false).spawn();
    const deadline = Date.now() + 30_000;
    while (server.batches.length === 0) {
      if (Date.now() > deadline) throw new Error("the run created no batch");
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGKILL");
    await child.output();
    assertEquals(server.batches.length, 1, "killed while the first batch was running");
    const first = server.batches[0];

    const before = server.requests.length;
    const resumed = await batchEvalCommand(server.url, out, true).output();
    assertEquals(resumed.code, 0, new TextDecoder().decode(resumed.stderr));

    assertNoRepeats(server.submittedCustomIds);
    const after = server.requests.slice(before);
    assert(
      after.some((r) => r.path.endsWith(`/batches/${first.id}`)),
      "the resumed run checked the interrupted batch",
    );
    assert(
      after.some((r) => r.path.endsWith(`/files/${first.outputFileId}/content`)),
      "the resumed run downloaded the interrupted batch's answers",
    );
    const store = new RunStore(`${out}/run.sqlite`);
    try {
      const byKey = new Map(store.calls().map((c) => [c.key, c]));
      for (const customId of first.customIds) {
        assertEquals(byKey.get(customId.replace(/-a\d+$/, ""))?.endpoint, `batch:${first.id}`, customId);
      }
      assertEquals(store.outputs().filter((o) => o.text !== null).length, 23);
      assertEquals(store.scores().length, 69);
      assert(store.events().some((e) => e.kind === "resume"));
    } finally {
      store.close();
    }
  } finally {
    await server.close();
  }
});
