import { assert, assertEquals, assertRejects } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { OpenAIBatchApi } from "../lib/providers/batch/openai_batch_api.ts";
import { type BatchOptions, BatchProvider, batchProviderFor } from "../lib/providers/batch/batch.ts";
import { batchInputLine, chatBody, parseBatchResults } from "../lib/providers/batch/batch_jsonl.ts";
import { Caller, callKey } from "../lib/providers/caller.ts";
import { OpenAIProvider } from "../lib/providers/transport/openai.ts";
import { type ChatRequest, ProviderError } from "../lib/providers/types.ts";
import type { StoredCall } from "../lib/core/records.ts";
import { BatchLedger } from "../lib/store/batch_ledger.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import {
  defaultFakeReply,
  type FakeBatch,
  type FakeBatchLine,
  type FakeLineCompletion,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { llmevalCommand, ROOT } from "./run_cli.ts";
import OpenAI from "openai";

const SAMPLE = `${ROOT}data/llmeval_med/sample.json`;
const FAST_RETRIES = { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 30 };

/**
 * A fake server (holding OpenAI's one-model-per-file rule), a run store in a temporary directory and a batch
 * provider over both, for one test.
 */
async function batchSetup(
  serverOptions: FakeServerOptions,
  options: BatchOptions = {},
): Promise<
  { server: FakeServer; store: RunStore; provider: BatchProvider; caller: Caller; done(): Promise<void> }
> {
  const server = await startFakeServer({ batchOneModel: true, ...serverOptions });
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

/** The call key of a `custom_id` (`<key>-a<attempt>`). */
function keyOf(customId: string): string {
  return customId.replace(/-a\d+$/, "");
}

/**
 * Asserts that no call key of a batch created before batch number `cut` (the first one a resumed run created)
 * is in a batch created from `cut` on, unless its earlier batch expired or failed. A resubmission gets a new
 * `custom_id` (`<key>-a2`), so {@linkcode assertNoRepeats} cannot see it; its call key can.
 */
function assertNoResubmissionAcross(batches: readonly FakeBatch[], cut: number): void {
  assert(cut > 0 && cut <= batches.length, `cut ${cut} of ${batches.length} batches`);
  const laterBatchOf = new Map<string, string>();
  for (const batch of batches.slice(cut)) {
    for (const id of batch.customIds) laterBatchOf.set(keyOf(id), batch.id);
  }
  const resubmitted = batches.slice(0, cut)
    .filter((b) => b.status !== "expired" && b.status !== "failed")
    .flatMap((b) =>
      b.customIds.filter((id) => laterBatchOf.has(keyOf(id)))
        .map((id) => `${id} of ${b.id} (${b.status}) again in ${laterBatchOf.get(keyOf(id))}`)
    );
  assertEquals(resubmitted, [], "a call of a batch created before the kill was submitted again");
}

/** The last user message of a batch line. */
function question(line: FakeBatchLine): string {
  return line.body.messages.at(-1)!.content;
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

/**
 * The number of requests in each batch the fake created, largest first: files are uploaded and created
 * concurrently, so the order in which the server sees them is not the order in which they were cut.
 */
function fileSizes(server: FakeServer): number[] {
  return server.batches.map((b) => b.customIds.length).sort((a, b) => b - a);
}

Deno.test("batch files are split at the request limit and the byte limit", async () => {
  const questions = Array.from({ length: 7 }, (_, i) => `question ${i}`);
  const split = await batchSetup({}, { limits: { maxRequests: 3, maxBytes: 1_000_000 } });
  try {
    const results = await Promise.all(questions.map((q) => split.caller.call(ask(q))));
    assertEquals(fileSizes(split.server), [3, 3, 1]);
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
    assertEquals(fileSizes(bySize.server), [2, 2, 2, 1]);
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

/** The finish reason and usage the fake returns for a question ending in a number: varied, some without usage. */
function plannedCompletion(text: string): FakeLineCompletion {
  const i = Number(text.match(/\d+$/)![0]);
  return {
    finishReason: ["stop", "length", "content_filter"][i % 3],
    usage: i % 4 === 3 ? null : { prompt_tokens: 100 + text.length, completion_tokens: 7 * i + 1 },
  };
}

/** What the run store should hold for a line the fake completed with `planned`. */
function storedCompletion(planned: FakeLineCompletion): Pick<StoredCall, "finishReason" | "usage"> {
  const usage = planned.usage;
  return {
    finishReason: planned.finishReason ?? null,
    usage: usage ? { prompt: usage.prompt_tokens, completion: usage.completion_tokens } : null,
  };
}

Deno.test("a batch that expires part-answered keeps its answers as returned; only the unanswered are asked again", async () => {
  const setup = await batchSetup({
    batchOutcome: (batch) => batch.index === 0 ? "expired" : undefined,
    batchLineAnswered: (line) => question(line).startsWith("answered"),
    batchLineCompletion: (line) => plannedCompletion(question(line)),
  });
  try {
    const questions = Array.from({ length: 9 }, (_, i) => `${i % 3 === 1 ? "unanswered" : "answered"} ${i}`);
    const results = await Promise.all(questions.map((q) => setup.caller.call(ask(q))));
    const [expired, later, ...rest] = setup.server.batches;
    assertEquals(rest.length, 0, "one batch after the expired one");
    assertEquals([expired.status, later.status], ["expired", "completed"]);
    assertEquals(expired.customIds.length, 9);
    assertEquals(expired.answeredCustomIds.length, 6);
    // The later batch asks exactly the requests the expired one did not answer, each as its second attempt.
    const unanswered = results.filter((_, i) => questions[i].startsWith("unanswered"));
    assertEquals([...later.customIds].sort(), unanswered.map(({ call }) => `${call.key}-a2`).sort());
    assertNoRepeats(setup.server.submittedCustomIds);

    const stored = new Map(setup.store.calls().map((c) => [c.key, c]));
    assertEquals(stored.size, 9);
    for (const [i, { call }] of results.entries()) {
      const first = questions[i].startsWith("answered");
      const saved = stored.get(call.key)!;
      assertEquals(saved.endpoint, `batch:${first ? expired.id : later.id}`, questions[i]);
      assertEquals(saved.attempts, first ? 1 : 2, questions[i]);
      assertEquals(
        saved.text,
        defaultFakeReply({ model: "fake-model", messages: [ask(questions[i]).messages[0]] }),
      );
      // finish_reason and usage are stored as the batch returned them, line by line.
      assertEquals(
        { finishReason: saved.finishReason, usage: saved.usage },
        storedCompletion(plannedCompletion(questions[i])),
        questions[i],
      );
    }
    assertEquals(new Set([...stored.values()].map((c) => c.finishReason)).size, 3, "finish reasons vary");
    assert([...stored.values()].some((c) => c.usage === null), "some lines carry no usage");
    const ledger = new BatchLedger(setup.store.path);
    assertEquals(ledger.submissions().map((s) => s.status), ["expired", "completed"]);
    ledger.close();
  } finally {
    await setup.done();
  }
});

Deno.test("a batch cancelled part-answered delivers its answers and fails only its unanswered calls", async () => {
  const setup = await batchSetup({
    batchOutcome: (batch) => batch.index === 0 ? "cancelled" : undefined,
    batchLineAnswered: (line) => question(line).startsWith("answered"),
  });
  try {
    // All four are asked at once, so they form one batch.
    const answered = Promise.all(["answered 1", "answered 2"].map((q) => setup.caller.call(ask(q))));
    const cancelled = ["unanswered 1", "unanswered 2"].map((q) =>
      assertRejects(() => setup.caller.call(ask(q)), ProviderError, "batch_0 was cancelled")
    );
    await Promise.all(cancelled);
    for (const { call } of await answered) {
      assertEquals([call.endpoint, call.attempts], ["batch:batch_0", 1]);
    }
    assertEquals(setup.server.batches.length, 1, "a cancelled batch's requests are not asked again");
    assertEquals(setup.server.batches[0].status, "cancelled");
    assertEquals(setup.server.batches[0].customIds.length, 4);
  } finally {
    await setup.done();
  }
});

Deno.test("the fake's Batch API fails a batch whose file names two models, as OpenAI does", async () => {
  const server = await startFakeServer({ batchOneModel: true });
  try {
    const api = new OpenAIBatchApi(new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 }));
    const lines = [["a-a1", "model-a"], ["b-a1", "model-a"], ["c-a1", "model-b"]]
      .map(([id, model]) => batchInputLine(id, chatBody(model, ask(id), false)).json);
    const mixed = await api.create(await api.upload(`${lines.join("\n")}\n`, "mixed.jsonl"), "mixed");
    assertEquals(mixed.status, "failed");
    assert(mixed.errors?.startsWith("line 3: "), mixed.errors);
    const one = await api.create(await api.upload(`${lines.slice(0, 2).join("\n")}\n`, "one.jsonl"), "one");
    assertEquals(one.status, "completed");
  } finally {
    await server.close();
  }
});

Deno.test("a run killed after recording submissions: an answered line is read from the ledger, a created batch adopted, a lost one resubmitted", async () => {
  const setup = await batchSetup({});
  try {
    const adopted = ask("asked before the kill, batch created");
    const answered = ask("asked before the kill, batch answered and recorded");
    const lost = ask("asked before the kill, batch never created");
    const [adoptedKey, answeredKey, lostKey] = [adopted, answered, lost].map((r) =>
      callKey(setup.provider, r, 0)
    );
    // What the killed run left: three recorded submissions. The first became a batch whose id the run never
    // stored; the second a batch that finished and whose answer the ledger holds (the run died before the run
    // store had it); the third never became a batch.
    const ledger = new BatchLedger(setup.store.path);
    const createdAt = new Date().toISOString();
    const record = (id: string, key: string) =>
      ledger.addSubmission({ id, provider: setup.provider.label, createdAt }, [
        { customId: `${key}-a1`, callKey: key, attempt: 1 },
      ]);
    record("sub-created", adoptedKey);
    record("sub-answered", answeredKey);
    record("sub-lost", lostKey);
    const api = new OpenAIBatchApi(new OpenAI({ baseURL: setup.server.url, apiKey: "x", maxRetries: 0 }));
    const submit = async (key: string, request: ChatRequest, submission: string) => {
      const line = batchInputLine(`${key}-a1`, chatBody("fake-model", request, false));
      return await api.create(await api.upload(`${line.json}\n`, `${submission}.jsonl`), submission);
    };
    await submit(adoptedKey, adopted, "sub-created");
    const finished = await submit(answeredKey, answered, "sub-answered");
    ledger.setBatchId("sub-answered", finished.id);
    const fromLedger = {
      text: "answered before the kill",
      finishReason: "length",
      endpoint: `batch:${finished.id}`,
    };
    ledger.finishSubmission(
      "sub-answered",
      "completed",
      new Map([[`${answeredKey}-a1`, { state: "done", response: JSON.stringify(fromLedger) }]]),
    );
    const beforeKill = setup.server.batches.length;

    const [first, second, third] = await Promise.all(
      [adopted, lost, answered].map((r) => setup.caller.call(r)),
    );
    assertNoResubmissionAcross(setup.server.batches, beforeKill);
    assertEquals(first.call.endpoint, "batch:batch_0");
    assertEquals(second.call.endpoint, "batch:batch_2");
    assertEquals([third.call.text, third.call.finishReason, third.call.endpoint], [
      fromLedger.text,
      fromLedger.finishReason,
      "batch:batch_1",
    ]);
    assertEquals(setup.server.submittedCustomIds, [`${adoptedKey}-a1`, `${answeredKey}-a1`, `${lostKey}-a2`]);
    const statuses = ledger.submissions().map((s) => [s.id, s.status]);
    assertEquals(statuses.slice(0, 3), [
      ["sub-created", "completed"],
      ["sub-answered", "completed"],
      ["sub-lost", "abandoned"],
    ]);
    assertEquals(
      statuses.slice(3).map(([, status]) => status),
      ["completed"],
      "the lost call's new submission",
    );
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
  // Model and judge share the server: one model per batch file, or the fake fails the batch.
  const server = await startFakeServer({ reply: scriptedReply, batchOneModel: true });
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

/**
 * Resolves once `event` holds (checked every 10 ms). Throws if the run exits first, or after two minutes, a
 * guard against a hang rather than a timing check: the fake holds the run's batches, so it waits for it.
 */
async function until(event: () => boolean, child: Deno.ChildProcess, what: string): Promise<void> {
  let exited = false;
  void child.status.then(() => exited = true);
  const guard = Date.now() + 120_000;
  while (!event()) {
    if (exited || Date.now() > guard) {
      throw new Error(`the run ${exited ? "ended" : "hung"} before it ${what}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Checks a resumed run against the batches its killed predecessor created (`beforeKill` of them): it submitted
 * no call of theirs again, fetched the answers of `interrupted` and recorded every call of every one
 * of them as answered by it, and finished the sample (23 answers, 69 judgings).
 */
function assertResumedWithoutResubmitting(
  server: FakeServer,
  out: string,
  beforeKill: number,
  interrupted: FakeBatch,
  resumedFrom: number,
): void {
  assertNoRepeats(server.submittedCustomIds);
  assertNoResubmissionAcross(server.batches, beforeKill);
  const after = server.requests.slice(resumedFrom);
  assert(
    after.some((r) => r.path.endsWith(`/files/${interrupted.outputFileId}/content`)),
    "the resumed run downloaded the interrupted batch's answers",
  );
  const store = new RunStore(`${out}/run.sqlite`);
  try {
    const byKey = new Map(store.calls().map((c) => [c.key, c]));
    for (const batch of server.batches.slice(0, beforeKill)) {
      assertEquals(batch.status, "completed", batch.id);
      for (const customId of batch.customIds) {
        assertEquals(byKey.get(keyOf(customId))?.endpoint, `batch:${batch.id}`, customId);
      }
    }
    assertEquals(store.outputs().filter((o) => o.text !== null).length, 23);
    assertEquals(store.scores().length, 69);
    assert(store.events().some((e) => e.kind === "resume"));
  } finally {
    store.close();
  }
}

// The fake holds every batch the killed run created (in progress, or its creation unanswered) until the run is
// dead, so the kill comes on an event and no timing decides what the run had done before it.

Deno.test("--batch: a run killed while its batch runs resumes by fetching that batch, never resubmitting", async () => {
  let killed = false;
  // The first round's batch finishes; later ones stay in progress until the kill.
  const server = await startFakeServer({
    reply: scriptedReply,
    batchOneModel: true,
    batchHold: (batch) => batch.index >= 1 && !killed,
  });
  const out = await Deno.makeTempDir({ prefix: "medeval-batch-resume-" });
  try {
    const child = batchEvalCommand(server.url, out, false).spawn();
    // A poll of batch_1 comes after the run stored its id.
    await until(
      () => server.requests.some((r) => r.path.endsWith("/batches/batch_1")),
      child,
      "polled its second batch",
    );
    child.kill("SIGKILL");
    await child.output();
    killed = true;
    const beforeKill = server.batches.length;
    const interrupted = server.batches[1];
    assertEquals(interrupted.status, "in_progress", "killed while the second batch was running");
    const ledger = new BatchLedger(`${out}/run.sqlite`);
    const recorded = ledger.submissions().find((s) => s.batchId === interrupted.id);
    ledger.close();
    assertEquals(recorded?.status, "submitted", "the killed run had stored the batch's id");

    const resumedFrom = server.requests.length;
    const resumed = await batchEvalCommand(server.url, out, true).output();
    assertEquals(resumed.code, 0, new TextDecoder().decode(resumed.stderr));
    assert(
      server.requests.slice(resumedFrom).some((r) => r.path.endsWith(`/batches/${interrupted.id}`)),
      "the resumed run checked the interrupted batch",
    );
    assertResumedWithoutResubmitting(server, out, beforeKill, interrupted, resumedFrom);
  } finally {
    killed = true;
    await server.close();
  }
});

Deno.test("--batch: a run killed before it learnt its batch's id finds the batch by its metadata, never resubmitting", async () => {
  const creation = Promise.withResolvers<void>();
  // The first batch is created, but its creation is answered only after the kill.
  const server = await startFakeServer({
    reply: scriptedReply,
    batchOneModel: true,
    batchCreated: (batch) => batch.index === 0 ? creation.promise : undefined,
  });
  const out = await Deno.makeTempDir({ prefix: "medeval-batch-resume-" });
  try {
    const child = batchEvalCommand(server.url, out, false).spawn();
    await until(() => server.batches.length > 0, child, "created a batch");
    const interrupted = server.batches[0];
    child.kill("SIGKILL");
    await child.output();
    creation.resolve();
    assertEquals(server.batches.length, 1);
    const ledger = new BatchLedger(`${out}/run.sqlite`);
    const [recorded, ...others] = ledger.submissions();
    ledger.close();
    assertEquals(others, []);
    assertEquals(
      [recorded.status, recorded.batchId],
      ["submitting", null],
      "the killed run never knew the id",
    );
    assertEquals(interrupted.metadata.medeval_submission, recorded.id);

    const resumedFrom = server.requests.length;
    const resumed = await batchEvalCommand(server.url, out, true).output();
    assertEquals(resumed.code, 0, new TextDecoder().decode(resumed.stderr));
    assert(
      server.requests.slice(resumedFrom).some((r) => /\/batches$/.test(r.path) && r.body === null),
      "the resumed run listed the batches to find the interrupted one",
    );
    assertResumedWithoutResubmitting(server, out, 1, interrupted, resumedFrom);
  } finally {
    creation.resolve();
    await server.close();
  }
});
