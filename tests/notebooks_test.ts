import { assert, assertEquals, assertRejects, assertStringIncludes, assertThrows } from "@std/assert";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { formatProblems, type NotebookJson, outputProblems } from "../lib/cli/notebooks.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import {
  DATA_ENV,
  judgedSamples,
  notebookSource,
  openRun,
  RUN_DIR_ENV,
} from "../lib/pipeline/notebook_source.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { comparisonOutputs } from "../lib/pipeline/write_outputs.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { ROOT } from "./run_cli.ts";

const NOTEBOOKS = `${ROOT}notebooks`;

/** The benchmark notebooks, which open a run directory or run on a data file. */
const BENCHMARK_NOTEBOOKS = ["llmeval_med", "climedbench", "medgpteval", "permedcqa"];

/** Returns every committed notebook by file name. */
async function committedNotebooks(): Promise<Map<string, NotebookJson>> {
  const notebooks = new Map<string, NotebookJson>();
  for await (const entry of Deno.readDir(NOTEBOOKS)) {
    if (!entry.name.endsWith(".ipynb")) continue;
    notebooks.set(entry.name, JSON.parse(await Deno.readTextFile(`${NOTEBOOKS}/${entry.name}`)));
  }
  assert(notebooks.size >= BENCHMARK_NOTEBOOKS.length, `notebooks in ${NOTEBOOKS}`);
  return notebooks;
}

/** Returns the source of each code cell of a notebook. */
function codeCells(notebook: NotebookJson): string[] {
  return (notebook.cells ?? []).filter((c) => c.cell_type === "code")
    .map((c) => Array.isArray(c.source) ? c.source.join("") : c.source ?? "");
}

/**
 * Returns the calls in a notebook's code cells that leave a promise unawaited (the cell then shows
 * `Promise { undefined }`, or its output goes missing): `Deno.jupyter.display` and the notebook's own async
 * functions, called without `await`.
 */
function unawaitedCalls(notebook: NotebookJson): string[] {
  const cells = codeCells(notebook);
  const own = cells.flatMap((code) => [...code.matchAll(/async function (\w+)/g)].map((m) => m[1]));
  const found: string[] = [];
  for (const [i, code] of cells.entries()) {
    for (const name of ["Deno.jupyter.display", ...own]) {
      const call = new RegExp(`(?<![\\w.$])(await\\s+|function\\s+)?${name.replaceAll(".", "\\.")}\\(`, "g");
      for (const match of code.matchAll(call)) {
        if (!match[1]) found.push(`code cell ${i + 1}: ${name}( without await`);
      }
    }
  }
  return found;
}

Deno.test("every notebook is nbformat 4.5 or later with a unique, valid id on every cell", async () => {
  const wrong: string[] = [];
  for (const [name, notebook] of await committedNotebooks()) {
    const version = (notebook.nbformat ?? 0) * 1000 + (notebook.nbformat_minor ?? 0);
    if (version < 4005) wrong.push(`${name}: nbformat ${notebook.nbformat}.${notebook.nbformat_minor}`);
    const ids = (notebook.cells ?? []).map((c) => c.id);
    ids.forEach((id, i) => {
      if (typeof id !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(id)) {
        wrong.push(`${name}: cell ${i + 1} id ${id}`);
      }
    });
    if (new Set(ids).size !== ids.length) wrong.push(`${name}: repeated cell ids`);
  }
  assertEquals(wrong, []);
});

Deno.test("no notebook leaves a promise unawaited, and no committed output shows a promise or an error", async () => {
  const wrong: string[] = [];
  for (const [name, notebook] of await committedNotebooks()) {
    wrong.push(...unawaitedCalls(notebook).map((p) => `${name}: ${p}`));
    wrong.push(...outputProblems(notebook).map((p) => `${name}: ${p}`));
  }
  assertEquals(wrong, []);
});

Deno.test("the unawaited-call check finds the calls that showed Promise { undefined }", () => {
  const notebook = (...sources: string[]): NotebookJson => ({
    cells: sources.map((source) => ({ cell_type: "code", source })),
  });
  assertEquals(
    unawaitedCalls(notebook('Deno.jupyter.display({ "image/svg+xml": svg }, { raw: true });')),
    ["code cell 1: Deno.jupyter.display( without await"],
  );
  assertEquals(
    unawaitedCalls(
      notebook("async function show(x: string) {\n  await Deno.jupyter.display(x);\n}", "show(1);"),
    ),
    ["code cell 2: show( without await"],
  );
  assertEquals(unawaitedCalls(notebook("await Deno.jupyter.display(x);", "const y = await show(2);")), []);
});

Deno.test("the benchmark notebooks document and read MEDEVAL_RUN_DIR and MEDEVAL_DATA in their first cell", async () => {
  const notebooks = await committedNotebooks();
  for (const name of BENCHMARK_NOTEBOOKS) {
    const notebook = notebooks.get(`${name}.ipynb`)!;
    const first = notebook.cells![0];
    assertEquals(first.cell_type, "markdown", name);
    const text = Array.isArray(first.source) ? first.source.join("") : first.source ?? "";
    assertStringIncludes(text, RUN_DIR_ENV, name);
    assertStringIncludes(text, DATA_ENV, name);
    const code = codeCells(notebook).join("\n");
    assertStringIncludes(code, "notebookSource()", name);
    assertStringIncludes(code, "openRun(", name);
  }
  // The per-question table shows every judge run and the reduced score, not judge run 1 alone.
  const llmeval = codeCells(notebooks.get("llmeval_med.ipynb")!).join("\n");
  assertStringIncludes(llmeval, "judgedSamples(");
  assert(!/scores\b[^\n]*\)\[0\]/.test(llmeval), "llmeval_med.ipynb reads scores[0]");
});

Deno.test("formatProblems: version, missing, invalid and repeated ids", () => {
  assertEquals(
    formatProblems({ nbformat: 4, nbformat_minor: 5, cells: [{ id: "a" }, { id: "b-1_2" }] }),
    [],
  );
  assertEquals(
    formatProblems({ nbformat: 4, nbformat_minor: 4, cells: [{}, { id: "a b" }, { id: "x" }, { id: "x" }] }),
    [
      "nbformat 4.4: must be 4.5 or later (cell ids)",
      "cell 1 has no id",
      'cell 2 has an invalid id "a b"',
      'cell 4 repeats the id "x"',
    ],
  );
});

Deno.test("outputProblems: a promise (coloured as the kernel prints it) or an error in any output", () => {
  const notebook: NotebookJson = {
    cells: [
      { id: "ok", outputs: [{ output_type: "stream", text: ["a Promise-free line\n"] }] },
      {
        id: "promise",
        outputs: [{
          output_type: "execute_result",
          data: { "text/plain": ["Promise { \x1b[90mundefined\x1b[39m }"] },
        }],
      },
      { id: "pending", outputs: [{ output_type: "stream", text: "Promise { <pending> }\n" }] },
      { id: "error", outputs: [{ output_type: "error", ename: "TypeError", evalue: "x is undefined" }] },
    ],
  };
  assertEquals(outputProblems(notebook), [
    'cell 2 (id promise) shows "Promise { undefined }": await the call that ends the cell',
    'cell 3 (id pending) shows "Promise { <pending> }": await the call that ends the cell',
    "cell 4 (id error) shows an error: TypeError: x is undefined",
  ]);
});

Deno.test("notebookSource: a run directory, a data file, or the shipped sample; not both", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assertEquals(notebookSource(env({})), { kind: "sample" });
  assertEquals(notebookSource(env({ [RUN_DIR_ENV]: "/tmp/run" })), { kind: "run", dir: "/tmp/run" });
  assertEquals(notebookSource(env({ [RUN_DIR_ENV]: "runs/x" })), { kind: "run", dir: `${ROOT}runs/x` });
  assertEquals(notebookSource(env({ [DATA_ENV]: "data/x.json", [RUN_DIR_ENV]: " " })), {
    kind: "data",
    data: `${ROOT}data/x.json`,
  });
  assertThrows(
    () => notebookSource(env({ [RUN_DIR_ENV]: "/tmp/run", [DATA_ENV]: "/tmp/x.json" })),
    ConfigError,
    "both set",
  );
});

Deno.test("openRun + judgedSamples: every judge run beside the reduced score the summary counts", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  Deno.env.set("MEDEVAL_NOTEBOOK_TEST_KEY", "sk-test-notebook");
  const out = await Deno.makeTempDir({ prefix: "medeval-notebook-run-" });
  try {
    await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      apiKeyEnv: "MEDEVAL_NOTEBOOK_TEST_KEY",
      judge: "fake-judge",
      judgeBaseUrl: server.url,
      judgeApiKeyEnv: "MEDEVAL_NOTEBOOK_TEST_KEY",
      judgeRuns: 3,
      out,
      progress: false,
      renderFigures: false,
    });
    const run = await openRun(out, "llmeval-med");
    assertEquals(run.conditions.length, 1);
    const written = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    assertEquals(run.conditions[0].summary, written);

    // Recomputed from the judge's script: each run's score, and their mean over the valid ones.
    const { samples } = await loadLlmEvalMed(`${ROOT}data/llmeval_med/sample.json`);
    const judged = judgedSamples(run.conditions[0], "judge");
    assertEquals(judged.map((q) => q.id), samples.map((s) => s.id));
    let differsFromRun1 = 0;
    let usable = 0;
    for (const [i, question] of judged.entries()) {
      const planned = [1, 2, 3].map((r) => plannedScore(questionTag(samples[i].input), r));
      assertEquals([...question.runs.values()], [planned], question.id);
      const valid = planned.filter((v): v is number => v !== null);
      const mean = valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : null;
      assertEquals(question.values.mean_score, mean, question.id);
      if (mean !== planned[0]) differsFromRun1++;
      usable += question.values.usability ?? 0;
    }
    assert(differsFromRun1 > 0, "the script must give questions whose runs differ");
    assertEquals(usable / judged.length, written.metrics.usability.value);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("openRun on a run stopped early: its rows count the scored samples its summary counts", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  Deno.env.set("MEDEVAL_NOTEBOOK_TEST_KEY", "sk-test-notebook");
  const out = await Deno.makeTempDir({ prefix: "medeval-notebook-partial-" });
  try {
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      apiKeyEnv: "MEDEVAL_NOTEBOOK_TEST_KEY",
      judge: "fake-judge",
      judgeBaseUrl: server.url,
      judgeApiKeyEnv: "MEDEVAL_NOTEBOOK_TEST_KEY",
      judgeRuns: 3,
      concurrency: 2,
      judgeConcurrency: 2,
      maxTokensTotal: 600,
      out,
      progress: false,
      renderFigures: false,
    });
    assert(result.stopped, "the token limit must stop the run");
    const summary = result.summary;
    assertEquals(summary.complete, false);
    const [condition] = (await openRun(out, "llmeval-med")).conditions;
    assertEquals(condition.summary, summary);
    const judged = judgedSamples(condition, "judge");
    const count = (status: string) => judged.filter((q) => q.status === status).length;
    for (const status of ["scored", "not_asked", "not_judged", "failed"]) {
      assertEquals(count(status), summary.counts[status], status);
    }
    assert(
      count("scored") > 0 && count("scored") < judged.length,
      "a partial run with some scored questions",
    );
    const usability = judged.map((q) => q.values.usability).filter((v) => v !== null);
    assertEquals(usability.length, summary.metrics.usability.n);
    assertEquals(usability.reduce((a, b) => a + b, 0) / usability.length, summary.metrics.usability.value);
    assert(judged.filter((q) => q.status !== "scored").every((q) => q.values.mean_score === null));
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("openRun rebuilds a run's ablation and length tables exactly as the run wrote them", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-notebook-climed-" });
  try {
    const result = await runEval({
      benchmark: "climedbench",
      model: "offline:retrieval",
      ablations: ["cot", "perturb:homophone@0.12"],
      buckets: "length:3",
      out,
      progress: false,
      renderFigures: false,
    });
    const run = await openRun(out, "climedbench");
    assertEquals(run.conditions.map((c) => c.condition.name), ["default", "cot", "perturb:homophone@0.12"]);
    assertEquals(run.conditions.map((c) => c.summary), result.conditions);
    assertEquals(run.buckets, { k: 3 });
    const { tables } = comparisonOutputs(run.task, run.conditions, run.buckets);
    assertEquals(tables, result.comparisons);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("openRun: one-line errors naming the directory when it is not a finished run of the benchmark", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-notebook-bad-" });
  try {
    await assertRejects(() => openRun(`${dir}/absent`, "llmeval-med"), InputError, "no such directory");
    await Deno.writeTextFile(`${dir}/file.txt`, "x");
    await assertRejects(() => openRun(`${dir}/file.txt`, "llmeval-med"), InputError, "not a directory");
    await assertRejects(() => openRun(dir, "llmeval-med"), InputError, "no summaries.json");
    await Deno.writeTextFile(`${dir}/summaries.json`, "[{");
    await assertRejects(() => openRun(dir, "llmeval-med"), InputError, "not valid JSON");
    await Deno.writeTextFile(`${dir}/summaries.json`, "[]");
    await assertRejects(() => openRun(dir, "llmeval-med"), InputError, "not a run summary");
    await runEval({
      benchmark: "climedbench",
      model: "offline:reference",
      out: `${dir}/run`,
      progress: false,
      renderFigures: false,
    });
    const err = await assertRejects(() => openRun(`${dir}/run`, "llmeval-med"), InputError);
    assertEquals(err.message, `${dir}/run: holds a climedbench run, not llmeval-med`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Whether Jupyter with the Deno kernel is installed (`deno task setup`). */
async function hasDenoKernel(): Promise<boolean> {
  try {
    const out = await new Deno.Command("jupyter", { args: ["kernelspec", "list", "--json"], stderr: "null" })
      .output();
    return out.success && "deno" in (JSON.parse(new TextDecoder().decode(out.stdout)).kernelspecs ?? {});
  } catch {
    return false;
  }
}

/** Writes a notebook of code cells (ids `c0`, `c1`, ... unless `ids` is false) and returns its path. */
async function writeNotebook(path: string, sources: string[], ids = true): Promise<string> {
  const cells = sources.map((source, i) => ({
    cell_type: "code",
    ...(ids ? { id: `c${i}` } : {}),
    metadata: {},
    source,
    outputs: [],
    execution_count: null,
  }));
  const kernelspec = { display_name: "Deno", language: "typescript", name: "deno" };
  await Deno.writeTextFile(
    path,
    JSON.stringify({ cells, metadata: { kernelspec }, nbformat: 4, nbformat_minor: 5 }),
  );
  return path;
}

/** Runs `deno task notebooks` on `paths`, executed copies into `outputDir`. */
async function runNotebooksCli(outputDir: string, paths: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}lib/cli/notebooks.ts`, "--output-dir", outputDir, ...paths],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("deno task notebooks: a bad argument is one line and exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-notebooks-args-" });
  try {
    for (
      const [args, message] of [
        [[`${dir}/absent.ipynb`], `error: ${dir}/absent.ipynb: not a notebook file`],
        [["--output-dr", dir], "error: unknown option --output-dr; did you mean --output-dir?"],
      ] as [string[], string][]
    ) {
      const result = await runNotebooksCli(dir, args);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertStringIncludes(result.stderr, message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const KERNEL = await hasDenoKernel();

Deno.test({
  name: "deno task notebooks fails on an unawaited promise, a cell without an id, and keeps every output",
  ignore: !KERNEL,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "medeval-notebooks-cli-" });
    try {
      const promise = await writeNotebook(`${dir}/promise.ipynb`, [
        "async function f(): Promise<void> {}",
        "f();",
      ]);
      const noIds = await writeNotebook(`${dir}/no_ids.ipynb`, ["const a = 1;"], false);
      // Each kind of output, many times: the Deno kernel sends some of them after the cell's idle status.
      const sources = Array.from({ length: 12 }, (_, i) => [
        `const m${i} = ${i};\nDeno.jupyter.md\`markdown ${i}\``,
        `const d${i} = ${i};\nawait Deno.jupyter.display({ "text/plain": "display ${i}" }, { raw: true });`,
        `const l${i} = ${i};\nconsole.log("log ${i}");`,
      ]).flat();
      const ok = await writeNotebook(`${dir}/ok.ipynb`, sources);
      const executed = `${dir}/executed`;
      const result = await runNotebooksCli(executed, [promise, noIds, ok]);
      assertEquals(result.code, 1, result.stdout + result.stderr);
      assertStringIncludes(result.stderr, "notebook FAILED: promise.ipynb");
      assertStringIncludes(result.stderr, 'cell 2 (id c1) shows "Promise { undefined }"');
      assertStringIncludes(result.stderr, "notebook FAILED: no_ids.ipynb");
      assertStringIncludes(result.stderr, "cell 1 has no id");
      assertStringIncludes(result.stdout, "notebook ok: ok.ipynb");
      assertStringIncludes(result.stdout, "2 notebook(s) failed");

      const run = JSON.parse(await Deno.readTextFile(`${executed}/ok.ipynb`)) as NotebookJson;
      const texts = (run.cells ?? []).map((cell) =>
        (cell.outputs ?? []).map((o) =>
          [o.text, ...Object.values(o.data ?? {})].flat().filter((t) => typeof t === "string").join("")
        ).join("|")
      );
      const expected = Array.from({ length: 12 }, (_, i) => [`markdown ${i}`, `display ${i}`, `log ${i}\n`])
        .flat();
      assertEquals(texts, expected);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
