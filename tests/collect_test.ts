import { assert, assertEquals, assertMatch } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { collectRuns, responseMatrix } from "../lib/store/collect.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { matrixSpec } from "../lib/cli/runs.ts";
import { ROOT, runCli } from "./run_cli.ts";

Deno.test("collect: two run stores into one long table and a models x items matrix", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-collect-" });
  try {
    const runs = ["offline:reference", "offline:retrieval"].map((model, i) => ({
      benchmark: "climedbench",
      model,
      out: `${dir}/run${i}`,
      progress: false,
      renderFigures: false,
    }));
    for (const run of runs) await runEval(run);
    const { runs: collected, rows } = await collectRuns(runs.map((r) => r.out));
    assertEquals(collected.map((r) => [r.benchmark, r.model, r.offline]), [
      ["climedbench", "offline:reference", true],
      ["climedbench", "offline:retrieval", true],
    ]);
    const matrix = responseMatrix(rows, { scorer: "metric" });
    assertEquals(matrix.persons, ["offline:reference", "offline:retrieval"]);
    // Every cell is the score the run's own store holds for that item.
    for (const [p, run] of runs.entries()) {
      const store = new RunStore(`${run.out}/run.sqlite`, { readOnly: true });
      const stored = new Map(store.scores("default").map((s) => [s.sampleId, s.value]));
      store.close();
      assertEquals(matrix.items.length, stored.size);
      matrix.items.forEach((item, i) =>
        assertEquals(matrix.values[p][i], stored.get(item), `${run.model} ${item}`)
      );
    }
    // Dichotomised at 0.5, graded items become 0/1; the reference ceiling gets every choice item right.
    const binary = responseMatrix(rows, { scorer: "metric", threshold: 0.5 });
    assert(binary.values.flat().every((v) => v === 0 || v === 1));
    assert(binary.values[0].filter((v) => v === 1).length > binary.values[1].filter((v) => v === 1).length);

    // The command writes the long table and the wide matrix.
    const result = await runCli([
      "collect",
      ...runs.map((r) => r.out),
      "--out",
      `${dir}/long.csv`,
      "--matrix",
      "metric@0.5",
      "--matrix-out",
      `${dir}/matrix.csv`,
    ]);
    assertEquals(result.code, 0, result.stderr);
    const long = (await Deno.readTextFile(`${dir}/long.csv`)).trim().split("\n");
    assertEquals(long[0], "run,benchmark,model,condition,sample,scorer,judge,repeat,field,value");
    assertEquals(long.length - 1, rows.length);
    const wide = (await Deno.readTextFile(`${dir}/matrix.csv`)).trim().split("\n");
    assertEquals(wide.length, 3);
    assertEquals(wide[0].split(",").length, 1 + binary.items.length);
    assert(wide[1].startsWith("offline:reference,"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("collect: a directory without a run store is a one-line error", async () => {
  const dir = await Deno.makeTempDir();
  const result = await runCli(["collect", dir, "--out", `${dir}/x.csv`]);
  assertEquals(result.code, 2);
  assertEquals(result.errors, [`error: ${dir}: no run store (run.sqlite) in this directory`]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("collect --matrix: scorer, human:NAME scorer, field and threshold", () => {
  assertEquals(matrixSpec("metric@0.5"), { scorer: "metric", field: undefined, threshold: 0.5 });
  assertEquals(matrixSpec("medjudge:correctness"), {
    scorer: "medjudge",
    field: "correctness",
    threshold: undefined,
  });
  assertEquals(matrixSpec("human:experts:clarity@1"), {
    scorer: "human:experts",
    field: "clarity",
    threshold: 1,
  });
  assertEquals(matrixSpec("human:experts"), {
    scorer: "human:experts",
    field: undefined,
    threshold: undefined,
  });
});

Deno.test("collect matrix: one model from two runs is two examinees, never averaged into one", () => {
  const row = (run: string, sample: string, value: number) => ({
    run,
    benchmark: "b",
    model: "m",
    condition: "default",
    sample,
    scorer: "metric",
    judge: null,
    repeat: 1,
    field: "value",
    value,
  });
  const rows = [
    row("runs/a", "s1", 1),
    row("runs/a", "s2", 0),
    row("runs/b", "s1", 0),
    row("runs/b", "s2", 0),
  ];
  const matrix = responseMatrix(rows, { scorer: "metric" });
  assertEquals(matrix.persons, ["m (runs/a)", "m (runs/b)"]);
  assertEquals(matrix.values, [[1, 0], [0, 0]]);
});

/** Returns whether `path` exists. */
async function exists(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null)) !== null;
}

Deno.test("collect --matrix: a scorer or field the runs lack, or one holding categories, is a one-line error naming what there is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-collect-" });
  try {
    const run = `${dir}/run`;
    await runEval({
      benchmark: "permedcqa",
      model: "offline:reference",
      judge: "offline:medjudge",
      judgeRuns: 1,
      data: `${ROOT}data/permedcqa/Data`,
      limit: 5,
      out: run,
      progress: false,
      renderFigures: false,
    });
    const collect = (matrix: string) =>
      runCli([
        "collect",
        run,
        "--out",
        `${dir}/long.csv`,
        "--matrix",
        matrix,
        "--matrix-out",
        `${dir}/m.csv`,
      ]);
    const cases: [string, RegExp][] = [
      [
        "nosuch@4",
        /^error: --matrix nosuch@4: no scorer "nosuch" in the runs; they have: medjudge \(numeric fields: value\)$/,
      ],
      [
        "medjudge:correctness",
        /^error: --matrix medjudge:correctness: medjudge:correctness holds categories \(Correct.*\), not numbers; numeric fields of medjudge: value$/,
      ],
      [
        "medjudge:nosuch",
        /^error: --matrix medjudge:nosuch: medjudge has no field "nosuch"; its fields: value, correctness, coverage, clinical_impact, judge_confidence \(numeric: value\)$/,
      ],
    ];
    for (const [matrix, pattern] of cases) {
      const result = await collect(matrix);
      assertEquals(result.code, 2, matrix);
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertMatch(result.errors[0], pattern);
      assert(
        !(await exists(`${dir}/long.csv`)) && !(await exists(`${dir}/m.csv`)),
        `${matrix}: nothing written`,
      );
    }
    // Names are matched ignoring case: MedJudge's VALUE is medjudge's primary value.
    const ok = await collect("MedJudge:VALUE@1");
    assertEquals(ok.code, 0, ok.stderr);
    assertMatch(ok.stdout, /m\.csv: 1 examinees x 5 items/);
    const wide = (await Deno.readTextFile(`${dir}/m.csv`)).trim().split("\n");
    assertEquals(wide[1], "offline:reference,1,1,1,1,1");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("collect: an output path that is a directory or in a missing directory is a one-line error; nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-collect-" });
  try {
    const run = `${dir}/run`;
    await runEval({
      benchmark: "climedbench",
      model: "offline:reference",
      limit: 3,
      out: run,
      progress: false,
      renderFigures: false,
    });
    const cases: [string[], RegExp][] = [
      [["--out", dir], /^error: --out: .* is a directory; give a file path/],
      [
        ["--out", `${dir}/missing/long.csv`],
        /^error: --out: .*long\.csv: the directory .*missing does not exist$/,
      ],
      [["--out", `${dir}/run/run.sqlite/long.csv`], /^error: --out: .*: .*run\.sqlite is not a directory$/],
      [
        ["--out", `${dir}/long.csv`, "--matrix", "metric", "--matrix-out", run],
        /^error: --matrix-out: .*run is a directory; give a file path/,
      ],
      [
        ["--out", `${dir}/long.csv`, "--matrix-out", `${dir}/m.csv`],
        /^error: --matrix-out: give --matrix SCORER/,
      ],
      [
        ["--out", `${dir}/long.csv`, "--matrx", "metric"],
        /^error: unknown option --matrx; did you mean --matrix\?/,
      ],
    ];
    for (const [flags, pattern] of cases) {
      const result = await runCli(["collect", run, ...flags]);
      assertEquals(result.code, 2, flags.join(" "));
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertMatch(result.errors[0], pattern);
      assert(!(await exists(`${dir}/long.csv`)), `${flags.join(" ")}: nothing written`);
    }
    assertEquals((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), ["run"]);
    // A run directory whose store is not a database (or an empty file) is one line too.
    for (const [name, text] of [["garbage", "not a database"], ["empty", ""]]) {
      await Deno.mkdir(`${dir}/${name}`);
      await Deno.writeTextFile(`${dir}/${name}/run.sqlite`, text);
      const result = await runCli(["collect", `${dir}/${name}`, "--out", `${dir}/long.csv`]);
      assertEquals(result.code, 2, name);
      assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
      assertMatch(result.errors[0], /run\.sqlite: field "manifest": not a run store \(no manifest\)$/);
      assert(!(await exists(`${dir}/long.csv`)));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
