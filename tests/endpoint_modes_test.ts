/**
 * Issue 25's "done when", as one matrix: LLMEval-Med (model + judge) and CliMedBench (model + embedder), each run
 * against the fake behaving as a real endpoint does — an OpenAI reasoning model, reasoning text apart from the
 * answer, truncation at a known rate, context-limit 400s, a content filter, refusals, missing usage, Azure, and
 * Anthropic's layer (seeds and JSON mode not sent). Every run exits 0, its summary counts exactly what the fake
 * produced, and no request the server refused is sent again in the same shape.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import {
  everyKth,
  type FakeChatBody,
  type FakeRequestRecord,
  type FakeServer,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

const KEY_VAR = "MEDEVAL_MODES_TEST_KEY";
const KEY = "modes-test-key";

/** One way an endpoint behaves, for the model under test named `model`. */
interface Mode {
  name: string;
  /** The model's name (its profile follows from it). */
  model: string;
  fake: (model: string, benchmark: Benchmark) => FakeServerOptions;
  /** Base URL flags of the model (default: the fake's `/v1`). */
  endpoint?: (server: FakeServer) => string[];
  /** What the summary must say, given the model's requests as the fake answered them. */
  check: (summary: Summary, model: ModelRequests, store: RunStore) => void;
}

/** The benchmarks each mode runs. */
type Benchmark = "llmeval-med" | "climedbench";

/** The parts of `summary.json` checked here. */
interface Summary {
  complete: boolean;
  n: number;
  counts: Record<string, number>;
  usage: { role: string; calls: number; calls_without_usage: number; prompt_tokens: number | null }[];
}

/** The requests of the model under test, and how the fake ended each chat completion. */
interface ModelRequests {
  all: FakeRequestRecord[];
  count: (outcome: "length" | "content_filter" | "refusal" | 400) => number;
}

const truncatedEvery3 = (model: string): FakeServerOptions => ({
  answerOutcome: (b) => b.model === model && everyKth(3, b) ? "length" : undefined,
});

const MODES: Mode[] = [
  {
    name: "OpenAI reasoning model (max_tokens and temperature refused)",
    model: "fake-model",
    fake: (model) => ({ reasoningModel: (m) => m === model }),
    check: (summary, model) => {
      // Requests in flight when the first refusal of a parameter came back are refused for it too (nothing is
      // held back for a first reply), each at most once per parameter: twice at most, max_tokens then
      // temperature.
      const refused = model.all.filter((r) => r.status === 400);
      assert(refused.length >= 1, "no refusal");
      for (const [key, times] of Map.groupBy(refused, (r) => r.callKey)) {
        const shapes = times.map((r) => Object.keys(r.body as object).sort().join(","));
        assert(times.length <= 2, `call ${key} refused ${times.length} times`);
        assertEquals(new Set(shapes).size, shapes.length, `call ${key} refused twice in one shape`);
      }
      assertEquals(summary.counts.failed, 0);
    },
  },
  {
    name: "reasoning_content apart from the answer",
    model: "fake-model",
    fake: (model) => ({
      reasoning: {
        field: "reasoning_content",
        text: (b) => b.model === model ? "thinking it over" : undefined,
      },
    }),
    check: (_summary, _model, store) => {
      const calls = store.calls().filter((c) => c.role === "model");
      assert(
        calls.length > 0 &&
          calls.every((c) => c.reasoning === "thinking it over" && !c.text.includes("thinking")),
      );
    },
  },
  {
    name: "truncation, 1 in 3",
    model: "fake-model",
    fake: truncatedEvery3,
    check: (summary, model) => {
      assert(model.count("length") > 0);
      assertEquals(summary.counts.truncated, model.count("length"));
    },
  },
  {
    name: "context-limit 400s (vLLM wording)",
    model: "fake-model",
    // LLMEval-Med's questions are shorter than CliMedBench's: each limit cuts some requests, not all.
    fake: (model, benchmark) => ({
      contextLimit: {
        tokens: benchmark === "llmeval-med" ? 20 : 60,
        style: "vllm",
        models: (m) => m === model,
      },
    }),
    check: (summary, model) => {
      assert(
        model.count(400) > 0 && model.all.some((r) => r.status === 200),
        "the limit must cut some requests",
      );
      assertEquals(summary.counts.context_errors, model.count(400));
      assertEquals(summary.counts.failed, 0);
    },
  },
  {
    name: "content filter and refusals",
    model: "fake-model",
    fake: (model) => ({
      answerOutcome: (b) =>
        b.model !== model
          ? undefined
          : everyKth(5, b)
          ? "content_filter"
          : everyKth(7, b)
          ? "refusal"
          : undefined,
    }),
    check: (summary, model) => {
      assert(model.count("content_filter") + model.count("refusal") > 0);
      assertEquals(summary.counts.refused, model.count("content_filter") + model.count("refusal"));
    },
  },
  {
    name: "usage missing (Ollama, llama.cpp)",
    model: "fake-model",
    fake: () => ({ omitUsage: true }),
    check: (summary) => {
      const row = summary.usage.find((r) => r.role === "model")!;
      assertEquals(row.calls_without_usage, row.calls);
      assertEquals(row.prompt_tokens, null);
    },
  },
  {
    name: "Azure OpenAI deployment",
    model: "fake-model",
    fake: () => ({ azure: { deployment: "dep", apiKey: KEY } }),
    endpoint: (server) => [
      "--base-url",
      `${new URL(server.url).origin}/openai/deployments/dep`,
      "--api-version",
      "2024-10-21",
      "--api-key-env",
      KEY_VAR,
    ],
    check: (_summary, model) => {
      assert(
        model.all.every((r) => r.status === 200 && r.apiKey === KEY && r.query === "?api-version=2024-10-21"),
      );
    },
  },
  {
    name: "Anthropic's layer (seed and JSON mode ignored, so never sent)",
    model: "claude-sonnet-4-5",
    fake: () => ({
      ignoreSeed: true,
      jsonMode: "ignored",
      rejectParameters: (m) => m.startsWith("claude") ? ["seed"] : [],
    }),
    check: (_summary, model) => {
      assert(
        model.all.every((r) => !("seed" in (r.body as object)) && !("response_format" in (r.body as object))),
      );
    },
  },
];

/** Runs `benchmark` against a fake in `mode`; returns exit code, summary, the model's requests and the store. */
async function runMode(benchmark: Benchmark, mode: Mode) {
  const server = await startFakeServer({ reply: scriptedReply, ...mode.fake(mode.model, benchmark) });
  const out = await Deno.makeTempDir({ prefix: "medeval-modes-" });
  try {
    const endpoint = mode.endpoint?.(server) ?? ["--base-url", server.url];
    const roles = benchmark === "llmeval-med"
      ? ["--judge", "fake-judge", "--judge-runs", "1", "--data", `${ROOT}data/llmeval_med/sample.json`]
      : ["--embed-model", "fake-embed", "--data", `${ROOT}data/climedbench/sample.jsonl`];
    const azure = mode.endpoint
      ? ["--judge-api-key-env", KEY_VAR, "--role-opt", `embed.api-key-env=${KEY_VAR}`]
      : [];
    const result = await runCli([
      "eval",
      benchmark,
      "--model",
      mode.model,
      ...endpoint,
      ...roles,
      ...(benchmark === "llmeval-med" ? azure.slice(0, 2) : azure.slice(2)),
      "--out",
      out,
      "--no-render",
      "--quiet",
    ], { [KEY_VAR]: KEY });
    const all = server.requests.filter((r) => (r.body as FakeChatBody | null)?.model === mode.model);
    const count = (outcome: "length" | "content_filter" | "refusal" | 400) =>
      all.filter((r) => outcome === 400 ? r.status === 400 : r.status === 200 && r.outcome === outcome)
        .length;
    const summary = result.code === 2
      ? undefined
      : JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    return { result, summary, model: { all, count }, server, out };
  } finally {
    await server.close();
  }
}

/** Asserts that no request the server refused (4xx) was sent again with the same call key and the same body. */
function assertNothingRefusedTwice(server: FakeServer): void {
  const refused = new Set<string>();
  for (const request of server.requests) {
    const shape = `${request.callKey}|${JSON.stringify(request.body)}`;
    assert(!refused.has(shape), `a refused request was sent again: ${shape.slice(0, 200)}`);
    if (request.status !== null && request.status >= 400 && request.status < 500) refused.add(shape);
  }
}

for (const benchmark of ["llmeval-med", "climedbench"] as const) {
  for (const mode of MODES) {
    Deno.test(`${benchmark} against ${mode.name}: exit 0, counts as the fake produced them`, async () => {
      const { result, summary, model, server, out } = await runMode(benchmark, mode);
      try {
        assertEquals(result.code, 0, result.stderr);
        assertEquals(summary.complete, true);
        assert(model.all.length > 0, "the model under test got no request");
        assertNothingRefusedTwice(server);
        const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
        try {
          mode.check(summary, model, store);
        } finally {
          store.close();
        }
        assert(!result.stdout.includes(KEY) && !result.stderr.includes(KEY), "the key was printed");
      } finally {
        await Deno.remove(out, { recursive: true });
      }
    });
  }
}

Deno.test("a context-limit error is not asked again by --resume: the run was complete", async () => {
  const server = await startFakeServer({
    contextLimit: { tokens: 60, style: "openai", models: (m) => m === "fake-model" },
  });
  const out = await Deno.makeTempDir({ prefix: "medeval-modes-resume-" });
  try {
    const args = [
      "eval",
      "climedbench",
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--embed-model",
      "fake-embed",
      "--data",
      `${ROOT}data/climedbench/sample.jsonl`,
      "--out",
      out,
      "--no-render",
      "--quiet",
    ];
    assertEquals((await runCli(args)).code, 0);
    const refused = server.requests.filter((r) => r.status === 400).length;
    assert(refused > 0);
    const before = server.requests.length;
    const resumed = await runCli([...args, "--resume"]);
    assertEquals(resumed.code, 0, resumed.stderr);
    assertEquals(server.requests.slice(before).filter((r) => r.path.endsWith("/chat/completions")).length, 0);
    const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    assertEquals(summary.counts.context_errors, refused);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
