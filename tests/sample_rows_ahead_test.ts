/**
 * A condition's `samples.jsonl` written while its samples are evaluated (lib/pipeline/sample_rows.ts) is the
 * same bytes as the rows read back from the store afterwards: whole runs of the four benchmarks (a resumed run,
 * which holds nothing, reads them back), runs with failed answers, failed turns and a spending stop, and the
 * writer's own order and give-up rules.
 */
import { assert, assertEquals } from "@std/assert";
import type { Sample } from "../lib/core/sample.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { eachSampleRowJson, sampleRowJson, SampleRowsAhead } from "../lib/pipeline/sample_rows.ts";
import { scoreRowJson } from "../lib/store/run_store.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { defaultFakeReply, startFakeServer } from "./fake_server.ts";
import { storedScore, withTempDir } from "./temp_store.ts";
import { ROOT } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";
import { pathExists } from "../lib/core/fs.ts";
import { OFFLINE_RUNS } from "./offline_runs.ts";

/** A sample with an id and an input, nothing else. */
function sample(id: string, input = `question ${id}`): Sample {
  return { id, benchmark: "t", input, reference: null, conversation: null, fields: { f: id }, extra: {} };
}

Deno.test("rows done out of order are written in the store's order; samples not asked get a not-run row", async () => {
  await withTempDir("rows-ahead", (dir) => {
    const order = ["a", "b", "c", "d", "e"].map((id) => sample(id));
    // The condition asks a, b, d and e (c is not among its samples), with d asked otherwise than stored.
    const asked = [order[0], order[1], sample("d", "perturbed d"), order[4]];
    const rows = SampleRowsAhead.start(`${dir}/rows`, "c1", order, asked);
    const score = storedScore({ sampleId: "b", condition: "c1", scorer: "s", value: 0.5 });
    const later = storedScore({ sampleId: "b", condition: "c1", scorer: "s", value: 1 });
    const first = storedScore({ sampleId: "b", condition: "c1", scorer: "a", value: 0 });
    rows.done("e", { text: null, error: "boom", detail: null }, []);
    rows.done("b", { text: "B", error: null, detail: { steps: [1] } }, [score, first, later]);
    assert(Deno.statSync(`${dir}/rows`).size === 0, "nothing is written before the first sample is done");
    rows.done("d", undefined, []);
    rows.done("a", { text: "A", error: null, detail: null }, []);
    assert(rows.finish(true), "every row was written");
    const lines = Deno.readTextFileSync(`${dir}/rows`).split("\n");
    assertEquals(lines, [
      sampleRowJson(order[0], "c1", order[0].input, { text: "A", error: null, detail: null }, []),
      // The later score of a key replaces the earlier one; scores in the store's order (scorer a before s).
      sampleRowJson(order[1], "c1", order[1].input, { text: "B", error: null, detail: { steps: [1] } }, [
        scoreRowJson(first),
        scoreRowJson(later),
      ]),
      sampleRowJson(order[2], "c1", order[2].input, undefined, []),
      sampleRowJson(order[3], "c1", "perturbed d", undefined, []),
      sampleRowJson(order[4], "c1", order[4].input, { text: null, error: "boom", detail: null }, []),
      "",
    ]);
    assertEquals(JSON.parse(lines[2]).answer_error, "not run");
  });
});

Deno.test("rows done in reverse, far ahead of their turn, come out in the store's order", async () => {
  await withTempDir("rows-ahead", (dir) => {
    // More samples than the writer scans ahead of the next row: the later ones are found by an index.
    const order = Array.from({ length: 1500 }, (_, i) => sample(`s${i}`));
    const rows = SampleRowsAhead.start(`${dir}/rows`, "c1", order, order);
    for (const s of [...order].reverse()) {
      rows.done(s.id, { text: `answer ${s.id}`, error: null, detail: null }, []);
    }
    assert(rows.finish(true));
    const ids = Deno.readTextFileSync(`${dir}/rows`).trim().split("\n").map((line) => JSON.parse(line).id);
    assertEquals(ids, order.map((s) => s.id));
  });
});

Deno.test("rows are given up, and their file removed, when incomplete, reported twice, or not held", async () => {
  await withTempDir("rows-ahead", async (dir) => {
    const order = ["a", "b"].map((id) => sample(id));
    // Each case: what is done, whether the store held the condition, and the samples asked (default: the store's).
    const cases: [string, (rows: SampleRowsAhead) => void, boolean, Sample[]?][] = [
      ["a sample never done", (rows) => rows.done("a", undefined, []), true],
      ["a sample done twice", (rows) => {
        rows.done("a", undefined, []);
        rows.done("a", undefined, []);
        rows.done("b", undefined, []);
      }, true],
      [
        "a sample asked but not among the store's",
        (rows) => {
          rows.done("a", undefined, []);
          rows.done("b", undefined, []);
          rows.done("x", undefined, []);
        },
        true,
        [...order, sample("x")],
      ],
      ["a sample the condition does not ask", (rows) => {
        rows.done("a", undefined, []);
        rows.done("b", undefined, []);
        rows.done("z", undefined, []);
      }, true],
      ["the store let go of the condition", (rows) => {
        rows.done("a", undefined, []);
        rows.done("b", undefined, []);
      }, false],
      ["rows discarded, then done", (rows) => {
        rows.discard();
        rows.done("a", undefined, []);
        rows.done("b", undefined, []);
      }, true],
    ];
    for (const [name, act, held, asked] of cases) {
      const rows = SampleRowsAhead.start(`${dir}/rows`, "c1", order, asked ?? order);
      act(rows);
      assertEquals(rows.finish(held), false, name);
      assertEquals(await pathExists(`${dir}/rows`), false, `${name}: the file is removed`);
    }
  });
});

/** Every `samples.jsonl` under `out`, by path relative to it. */
async function samplesFiles(out: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const path of walkFiles(out)) {
    if (path.endsWith("/samples.jsonl")) files.set(path.slice(out.length + 1), await Deno.readTextFile(path));
  }
  return files;
}

/** Runs `config` noting what each condition's rows writer finished with; returns those and the run's files. */
async function runNotingRows(
  config: EvalConfig,
): Promise<{ finished: boolean[]; files: Map<string, string> }> {
  const finished: boolean[] = [];
  const finish = SampleRowsAhead.prototype.finish;
  SampleRowsAhead.prototype.finish = function (this: SampleRowsAhead, held: boolean) {
    const complete = finish.call(this, held);
    finished.push(complete);
    return complete;
  };
  try {
    await runEval(config);
  } finally {
    SampleRowsAhead.prototype.finish = finish;
  }
  const partials = [...Deno.readDirSync(config.out)].filter((e) => e.name.endsWith(".partial"));
  assertEquals(partials.map((e) => e.name), [], "no rows file is left beside the store");
  return { finished, files: await samplesFiles(config.out) };
}

for (const [name, settings] of OFFLINE_RUNS) {
  Deno.test(`rows written as a run goes equal the store's read-back: ${name}`, async () => {
    await withTempDir("rows-ahead", async (out) => {
      const config = { out, progress: false, renderFigures: false, ...settings } as EvalConfig;
      const first = await runNotingRows(config);
      const conditions = 1 + (settings.ablations?.length ?? 0);
      assertEquals(first.finished, Array(conditions).fill(true), "every condition's rows were written ahead");
      assertEquals(first.files.size, conditions);
      // Resumed, every condition is in the store: none is held, and the rows are read back from the store.
      const again = await runNotingRows({ ...config, resume: true });
      assertEquals(again.finished, []);
      assertEquals(again.files, first.files);
    });
  });
}

Deno.test("rows written as a run goes equal the read-back with failed answers, failed turns and a stop", async () => {
  // About a third of the questions fail for good (a 400 is not retried): those whose length is a multiple of 3,
  // and the first turn of every LLMEval-Med conversation of more than one turn (its later turns are not asked).
  // The data set writes a missing value as NaN, as pandas does: read here as null.
  const text = (await Deno.readTextFile(`${ROOT}data/llmeval_med/sample.json`)).replaceAll(
    /:\s*NaN\b/g,
    ": null",
  );
  const llmeval = JSON.parse(text) as Record<
    string,
    { problem: string; round: number; groupCode: number }[]
  >;
  const firstTurns = Object.values(llmeval).flatMap((items) =>
    items.filter((item) =>
      item.round === 1 && items.some((other) => other.groupCode === item.groupCode && other.round === 2)
    ).map((item) => item.problem)
  );
  assert(firstTurns.length > 0, "the shipped LLMEval-Med sample has conversations of more than one turn");
  const failing = (body: unknown) => {
    const messages = (body as { messages?: { role: string; content: string }[] } | null)?.messages ?? [];
    const question = messages.findLast((m) => m.role === "user")?.content ?? "";
    return question.length % 3 === 0 || firstTurns.some((problem) => question.includes(problem));
  };
  const server = await startFakeServer({
    fault: (r) => r.path.endsWith("/chat/completions") && failing(r.body) ? { status: 400 } : undefined,
  });
  try {
    // Each case, and an error some of its rows must show.
    const cases: [string, Partial<EvalConfig>, string][] = [
      ["climedbench with failed answers", {
        benchmark: "climedbench",
        data: `${ROOT}data/climedbench/sample.jsonl`,
      }, "400"],
      ["llmeval-med, multi-turn, with failed turns", {
        benchmark: "llmeval-med",
        judge: "offline:overlap",
        limit: 40,
      }, "not asked: turn"],
      ["climedbench stopped by a token limit", {
        benchmark: "climedbench",
        data: `${ROOT}data/climedbench/sample.jsonl`,
        maxTokensTotal: 100,
        concurrency: 1,
      }, "not run"],
    ];
    for (const [name, settings, shown] of cases) {
      await withTempDir("rows-ahead", async (out) => {
        const config = {
          out,
          model: "fake-model",
          baseUrl: server.url,
          progress: false,
          renderFigures: false,
          ...settings,
        } as EvalConfig;
        const run = await runNotingRows(config);
        assertEquals(run.finished, [true], `${name}: the rows were written ahead`);
        const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
        try {
          const read = [...eachSampleRowJson(store, "default")].map((row) => row + "\n").join("");
          assertEquals(run.files.get("samples.jsonl"), read, name);
          const rows = read.trim().split("\n").map((line) => JSON.parse(line));
          const errors = rows.filter((r) => r.answer_error !== null).map((r) => r.answer_error as string);
          assert(errors.length > 0 && errors.length < rows.length, `${name}: some answers failed, not all`);
          assert(
            errors.some((e) => e.includes(shown)),
            `${name}: no row shows "${shown}": ${errors.join("; ")}`,
          );
        } finally {
          store.close();
        }
      });
    }
  } finally {
    await server.close();
  }
});

Deno.test("a run with an answer SQLite would store otherwise (a NUL) reads its rows back from the store", async () => {
  const server = await startFakeServer({
    reply: (body) =>
      `${defaultFakeReply(body)}${(body.messages.at(-1)?.content.length ?? 0) % 5 === 0 ? "\u0000" : ""}`,
  });
  try {
    await withTempDir("rows-ahead", async (out) => {
      const run = await runNotingRows({
        benchmark: "climedbench",
        data: `${ROOT}data/climedbench/sample.jsonl`,
        model: "fake-model",
        baseUrl: server.url,
        out,
        progress: false,
        renderFigures: false,
      } as EvalConfig);
      assertEquals(run.finished, [false], "the rows written ahead are given up");
      const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
      try {
        const read = [...eachSampleRowJson(store, "default")].map((row) => row + "\n").join("");
        assertEquals(run.files.get("samples.jsonl"), read);
      } finally {
        store.close();
      }
    });
  } finally {
    await server.close();
  }
});
