/**
 * Settings at their edges (issue 23, items 5, 10 and 11): lists of key variables for endpoint pools, resuming
 * and merging runs whose servers came back on other addresses, and partial price files.
 * @module
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { mergeShards } from "../lib/cli/merge.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { pathExists } from "../lib/core/fs.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { planEval } from "../lib/pipeline/plan.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { costOf, loadPrices } from "../lib/providers/accounting/prices.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { type FakeServer, startFakeServer } from "./fake_server.ts";
import { llmevalCommand, ROOT, runCli } from "./run_cli.ts";

const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;
const LLMEVAL = `${ROOT}data/llmeval_med/sample.json`;

/** `host:port/v1` of a fake server: the address a run records for it. */
function address(server: FakeServer): string {
  const url = new URL(server.url);
  return `${url.host}${url.pathname}`;
}

/** Runs `fn` in a fresh temporary directory, removed after. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-edges-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` with console.error captured; returns the lines it printed. */
async function capturingStderr(fn: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return lines;
}

/** The settings of a judged LLMEval-Med run against `server` (model and judge on it). */
function llmevalConfig(server: FakeServer, out: string): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeBaseUrl: server.url,
    judgeRuns: 2,
    data: LLMEVAL,
    limit: 3,
    out,
    concurrency: 4,
    progress: false,
    renderFigures: false,
    retryPolicy: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 },
  };
}

/** Returns a run store's manifest. */
function manifestOf(out: string): Record<string, unknown> {
  const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
  try {
    return store.manifest()!;
  } finally {
    store.close();
  }
}

// ---- item 5: --api-key-env KEY_A,KEY_B -------------------------------------------------------------------

const KEYS = { MEDEVAL_EDGE_KEY_A: "sk-edge-aaaa-1111", MEDEVAL_EDGE_KEY_B: "sk-edge-bbbb-2222" };

Deno.test("--api-key-env KEY_A,KEY_B pairs each key with its base URL, and no key is printed", async () => {
  const [a, b] = [await startFakeServer(), await startFakeServer()];
  try {
    await inTempDir(async (dir) => {
      const result = await runCli([
        "eval",
        "climedbench",
        "--data",
        CLIMED,
        "--limit",
        "6",
        "--model",
        "m",
        "--base-url",
        `${a.url},${b.url}`,
        "--api-key-env",
        "MEDEVAL_EDGE_KEY_A, MEDEVAL_EDGE_KEY_B",
        "--no-render",
        "--out",
        `${dir}/run`,
      ], KEYS);
      assertEquals(result.code, 0, result.stderr);
      assert(a.requests.length > 0 && b.requests.length > 0, "both endpoints of the pool are used");
      for (const r of a.requests) assertEquals(r.authorization, `Bearer ${KEYS.MEDEVAL_EDGE_KEY_A}`);
      for (const r of b.requests) assertEquals(r.authorization, `Bearer ${KEYS.MEDEVAL_EDGE_KEY_B}`);
      assert(!(result.stdout + result.stderr).includes("sk-edge"), "no key value is printed");
    });
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("key variable lists: an unset one or a count that fits no base URL list is one line naming it", async () => {
  await inTempDir(async (dir) => {
    const base = ["eval", "llmeval-med", "--data", LLMEVAL, "--limit", "2", "--no-render"];
    const cases: [string, string[], string][] = [
      [
        "unset second variable",
        [
          "--model",
          "m",
          "--base-url",
          "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1",
          "--judge",
          "offline:overlap",
        ]
          .concat(["--api-key-env", "MEDEVAL_EDGE_KEY_A,MEDEVAL_EDGE_UNSET"]),
        "--api-key-env: the environment variable MEDEVAL_EDGE_UNSET (of MEDEVAL_EDGE_KEY_A,MEDEVAL_EDGE_UNSET) is not set",
      ],
      [
        "three variables for two base URLs",
        [
          "--model",
          "m",
          "--base-url",
          "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1",
          "--judge",
          "offline:overlap",
        ]
          .concat(["--api-key-env", "MEDEVAL_EDGE_KEY_A,MEDEVAL_EDGE_KEY_B,MEDEVAL_EDGE_KEY_A"]),
        "--api-key-env: 2 base URLs but 3 key variables",
      ],
      [
        "the judge's list, one unset",
        ["--model", "offline:reference", "--judge", "j", "--judge-base-url", "http://127.0.0.1:9/v1"]
          .concat(["--judge-api-key-env", "MEDEVAL_EDGE_UNSET,MEDEVAL_EDGE_KEY_B"]),
        "--judge-api-key-env: the environment variable MEDEVAL_EDGE_UNSET (of MEDEVAL_EDGE_UNSET,MEDEVAL_EDGE_KEY_B) is not set",
      ],
    ];
    for (const [what, args, message] of cases) {
      const out = `${dir}/${what.replaceAll(" ", "_")}`;
      const result = await runCli([...base, ...args, "--out", out], KEYS);
      assertEquals(result.code, 2, `${what}: ${result.stderr}`);
      assertEquals(result.errors.length, 1, `${what}: ${result.stderr}`);
      assertStringIncludes(result.errors[0], message, what);
      assert(!result.stderr.includes("sk-edge"), `${what}: no key value is printed`);
      assertEquals(await pathExists(out), false, `${what}: ${out} was created`);
    }
  });
});

Deno.test("key variable lists of the judge and other roles are checked variable by variable", async () => {
  for (const [name, value] of Object.entries(KEYS)) Deno.env.set(name, value);
  try {
    await inTempDir(async (dir) => {
      const config: EvalConfig = {
        benchmark: "llmeval-med",
        model: "offline:reference",
        judge: "j",
        judgeBaseUrl: "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1",
        judgeApiKeyEnv: "MEDEVAL_EDGE_KEY_A,MEDEVAL_EDGE_KEY_B",
        data: LLMEVAL,
        limit: 2,
        out: `${dir}/run`,
        renderFigures: false,
      };
      const plan = await planEval(config);
      assertEquals(plan.endpoints.judge, ["127.0.0.1:9/v1", "127.0.0.1:10/v1"]);
      const translated = {
        ...config,
        ablations: ["pivot:en"],
        translator: "t",
        translatorBaseUrl: "http://127.0.0.1:11/v1,http://127.0.0.1:12/v1",
        translatorApiKeyEnv: "MEDEVAL_EDGE_KEY_B,MEDEVAL_EDGE_KEY_A",
      };
      assertEquals((await planEval(translated)).endpoints.translator, ["127.0.0.1:11/v1", "127.0.0.1:12/v1"]);
      await assertRejects(
        () => planEval({ ...translated, translatorApiKeyEnv: "MEDEVAL_EDGE_KEY_B,MEDEVAL_EDGE_UNSET" }),
        ConfigError,
        "--translator-api-key-env: the environment variable MEDEVAL_EDGE_UNSET (of MEDEVAL_EDGE_KEY_B,MEDEVAL_EDGE_UNSET) is not set",
      );
      const pasted = await assertRejects(
        () => planEval({ ...config, judgeApiKeyEnv: "sk-proj-pasted-by-mistake" }),
        ConfigError,
        "--judge-api-key-env: expects the NAME of an environment variable",
      );
      assert(!pasted.message.includes("pasted-by-mistake"), "a pasted key is not echoed");
    });
  } finally {
    for (const name of Object.keys(KEYS)) Deno.env.delete(name);
  }
});

// ---- item 10: resuming and merging when servers move ---------------------------------------------------

Deno.test("--resume against a server back on another port: one warning per role, recorded; the run completes", async () => {
  await inTempDir(async (dir) => {
    const out = `${dir}/run`;
    const first = await startFakeServer({ reply: scriptedReply });
    const stopped = await llmevalCommand(first.url, out, false, ["--limit", "3", "--max-tokens-total", "1"])
      .output();
    await first.close();
    assert(await pathExists(`${out}/run.sqlite`), new TextDecoder().decode(stopped.stderr));
    const second = await startFakeServer({ reply: scriptedReply });
    try {
      const resumed = await llmevalCommand(second.url, out, true, ["--limit", "3"]).output();
      const stderr = new TextDecoder().decode(resumed.stderr);
      assertEquals(resumed.code, 0, stderr);
      assert(second.requests.length > 0, "the rest of the run is sent to the new address");
      const warnings = stderr.split("\n").filter((line) => line.startsWith("warning:"));
      assertEquals(warnings.length, 2, stderr);
      for (const role of ["model", "judge"]) {
        const line = warnings.find((w) => w.includes(`the ${role} is now served at`));
        assert(line, `a warning names the ${role}: ${stderr}`);
        assertStringIncludes(line, `now served at ${address(second)} (was ${address(first)})`);
      }
      const manifest = manifestOf(out);
      assertEquals(manifest.endpoints, { model: [address(second)], judge: [address(second)] });
      const identity = manifest.identity as Record<string, unknown>;
      assertEquals([identity.model, identity.judge], ["fake-model", "fake-judge"]);
      assert(!JSON.stringify(identity).includes("127.0.0.1"), "the identity names no address");
      const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
      try {
        const changed = store.events().find((e) => e.kind === "endpoints_changed");
        assert(changed, "the change is logged");
        assertStringIncludes(JSON.stringify(changed.detail), address(first));
      } finally {
        store.close();
      }
    } finally {
      await second.close();
    }
  });
});

Deno.test("a refused --resume names every entry that differs, not only the first", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  try {
    await inTempDir(async (dir) => {
      const config = llmevalConfig(server, `${dir}/run`);
      await runEval(config);
      const err = await assertRejects(
        () => runEval({ ...config, resume: true, judge: "other-judge", judgeRuns: 3, temperature: 0.5 }),
        ConfigError,
      );
      assertStringIncludes(err.message, `cannot resume ${dir}/run/run.sqlite`);
      assertStringIncludes(err.message, '"judge" differs (stored "fake-judge" vs now "other-judge")');
      assertStringIncludes(err.message, '"judge_runs" differs (stored 2 vs now 3)');
      assertStringIncludes(err.message, '"generation" differs (temperature: stored null vs now 0.5)');
      assertEquals(err.message.split("\n").length, 1);
    });
  } finally {
    await server.close();
  }
});

Deno.test("a run stored with addresses in its identity (earlier versions) resumes at a new address with a warning", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  try {
    await inTempDir(async (dir) => {
      const config = llmevalConfig(server, `${dir}/run`);
      await runEval(config);
      // Rewrite the manifest as earlier versions wrote it, served from another port.
      const db = new DatabaseSync(`${dir}/run/run.sqlite`);
      const read = (key: string) =>
        JSON.parse(
          (db.prepare("SELECT value FROM manifest WHERE key = ?").get(key) as { value: string }).value,
        );
      const write = (key: string, value: unknown) =>
        db.prepare("UPDATE manifest SET value = ? WHERE key = ?").run(JSON.stringify(value), key);
      write("identity", { ...read("identity"), judge: "fake-judge @ 127.0.0.1:9/v1" });
      write("model", { ...read("model"), label: "fake-model @ 127.0.0.1:9/v1" });
      db.prepare("DELETE FROM manifest WHERE key = 'endpoints'").run();
      db.close();
      const warnings = await capturingStderr(() => runEval({ ...config, resume: true }));
      assertEquals(warnings.length, 2, warnings.join("\n"));
      for (const line of warnings) {
        assertStringIncludes(line, `now served at ${address(server)} (was 127.0.0.1:9/v1)`);
      }
      const upgraded = manifestOf(`${dir}/run`);
      assertEquals(upgraded.endpoints, { model: [address(server)], judge: [address(server)] });
      assertEquals((upgraded.identity as { judge: string }).judge, "fake-judge");
      const again = await capturingStderr(() => runEval({ ...config, resume: true }));
      assertEquals(again, [], "it resumes again, quietly");
    });
  } finally {
    await server.close();
  }
});

Deno.test("merge: shards of one run served from different addresses merge; their addresses are recorded", async () => {
  const [a, b] = [
    await startFakeServer({ reply: scriptedReply }),
    await startFakeServer({ reply: scriptedReply }),
  ];
  try {
    await inTempDir(async (dir) => {
      const shards = [`${dir}/shard-1`, `${dir}/shard-2`];
      await runEval({ ...llmevalConfig(a, shards[0]), shard: "1/2" });
      await runEval({ ...llmevalConfig(b, shards[1]), shard: "2/2" });
      const merged = await mergeShards({ out: `${dir}/merged`, shards, render: false });
      assertEquals(merged.failures, 0);
      const whole = await runEval(llmevalConfig(a, `${dir}/whole`));
      assertEquals(merged.conditions[0].metrics, whole.summary.metrics);
      const recorded = (manifestOf(`${dir}/merged`).merged as { shards: { endpoints: unknown }[] }).shards;
      assertEquals(recorded.map((s) => s.endpoints), [
        { model: [address(a)], judge: [address(a)] },
        { model: [address(b)], judge: [address(b)] },
      ]);
    });
  } finally {
    await a.close();
    await b.close();
  }
});

// ---- item 11: partial price files ------------------------------------------------------------------------

Deno.test("--prices: a partial file is laid over the shipped table; bad fields are named; units replace only whole", async () => {
  await inTempDir(async (dir) => {
    const shipped = await loadPrices();
    const file = async (name: string, value: unknown) => {
      await Deno.writeTextFile(`${dir}/${name}`, JSON.stringify(value));
      return `${dir}/${name}`;
    };

    const onlyModels = await loadPrices(
      await file("models.json", { models: { "my-llm": { input: 1, output: 2 } } }),
    );
    assertEquals(onlyModels.models["my-llm"], { input: 1, output: 2 });
    assertEquals(onlyModels.models["gpt-4o"], shipped.models["gpt-4o"]);
    assertEquals([onlyModels.currency, onlyModels.per_tokens], [shipped.currency, shipped.per_tokens]);
    assertEquals([onlyModels.as_of, onlyModels.batch_discount], [shipped.as_of, shipped.batch_discount]);

    const discounted = await loadPrices(
      await file("discount.json", { models: { "my-llm": { input: 1, output: 2 } }, batch_discount: 0.25 }),
    );
    const usage = { prompt: 1_000_000, completion: 1_000_000 };
    assertEquals(costOf(discounted, discounted.models["my-llm"], usage, true), 2.25);

    const unknown = await assertRejects(
      async () => loadPrices(await file("unknown.json", { models: {}, discount: 0.5 })),
      InputError,
    );
    assertStringIncludes(unknown.message, `${dir}/unknown.json`);
    assertStringIncludes(unknown.message, 'field "discount"');
    const wrongType = await assertRejects(
      async () => loadPrices(await file("type.json", { batch_discount: "half" })),
      InputError,
    );
    assertStringIncludes(wrongType.message, `${dir}/type.json`);
    assertStringIncludes(wrongType.message, 'field "batch_discount"');

    const halfUnits = await assertRejects(
      async () =>
        loadPrices(await file("eur.json", { currency: "EUR", models: { m: { input: 1, output: 1 } } })),
      InputError,
    );
    assertStringIncludes(halfUnits.message, 'field "per_tokens"');
    assertStringIncludes(halfUnits.message, "never converted");
    const euro = await loadPrices(
      await file("eur-whole.json", {
        currency: "EUR",
        per_tokens: 1000,
        models: { m: { input: 1, output: 1 } },
      }),
    );
    assertEquals([euro.currency, euro.per_tokens, Object.keys(euro.models)], ["EUR", 1000, ["m"]]);
    const sameUnits = await loadPrices(
      await file("usd.json", { currency: "USD", models: { m: { input: 1, output: 1 } } }),
    );
    assertEquals(
      sameUnits.models["gpt-4o"],
      shipped.models["gpt-4o"],
      "stating the shipped units still lays over",
    );
  });
});

Deno.test("--max-cost names every unpriced model once, with the roles it serves; a partial --prices lets it run", async () => {
  await inTempDir(async (dir) => {
    const config: EvalConfig = {
      benchmark: "llmeval-med",
      model: "local-a",
      baseUrl: "http://127.0.0.1:9/v1",
      judge: "local-b",
      data: LLMEVAL,
      limit: 2,
      out: `${dir}/run`,
      maxCost: 1,
      renderFigures: false,
    };
    const both = await assertRejects(() => planEval(config), ConfigError);
    assertStringIncludes(both.message, 'no price for model model "local-a", judge model "local-b"');
    const shared = await assertRejects(() => planEval({ ...config, judge: "local-a" }), ConfigError);
    assertStringIncludes(shared.message, 'no price for model/judge model "local-a":');
    assertEquals(shared.message.split("local-a").length, 2, "named once");

    await Deno.writeTextFile(
      `${dir}/prices.json`,
      JSON.stringify({
        models: { "local-a": { input: 0.1, output: 0.2 }, "local-b": { input: 0, output: 0 } },
      }),
    );
    const plan = await planEval({ ...config, prices: `${dir}/prices.json` });
    assertEquals(plan.prices.models["local-a"], { input: 0.1, output: 0.2 });
    assertEquals(await pathExists(`${dir}/run`), false);
  });
});
