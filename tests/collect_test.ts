import { assert, assertEquals } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { collectRuns, responseMatrix } from "../lib/store/collect.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { matrixSpec } from "../lib/cli/runs.ts";
import { runCli } from "./run_cli.ts";

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
