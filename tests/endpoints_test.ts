/**
 * Endpoints (issue 25): Azure OpenAI deployments (`--api-version`, the `api-key` header, batch mode through the
 * same client), and the OpenAI-compatible layers of Anthropic and Gemini, whose profiles decide what a request
 * carries. Every endpoint is the fake server behaving as that endpoint does.
 * @module
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { ConfigError } from "../lib/core/errors.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { planEval } from "../lib/pipeline/plan.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import {
  type FakeChatBody,
  type FakeRequestRecord,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

const LLMEVAL = `${ROOT}data/llmeval_med/sample.json`;
const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;
const AZURE_KEY_VAR = "MEDEVAL_ENDPOINTS_AZURE_KEY";
const AZURE_KEY = "azure-endpoint-test-key";
const VERSION = "2024-10-21";

/** The chat completion requests a fake received. */
function chats(server: FakeServer): FakeRequestRecord[] {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions"));
}

/** The bodies of the chat completions a fake received for `model`. */
function bodiesOf(server: FakeServer, model: string): FakeChatBody[] {
  return chats(server).map((r) => r.body as FakeChatBody).filter((b) => b.model === model);
}

/** `http://127.0.0.1:PORT` of a fake server. */
function origin(server: FakeServer): string {
  return new URL(server.url).origin;
}

/** A judged LLMEval-Med run on the first samples, model and judge at `baseUrl` unless `extra` says otherwise. */
function llmeval(baseUrl: string, out: string, extra: Partial<EvalConfig> = {}): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl,
    judge: "fake-judge",
    judgeRuns: 1,
    data: LLMEVAL,
    limit: 4,
    out,
    progress: false,
    renderFigures: false,
    retryPolicy: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  };
}

/** Runs `fn` with a fake server started with `options` and a temporary directory, both removed after. */
async function withServer(
  options: FakeServerOptions,
  fn: (server: FakeServer, dir: string) => Promise<void>,
): Promise<void> {
  const server = await startFakeServer(options);
  const dir = await Deno.makeTempDir({ prefix: "medeval-endpoints-" });
  try {
    await fn(server, dir);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The `request_adapted` events and the `request_shapes` manifest entry of the run in `out`. */
function shapesOf(out: string): {
  adapted: { role: string; model: string; parameter: string; now: string }[];
  shapes: Record<string, Record<string, Record<string, unknown>>>;
} {
  const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
  try {
    return {
      adapted: store.events("request_adapted").map((e) => e.detail as never),
      shapes: store.manifest()!.request_shapes as never,
    };
  } finally {
    store.close();
  }
}

Deno.test("Azure: LLMEval-Med against a deployment sends every request to its path with api-version and api-key", async () => {
  await withServer(
    { azure: { deployment: "dep", apiKey: AZURE_KEY }, reply: scriptedReply },
    async (server, dir) => {
      const result = await runCli([
        "eval",
        "llmeval-med",
        "--model",
        "fake-model",
        "--base-url",
        `${origin(server)}/openai/deployments/dep`,
        "--api-version",
        VERSION,
        "--api-key-env",
        AZURE_KEY_VAR,
        "--judge",
        "fake-judge",
        "--judge-api-key-env",
        AZURE_KEY_VAR,
        "--judge-runs",
        "1",
        "--limit",
        "4",
        "--data",
        LLMEVAL,
        "--out",
        `${dir}/run`,
        "--no-render",
        "--quiet",
      ], { [AZURE_KEY_VAR]: AZURE_KEY });
      assertEquals(result.code, 0, result.stderr);
      const sent = chats(server);
      // The judge shares the model's base URL, so it takes the model's api-version too.
      assert(bodiesOf(server, "fake-model").length > 0 && bodiesOf(server, "fake-judge").length > 0);
      for (const request of sent) {
        assertEquals(request.path, "/openai/deployments/dep/chat/completions");
        assertEquals(request.query, `?api-version=${VERSION}`);
        assertEquals(request.apiKey, AZURE_KEY);
        assertEquals(request.status, 200);
      }
      assert(!result.stderr.includes(AZURE_KEY) && !result.stdout.includes(AZURE_KEY));
      const { shapes } = shapesOf(`${dir}/run`);
      assertEquals(shapes.model["fake-model"].api_version, VERSION);
      assertEquals(shapes.judge["fake-judge"].api_version, VERSION);
    },
  );
});

Deno.test("Azure: a deployment URL without an api-version is one line naming the flag to add", async () => {
  const azure = "https://myresource.openai.azure.com/openai/deployments/dep";
  const result = await runCli([
    "eval",
    "climedbench",
    "--model",
    "gpt-4o",
    "--base-url",
    azure,
    "--data",
    CLIMED,
    "--out",
    `${await Deno.makeTempDir({ prefix: "medeval-endpoints-" })}/run`,
    "--no-render",
  ]);
  assertEquals(result.code, 2, result.stderr);
  assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
  assertEquals(
    result.errors[0],
    `error: --base-url: ${azure} is an Azure OpenAI endpoint: add --api-version VERSION (e.g. --api-version 2024-10-21)`,
  );
  // A judge at a deployment of its own names its own flag; one at the model's base URL names the model's.
  const dir = await Deno.makeTempDir({ prefix: "medeval-endpoints-" });
  const own = await assertRejects(
    () => planEval(llmeval("http://127.0.0.1:9/v1", `${dir}/a`, { judgeBaseUrl: azure })),
    ConfigError,
  );
  assertStringIncludes(own.message, "--judge-base-url: ");
  assertStringIncludes(own.message, "add --judge-api-version VERSION");
  const shared = await assertRejects(() => planEval(llmeval(azure, `${dir}/b`)), ConfigError);
  assertStringIncludes(shared.message, "add --api-version VERSION");
  // Given, it plans; the v1 API (/openai/v1) needs none; --role-opt sets it for any role.
  await planEval(llmeval(azure, `${dir}/c`, { apiVersion: VERSION }));
  await planEval(llmeval("https://myresource.openai.azure.com/openai/v1", `${dir}/d`));
  const plan = await planEval(
    llmeval("http://127.0.0.1:9/v1", `${dir}/e`, {
      judgeBaseUrl: azure,
      roleOptions: [`judge.api-version=${VERSION}`],
    }),
  );
  assertEquals(plan.roles.find((r) => r.name === "judge")!.providers[0].shape?.record().api_version, VERSION);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Azure: --batch uploads, creates and polls through the same client (api-version query, api-key header)", async () => {
  await withServer(
    { azure: { deployment: "dep", apiKey: AZURE_KEY }, reply: scriptedReply },
    async (server, dir) => {
      Deno.env.set(AZURE_KEY_VAR, AZURE_KEY);
      const result = await runEval(
        llmeval(`${origin(server)}/openai/deployments/dep`, `${dir}/run`, {
          apiVersion: VERSION,
          apiKeyEnv: AZURE_KEY_VAR,
          judgeApiKeyEnv: AZURE_KEY_VAR,
          batch: true,
          batchPollSeconds: 0.02,
        }),
      );
      assertEquals(chats(server).length, 0, "batch mode sent no chat completion directly");
      const batchCalls = server.requests.filter((r) => /\/(files|batches)/.test(r.path));
      assert(batchCalls.length > 0 && server.batches.length > 0);
      for (const request of batchCalls) {
        assert(request.path.startsWith("/openai/deployments/dep/"), request.path);
        assertEquals(request.query.includes(`api-version=${VERSION}`), true, request.path + request.query);
        assertEquals(request.apiKey, AZURE_KEY);
      }
      assert(result.calls.model.sent > 0 && result.calls.judge.sent > 0);
    },
  );
});

Deno.test("Anthropic: no seed, no response_format, a temperature above 1 capped at 1 and recorded", async () => {
  // The fake behaves as Anthropic's layer does: seeds and JSON mode ignored.
  await withServer({ reply: scriptedReply, ignoreSeed: true, jsonMode: "ignored" }, async (server, dir) => {
    const out = `${dir}/run`;
    await runEval(
      llmeval(server.url, out, {
        model: "claude-sonnet-4-5",
        judge: "claude-opus-4-1",
        seed: 7,
        temperature: 0.3,
        maxTokens: 128,
        judgeTemperature: 1.5,
      }),
    );
    const model = bodiesOf(server, "claude-sonnet-4-5");
    const judge = bodiesOf(server, "claude-opus-4-1");
    assert(model.length > 0 && judge.length > 0);
    for (const body of [...model, ...judge]) {
      assert(!("seed" in body), "no seed is sent to Anthropic");
      assert(!("response_format" in body), "no JSON mode is asked of Anthropic");
    }
    assert(model.every((b) => b.temperature === 0.3 && b.max_tokens === 128));
    assert(judge.every((b) => b.temperature === 1), "the judge's 1.5 is capped at 1");
    const { adapted, shapes } = shapesOf(out);
    const capped = adapted.filter((a) => a.parameter === "temperature");
    assertEquals(capped.length, 1, JSON.stringify(adapted));
    assertEquals(capped[0].role, "judge");
    assertStringIncludes(capped[0].now, "1 (1.5 asked");
    const judgeShape = shapes.judge["claude-opus-4-1"];
    assertEquals(judgeShape.profile, "claude-*");
    assertEquals(judgeShape.left_out, ["response_format", "seed"]);
    assertEquals(judgeShape.sent, ["max_tokens", "temperature"]);
    assertEquals((judgeShape.adaptations as string[]).length, 1);
    assertEquals(shapes.model["claude-sonnet-4-5"].left_out, ["seed"]);
    assertEquals(shapes.model["claude-sonnet-4-5"].sent, ["max_tokens", "temperature"]);
  });
});

Deno.test("Gemini: JSON mode and reasoning_effort are sent; a parameter its profile does not list is refused", async () => {
  await withServer({ reply: scriptedReply, jsonMode: "honoured" }, async (server, dir) => {
    await runEval(
      llmeval(server.url, `${dir}/run`, {
        judge: "gemini-2.5-flash",
        roleOptions: ["judge.reasoning_effort=low"],
      }),
    );
    const judge = bodiesOf(server, "gemini-2.5-flash");
    assert(judge.length > 0);
    for (const body of judge) {
      assertEquals(body.response_format, { type: "json_object" });
      assertEquals(body.reasoning_effort, "low");
      assertEquals(body.seed !== undefined, true);
    }
    assert(bodiesOf(server, "fake-model").every((b) => !("reasoning_effort" in b)));
  });
  const refused = await assertRejects(
    () =>
      planEval(
        llmeval("http://127.0.0.1:9/v1", `${Deno.makeTempDirSync({ prefix: "medeval-endpoints-" })}/run`, {
          judge: "gemini-2.5-flash",
          roleOptions: ["judge.top_k=20"],
        }),
      ),
    ConfigError,
  );
  assertEquals(
    refused.message,
    '--role-opt judge.top_k: the judge model "gemini-2.5-flash" (profile gemini-*) takes no extra body ' +
      "parameter top_k (its extra_body: reasoning_effort; a --profiles file can list it)",
  );
});
