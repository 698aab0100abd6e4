import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import {
  type FakeRequestRecord,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { type CliResult, runCli } from "./run_cli.ts";
import type { DoctorReport } from "../lib/providers/doctor/advice.ts";

/** A key recognisable in any output: it must never appear there. */
const KEY = "doctor-SECRET-0123456789abcdef";

/** Runs `deno task doctor` against `url` with `model` and `extra` flags, the key in OPENAI_API_KEY. */
function doctor(url: string, model: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runCli(["doctor", "--model", model, "--base-url", url, ...extra], { OPENAI_API_KEY: KEY, ...env });
}

/** Runs doctor with `--json` and returns its parsed report (and the run's output). */
async function doctorJson(
  url: string,
  model: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ report: DoctorReport; result: CliResult }> {
  const result = await doctor(url, model, ["--json", ...extra], env);
  return { report: JSON.parse(result.stdout), result };
}

/** Starts a fake server with `options`, runs `body` with it, and closes it. */
async function withServer(options: FakeServerOptions, body: (server: FakeServer) => Promise<void>) {
  const server = await startFakeServer(options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function chatRequests(server: FakeServer): FakeRequestRecord[] {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions"));
}

function bodyOf(request: FakeRequestRecord): Record<string, unknown> {
  return (request.body ?? {}) as Record<string, unknown>;
}

/**
 * Returns the parameters a refused (400) chat request sent that the next request dropped and a later request
 * sent again: a request that cannot succeed, sent twice.
 */
function refusedThenResent(server: FakeServer): string[] {
  const chats = chatRequests(server);
  const resent: string[] = [];
  chats.forEach((request, i) => {
    if (request.status !== 400) return;
    const next = chats[i + 1] ? bodyOf(chats[i + 1]) : {};
    for (const key of Object.keys(bodyOf(request)).filter((k) => !(k in next))) {
      if (chats.slice(i + 1).some((later) => key in bodyOf(later))) resent.push(key);
    }
  });
  return resent;
}

function assertNoKey(result: CliResult): void {
  assert(!result.stdout.includes(KEY), "the key appears on standard output");
  assert(!result.stderr.includes(KEY), "the key appears on standard error");
}

Deno.test("doctor: a plain server works in every respect and the default shape agrees", async () => {
  await withServer({ jsonMode: "honoured" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(report.usable, true);
    assertEquals(model.models.status, "listed");
    assertEquals(model.models.includesModel, true);
    assertEquals(model.chat.ok, true);
    assertEquals(model.chat.servedModel, "fake-model");
    assertEquals(model.chat.finishReason, "stop");
    assertEquals(model.tokenLimit.status, "max_tokens");
    assertEquals(model.temperature.status, "accepted");
    assertEquals(model.seed.status, "honoured");
    assertEquals(model.jsonMode.status, "honoured");
    assertEquals(model.reasoning.status, "none seen");
    assertEquals(model.usage.status, "present");
    assertEquals(model.latency.calls, 6);
    assertEquals(typeof model.latency.p50Ms, "number");
    assertEquals(typeof model.latency.p95Ms, "number");
    assertEquals(model.rateLimits, {});
    assertEquals(model.profile?.matched, null);
    assertEquals(model.profile?.agrees, true);
    // The key went to the server, as a bearer token, and nowhere else.
    assert(server.requests.every((r) => r.authorization === `Bearer ${KEY}`));
    assertNoKey(result);
    assertEquals(chatRequests(server).length, 6);
    assertEquals(chatRequests(server).filter((r) => "temperature" in bodyOf(r)).length, 3);
  });
});

Deno.test("doctor: an o-series model takes max_completion_tokens and only the default temperature (text report)", async () => {
  const options = {
    reasoningModel: (m: string) => m.startsWith("o3"),
    jsonMode: "honoured",
    models: ["o3-mini"],
  } as const;
  await withServer(options, async (server) => {
    const result = await doctor(server.url, "o3-mini");
    assertEquals(result.code, 0, result.stderr);
    const text = result.stdout;
    assertStringIncludes(text, "model: o3-mini @ 127.0.0.1:");
    assertStringIncludes(
      text,
      "token limit   max_tokens refused (HTTP 400 unsupported_parameter): max_completion_tokens needed",
    );
    assertStringIncludes(
      text,
      "temperature   0 refused (HTTP 400 unsupported_value): only the default is accepted",
    );
    assertStringIncludes(text, "seed          honoured: two identical seeded calls gave the same text");
    assertStringIncludes(text, 'profile       "o3*" matches and agrees with what the server did');
    assertStringIncludes(text, "usable: the endpoint answers");
    assert(!text.includes("profile entries to save"), text);
    assertStringIncludes(text, "eval flags: --model o3-mini --base-url ");
    assertStringIncludes(text, "--api-key-env OPENAI_API_KEY --max-tokens 4096");
    assertNoKey(result);
    // Each refused parameter was sent once, never again.
    const chats = chatRequests(server);
    assertEquals(chats.filter((r) => "max_tokens" in bodyOf(r)).length, 1);
    assertEquals(chats.filter((r) => "temperature" in bodyOf(r)).length, 1);
    assertEquals(chats.filter((r) => r.status === 400).length, 2);
    assertEquals(refusedThenResent(server), []);
  });
});

Deno.test("doctor: a model no profile matches gets an entry that, saved and passed by --profiles, agrees", async () => {
  await withServer({ reasoningModel: (m) => m === "acme-reasoner", jsonMode: "honoured" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "acme-reasoner");
    assertEquals(result.code, 0, result.stderr);
    const verdict = report.endpoints[0].profile!;
    assertEquals(verdict.matched, null);
    assertEquals(verdict.agrees, false);
    assertEquals(verdict.differences.map((d) => d.field), ["token_limit", "sampling"]);
    assertEquals(report.profileFile?.profiles.length, 1);
    const { match, token_limit, sampling, reasoning_field, json_mode, seed } =
      report.profileFile!.profiles[0];
    assertEquals({ match, token_limit, sampling, reasoning_field, json_mode, seed }, {
      match: "acme-reasoner",
      token_limit: "max_completion_tokens",
      sampling: [],
      reasoning_field: null,
      json_mode: true,
      seed: true,
    });
    assertEquals(report.evalFlags.slice(-2), ["--profiles", "doctor-profiles.json"]);
    const dir = await Deno.makeTempDir({ prefix: "medeval-doctor-" });
    try {
      const file = `${dir}/profiles.json`;
      await Deno.writeTextFile(file, JSON.stringify(report.profileFile));
      const again = await doctorJson(server.url, "acme-reasoner", ["--profiles", file]);
      assertEquals(again.result.code, 0, again.result.stderr);
      assertEquals(again.report.endpoints[0].profile?.matched, "acme-reasoner");
      assertEquals(again.report.endpoints[0].profile?.agrees, true);
      assertEquals(again.report.profileFile, null);
      assertEquals(again.report.evalFlags.slice(-2), ["--profiles", file]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("doctor: the printed profile entry is valid JSON in data/profiles.json's layout", async () => {
  await withServer({ ignoreSeed: true, jsonMode: "honoured" }, async (server) => {
    const result = await doctor(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const start = result.stdout.indexOf("\n{\n");
    const end = result.stdout.indexOf("\n}\n", start);
    assert(start > 0 && end > start, result.stdout);
    const file = JSON.parse(result.stdout.slice(start + 1, end + 2));
    assertEquals(Object.keys(file), ["source", "profiles"]);
    assertEquals(file.profiles[0].match, "fake-model");
    assertEquals(file.profiles[0].seed, false);
  });
});

Deno.test("doctor: a server refusing both token-limit parameters gets each once, then none", async () => {
  await withServer({ rejectParameters: () => ["max_tokens", "max_completion_tokens"] }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(model.tokenLimit.status, "neither");
    assertEquals(model.profile?.observed.token_limit, undefined);
    const chats = chatRequests(server);
    assertEquals(chats.filter((r) => "max_tokens" in bodyOf(r)).length, 1);
    assertEquals(chats.filter((r) => "max_completion_tokens" in bodyOf(r)).length, 1);
    assertEquals(refusedThenResent(server), []);
    assert(model.notes.includes("no token limit is accepted: replies may run long"), model.notes.join("\n"));
  });
});

Deno.test("doctor: replies cut at the token limit are counted and --max-tokens is suggested", async () => {
  await withServer({ answerOutcome: () => "length" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(model.chat.finishReason, "length");
    assertEquals(model.cutReplies, 6);
    assert(model.notes.includes("6 probe replies were cut at 400 tokens (finish_reason length)"));
    assertEquals(report.evalFlags.slice(report.evalFlags.indexOf("--max-tokens"))[1], "4096");
  });
});

Deno.test("doctor: a server that ignores the seed is reported as not honouring it", async () => {
  await withServer({ ignoreSeed: true, jsonMode: "honoured" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(model.seed.status, "not honoured");
    assertStringIncludes(model.seed.detail, "not honoured: replies differ");
    // (The fake's seedless replies end with a counter, so JSON mode shows as ignored too.)
    const seed = model.profile?.differences.find((d) => d.field === "seed");
    assertEquals(seed, { field: "seed", profile: true, observed: false });
    assert(
      model.notes.some((n) => n.includes("a seed does not make replies repeatable")),
      model.notes.join("\n"),
    );
  });
});

Deno.test("doctor: a server that refuses seed is reported so, and seed is sent once", async () => {
  await withServer({ rejectParameters: () => ["seed"], jsonMode: "honoured" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    assertEquals(report.endpoints[0].seed.status, "refused");
    assertEquals(chatRequests(server).filter((r) => "seed" in bodyOf(r)).length, 1);
    assertEquals(refusedThenResent(server), []);
  });
});

for (const mode of ["honoured", "ignored", "refused"] as const) {
  Deno.test(`doctor: JSON mode ${mode}`, async () => {
    await withServer({ jsonMode: mode }, async (server) => {
      const { report, result } = await doctorJson(server.url, "fake-model");
      assertEquals(result.code, 0, result.stderr);
      const [model] = report.endpoints;
      assertEquals(model.jsonMode.status, mode);
      assertEquals(model.profile?.observed.json_mode, mode === "honoured");
      const sent = chatRequests(server).filter((r) => "response_format" in bodyOf(r)).length;
      assertEquals(sent, 1);
      assertEquals(refusedThenResent(server), []);
    });
  });
}

for (const field of ["reasoning_content", "reasoning"] as const) {
  Deno.test(`doctor: reasoning in the message's ${field} field`, async () => {
    await withServer(
      { reasoning: { field, text: () => "Let me think." }, jsonMode: "honoured" },
      async (server) => {
        const { report, result } = await doctorJson(server.url, "fake-model");
        assertEquals(result.code, 0, result.stderr);
        const [model] = report.endpoints;
        assertEquals(model.reasoning.status, field);
        assertEquals(model.profile?.observed.reasoning_field, field);
        assertEquals(report.profileFile?.profiles[0].reasoning_field, field);
        assert(report.evalFlags.includes("--max-tokens"), report.evalFlags.join(" "));
      },
    );
  });
}

Deno.test("doctor: <think> in the content is reported as reasoning in the answer text", async () => {
  await withServer({ reply: () => "<think>hmm</think> The heart pumps blood." }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    assertEquals(report.endpoints[0].reasoning.status, "think tags");
  });
});

Deno.test("doctor: missing usage is reported (token and cost accounting will say unknown)", async () => {
  await withServer({ omitUsage: true, jsonMode: "honoured" }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(model.usage.status, "missing");
    assert(model.notes.some((n) => n.includes('"unknown"')), model.notes.join("\n"));
  });
});

Deno.test("doctor: rate-limit headers are shown as sent, and --calls sets the calls measured", async () => {
  const headers = {
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "499",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29985",
    "x-ratelimit-reset-tokens": "30ms",
    "retry-after": "2",
  };
  await withServer({ headers: () => headers }, async (server) => {
    const { report, result } = await doctorJson(server.url, "fake-model", ["--calls", "8"]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(report.endpoints[0].rateLimits, headers);
    assertEquals(report.endpoints[0].latency.calls, 8);
    assertEquals(chatRequests(server).length, 8);
    const text = await doctor(server.url, "fake-model");
    assertStringIncludes(
      text.stdout,
      "rate limits   requests 500 (499 left), tokens 30000 (29985 left, reset 30ms), retry-after 2\n",
    );
  });
});

Deno.test("doctor: a model /models does not list is named with the closest listed one", async () => {
  await withServer({ models: ["qwen2.5-7b-instruct", "other"] }, async (server) => {
    const { report, result } = await doctorJson(server.url, "qwen2.5-7b-instuct");
    assertEquals(result.code, 0, result.stderr);
    const [model] = report.endpoints;
    assertEquals(model.models.includesModel, false);
    assertEquals(model.models.closest, "qwen2.5-7b-instruct");
    assertEquals(model.models.count, 2);
  });
});

Deno.test("doctor: Azure OpenAI with --api-version sends the query and the api-key header; without it, a hint", async () => {
  const azureKey = "azure-doctor-SECRET-9876543210";
  await withServer({ azure: { deployment: "gpt4o-dep", apiKey: azureKey } }, async (server) => {
    const base = server.url.replace(/\/v1$/, "/openai/deployments/gpt4o-dep");
    const env = { AZURE_KEY: azureKey };
    const flags = ["--api-key-env", "AZURE_KEY"];
    const { report, result } = await doctorJson(
      base,
      "gpt-4o",
      [...flags, "--api-version", "2024-10-21"],
      env,
    );
    assertEquals(result.code, 0, result.stderr);
    assertEquals(report.endpoints[0].apiVersion, "2024-10-21");
    assert(chatRequests(server).every((r) => r.query === "?api-version=2024-10-21" && r.apiKey === azureKey));
    assert(report.evalFlags.join(" ").includes("--api-key-env AZURE_KEY --api-version 2024-10-21"));
    assert(!result.stdout.includes(azureKey) && !result.stderr.includes(azureKey));

    const without = await doctor(base, "gpt-4o", flags, env);
    assertEquals(without.code, 1);
    assertEquals(without.errors.length, 1, without.stderr);
    assertStringIncludes(without.errors[0], "HTTP 404");
    assertStringIncludes(without.errors[0], "Azure OpenAI needs --api-version");
    assert(!without.stdout.includes(azureKey) && !without.stderr.includes(azureKey));

    // A judge at the same deployment URL takes --api-version too, as in eval.
    const judged = await doctorJson(base, "gpt-4o", [
      ...flags,
      "--api-version",
      "2024-10-21",
      "--judge",
      "gpt-4o",
      "--judge-api-key-env",
      "AZURE_KEY",
    ], env);
    assertEquals(judged.result.code, 0, judged.result.stderr);
    assertEquals(judged.report.endpoints[1].apiVersion, "2024-10-21");
    assert(!judged.report.evalFlags.includes("--judge-api-version"), judged.report.evalFlags.join(" "));
  });
});

Deno.test("doctor: a 401 ends with exit 1 and one line, is not retried, and the key never shows", async () => {
  const fault = () => ({ status: 401, message: `Incorrect API key provided: ${KEY}.` });
  await withServer({ fault }, async (server) => {
    for (const json of [false, true]) {
      const result = await doctor(server.url, "fake-model", json ? ["--json"] : []);
      assertEquals(result.code, 1);
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertStringIncludes(result.errors[0], "error: model fake-model @ 127.0.0.1:");
      assertStringIncludes(result.errors[0], "HTTP 401");
      assertStringIncludes(result.errors[0], "the key comes from $OPENAI_API_KEY");
      assertNoKey(result);
      if (json) assertEquals(JSON.parse(result.stdout).usable, false);
      else assertStringIncludes(result.stdout, "not usable: the chat call of the model failed");
    }
    // One /models and one chat request per run: a 401 is not sent again.
    assertEquals(chatRequests(server).length, 2);
  });
});

Deno.test("doctor: a server error is tried once more, then exit 1", async () => {
  await withServer(
    { fault: (r) => r.path.endsWith("/chat/completions") ? { status: 500 } : undefined },
    async (server) => {
      const result = await doctor(server.url, "fake-model");
      assertEquals(result.code, 1);
      assertEquals(result.errors.length, 1, result.stderr);
      assertStringIncludes(result.errors[0], "HTTP 500");
      assertEquals(chatRequests(server).length, 2);
    },
  );
});

Deno.test("doctor: an unreachable endpoint ends with exit 1 and one clear line", async () => {
  const server = await startFakeServer();
  const url = server.url;
  await server.close();
  const result = await doctor(url, "fake-model");
  assertEquals(result.code, 1);
  assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
  assertStringIncludes(result.errors[0], "error: model fake-model @ 127.0.0.1:");
  assertStringIncludes(result.errors[0], "connection failed");
  assertStringIncludes(result.errors[0], "is a server listening at --base-url");
});

Deno.test("doctor: a judge gets its own section, its key from its own variable", async () => {
  const judgeKey = "sk-judge-SECRET-abcdef0123456789";
  await withServer({ jsonMode: "honoured" }, async (modelServer) => {
    await withServer({ omitUsage: true, models: ["fake-judge"] }, async (judgeServer) => {
      const { report, result } = await doctorJson(modelServer.url, "fake-model", [
        "--judge",
        "fake-judge",
        "--judge-base-url",
        judgeServer.url,
        "--judge-api-key-env",
        "MY_JUDGE_KEY",
      ], { MY_JUDGE_KEY: judgeKey });
      assertEquals(result.code, 0, result.stderr);
      assertEquals(report.endpoints.map((e) => e.role), ["model", "judge"]);
      const judge = report.endpoints[1];
      assertEquals(judge.model, "fake-judge");
      assertEquals(judge.usage.status, "missing");
      assertEquals(judge.models.includesModel, true);
      assert(judgeServer.requests.every((r) => r.authorization === `Bearer ${judgeKey}`));
      assert(modelServer.requests.every((r) => r.authorization === `Bearer ${KEY}`));
      assertStringIncludes(report.evalFlags.join(" "), "--judge fake-judge --judge-base-url ");
      assertStringIncludes(report.evalFlags.join(" "), "--judge-api-key-env MY_JUDGE_KEY");
      assert(!result.stdout.includes(judgeKey) && !result.stderr.includes(judgeKey));
      assertNoKey(result);
    });
  });
});

Deno.test("doctor: bad flags end with exit 2 and one line, before any request", async () => {
  const url = "http://127.0.0.1:9/v1";
  const base = ["doctor", "--model", "m", "--base-url", url];
  const cases: [string[], string][] = [
    [[...base, "--benchmark", "llmeval-med"], "--benchmark needs --judge NAME"],
    [
      [...base, "--judge", "j", "--benchmark", "climedbench"],
      "--benchmark climedbench: it has no judge scorer",
    ],
    [
      [...base, "--judge", "j", "--benchmark", "no-such-bench"],
      '--benchmark: unknown benchmark "no-such-bench"',
    ],
    [[...base, "--timeout", "3000000"], "--timeout expects a number > 0 and <= 2147483, got 3000000"],
    [[...base, "--timeout", "0"], "--timeout expects a number > 0 and <= 2147483, got 0"],
    [[...base, "--timeout", "soon"], '--timeout expects a number, got "soon"'],
    [
      [...base, "--judge", "j", "--benchmark", "llmeval-med", "--role-opt", "judge.temperature=0"],
      '--role-opt: doctor takes judge.max-tokens=N only (N >= 1, the judge\'s token limit), got "judge.temperature=0"',
    ],
    [
      [...base, "--judge", "j", "--benchmark", "llmeval-med", "--role-opt", "judge.max-tokens=0"],
      "--role-opt: doctor takes judge.max-tokens=N only",
    ],
    [
      [...base, "--judge", "j", "--role-opt", "judge.max-tokens=2048"],
      "--role-opt judge.max-tokens needs --benchmark",
    ],
    [["doctor", "--model", "m", "--base-url", url, "--jsn"], "unknown option --jsn; did you mean --json?"],
    [["doctor", "--base-url", url], "--model is required"],
    [
      ["doctor", "--model", "m", "--base-url", url, "--calls", "2"],
      "--calls expects an integer from 5 to 50",
    ],
    [["doctor", "--model", "m", "--base-url", "localhost:8000"], "is not an http(s) URL"],
    [
      ["doctor", "--model", "m", "--base-url", url, "--judge-base-url", url],
      "--judge-base-url needs --judge",
    ],
    [["doctor", "--model", "m", "--base-url", url, "--api-key-env", "NO_SUCH_VAR_X"], "NO_SUCH_VAR_X"],
    [["doctor", "--model", "m", "--base-url", url, "--api-key-env", KEY], "never a key itself"],
    [["doctor", "--model", "m", "--base-url", url, "--profiles", "/no/such/profiles.json"], "profiles.json"],
  ];
  for (const [args, expected] of cases) {
    const result = await runCli(args, { OPENAI_API_KEY: KEY });
    assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
    assertStringIncludes(result.errors[0], expected);
    assertNoKey(result);
  }
});

Deno.test("doctor: --help explains the flags; the command overview lists doctor", async () => {
  const help = await runCli(["doctor", "--help"]);
  assertEquals(help.code, 0);
  assertStringIncludes(help.stdout, "usage: deno task doctor [options]");
  for (
    const flag of [
      "--model",
      "--base-url",
      "--api-key-env",
      "--api-version",
      "--judge",
      "--profiles",
      "--json",
    ]
  ) {
    assertStringIncludes(help.stdout, flag);
  }
  const overview = await runCli(["--help"]);
  assertStringIncludes(overview.stdout, "  doctor ");
});
