import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import fc from "fast-check";
import { DatabaseSync } from "node:sqlite";
import { robustnessSamples } from "../lib/robustness/sets.ts";
import { mergeShards } from "../lib/cli/merge.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { requestedIndicators } from "../lib/benchmarks/medgpteval/offline_rubric.ts";
import { CONSISTENCY_SECTIONS } from "../lib/robustness/consistency.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { parseShard, shardKey, shardOf, shardSamples } from "../lib/pipeline/shard.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { defaultFakeReply, type FakeChatBody, type FakeServer, startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";
import { loadCharacterTables } from "../lib/ablations/perturb.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const LLMEVAL = `${ROOT}data/llmeval_med/sample.json`;
const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;
const MEDGPTEVAL = `${ROOT}data/medgpteval`;

/** The settings of a judged run of LLMEval-Med (multi-turn conversations) against `server`. */
function llmevalConfig(server: FakeServer, out: string): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeBaseUrl: server.url,
    judgeRuns: 3,
    data: LLMEVAL,
    out,
    concurrency: 4,
    progress: false,
    renderFigures: false,
    retryPolicy: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 10 },
  };
}

/** Runs shard 1/n … n/n of `config` into `root/shard-i`; returns the directories. */
async function runShards(config: EvalConfig, n: number, root: string): Promise<string[]> {
  const dirs: string[] = [];
  for (let i = 1; i <= n; i++) {
    const out = `${root}/shard-${i}`;
    const result = await runEval({ ...config, out, shard: `${i}/${n}` });
    assertEquals(result.failures, 0);
    for (const summary of result.conditions) {
      assert(
        summary.notes.some((note) => note.startsWith(`shard ${i}/${n}:`)),
        `shard ${i}: ${summary.notes}`,
      );
    }
    dirs.push(out);
  }
  return dirs;
}

/**
 * Returns every output file of a run directory as text, by relative path: not its store, not its log, and not
 * the notes beside each `samples.jsonl` (they name the store they were derived from, and the file's time).
 */
async function outputFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const path of walkFiles(dir)) {
    const relative = path.slice(dir.length + 1);
    if (relative.startsWith("run.sqlite") || relative.startsWith("log/")) continue;
    if (relative.endsWith(".samples.jsonl.json")) continue;
    files.set(relative, await Deno.readTextFile(path));
  }
  return files;
}

/** Asserts that the merged run wrote the same outputs, byte for byte, as the one-machine run. */
async function assertSameOutputs(whole: string, merged: string): Promise<void> {
  const [a, b] = await Promise.all([outputFiles(whole), outputFiles(merged)]);
  assertEquals([...b.keys()].sort(), [...a.keys()].sort());
  assert(
    a.has("summary.json") && a.has("samples.jsonl") && [...a.keys()].some((k) => k.startsWith("tables/")),
  );
  for (const [name, text] of a) assert(b.get(name) === text, `${name} differs between the runs`);
}

/** Returns the sample ids a run store holds, in its order. */
function storedIds(dir: string): string[] {
  const store = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  try {
    return store.samples().map((s) => s.id);
  } finally {
    store.close();
  }
}

/** Returns the chat requests the fake server has received. */
function chatRequests(server: FakeServer): number {
  return server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
}

Deno.test("--shard: parsed as I/N with 1 <= I <= N; anything else names the flag", () => {
  assertEquals(parseShard("2/5"), { index: 2, count: 5 });
  assertEquals(parseShard("1/1"), { index: 1, count: 1 });
  for (const bad of ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1.5/3", ""]) {
    const err = (() => {
      try {
        parseShard(bad);
      } catch (e) {
        return e;
      }
    })();
    assert(err instanceof ConfigError, bad);
    assertStringIncludes(err.message, "--shard");
  }
});

Deno.test("shardOf: SHA-256 of the conversation id, first 48 bits modulo N (checked with WebCrypto)", async () => {
  for (const [key, n] of [["MTG-2", 3], ["医疗知识-1", 7], ["q-000123", 64], ["x", 1]] as const) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
    const first48 = digest.slice(0, 6).reduce((acc, byte) => acc * 256 + byte, 0);
    assertEquals(shardOf(key, n), (first48 % n) + 1, key);
  }
  // Pinned: a shard run today must be mergeable with one run by a later version.
  assertEquals([1, 2, 3, 4, 5, 6, 7, 8].map((i) => shardOf(`conversation-${i}`, 4)), [
    3,
    3,
    1,
    4,
    4,
    1,
    4,
    2,
  ]);
});

Deno.test("shardSamples: every conversation in exactly one shard, order kept, for random ids and N", () => {
  const sampleArb = fc.array(
    fc.record({ conversation: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }) }),
    { maxLength: 60 },
  );
  fc.assert(
    fc.property(sampleArb, fc.integer({ min: 1, max: 9 }), (specs, n) => {
      const turns = new Map<string, number>();
      const samples: Sample[] = specs.map((spec, i) => {
        const turn = spec.conversation === undefined ? 0 : (turns.get(spec.conversation) ?? 0) + 1;
        if (spec.conversation !== undefined) turns.set(spec.conversation, turn);
        return {
          id: `s${i}`,
          benchmark: "b",
          input: `question ${i}`,
          reference: null,
          conversation: spec.conversation === undefined ? null : { id: spec.conversation, turn },
          fields: {},
          extra: {},
        };
      });
      const shards = Array.from({ length: n }, (_, i) => shardSamples(samples, { index: i + 1, count: n }));
      const all = shards.flat().map((s) => s.id);
      assertEquals(all.length, samples.length);
      assertEquals(new Set(all).size, samples.length);
      const home = new Map<string, number>();
      shards.forEach((shard, i) => {
        const positions = shard.map((s) => samples.indexOf(s));
        assertEquals(positions, [...positions].sort((a, b) => a - b));
        for (const sample of shard) {
          const key = shardKey(sample);
          assertEquals(home.get(key) ?? i, i, `conversation ${key} is split`);
          home.set(key, i);
        }
      });
    }),
    { numRuns: 300 },
  );
});

Deno.test("shardKey: a robustness variant goes with the conversation of the question it is made from", () => {
  const source: Sample = {
    id: "dialogue-7:1",
    benchmark: "medgpteval",
    input: "我最近总是头痛，晚上睡不好，应该怎么办？",
    reference: null,
    conversation: { id: "dialogue-7", turn: 1 },
    fields: {},
    extra: {},
  };
  const variants = robustnessSamples([source], { sets: ["C", "E"], variants: 3, seed: "0" });
  assertEquals(variants.length, 6);
  for (const variant of variants) {
    assertEquals(shardKey(variant), "dialogue-7");
    for (const n of [2, 3, 5]) {
      assertEquals(shardSamples([source, variant], { index: shardOf("dialogue-7", n), count: n }).length, 2);
    }
  }
});

Deno.test("LLMEval-Med (judged, multi-turn): 3 shards + merge write what one machine writes, byte for byte", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const root = await Deno.makeTempDir({ prefix: "medeval-shard-" });
  try {
    const whole = await runEval(llmevalConfig(server, `${root}/whole`));
    assertEquals(whole.failures, 0);
    const dirs = await runShards(llmevalConfig(server, ""), 3, root);

    // Disjoint shards covering the run, each conversation whole, each shard non-empty on this data.
    const ids = dirs.map(storedIds);
    assert(ids.every((list) => list.length > 0), `an empty shard: ${ids.map((l) => l.length)}`);
    assertEquals(ids.flat().sort(), whole.samples.map((s) => s.id).sort());
    const conversationOf = new Map(whole.samples.map((s) => [s.id, shardKey(s)]));
    const owner = new Map<string, number>();
    ids.forEach((list, i) => {
      for (const id of list) {
        const key = conversationOf.get(id)!;
        assertEquals(owner.get(key) ?? i, i, `${key} split over shards`);
        owner.set(key, i);
      }
    });
    assert(
      whole.samples.some((s) => (s.conversation?.turn ?? 1) > 1),
      "the data must have multi-turn dialogues",
    );

    // Each shard logs an event of its own: a resume that finds it finished (and sends nothing).
    const sent = chatRequests(server);
    for (const [i, dir] of dirs.entries()) {
      const again = await runEval({ ...llmevalConfig(server, dir), shard: `${i + 1}/3`, resume: true });
      assertEquals(again.failures, 0);
    }
    assertEquals(chatRequests(server), sent);

    // The merge sends nothing.
    const before = chatRequests(server);
    const merged = await mergeShards({
      out: `${root}/merged`,
      shards: [dirs[2], dirs[0], dirs[1]],
      render: false,
    });
    assertEquals(chatRequests(server), before);
    assertEquals(merged.failures, 0);
    assertEquals(merged.counts.samples, whole.samples.length);
    assertEquals(merged.counts.differingCalls, []);

    await assertSameOutputs(`${root}/whole`, `${root}/merged`);
    assertEquals(
      merged.conditions.map((s) => JSON.stringify(s)),
      whole.conditions.map((s) => JSON.stringify(s)),
    );

    // The merged store: samples in the one-machine order, every call, events tagged with their shard.
    const one = new RunStore(`${root}/whole/run.sqlite`, { readOnly: true });
    const store = new RunStore(`${root}/merged/run.sqlite`, { readOnly: true });
    try {
      assertEquals(store.samples(), one.samples());
      assertEquals(store.calls().map((c) => c.key).sort(), one.calls().map((c) => c.key).sort());
      assertEquals(store.scores().length, one.scores().length);
      const manifest = store.manifest()!;
      assertEquals(manifest.identity, one.manifest()!.identity);
      assertEquals(manifest.shard, undefined);
      // Every event of every shard, tagged with its shard (the shards' resumes at least).
      const tagged = store.events().filter((e) => e.kind !== "merged").map((e) => {
        const { shard, logged_at } = e.detail as { shard: string; logged_at: string };
        return `${shard} ${e.kind} ${logged_at}`;
      });
      const logged = dirs.flatMap((dir, i) => {
        const shard = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
        try {
          return shard.events().map((e) => `${i + 1}/3 ${e.kind} ${e.at}`);
        } finally {
          shard.close();
        }
      });
      assertEquals(logged.filter((e) => e.includes(" resume ")).length, 3, logged.join("; "));
      assertEquals(tagged.sort(), logged.sort());
    } finally {
      one.close();
      store.close();
    }
    // Figures are written by the merge too, as HTML only under --no-render.
    assert(
      (await Array.fromAsync(Deno.readDir(`${root}/merged/figures`))).some((e) => e.name.endsWith(".html")),
    );
    assert(
      !(await Array.fromAsync(Deno.readDir(`${root}/merged/figures`))).some((e) => e.name.endsWith(".png")),
    );
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("CliMedBench (metrics, corpus-fitted similarity, perturbation, buckets, --limit): deno task merge matches one machine", async () => {
  const server = await startFakeServer();
  const root = await Deno.makeTempDir({ prefix: "medeval-shard-climed-" });
  try {
    const config: EvalConfig = {
      benchmark: "climedbench",
      model: "fake-model",
      baseUrl: server.url,
      data: CLIMED,
      out: `${root}/whole`,
      limit: 41, // drops the last WTD item: what similarity is fitted on must be the run's, not the shard's
      ablations: ["perturb:homophone@0.2"],
      buckets: "length:3",
      progress: false,
      renderFigures: false,
      retryPolicy: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 },
    };
    const whole = await runEval(config);
    assertEquals(whole.failures, 0);
    assertEquals(whole.samples.length, 41);
    const dirs = await runShards(config, 3, root);
    const ids = dirs.map(storedIds);
    assertEquals(ids.flat().sort(), whole.samples.map((s) => s.id).sort());
    const wtd = ids.map((list) => list.filter((id) => id.startsWith("WTD-")).length);
    assert(wtd.filter((n) => n > 0).length > 1, `WTD items must be split over shards: ${wtd}`);

    const merge = await runCli(["merge", "--out", `${root}/merged`, "--no-render", ...dirs]);
    assertEquals(merge.code, 0, merge.stderr);
    assertStringIncludes(merge.stdout, "merged 3 shards: 41 samples");
    await assertSameOutputs(`${root}/whole`, `${root}/merged`);
    const summary = JSON.parse(
      await Deno.readTextFile(`${root}/merged/conditions/perturb_homophone_0.2/summary.json`),
    );
    assert(summary.notes.some((n: string) => n.includes("% of non-whitespace input characters changed")));
    assert(!summary.notes.some((n: string) => n.includes("shard")));
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

/** Scripted replies for MedGPTEval: a rephraser, a rubric and consistency judge, and the default model. */
function medgptevalReply(body: FakeChatBody): string {
  const system = body.messages.find((m) => m.role === "system")?.content ?? "";
  const user = body.messages.findLast((m) => m.role === "user")?.content ?? "";
  if (body.model === "fake-rephraser") {
    const set = system.includes("keep exactly its meaning") ? "A" : "B";
    const n = Number(system.match(/in (\d+) different ways/)![1]);
    return JSON.stringify({ variants: Array.from({ length: n }, (_, i) => `${user}（改写${set}${i + 1}）`) });
  }
  if (body.model === "fake-judge") {
    if (user.includes(CONSISTENCY_SECTIONS.cleanAnswer)) {
      const category = ["R1", "R2", "R3"][parseInt(sha256Hex(user).slice(0, 8), 16) % 3];
      return JSON.stringify({ reasoning: "scripted", category });
    }
    return JSON.stringify({ reasoning: "scripted", scores: requestedIndicators(user) });
  }
  return defaultFakeReply(body);
}

Deno.test("MedGPTEval (dialogues, robustness sets A-E, human ratings): 2 shards + merge match one machine", async () => {
  const server = await startFakeServer({ reply: medgptevalReply });
  const root = await Deno.makeTempDir({ prefix: "medeval-shard-medgpteval-" });
  try {
    const config: EvalConfig = {
      benchmark: "medgpteval",
      model: "fake-model",
      baseUrl: server.url,
      judge: "fake-judge",
      judgeRuns: 1,
      robustness: true,
      robustnessVariants: 2,
      roles: ["rephraser=fake-rephraser"],
      humanEval: `${MEDGPTEVAL}/expert_scores.csv`,
      data: MEDGPTEVAL,
      out: `${root}/whole`,
      progress: false,
      renderFigures: false,
    };
    const whole = await runEval(config);
    assertEquals(whole.failures, 0);
    const dirs = await runShards(config, 2, root);
    const ids = dirs.map(storedIds);
    assertEquals(ids.flat().sort(), whole.samples.map((s) => s.id).sort());
    // Each variant is in the shard of the question it is made from.
    const sources = new Map(whole.samples.map((s) => [s.id, shardKey(s)]));
    for (const [i, list] of ids.entries()) {
      const home = new Set(list.filter((id) => !id.includes("~")).map((id) => sources.get(id)));
      for (const variant of list.filter((id) => id.includes("~"))) {
        assert(home.has(sources.get(variant)), `${variant} is not in the shard ${i + 1} of its question`);
      }
    }
    assert(ids.every((list) => list.some((id) => id.includes("~"))), "both shards must hold variants");

    const before = chatRequests(server);
    const merged = await mergeShards({ out: `${root}/merged`, shards: dirs, render: false });
    assertEquals(chatRequests(server), before);
    assertEquals(merged.failures, 0);
    await assertSameOutputs(`${root}/whole`, `${root}/merged`);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("merge refuses a missing, repeated, foreign or unfinished shard, and --resume refuses another shard", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const root = await Deno.makeTempDir({ prefix: "medeval-shard-errors-" });
  try {
    const config = llmevalConfig(server, "");
    const [one, two, three] = await runShards(config, 3, root);
    const merge = (shards: string[], out = `${root}/merged`) => mergeShards({ out, shards, render: false });

    await assertRejects(() => merge([one, two]), ConfigError, "shard 3/3 is missing");
    await assertRejects(() => merge([one, two, two]), ConfigError, `${two} and ${two} are both shard 2/3`);
    await assertRejects(
      () => merge([one, two, `${root}/nowhere`]),
      ConfigError,
      `${root}/nowhere holds no run`,
    );

    const other = `${root}/other-3`;
    await runEval({ ...config, out: other, shard: "3/3", judgeRuns: 2 });
    const foreign = await assertRejects(() => merge([one, two, other]), ConfigError);
    assertStringIncludes(foreign.message, `${other} is not a shard of the same run as ${one}`);
    assertStringIncludes(foreign.message, '"judge_runs" differs');

    const split4 = `${root}/split-4`;
    await runEval({ ...config, out: split4, shard: "3/4" });
    await assertRejects(
      () => merge([one, two, split4]),
      ConfigError,
      "all shards must split the run the same way",
    );

    // A shard whose store lacks an answer (killed mid-way) is named with the sample.
    const unfinished = `${root}/unfinished-3`;
    await runEval({ ...config, out: unfinished, shard: "3/3" });
    const [lost] = storedIds(unfinished);
    const db = new DatabaseSync(`${unfinished}/run.sqlite`);
    db.prepare("DELETE FROM outputs WHERE sample_id = ?").run(lost);
    db.close();
    const err = await assertRejects(() => merge([one, two, unfinished]), ConfigError);
    assertStringIncludes(err.message, `${unfinished} (shard 3/3) is not finished`);
    assertStringIncludes(err.message, lost);
    assertEquals(err.message.includes("\n"), false);
    assertEquals(
      await Array.fromAsync(Deno.readDir(root)).then((e) => e.some((x) => x.name === "merged")),
      false,
    );

    // Resuming a shard store as another shard, or as the whole run, is refused before anything is written.
    await assertRejects(
      () => runEval({ ...config, out: one, shard: "2/3", resume: true }),
      ConfigError,
      "it holds shard 1/3, not shard 2/3 (--shard)",
    );
    await assertRejects(
      () => runEval({ ...config, out: one, resume: true }),
      ConfigError,
      "it holds shard 1/3, not a whole run (no --shard)",
    );
    // The same shard resumes, from the store.
    const before = chatRequests(server);
    const again = await runEval({ ...config, out: one, shard: "1/3", resume: true });
    assertEquals(again.failures, 0);
    assertEquals(chatRequests(server), before);

    // On the command line: one line on standard error, exit code 2.
    const cliMissing = await runCli(["merge", "--out", `${root}/merged`, "--no-render", one, three]);
    assertEquals(cliMissing.code, 2);
    assertEquals(cliMissing.errors.length, 1, cliMissing.stderr);
    assertStringIncludes(cliMissing.errors[0], "shard 2/3 is missing");
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});
