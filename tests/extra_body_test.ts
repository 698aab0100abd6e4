/**
 * Extra body parameters (issue 25): `--role-opt NAME.KEY=VALUE` with a key that is no role key is sent in the
 * body of that role's chat requests, only when the role model's profile takes it; its value is parsed as JSON
 * when it is JSON; it is part of the call key (a request without extras keeps the key it always had).
 * @module
 */
import { assert, assertEquals, assertNotEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { ConfigError } from "../lib/core/errors.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { callKey } from "../lib/providers/caller.ts";
import { createProvider } from "../lib/providers/factory.ts";
import type { ChatRequest } from "../lib/providers/types.ts";
import { scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, type FakeServer, startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

const LLMEVAL = `${ROOT}data/llmeval_med/sample.json`;
const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;

/** A judged LLMEval-Med run on the first samples, model and judge on `url`. */
function llmeval(
  url: string,
  out: string,
  roleOptions: string[],
  extra: Partial<EvalConfig> = {},
): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: url,
    judge: "fake-judge",
    judgeRuns: 1,
    data: LLMEVAL,
    limit: 4,
    out,
    roleOptions,
    progress: false,
    renderFigures: false,
    retryPolicy: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  };
}

/** The chat bodies a fake received for `model`. */
function bodiesOf(server: FakeServer, model: string): FakeChatBody[] {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions"))
    .map((r) => r.body as FakeChatBody).filter((b) => b.model === model);
}

Deno.test("--role-opt judge.reasoning_effort=low goes into the judge's bodies only; values are parsed as JSON", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const out = await Deno.makeTempDir({ prefix: "medeval-extra-" });
  try {
    const options = [
      "judge.reasoning_effort=low",
      "model.top_k=20",
      'model.chat_template_kwargs={"enable_thinking":false}',
      "model.skip_special_tokens=true",
    ];
    await runEval(llmeval(server.url, out, options));
    const judge = bodiesOf(server, "fake-judge");
    const model = bodiesOf(server, "fake-model");
    assert(judge.length > 0 && model.length > 0);
    for (const body of judge) {
      assertEquals(body.reasoning_effort, "low");
      assert(!("top_k" in body) && !("chat_template_kwargs" in body));
    }
    for (const body of model) {
      assert(!("reasoning_effort" in body));
      assertEquals(body.top_k, 20);
      assertEquals(body.chat_template_kwargs, { enable_thinking: false });
      assertEquals(body.skip_special_tokens, true);
    }

    // Resumed with the same extras, every call comes from the store: the keys are stable.
    const before = server.requests.length;
    await runEval(llmeval(server.url, out, options, { resume: true }));
    assertEquals(server.requests.length, before);
    // Resumed with another value, the run is another run: refused, naming the entry.
    const changed = await assertRejects(
      () =>
        runEval(
          llmeval(server.url, out, ["judge.reasoning_effort=high", ...options.slice(1)], { resume: true }),
        ),
      ConfigError,
    );
    assertStringIncludes(changed.message, "extra_body");
    assertEquals(server.requests.length, before);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("call keys: a request without extras keeps the key earlier versions gave it; extras change it", () => {
  const request: ChatRequest = { messages: [{ role: "user", content: "hi" }], temperature: 0, maxTokens: 16 };
  const plain = createProvider({ model: "m", baseUrl: "http://127.0.0.1:9/v1" });
  // The key the same request had before extra body parameters existed (computed by the code of commit 4f37780).
  assertEquals(
    callKey(plain, request, 0),
    "d180ca336c37b7f7747ad19ff418f001308cd98d8db959e5ba7e7719be39e2b1",
  );
  const withExtra = (extraBody: Record<string, unknown>) =>
    createProvider({
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      extraBody,
      extraBodyOf: { role: "model", flag: "--role-opt model" },
    });
  const low = callKey(withExtra({ reasoning_effort: "low" }), request, 0);
  assertNotEquals(low, callKey(plain, request, 0));
  assertNotEquals(low, callKey(withExtra({ reasoning_effort: "high" }), request, 0));
  assertEquals(low, callKey(withExtra({ reasoning_effort: "low" }), request, 0));
  assertEquals(callKey(withExtra({}), request, 0), callKey(plain, request, 0));
});

Deno.test("an extra the profile does not take, or sent to an offline stand-in, is one line before anything is sent", async () => {
  const server = await startFakeServer();
  const dir = await Deno.makeTempDir({ prefix: "medeval-extra-" });
  const llmevalArgs = (judge: string, option: string) => [
    "eval",
    "llmeval-med",
    "--model",
    "fake-model",
    "--base-url",
    server.url,
    "--judge",
    judge,
    "--role-opt",
    option,
    "--data",
    LLMEVAL,
    "--out",
    `${dir}/run`,
    "--no-render",
  ];
  try {
    const cases: [string[], string][] = [
      [
        llmevalArgs("claude-sonnet-4-5", "judge.reasoning_effort=low"),
        'error: --role-opt judge.reasoning_effort: the judge model "claude-sonnet-4-5" (profile claude-*) takes ' +
        "no extra body parameter reasoning_effort (its extra_body: thinking, top_p, stop; a --profiles file can list it)",
      ],
      [
        llmevalArgs("deepseek-reasoner", "judge.reasoning_effort=low"),
        "(profile deepseek-reasoner*) takes no extra body parameter reasoning_effort (its extra_body: none;",
      ],
      [
        llmevalArgs("offline:overlap", "judge.reasoning_effort=low"),
        "error: --role-opt judge.reasoning_effort: offline:overlap is an offline stand-in: it sends no request, " +
        "so it takes no extra body parameter",
      ],
      [
        llmevalArgs("fake-judge", "model.response_format=json"),
        "error: --role-opt model.response_format: response_format is not an extra body parameter (JSON mode",
      ],
      [
        llmevalArgs("fake-judge", "judge.max_tokens=5"),
        'error: --role-opt judge.max_tokens: unknown key "max_tokens"; did you mean max-tokens?',
      ],
      [
        llmevalArgs("fake-judge", "model.chat_template_kwargs={enable_thinking:false}"),
        'error: --role-opt model.chat_template_kwargs: "{enable_thinking:false}" is not valid JSON',
      ],
      [
        [
          "eval",
          "climedbench",
          "--model",
          "offline:reference",
          "--embed-model",
          "fake-embed",
          "--embed-base-url",
          server.url,
          "--role-opt",
          "embed.top_k=3",
          "--data",
          CLIMED,
          "--out",
          `${dir}/run`,
          "--no-render",
        ],
        "error: --role-opt embed.top_k: the embed role takes no extra body parameter (it asks for embeddings)",
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertStringIncludes(result.errors[0], message);
    }
    assertEquals(server.requests.length, 0, "nothing was sent");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
