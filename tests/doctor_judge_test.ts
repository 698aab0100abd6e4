import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import {
  type FakeChatBody,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { type CliResult, ROOT, runCli } from "./run_cli.ts";
import type { DoctorReport } from "../lib/providers/doctor/advice.ts";
import { buildJudgeMessages } from "../lib/benchmarks/llmeval_med/prompts.ts";
import { MODEL_ANSWER_HEADING } from "../lib/benchmarks/permedcqa/prompts.ts";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";

/** A key recognisable in any output: it must never appear there. */
const KEY = "doctor-judge-SECRET-0123456789abcdef";

/** LLMEval-Med's judge prompt ends with the answer under this heading (the fake judge answers only these). */
const LLMEVAL_ANSWER = "### Student's answer";

/** Whether `body` is a judge prompt of LLMEval-Med or PerMedCQA (the probes' prompts are not). */
function judgePrompt(body: FakeChatBody): boolean {
  return body.messages.some((m) =>
    m.content.includes(LLMEVAL_ANSWER) || m.content.includes(MODEL_ANSWER_HEADING)
  );
}

/** Runs doctor on `server` (model and judge at the same URL) with `--benchmark benchmark` and `extra` flags. */
function doctor(server: FakeServer, benchmark: string | undefined, extra: string[] = []): Promise<CliResult> {
  return runCli([
    "doctor",
    "--model",
    "fake-model",
    "--base-url",
    server.url,
    "--judge",
    "fake-judge",
    ...(benchmark ? ["--benchmark", benchmark] : []),
    ...extra,
  ], { OPENAI_API_KEY: KEY });
}

/** Starts a fake server with `options`, runs `body` with it, and closes it. */
async function withServer(options: FakeServerOptions, body: (server: FakeServer) => Promise<void>) {
  const server = await startFakeServer({ models: ["fake-model", "fake-judge"], ...options });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

/** The bodies of the judge prompts the server got. */
function judgeBodies(server: FakeServer): FakeChatBody[] {
  return server.requests.map((r) => r.body as FakeChatBody | undefined)
    .filter((b): b is FakeChatBody => Boolean(b?.messages) && judgePrompt(b!));
}

function assertNoKey(result: CliResult): void {
  assert(!result.stdout.includes(KEY) && !result.stderr.includes(KEY), "the key appears in the output");
}

/** A judge that states its verdict only after a long deliberation (what a token limit cuts off). */
const DELIBERATION =
  "First I compare the student's answer with the reference answer point by point. ".repeat(6) +
  "评分：[[4]]";

Deno.test("doctor --benchmark: a judge answering with a readable verdict is reported as read, its prompt the scorer's own", async () => {
  const reply = (body: FakeChatBody) =>
    judgePrompt(body) ? JSON.stringify({ score: 4, reason: "covers the checklist" }) : "Fine.";
  await withServer({ reply }, async (server) => {
    const result = await doctor(server, "llmeval-med", ["--json"]);
    assertEquals(result.code, 0, result.stderr);
    const report: DoctorReport = JSON.parse(result.stdout);
    assertEquals(report.usable, true);
    const judge = report.endpoints[1];
    assertEquals(judge.verdicts?.length, 1);
    const [verdict] = judge.verdicts!;
    assertEquals(
      { benchmark: verdict.benchmark, scorer: verdict.scorer, status: verdict.status, value: verdict.value },
      { benchmark: "llmeval-med", scorer: "judge", status: "read", value: 4 },
    );
    // One judge call, with the scorer's own prompt for a shipped sample (its reference answer judged), the
    // scorer's token limit, the judge's seed and JSON mode, as a run's first judging.
    const bodies = judgeBodies(server);
    assertEquals(bodies.length, 1);
    assertEquals(bodies[0].model, "fake-judge");
    const { samples } = await loadLlmEvalMed(`${ROOT}data/llmeval_med/sample.json`);
    const sample = samples.find((s) => s.id === verdict.sample)!;
    assertEquals(bodies[0].messages, buildJudgeMessages(sample, sample.reference!));
    assertEquals([bodies[0].max_tokens, bodies[0].seed, bodies[0].response_format], [1024, 0, {
      type: "json_object",
    }]);
    // The verdict check counts in no probe figure.
    assertEquals(judge.latency.calls, 6);

    const text = await doctor(server, "llmeval-med");
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(
      text.stdout,
      `  verdict       llmeval-med judge: read, value 4, on sample ${verdict.sample}\n`,
    );
    assertStringIncludes(
      text.stdout,
      "usable: both endpoints answer, and the judge's llmeval-med verdicts were read",
    );
    assertNoKey(text);
  });
});

Deno.test("doctor --benchmark: a judge answering prose without a verdict is reported as not read, with the reply's start, and exit 1", async () => {
  const prose =
    "The student's answer is broadly sound and mentions the feedback on the axis, but it could say more.";
  await withServer({ reply: (body) => judgePrompt(body) ? prose : "Fine." }, async (server) => {
    const result = await doctor(server, "llmeval-med");
    assertEquals(result.code, 1, result.stderr);
    const start = `${prose.slice(0, 80)}…`;
    assertStringIncludes(
      result.stdout,
      `  verdict       llmeval-med judge: NOT read (expects a 1-5 score): the reply starts "${start}"\n`,
    );
    assertStringIncludes(
      result.stdout,
      "not usable: no verdict was read from the judge for llmeval-med judge (see above)",
    );
    assert(!result.stdout.includes("eval flags:"), result.stdout);
    assertEquals(result.errors.length, 1, result.stderr);
    assertStringIncludes(result.errors[0], "error: judge fake-judge @ 127.0.0.1:");
    assertStringIncludes(
      result.errors[0],
      `llmeval-med judge: NOT read (expects a 1-5 score): the reply starts "${start}"`,
    );
    assertNoKey(result);

    const json = await doctor(server, "llmeval-med", ["--json"]);
    assertEquals(json.code, 1);
    const report: DoctorReport = JSON.parse(json.stdout);
    assertEquals(report.usable, false);
    const [verdict] = report.endpoints[1].verdicts!;
    assertEquals([verdict.status, verdict.replyStart, verdict.finishReason], ["not read", start, "stop"]);
  });
});

Deno.test("doctor --benchmark: a verdict cut by the token limit names finish_reason length and the flag; with it, read", async () => {
  // The judge's reply is cut (to half its text) while the token limit is below 4096.
  const answerOutcome = (body: FakeChatBody) =>
    judgePrompt(body) && (body.max_tokens ?? 0) < 4096 ? "length" as const : undefined;
  await withServer(
    { reply: (body) => judgePrompt(body) ? DELIBERATION : "Fine.", answerOutcome },
    async (server) => {
      const result = await doctor(server, "llmeval-med");
      assertEquals(result.code, 1, result.stderr);
      assertStringIncludes(
        result.stdout,
        "  verdict       llmeval-med judge: NOT read (expects a 1-5 score): cut by the token limit (max_tokens 1024), " +
          'finish_reason length; the reply starts "First I compare',
      );
      assertStringIncludes(result.stdout, "; give the judge room: --role-opt judge.max-tokens=4096\n");
      assertStringIncludes(result.errors[0], "finish_reason length");

      const roomy = await doctor(server, "llmeval-med", ["--role-opt", "judge.max-tokens=4096", "--json"]);
      assertEquals(roomy.code, 0, roomy.stderr);
      const report: DoctorReport = JSON.parse(roomy.stdout);
      const [verdict] = report.endpoints[1].verdicts!;
      assertEquals([verdict.status, verdict.value, verdict.maxTokens], ["read", 4, 4096]);
      assertEquals(report.evalFlags.slice(-4, -2), ["--role-opt", "judge.max-tokens=4096"]);
      assertEquals(judgeBodies(server).map((b) => b.max_tokens), [1024, 4096]);
    },
  );
});

Deno.test("doctor --benchmark: a verdict only in the reasoning field is not read, and the report says where it is", async () => {
  const verdict = JSON.stringify({ score: 5, reason: "complete" });
  await withServer({
    reply: (body) => judgePrompt(body) ? "" : "Fine.",
    reasoning: { field: "reasoning_content", text: (body) => judgePrompt(body) ? verdict : undefined },
  }, async (server) => {
    const result = await doctor(server, "llmeval-med");
    assertEquals(result.code, 1, result.stderr);
    assertStringIncludes(
      result.stdout,
      "llmeval-med judge: NOT read (expects a 1-5 score): the reply is empty; a verdict is in the message's " +
        "reasoning_content field, which is not read as the reply\n",
    );
  });
});

Deno.test("doctor --benchmark: a rubric judge's verdict is read with its fields; MedGPTEval gets one call per judge scorer", async () => {
  const medjudge = {
    Brief_analysis: "matches the expert answer",
    Key_missing_facts: [],
    Key_extra_facts: [],
    Correctness: "Correct",
    Coverage: "Equal",
    Clinical_impact: "Negligible",
    Judge_confidence: "High",
  };
  await withServer(
    { reply: (body) => judgePrompt(body) ? JSON.stringify(medjudge) : "Fine." },
    async (server) => {
      const result = await doctor(server, "permedcqa");
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(
        result.stdout,
        "  verdict       permedcqa medjudge: read, value 1 (correctness Correct, coverage Equal, clinical_impact " +
          "Negligible, judge_confidence High), on sample permedcqa:",
      );
      assertEquals(judgeBodies(server).map((b) => b.max_tokens), [2048]);
    },
  );
  await withServer({}, async (server) => {
    const result = await doctor(server, "medgpteval", ["--json"]);
    assertEquals(result.code, 1, result.stderr);
    const report: DoctorReport = JSON.parse(result.stdout);
    const verdicts = report.endpoints[1].verdicts!;
    assertEquals(verdicts.map((v) => [v.scorer, v.status]), [
      ["medical", "not read"],
      ["social", "not read"],
      ["contextual", "not read"],
      ["consistency", "not read"],
    ]);
    assertEquals(result.errors.length, 4, result.stderr);
    // Probes: 6 chat calls per endpoint; then one call per judge scorer.
    const chats = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
    assertEquals(chats.length, 6 + 6 + 4);
    const checks = chats.slice(-4).map((r) => (r.body as FakeChatBody).messages.at(-1)!.content);
    assert(checks.slice(0, 3).every((c) => c.includes("### Dialogue")), checks.join("\n"));
    assertStringIncludes(checks[3], "### Answer to the rewritten question");
  });
});

Deno.test("doctor --benchmark: the verdict check sends the token-limit parameter, seed and JSON mode as the judge's profile does (a run's shape)", async () => {
  const reply = (body: FakeChatBody) =>
    judgePrompt(body) ? JSON.stringify({ score: 4, reason: "covers the checklist" }) : "Fine.";
  const dir = await Deno.makeTempDir();
  try {
    const profile = async (name: string, fields: Record<string, unknown>) => {
      const path = `${dir}/${name}.json`;
      const entry = { match: "fake-judge", token_limit: "max_tokens", sampling: ["temperature"], ...fields };
      await Deno.writeTextFile(path, JSON.stringify({ profiles: [entry] }));
      return path;
    };
    const sent = async (extra: string[]) => {
      let bodies: FakeChatBody[] = [];
      await withServer({ reply }, async (server) => {
        const result = await doctor(server, "llmeval-med", extra);
        assertEquals(result.code, 0, result.stderr);
        bodies = judgeBodies(server);
      });
      assertEquals(bodies.length, 1);
      const body = bodies[0] as FakeChatBody & Record<string, unknown>;
      const limit = "max_completion_tokens" in body
        ? "max_completion_tokens"
        : "max_tokens" in body
        ? "max_tokens"
        : null;
      return { seed: "seed" in body, jsonMode: "response_format" in body, limit };
    };
    // No profile matches: the default shape sends both (LLMEval-Med's judge asks for JSON), with max_tokens.
    assertEquals(await sent([]), { seed: true, jsonMode: true, limit: "max_tokens" });
    // The judge's profile turns both off: a run would send neither, and so does the check.
    const off = await profile("off", { json_mode: false, seed: false });
    assertEquals(await sent(["--profiles", off]), { seed: false, jsonMode: false, limit: "max_tokens" });
    // One off, one on, and the profile's token-limit parameter (o1-style models take max_completion_tokens).
    const mixed = await profile("mixed", {
      json_mode: true,
      seed: false,
      token_limit: "max_completion_tokens",
    });
    assertEquals(await sent(["--profiles", mixed]), {
      seed: false,
      jsonMode: true,
      limit: "max_completion_tokens",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: a judge without --benchmark gets the probes only, and a line saying how to check its verdicts", async () => {
  await withServer({}, async (server) => {
    const result = await doctor(server, undefined);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(
      result.stdout,
      "  verdict       not checked: --benchmark NAME sends one prompt of each of its judge scorers\n",
    );
    assertEquals(server.requests.filter((r) => r.path.endsWith("/chat/completions")).length, 12);
  });
});

Deno.test("doctor --timeout: requests wait as long as it says (default 120 s, a run's), no longer", async () => {
  await withServer({ latencyMs: 250 }, async (server) => {
    // A judge slower than the timeout: every call times out, and the report says the chat call failed.
    const short = await doctor(server, undefined, ["--timeout", "0.1"]);
    assertEquals(short.code, 1, short.stderr);
    assertStringIncludes(short.stderr, "timed out");
  });
  await withServer({ latencyMs: 250 }, async (server) => {
    const roomy = await doctor(server, undefined, ["--timeout", "5"]);
    assertEquals(roomy.code, 0, roomy.stderr);
  });
});
