import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { loadProfiles, profileOf } from "../lib/providers/transport/profiles.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { batchProviderFor } from "../lib/providers/batch/batch.ts";
import { Caller } from "../lib/providers/caller.ts";
import { createProvider } from "../lib/providers/factory.ts";
import { RunStore } from "../lib/store/run_store.ts";
import {
  type FakeChatBody,
  type FakeRequestRecord,
  type FakeServer,
  startFakeServer,
} from "./fake_server.ts";
import { cli, llmevalCommand, ROOT, runCli } from "./run_cli.ts";

const CLIMED_SAMPLE = `${ROOT}data/climedbench/sample.jsonl`;
/** Generation flags that make every request carry `temperature` and `max_tokens`. */
const SAMPLING = [
  "--role-opt",
  "model.temperature=0",
  "--role-opt",
  "model.max-tokens=256",
  "--role-opt",
  "judge.temperature=0",
];

function chats(server: FakeServer): FakeRequestRecord[] {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions"));
}

/** The parameters a chat request was sent with (its body's keys but model and messages), sorted. */
function shapeOf(record: FakeRequestRecord): string {
  const body = record.body as FakeChatBody;
  return `${body.model}:${
    Object.keys(body).filter((k) => k !== "model" && k !== "messages").sort().join(",")
  }`;
}

/**
 * Asserts that no call was refused twice in the same shape and that every refused call was answered in the
 * end, and returns the refusals. (Requests in flight when the first refusal came were built in the old shape:
 * each of those is refused once and sent again adapted.)
 */
function refusals(server: FakeServer): FakeRequestRecord[] {
  const refused = chats(server).filter((r) => r.status === 400);
  const sent = refused.map((r) => `${r.callKey} ${shapeOf(r)}`);
  assertEquals(new Set(sent).size, sent.length, `a call was refused twice in one shape: ${sent.join(" | ")}`);
  const answered = new Set(chats(server).filter((r) => r.status === 200).map((r) => r.callKey));
  for (const r of refused) assert(answered.has(r.callKey), `refused call ${r.callKey} was never answered`);
  return refused;
}

function adaptations(out: string): { role: string; model: string; parameter: string; now: string }[] {
  const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
  try {
    return store.events("request_adapted").map((e) => e.detail as never);
  } finally {
    store.close();
  }
}

async function run(command: Deno.Command): Promise<{ code: number; stderr: string }> {
  const out = await command.output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/** `eval climedbench` of the shipped sample against `url` with temperature 0 and 64 tokens, into `out`. */
function climedbenchArgs(url: string, out: string): string[] {
  return [
    "eval",
    "climedbench",
    "--model",
    "fake-model",
    "--base-url",
    url,
    "--embed-model",
    "fake-embed",
    "--data",
    CLIMED_SAMPLE,
    "--out",
    out,
    "--no-render",
    "--temperature",
    "0",
    "--max-tokens",
    "64",
  ];
}

Deno.test("profiles: the shipped table gives o-series and gpt-5 max_completion_tokens and no temperature", async () => {
  const table = await loadProfiles();
  for (const model of ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "GPT-5-mini"]) {
    const profile = profileOf(table, model);
    assertEquals(profile.token_limit, "max_completion_tokens", model);
    assertEquals(profile.sampling, [], model);
  }
  assertEquals(profileOf(table, "gpt-4o").token_limit, "max_tokens");
  assertEquals(profileOf(table, "qwen2.5-7b-instruct").sampling, ["temperature"]);
});

Deno.test("profiles: LLMEval-Med against a reasoning model adapts once per refused parameter and role", async () => {
  const server = await startFakeServer({ reasoningModel: () => true });
  const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  try {
    const result = await run(llmevalCommand(server.url, out, false, SAMPLING));
    assertEquals(result.code, 0, result.stderr);
    const refused = refusals(server);
    // max_tokens, then temperature, for the model and for the judge: each learned once, however many
    // requests in flight were refused for it.
    assertEquals(
      [...new Set(refused.map(shapeOf))].sort(),
      [
        "fake-judge:max_completion_tokens,response_format,seed,temperature",
        "fake-judge:max_tokens,response_format,seed,temperature",
        "fake-model:max_completion_tokens,temperature",
        "fake-model:max_tokens,temperature",
      ],
    );
    const learned = adaptations(out).map((a) => `${a.role}:${a.parameter}->${a.now}`).sort();
    assertEquals(learned, [
      "judge:max_tokens->max_completion_tokens",
      "judge:temperature->left out (server default)",
      "model:max_tokens->max_completion_tokens",
      "model:temperature->left out (server default)",
    ]);
    const ok = chats(server).filter((r) => r.status === 200).map((r) => r.body as FakeChatBody);
    assert(ok.length > 0);
    assert(ok.every((b) => b.max_tokens === undefined && b.temperature === undefined));
    assert(ok.some((b) => b.max_completion_tokens === 256));

    // Resumed against a plain server: every call comes from the store (the call keys did not change).
    const plain = await startFakeServer();
    try {
      const resumed = await run(llmevalCommand(plain.url, out, true, SAMPLING));
      assertEquals(resumed.code, 0, resumed.stderr);
      assertEquals(chats(plain).length, 0);
    } finally {
      await plain.close();
    }
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("profiles: CliMedBench against a reasoning model finishes, each refused parameter learned once", async () => {
  const server = await startFakeServer({ reasoningModel: () => true, reply: () => "答案：A" });
  const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  try {
    const result = await run(cli([
      ...climedbenchArgs(server.url, out),
    ]));
    assertEquals(result.code, 0, result.stderr);
    // Requests are not held back to try the shape first: several were in flight when the first was refused.
    assert(refusals(server).length > 2);
    assertEquals(adaptations(out).map((a) => a.parameter).sort(), ["max_tokens", "temperature"]);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("profiles: a --profiles file that declares the model sends no refused request", async () => {
  const server = await startFakeServer({ reasoningModel: () => true });
  const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  const file = `${out}-profiles.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      profiles: [{
        match: "fake-*",
        token_limit: "max_completion_tokens",
        sampling: [],
        json_mode: true,
        seed: true,
      }],
    }),
  );
  try {
    const result = await run(llmevalCommand(server.url, out, false, [...SAMPLING, "--profiles", file]));
    assertEquals(result.code, 0, result.stderr);
    assertEquals(chats(server).filter((r) => r.status !== 200).length, 0);
    assertEquals(adaptations(out), []);
    assert(chats(server).some((r) => (r.body as FakeChatBody).max_completion_tokens === 256));
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
    await Deno.remove(file);
  }
});

for (const style of ["openai", "vllm"] as const) {
  Deno.test(`profiles: a ${style} context-limit 400 is one answer error naming the limit, never retried`, async () => {
    const limit = 20;
    const server = await startFakeServer({
      contextLimit: { tokens: limit, style, models: (m) => m === "fake-model" },
    });
    const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
    try {
      const result = await run(llmevalCommand(server.url, out, false));
      const refused = chats(server).filter((r) => r.status === 400);
      assert(refused.length > 0, "the limit must cut some samples");
      assert(chats(server).some((r) => r.status === 200 && (r.body as FakeChatBody).model === "fake-model"));
      // Never retried: each refused call key was sent once.
      const keys = refused.map((r) => r.callKey);
      assertEquals(new Set(keys).size, keys.length);
      const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
      try {
        const errors = store.outputs().map((o) => o.error).filter((e) => e !== null);
        const context = errors.filter((e) => e.includes("context length exceeded"));
        assertEquals(context.length, refused.length);
        for (const error of context) assertStringIncludes(error, `(the model's limit is ${limit} tokens)`);
        // The other errors are later turns of a conversation whose earlier turn exceeded the context.
        assert(
          errors.every((e) =>
            context.includes(e) || /^not asked: turn \d+ exceeded the model's context$/.test(e)
          ),
          errors.join("\n"),
        );
        assertEquals(store.events("retry").length, 0);
      } finally {
        store.close();
      }
      // A context-limit error is the sample's result: the run is complete, and the sample stays in n.
      assertEquals(result.code, 0, result.stderr);
      const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
      assertEquals(summary.complete, true);
      assertEquals(summary.counts.context_errors, refused.length);
      assertEquals(summary.counts.failed, 0);
      assertEquals(summary.metrics.usability.n, summary.counts.samples);
    } finally {
      await server.close();
      await Deno.remove(out, { recursive: true });
    }
  });
}

Deno.test("profiles: a bad --profiles file is one line naming the file and the field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  const file = `${dir}/profiles.json`;
  const bad = [
    [
      { profiles: [{ match: "x", token_limit: "max_length", sampling: [], json_mode: true, seed: true }] },
      "token_limit",
    ],
    [{ profiles: [{ match: "x", token_limit: "max_tokens", sampling: [], json_mode: true }] }, "seed"],
    [{ profiles: [], colour: "red" }, "colour"],
  ] as const;
  try {
    for (const [content, field] of bad) {
      await Deno.writeTextFile(file, JSON.stringify(content));
      const result = await runCli([
        "eval",
        "llmeval-med",
        "--model",
        "offline:reference",
        "--judge",
        "offline:overlap",
        "--data",
        `${ROOT}data/llmeval_med/sample.json`,
        "--out",
        `${dir}/out`,
        "--profiles",
        file,
      ]);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.errors.length, 1, result.stderr);
      assertStringIncludes(result.errors[0], file);
      assertMatch(result.errors[0], new RegExp(`field "profiles\\.0\\.${field}"|field "${field}"`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The `request_shapes` the manifest of the run in `out` records, by role and model. */
function recordedShapes(out: string): Record<string, Record<string, Record<string, unknown>>> {
  const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
  try {
    return store.manifest()!.request_shapes as never;
  } finally {
    store.close();
  }
}

Deno.test("profiles: --batch lines of an o3 model carry max_completion_tokens and no temperature, as its live calls", async () => {
  const lines: FakeChatBody[] = [];
  const server = await startFakeServer({
    batchLineCompletion: (line) => {
      lines.push(line.body);
      return undefined;
    },
  });
  const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  const config = (batch: boolean, dir: string) => ({
    benchmark: "llmeval-med",
    model: "o3-mini",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeRuns: 1,
    temperature: 0.5,
    maxTokens: 64,
    roleOptions: ["model.reasoning_effort=low"],
    data: `${ROOT}data/llmeval_med/sample.json`,
    limit: 2,
    out: dir,
    progress: false,
    renderFigures: false,
    ...(batch ? { batch: true, batchPollSeconds: 0.02 } : {}),
  });
  try {
    await runEval(config(true, `${out}/batched`));
    const model = lines.filter((b) => b.model === "o3-mini");
    assert(model.length > 0);
    for (const body of model) {
      assertEquals(body.max_completion_tokens, 64);
      assert(!("max_tokens" in body) && !("temperature" in body), JSON.stringify(body));
      assertEquals(body.reasoning_effort, "low");
    }
    // The same run unbatched sends the same bodies as chat completions.
    await runEval(config(false, `${out}/live`));
    const live = chats(server).map((r) => r.body as FakeChatBody).filter((b) => b.model === "o3-mini");
    const canonical = (bodies: FakeChatBody[]) => bodies.map((b) => JSON.stringify(b)).sort();
    assertEquals(canonical(live), canonical(model));
    const shape = recordedShapes(`${out}/batched`).model["o3-mini"];
    assertEquals(shape.profile, "o3*");
    assertEquals(shape.sent, ["max_completion_tokens", "reasoning_effort"]);
    assertEquals(shape.left_out, ["temperature"]);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("profiles: the manifest records each role's request shape, with the adaptations learned", async () => {
  const server = await startFakeServer({ reasoningModel: (m) => m === "fake-model", reply: () => "答案：A" });
  const out = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  try {
    const result = await run(cli([
      ...climedbenchArgs(server.url, out),
      "--seed",
      "1",
    ]));
    assertEquals(result.code, 0, result.stderr);
    const shapes = recordedShapes(out);
    assertEquals(shapes.model["fake-model"], {
      profile: "*",
      token_limit: "max_completion_tokens",
      sent: ["max_completion_tokens", "seed"],
      left_out: ["temperature"],
      adaptations: ["max_tokens: max_completion_tokens", "temperature: left out (server default)"],
    });
    // Embeddings have no request shape: only chat roles are recorded.
    assertEquals(Object.keys(shapes), ["model"]);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

/**
 * Runs `fn` with a batched caller of fake-model against a fake whose batch lines are refused while they carry
 * `seed`, its store, and the batched provider; closes and removes everything after.
 */
async function withSeedRefusingBatches(
  fn: (
    caller: Caller,
    store: RunStore,
    batched: ReturnType<typeof batchProviderFor>,
    server: FakeServer,
  ) => Promise<void>,
): Promise<void> {
  const server = await startFakeServer({
    batchLineFault: (line) =>
      "seed" in line.body
        ? { status: 400, message: "Unsupported parameter: 'seed' is not supported with this model." }
        : undefined,
  });
  const dir = await Deno.makeTempDir({ prefix: "medeval-profiles-" });
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    const pool = createProvider({ model: "fake-model", baseUrl: server.url, profiles: await loadProfiles() });
    const batched = batchProviderFor(pool, { pollMs: 20, idleMs: 30 });
    batched.attach(store);
    const caller = new Caller(batched, store, "model", { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 });
    await fn(caller, store, batched, server);
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("profiles: a batch line refused for a parameter is asked again without it, and the change logged", async () => {
  await withSeedRefusingBatches(async (caller, store, batched, server) => {
    const { call } = await caller.call({
      messages: [{ role: "user", content: "hi" }],
      seed: 3,
      maxTokens: 8,
    });
    assertEquals(call.attempts, 2);
    const [first, second] = server.batches;
    assert(first.customIds[0].endsWith("-a1") && second.customIds[0].endsWith("-a2"));
    const adapted = store.events("request_adapted").map((e) =>
      e.detail as { parameter: string; now: string }
    );
    assertEquals(adapted.map((a) => `${a.parameter}: ${a.now}`), ["seed: left out"]);
    assertEquals(batched.shape.record().left_out, ["seed"]);
  });
});

Deno.test("profiles: lines of one batch refused for the same parameter change the shape once", async () => {
  await withSeedRefusingBatches(async (caller, store, batched, server) => {
    const calls = await Promise.all(
      ["one", "two", "three"].map((content) =>
        caller.call({ messages: [{ role: "user", content }], seed: 3, maxTokens: 8 })
      ),
    );
    assertEquals(calls.map(({ call }) => call.attempts), [2, 2, 2]);
    assertEquals(server.batches[0].customIds.length, 3, "the three lines went in one batch");
    const adapted = store.events("request_adapted").map((e) => (e.detail as { parameter: string }).parameter);
    assertEquals(adapted, ["seed"]);
    assertEquals(batched.shape.record().adaptations, ["seed: left out"]);
  });
});
