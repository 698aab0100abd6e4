import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { mergeShards } from "../lib/cli/merge.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { type FakeServer, startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

/** Shapes by role, then model, as a manifest records them. */
type Shapes = Record<string, Record<string, Record<string, unknown>>>;

/** A judged LLMEval-Med run of its first `limit` questions against `server`, one judge run. */
function config(server: FakeServer, limit: number, out: string): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "fake-model",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeRuns: 1,
    data: `${ROOT}data/llmeval_med/sample.json`,
    limit,
    out,
    progress: false,
    renderFigures: false,
  };
}

/** The manifest of the run in `dir`: its `request_shapes` and the samples it holds. */
function stored(dir: string): { shapes: Shapes | undefined; samples: number; merged: unknown[] } {
  const store = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  try {
    return {
      shapes: store.manifest()!.request_shapes as Shapes | undefined,
      samples: store.samples().length,
      merged: store.events("merged").map((e) => e.detail),
    };
  } finally {
    store.close();
  }
}

Deno.test("merge: request_shapes is the union over the shards (shard 1 sent nothing, shard 2 everything)", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const root = await Deno.makeTempDir({ prefix: "medeval-merge-shapes-" });
  try {
    const dirs = [`${root}/shard-1`, `${root}/shard-2`];
    for (const [i, out] of dirs.entries()) {
      assertEquals((await runEval({ ...config(server, 1, out), shard: `${i + 1}/2` })).failures, 0);
    }
    // The one question's conversation hashes into shard 2: shard 1 is empty and recorded no shape.
    const [one, two] = dirs.map(stored);
    assertEquals([one.samples, two.samples], [0, 1]);
    assertEquals(one.shapes, undefined);
    assertEquals(Object.keys(two.shapes ?? {}).sort(), ["judge", "model"]);

    const merged = await mergeShards({ out: `${root}/merged`, shards: dirs, render: false });
    assertEquals(merged.failures, 0);
    assertEquals(stored(`${root}/merged`).shapes, two.shapes);
    assertEquals(merged.counts.differingShapes, []);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("merge: a role's shape that differs between shards is kept per shard, named, and noted", async () => {
  const plain = await startFakeServer({ reply: scriptedReply });
  // Shard 2's server refuses the judge's seed: its judge requests go out without one.
  const noSeed = await startFakeServer({
    reply: scriptedReply,
    rejectParameters: (model) => model === "fake-judge" ? ["seed"] : [],
  });
  const root = await Deno.makeTempDir({ prefix: "medeval-merge-shapes-" });
  try {
    const dirs = [`${root}/shard-1`, `${root}/shard-2`];
    for (const [i, server] of [plain, noSeed].entries()) {
      const result = await runEval({ ...config(server, 2, dirs[i]), shard: `${i + 1}/2` });
      assertEquals(result.failures, 0);
    }
    const [one, two] = dirs.map(stored);
    assertEquals([one.samples, two.samples], [1, 1]);
    const [judgeOne, judgeTwo] = [one.shapes!.judge["fake-judge"], two.shapes!.judge["fake-judge"]];
    assert((judgeOne.sent as string[]).includes("seed"), JSON.stringify(judgeOne));
    assert((judgeTwo.left_out as string[]).includes("seed"), JSON.stringify(judgeTwo));
    assertEquals(one.shapes!.model, two.shapes!.model);

    const merge = await runCli(["merge", "--out", `${root}/merged`, "--no-render", ...dirs]);
    assertEquals(merge.code, 0, merge.stderr);
    const merged = stored(`${root}/merged`);
    assertEquals(merged.shapes, {
      model: one.shapes!.model,
      judge: { "fake-judge": { by_shard: { "1/2": judgeOne, "2/2": judgeTwo } } },
    });
    const note = merge.stdout.split("\n").filter((line) => line.includes("request_shapes"));
    assertEquals(note.length, 1, merge.stdout);
    assertStringIncludes(note[0], "judge fake-judge");
    assertEquals(
      (merged.merged[0] as { differing_request_shapes?: string[] }).differing_request_shapes,
      ["judge fake-judge"],
    );
  } finally {
    await plain.close();
    await noSeed.close();
    await Deno.remove(root, { recursive: true });
  }
});
