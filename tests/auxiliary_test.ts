import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { BENCHMARKS, getTask } from "../lib/benchmarks/registry.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { hashFile } from "../lib/core/hash.ts";
import { jsonlRecords } from "../lib/core/jsonl.ts";
import { type Sample, SampleSchema } from "../lib/core/sample.ts";
import type { Task } from "../lib/core/task.ts";
import { readTextStrict } from "../lib/core/text_file.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";

/** Reads toy samples: one JSON sample per line. */
async function loadToy(path: string): Promise<Sample[]> {
  return jsonlRecords(await readTextStrict(path), path).map(({ value, line }) => {
    const parsed = SampleSchema.safeParse(value);
    if (!parsed.success) {
      throw new InputError({ file: path, record: `line ${line}`, field: "id" }, "expected a sample");
    }
    return parsed.data;
  });
}

/** A fifth benchmark made in a test: few-shot exemplars from a train split beside the test set. */
async function toyTask(): Promise<Task> {
  const base = await getTask("climedbench");
  return {
    ...base,
    name: "toy",
    load: loadToy,
    auxiliary: [{ name: "train", description: "exemplars", load: loadToy }],
    solver: {
      name: "few-shot",
      templates: {},
      auxiliary: ["train"],
      async solve({ sample, history }, ctx) {
        const shots = ctx.auxiliary("train").flatMap((s) => [
          { role: "user" as const, content: s.input },
          { role: "assistant" as const, content: s.reference ?? "" },
        ]);
        const reply = await ctx.generate("model", {
          messages: [...shots, ...history, { role: "user", content: sample.input }],
        });
        return { answer: reply.text, callKey: reply.callKey, turn: reply.sent.slice(-1) };
      },
    },
  };
}

const sample = (id: string, input: string, reference: string | null = null): string =>
  JSON.stringify({
    id,
    benchmark: "toy",
    input,
    reference,
    conversation: null,
    fields: { scenario: "KE", question_type: "open", task: "t", department: null, difficulty: null },
    extra: { options: {}, answer: [] },
  });

Deno.test("auxiliary inputs: loaded, validated, hashed into the manifest, and given to the solver", async () => {
  BENCHMARKS.toy = toyTask;
  const server = await startFakeServer();
  const dir = await Deno.makeTempDir({ prefix: "medeval-aux-" });
  try {
    await Deno.writeTextFile(`${dir}/test.jsonl`, sample("t1", "测试问题") + "\n");
    await Deno.writeTextFile(`${dir}/train.jsonl`, sample("e1", "示例问题", "示例答案") + "\n");
    const config = {
      benchmark: "toy",
      model: "fake-model",
      baseUrl: server.url,
      data: `${dir}/test.jsonl`,
      out: `${dir}/run`,
      progress: false,
      renderFigures: false,
    };
    await assertRejects(() => runEval(config), ConfigError, "--aux: toy needs train: pass --aux train=PATH");
    await assertRejects(
      () => runEval({ ...config, aux: [`dev=${dir}/train.jsonl`] }),
      ConfigError,
      '--aux: toy has no auxiliary input "dev" (its inputs: train)',
    );
    await Deno.writeTextFile(`${dir}/bad.jsonl`, '{"id": ""}\n');
    await assertRejects(() => runEval({ ...config, aux: [`train=${dir}/bad.jsonl`] }), InputError, "line 1");

    await runEval({ ...config, aux: [`train=${dir}/train.jsonl`] });
    const asked = server.requests.map((r) => r.body as FakeChatBody).find((b) => b.model === "fake-model")!;
    assertEquals(asked.messages.map((m) => m.content), ["示例问题", "示例答案", "测试问题"]);
    const store = new RunStore(`${dir}/run/run.sqlite`);
    const manifest = store.manifest()!;
    store.close();
    const sha = await hashFile(`${dir}/train.jsonl`);
    assertEquals((manifest.identity as { auxiliary: unknown }).auxiliary, { train: sha });
    assertEquals((manifest.auxiliary as Record<string, { sha256: string }>).train.sha256, sha);

    // A changed train split changes what is asked: resuming against it is refused.
    await Deno.writeTextFile(`${dir}/train.jsonl`, sample("e1", "另一个示例", "答案") + "\n");
    const err = await assertRejects(
      () => runEval({ ...config, aux: [`train=${dir}/train.jsonl`], resume: true }),
      ConfigError,
    );
    assertStringIncludes(err.message, '"auxiliary" differs');
  } finally {
    delete BENCHMARKS.toy;
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
