import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import type { StoredCall } from "../lib/core/records.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { costOf, loadPrices, priceOf, readPriceFile } from "../lib/providers/accounting/prices.ts";
import { Budget, usageRows } from "../lib/providers/accounting/spend.ts";
import { Progress } from "../lib/report/progress.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";
import { waitUntil } from "./wait_until.ts";

const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;

function call(key: string, model: string, prompt: number, completion: number, endpoint?: string): StoredCall {
  return {
    key,
    role: "model",
    model,
    request: { messages: [{ role: "user", content: key }], params: {} },
    text: "x",
    finishReason: "stop",
    usage: { prompt, completion },
    attempts: 1,
    latencyMs: 1,
    createdAt: new Date(0).toISOString(),
    endpoint: endpoint ?? null,
    condition: "default",
  };
}

Deno.test("prices: own entry, longest dated/variant prefix, nothing for unknown models, batch discount", async () => {
  const prices = await loadPrices();
  assertEquals(priceOf(prices, "gpt-4o"), prices.models["gpt-4o"]);
  assertEquals(priceOf(prices, "gpt-4o-2024-08-06"), prices.models["gpt-4o"]);
  assertEquals(priceOf(prices, "gpt-4o-mini-2024-07-18"), prices.models["gpt-4o-mini"]);
  assertEquals(priceOf(prices, "qwen2.5-7b-instruct"), undefined);
  assertEquals(priceOf(prices, "gpt-4oo"), undefined);
  const price = { input: 2, output: 8 };
  const usage = { prompt: 1_000_000, completion: 500_000 };
  assertEquals(costOf(prices, price, usage), 6);
  assertEquals(costOf(prices, price, usage, true), 3);
});

Deno.test("prices: an override file is laid over the shipped table; a bad one names file and field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-prices-" });
  try {
    await Deno.writeTextFile(
      `${dir}/p.json`,
      JSON.stringify({
        currency: "USD",
        per_tokens: 1_000_000,
        models: { "my-llm": { input: 1, output: 2 } },
      }),
    );
    const merged = await loadPrices(`${dir}/p.json`);
    assertEquals(merged.models["my-llm"], { input: 1, output: 2 });
    assert(merged.models["gpt-4o"], "the shipped models stay");
    await Deno.writeTextFile(
      `${dir}/bad.json`,
      JSON.stringify({ currency: "USD", per_tokens: 1_000_000, models: { "m": { input: -1, output: 2 } } }),
    );
    const err = await assertRejects(() => readPriceFile(`${dir}/bad.json`), InputError);
    assertStringIncludes(err.message, "bad.json");
    assertStringIncludes(err.message, "models.m.input");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("budget: counts tokens and cost of priced models, names unpriced ones, reports the limit reached", async () => {
  const prices = await loadPrices();
  const budget = new Budget(prices, { maxCost: 0.01 });
  budget.addCall(call("a", "gpt-4o", 1000, 500)); // 0.0025 + 0.005
  assertEquals(budget.tokens, 1500);
  assertEquals(budget.exceeded(), undefined);
  budget.addCall(call("b", "local-model", 1000, 1000));
  assertEquals(budget.unpriced, ["local-model"]);
  budget.addCall(call("c", "gpt-4o", 1000, 500, "batch:b1")); // half price: 0.00375
  assert(Math.abs(budget.cost - 0.01125) < 1e-12, String(budget.cost));
  assertStringIncludes(budget.exceeded()!, "cost limit reached");
  const tokens = new Budget(prices, { maxTokens: 100 });
  tokens.addCall(call("d", "offline:reference", 60, 40));
  assertEquals(tokens.cost, 0, "offline stand-ins cost nothing");
  assertStringIncludes(tokens.exceeded()!, "token limit reached (100 of --max-tokens-total 100)");
});

Deno.test("run store: queued writes are visible to every read at once and survive close/reopen", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-store-" });
  try {
    const store = new RunStore(`${dir}/run.sqlite`);
    store.putCall(call("k1", "gpt-4o", 10, 5, "batch:x"));
    assertEquals(store.getCall("k1")?.text, "x", "a queued call is answered from memory");
    store.putOutput({ sampleId: "s1", condition: "default", callKey: "k1", text: "x", error: null });
    assertEquals(store.outputStatus("default").length, 1, "a read commits the queue first");
    const [total] = store.usageTotals();
    assertEquals(
      { ...total },
      {
        role: "model",
        model: "gpt-4o",
        condition: "default",
        batch: true,
        calls: 1,
        prompt: 10,
        completion: 5,
        withoutUsage: 0,
      },
    );
    store.logEvent("note", { a: 1 });
    store.close();
    const again = new RunStore(`${dir}/run.sqlite`);
    assertEquals(again.getCall("k1")?.endpoint, "batch:x");
    assertEquals(again.getCall("k1")?.condition, "default");
    assertEquals(again.events().map((e) => e.kind), ["note"]);
    const rows = usageRows(again.usageTotals(), await loadPrices(), "default", "default");
    assertEquals(rows[0].cost, 0.0000375, "10 × 2.5 + 5 × 10 per million, at half price");
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("progress: one plain line per interval while nothing finishes, with tokens and cost", async () => {
  const lines: string[] = [];
  const started = performance.now();
  const progress = new Progress("run", 10, { tty: false, write: (t) => lines.push(t), intervalMs: 40 });
  progress.spent(12_345, 0.5, "USD");
  try {
    // Lines keep coming while nothing finishes: wait for three (a loaded machine only delays them) ...
    await waitUntil(() => lines.length >= 3, () => `three heartbeat lines, got ${lines.length}`);
    const elapsed = performance.now() - started;
    // ... and never more than one per interval: the second and third came at least one interval after the one
    // before (a lower bound on time, which load cannot break).
    assert(elapsed >= 2 * 40, `three lines within ${elapsed} ms: more than one per 40 ms interval`);
  } finally {
    progress.finish();
  }
  assertStringIncludes(lines[0], "0/10");
  assertStringIncludes(lines[0], "12.3k tokens, 0.50 USD");
});

Deno.test("progress: a wait's note shows while the wait lasts and is gone after it; a note without a time stays", async () => {
  const progress = new Progress("run", 10, { tty: false, write: () => {}, intervalMs: 0 });
  try {
    progress.note("model retry 1/6 in 0.1s after HTTP 500", 100);
    assertStringIncludes(progress.status(), "| model retry 1/6 in 0.1s after HTTP 500");
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert(!progress.status().includes("|"), `the wait is over, its note still shows: ${progress.status()}`);
    progress.note("model m: max_tokens refused, now max_completion_tokens");
    await new Promise((resolve) => setTimeout(resolve, 150));
    assertStringIncludes(progress.status(), "| model m: max_tokens refused, now max_completion_tokens");
  } finally {
    progress.finish();
  }
});

Deno.test("--max-cost stops starting samples at the limit, says so, and a resume with a higher limit finishes without repeating a call", async () => {
  const server = await startFakeServer({ latencyMs: 5 });
  const dir = await Deno.makeTempDir({ prefix: "medeval-budget-" });
  try {
    // The fake reports 10 prompt + 5 completion tokens per call: 0.0015 per call at 0.1 per 1,000 tokens.
    await Deno.writeTextFile(
      `${dir}/prices.json`,
      JSON.stringify({
        currency: "USD",
        per_tokens: 1000,
        models: { "fake-model": { input: 0.1, output: 0.1 } },
      }),
    );
    const args = (maxCost: string, resume: boolean) => [
      "eval",
      "climedbench",
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--data",
      CLIMED,
      "--out",
      `${dir}/run`,
      "--concurrency",
      "1",
      "--prices",
      `${dir}/prices.json`,
      "--max-cost",
      maxCost,
      "--no-render",
      "--quiet",
      ...(resume ? ["--resume"] : []),
    ];
    const first = await runCli(args("0.01", false));
    assertEquals(first.code, 1, first.stderr);
    assertStringIncludes(first.stderr, "stopped: cost limit reached");
    const summary = JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`));
    const note = summary.notes.find((n: string) => n.startsWith("stopped early"));
    assert(note, JSON.stringify(summary.notes));
    const asked = server.requests.length;
    // 1.5 cents of calls pass the limit; one conversation at a time, so at most one more call is made.
    assert(asked >= 7 && asked <= 8, `expected the run to stop after 7-8 calls, made ${asked}`);
    assertEquals(summary.usage[0].calls, asked);
    assertEquals(summary.usage[0].prompt_tokens, 10 * asked);
    assert(Math.abs(summary.usage[0].cost - 0.0015 * asked) < 1e-9, JSON.stringify(summary.usage));

    const second = await runCli(args("1", true));
    assertEquals(second.code, 0, second.stderr);
    const keys = server.requests.map((r) => r.callKey);
    assertEquals(new Set(keys).size, keys.length, "no call is sent twice");
    const done = JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`));
    assertEquals(done.notes.some((n: string) => n.startsWith("stopped early")), false);
    assertEquals(done.usage[0].calls, 42);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--max-cost refuses a model without a price before anything is written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-budget-" });
  try {
    await assertRejects(
      () =>
        runEval({
          benchmark: "climedbench",
          model: "unpriced-model",
          baseUrl: "http://127.0.0.1:9/v1",
          data: CLIMED,
          out: `${dir}/run`,
          maxCost: 1,
          progress: false,
          renderFigures: false,
        }),
      ConfigError,
      'no price for model model "unpriced-model"',
    );
    assertEquals([...Deno.readDirSync(dir)].length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run store: usage totals kept as calls are committed equal the store's SQL over them, in its order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-store-" });
  try {
    const store = new RunStore(`${dir}/run.sqlite`);
    // Stored before the totals are first read: counted by the query.
    store.putCall(call("before", "m", 7, 1));
    assertEquals(store.usageTotals().length, 1);
    const random = (() => {
      let state = 12345;
      return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    })();
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
    for (let i = 0; i < 400; i++) {
      const stored: StoredCall = {
        ...call(`k${i % 350}`, pick(["m", "ä-model", "\u{1F600}", "\uE000", "M"]), i, 2 * i),
        role: pick(["model", "judge", "translator"]),
        endpoint: pick([null, "host/v1", "batch:b1", "BATCH:b2", "Batch:", "batchx"]),
        condition: pick([null, "default", "cot", "\u00e9"]),
      };
      if (i % 7 === 0) stored.usage = null;
      if (i % 11 === 0) stored.usage = { prompt: Number.NaN, completion: 3 };
      // Keys repeat (i % 350): a call stored again is ignored, its usage not counted twice.
      store.putCall(stored);
      if (i % 50 === 0) store.flush();
    }
    const kept = store.usageTotals();
    const reader = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
    assertEquals(kept, reader.usageTotals());
    reader.close();
    // One total per role, model, condition and batch: calls without an endpoint are not a group apart.
    const groups = kept.map((t) => JSON.stringify([t.role, t.model, t.condition, t.batch]));
    assertEquals(groups.length, new Set(groups).size);
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
