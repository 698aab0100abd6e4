/**
 * Ratings as people send them: physicians' and experts' CSVs with the data set's own ids, the rubric's
 * published field names and `instance_id`/`Item` id columns, imported into offline PerMedCQA and MedGPTEval
 * runs; the import itself rewrites the run's summary, tables and agreement (what `eval --resume` would write),
 * and the agreement is recomputed here from the CSV and the judge's stored verdicts.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { INDICATORS } from "../lib/benchmarks/medgpteval/rubric.ts";
import { CLINICAL_IMPACT, CORRECTNESS, COVERAGE } from "../lib/benchmarks/permedcqa/scorer.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { ROOT, runCli, sampleRows } from "./run_cli.ts";

const PERMEDCQA = {
  benchmark: "permedcqa",
  model: "offline:retrieval",
  judge: "offline:medjudge",
  judgeRuns: 1,
  data: `${ROOT}data/permedcqa/Data`,
  progress: false,
  renderFigures: false,
};

const MEDGPTEVAL = {
  benchmark: "medgpteval",
  model: "offline:echo",
  judge: "offline:rubric",
  judgeRuns: 1,
  progress: false,
  renderFigures: false,
};

/** One agreement entry of a PerMedCQA summary. */
interface Agreement {
  field: string;
  a: string;
  b: string;
  kind: string;
  percent: { value: number; n: number };
}

Deno.test("import-ratings: a physicians' CSV (data ids, published names, instance_id) rewrites a PerMedCQA run's agreement", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-physicians-" });
  try {
    await runEval({ ...PERMEDCQA, out });
    // Two physicians rate the first 12 questions by the data's own ids, in the rubric's published names,
    // one writing "Partially correct" with a space.
    const ids = Array.from({ length: 12 }, (_, i) => `te-${String(i + 1).padStart(4, "0")}`);
    const pick = <T>(levels: readonly T[], i: number) => levels[i % levels.length];
    const rated = ids.flatMap((id, i) => [
      { id, rater: "dr-a", correctness: pick(CORRECTNESS, i), coverage: pick(COVERAGE, i + 1) },
      { id, rater: "dr-b", correctness: pick(CORRECTNESS, Math.floor(i / 2)), coverage: pick(COVERAGE, i) },
    ]);
    const csv = [
      "instance_id,physician,Correctness,Coverage,Clinical_impact",
      ...rated.map((r, i) =>
        [r.id, r.rater, r.correctness.replace("_", " "), r.coverage, pick(CLINICAL_IMPACT, i)].join(",")
      ),
    ].join("\n") + "\n";
    await Deno.writeTextFile(`${out}/physicians.csv`, csv);
    const before = await Deno.readTextFile(`${out}/summary.json`);
    assertEquals(JSON.parse(before).agreement ?? [], []);

    const result = await runCli([
      "import-ratings",
      out,
      `${out}/physicians.csv`,
      "--scorer",
      "human:physicians",
      "--no-render",
    ]);
    assertEquals(result.code, 0, result.stderr);
    assertMatch(result.stdout, /imported 24 ratings of 12 samples by 2 rater\(s\) as human:physicians/);
    assertStringIncludes(result.stdout, `rewrote ${out}`);

    // The summary the import wrote: the judge against each physician, and the two physicians, recomputed here.
    const rewritten = await Deno.readTextFile(`${out}/summary.json`);
    const agreement: Agreement[] = JSON.parse(rewritten).agreement;
    const judged = new Map(
      (await sampleRows(out)).map((row) => [
        String(row.id).replace("permedcqa:", ""),
        row.scores.find((s: { scorer: string }) => s.scorer === "medjudge").values.correctness as string,
      ]),
    );
    for (const rater of ["dr-a", "dr-b"]) {
      const own = rated.filter((r) => r.rater === rater);
      const entry = agreement.find((a) =>
        a.kind === "judge-human" && a.b === rater && a.field === "correctness"
      );
      assert(entry, `judge vs ${rater}`);
      assertEquals(entry.percent.n, own.length);
      assertEquals(
        entry.percent.value,
        own.filter((r) => judged.get(r.id) === r.correctness).length / own.length,
      );
    }
    const pair = agreement.find((a) => a.a === "dr-a" && a.b === "dr-b" && a.field === "coverage");
    assert(pair, "dr-a vs dr-b");
    const coverage = (rater: string) => rated.filter((r) => r.rater === rater).map((r) => r.coverage);
    const [a, b] = [coverage("dr-a"), coverage("dr-b")];
    assertEquals(pair.percent.value, a.filter((c, i) => c === b[i]).length / a.length);
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/rater_agreement.md`), "dr-b");

    // Exactly what `eval --resume` writes from the same store.
    await runEval({ ...PERMEDCQA, out, resume: true });
    assertEquals(await Deno.readTextFile(`${out}/summary.json`), rewritten);

    // A long file with the published names in its field column, ids under question_id, replaces them.
    await Deno.writeTextFile(
      `${out}/long.csv`,
      "question_id,Rater,Field,Value\n" +
        ["Correctness,Incorrect", "Coverage,Overlap_none", "Clinical_impact,Critical"]
          .map((fv) => `te-0003,dr-c,${fv}`).join("\n") +
        "\n",
    );
    const long = await runCli([
      "import-ratings",
      out,
      `${out}/long.csv`,
      "--scorer",
      "human:physicians",
      "--no-render",
    ]);
    assertEquals(long.code, 0, long.stderr);
    const after: Agreement[] = JSON.parse(await Deno.readTextFile(`${out}/summary.json`)).agreement;
    assertEquals([...new Set(after.map((x) => x.b))], ["dr-c"]);
    assertEquals(after.find((x) => x.field === "correctness")!.percent.n, 1);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("import-ratings: experts' wide CSV (Item, Rater, published indicator names, dialogue ids) rewrites a MedGPTEval run", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-experts-" });
  try {
    await runEval({ ...MEDGPTEVAL, out });
    // The shipped long expert scores, turned into the wide layout a spreadsheet gives: one row per item and
    // rater, the indicators under the names the paper prints ("Social decorum", "Key information").
    const long = (await Deno.readTextFile(`${ROOT}data/medgpteval/expert_scores.csv`)).trim().split("\n")
      .slice(1)
      .map((line) => line.split(","));
    const keys = [...new Set(long.map(([item, rater]) => `${item},${rater}`))];
    const cell = (key: string, indicator: string) =>
      long.find(([item, rater, name]) => `${item},${rater}` === key && name === indicator)?.[3] ?? "";
    const csv = [
      ["Item", "Rater", ...INDICATORS.map((i) => i.label)].join(","),
      ...keys.map((key) => [key, ...INDICATORS.map((i) => cell(key, i.name))].join(",")),
    ].join("\n") + "\n";
    assertStringIncludes(csv, "Social decorum");
    await Deno.writeTextFile(`${out}/experts.csv`, csv);
    assertEquals(
      JSON.parse(await Deno.readTextFile(`${out}/summary.json`)).metrics["expert:total"],
      undefined,
    );

    const result = await runCli([
      "import-ratings",
      out,
      `${out}/experts.csv`,
      "--scorer",
      "human:experts",
      "--no-render",
    ]);
    assertEquals(result.code, 0, result.stderr);
    const rewritten = await Deno.readTextFile(`${out}/summary.json`);
    const metrics = JSON.parse(rewritten).metrics;
    const items = new Set(long.map(([item]) => item));
    assertEquals(metrics["expert:total"].n, items.size);
    // Every item has the same number of raters, so the mean of item means is the mean of all accuracy cells.
    const accuracy = long.filter(([, , name]) => name === "accuracy").map(([, , , v]) => Number(v));
    assertEquals(metrics["expert:accuracy"].value, accuracy.reduce((s, v) => s + v, 0) / accuracy.length);
    assertEquals(metrics["expert:social_decorum"].n, items.size);

    await runEval({ ...MEDGPTEVAL, out, resume: true });
    assertEquals(await Deno.readTextFile(`${out}/summary.json`), rewritten);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
