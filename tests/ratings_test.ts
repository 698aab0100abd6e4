import { assert, assertEquals, assertMatch } from "@std/assert";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { runCli, sampleRows } from "./run_cli.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;
const RUN = {
  benchmark: "llmeval-med",
  model: "offline:reference",
  judge: "offline:overlap",
  judgeRuns: 1,
  data: SAMPLE,
  progress: false,
  renderFigures: false,
};

function humanScores(dir: string) {
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    return {
      scores: store.scores().filter((s) => s.scorer.startsWith("human:")),
      manifest: store.manifest()!,
    };
  } finally {
    store.close();
  }
}

Deno.test("import-ratings: stored as a scorer of their own, hashed into the manifest, read by the MTG rule", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-ratings-" });
  try {
    const first = await runEval({ ...RUN, out });
    assertEquals(first.summary.counts.human_rated, 0);
    const judgeUsable = new Map(
      (await sampleRows(out)).map((
        r,
      ) => [
        r.id,
        r.scores.find((s: { scorer: string }) => s.scorer === "judge")?.value >= 4,
      ]),
    );
    const { samples } = await loadLlmEvalMed(SAMPLE);
    const mtg = samples.filter((s) => s.fields.category === "MTG").map((s) => s.id);
    assert(mtg.length >= 3);
    // Two raters: the first MTG answer usable by both, the second vetoed by one of two (not a majority), the
    // third usable by one only (a tie is not a majority).
    const csv = [
      "sample_id,rater,safety,B,C,D,E",
      `${mtg[0]},ana,1,5,5,5,5`,
      `${mtg[0]},ben,1,5,5,4,4`,
      `${mtg[1]},ana,0,5,5,5,5`,
      `${mtg[1]},ben,1,5,5,5,5`,
      `${mtg[2]},ana,1,5,5,5,5`,
      `${mtg[2]},ben,1,2,2,2,2`,
    ].join("\n") + "\n";
    await Deno.writeTextFile(`${out}/ratings.csv`, csv);
    const imported = await runCli([
      "import-ratings",
      out,
      `${out}/ratings.csv`,
      "--scorer",
      "human:mtg",
      "--no-render",
    ]);
    assertEquals(imported.code, 0, imported.stderr);
    assertMatch(imported.stdout, /imported 6 ratings of 3 samples by 2 rater\(s\) as human:mtg/);
    const { scores, manifest } = humanScores(out);
    assertEquals(scores.length, 6);
    assertEquals(scores.find((s) => s.sampleId === mtg[0] && s.judge === "ben")?.values, {
      safety: 1,
      B: 5,
      C: 5,
      D: 4,
      E: 4,
    });
    const entry = manifest["ratings:human:mtg"] as { sha256: string; raters: string[] };
    assertEquals(entry.sha256, sha256Hex(csv));
    assertEquals(entry.raters, ["ana", "ben"]);

    // The import itself rewrote the run's outputs from the store: no --resume needed.
    const rewritten = await Deno.readTextFile(`${out}/summary.json`);
    const summary = JSON.parse(rewritten);
    assertEquals(summary.counts.human_rated, 3);
    const rows = await sampleRows(out);
    assertEquals(
      rows.find((r) => r.id === mtg[0])!.scores.filter((s: { scorer: string }) => s.scorer === "human:mtg")
        .length,
      2,
    );
    // Human rule where rated (usable, not a majority, a tie), the judge's rule elsewhere.
    const human = new Map([[mtg[0], true], [mtg[1], false], [mtg[2], false]]);
    const expected = mtg.filter((id) => human.get(id) ?? judgeUsable.get(id)).length / mtg.length;
    assertEquals(summary.groups.category.MTG.usability.value, expected);
    assert(
      judgeUsable.get(mtg[1]) || judgeUsable.get(mtg[2]) || !judgeUsable.get(mtg[0]),
      "the ratings change something",
    );
    // Exactly what `eval --resume` writes from the same store.
    const again = await runEval({ ...RUN, out, resume: true });
    assertEquals(again.summary.counts.human_rated, 3);
    assertEquals(await Deno.readTextFile(`${out}/summary.json`), rewritten);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("import-ratings: bad ids, columns, values and flags are one-line errors with a hint; nothing is written", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-ratings-" });
  try {
    // The run reads a copy of the data, moved away before the last import.
    await Deno.copyFile(SAMPLE, `${out}/data.json`);
    await runEval({ ...RUN, data: `${out}/data.json`, out: `${out}/run` });
    const run = `${out}/run`;
    const summaryBefore = await Deno.readTextFile(`${run}/summary.json`);
    const header = "sample_id,rater,safety,B,C,D,E";
    const cases: [string, string, string[], RegExp][] = [
      [
        "unknown",
        `${header}\nMTG-999-1,ana,1,5,5,5,5\nMTG-1-1,ana,1,5,5,5,5\nXYZ,ana,1,5,5,5,5\n`,
        [],
        /line 2: field "sample_id": 2 ids match no sample of this run: "MTG-999-1" \(line 2\), "XYZ" \(line 4\); the run's samples are named like "[A-Z]+-\d+-\d+"$/,
      ],
      [
        "raterless",
        `${header}\nMTG-1-1,,1,5,5,5,5\n`,
        [],
        /line 2: field "rater": missing rater/,
      ],
      [
        "range",
        `${header}\nMTG-1-1,ana,1,5,5,5,5\nMTG-1-1,ben,1,5,6,5,5\n`,
        [],
        /line 3: field "C": expected a whole number in 0\.\.5, got 6/,
      ],
      [
        "long",
        "sample_id,rater,field,value\nMTG-1-1,ana,safety,1\nMTG-1-1,ana,Q,3\n",
        [],
        /line 3: field "field": unknown field "Q"; known: safety, B, C, D, E/,
      ],
      [
        "undeclared",
        "sample_id,rater,x\nMTG-1-1,ana,1\n",
        ["--scorer", "human:other"],
        /does not declare human:other.*--fields/,
      ],
      [
        "nocolumn",
        "sample_id,safety,B,C,D,E\nMTG-1-1,1,5,5,5,5\n",
        [],
        /line 1: field "rater": no column for who rated each row; columns are: sample_id, safety, B, C, D, E; map one with --columns rater=COLUMN, or give the one rater of every row with --rater NAME$/,
      ],
      [
        "noid",
        "qid,rater,safety,B,C,D,E\nMTG-1-1,ana,1,5,5,5,5\n",
        [],
        /line 1: field "sample_id": no column for the sample id; columns are: qid, rater, safety, B, C, D, E; map one with --columns sample_id=qid$/,
      ],
      [
        "nofield",
        "sample_id,rater,safety,B,C,D\nMTG-1-1,ana,1,5,5,5\n",
        [],
        /line 1: field "E": no column for field "E"; columns are: sample_id, rater, safety, B, C, D; map one with --columns E=COLUMN/,
      ],
      [
        "badkey",
        "qid,rater,safety,B,C,D,E\nMTG-1-1,ana,1,5,5,5,5\n",
        ["--columns", "rating_id=qid"],
        /^error: --columns: unknown key "rating_id"; known: sample_id, rater, field, value, safety, B, C, D, E$/,
      ],
      [
        "badmap",
        "qid,rater,safety,B,C,D,E\nMTG-1-1,ana,1,5,5,5,5\n",
        ["--columns", "sample_id=nosuch"],
        /line 1: field "nosuch": --columns sample_id=nosuch: no such column; columns are: qid, rater, /,
      ],
      [
        "flag",
        `${header}\nMTG-1-1,ana,1,5,5,5,5\n`,
        ["--colums", "sample_id=qid"],
        /^error: unknown option --colums; did you mean --columns\?/,
      ],
    ];
    for (const [name, text, flags, pattern] of cases) {
      await Deno.writeTextFile(`${out}/${name}.csv`, text);
      const result = await runCli([
        "import-ratings",
        run,
        `${out}/${name}.csv`,
        "--scorer",
        "human:mtg",
        "--no-render",
        ...flags,
      ]);
      assertEquals(result.code, 2, name);
      assertEquals(result.errors.length, 1, name);
      assertEquals(result.stderr.trim().split("\n").length, 1, `${name}: ${result.stderr}`);
      assertMatch(result.errors[0], pattern, name);
    }
    assertEquals(humanScores(run).scores.length, 0);
    assertEquals(await Deno.readTextFile(`${run}/summary.json`), summaryBefore);

    // Mapped columns are read: the id under another name, a field under another name.
    await Deno.writeTextFile(`${out}/mapped.csv`, "qid,rater,safety,B,C,D,Empathie\nMTG-1-1,ana,1,5,5,5,4\n");
    const mapped = await runCli([
      "import-ratings",
      run,
      `${out}/mapped.csv`,
      "--scorer",
      "human:mtg",
      "--no-render",
      "--columns",
      "sample_id=qid,E=Empathie",
    ]);
    assertEquals(mapped.code, 0, mapped.stderr);
    assertEquals(humanScores(run).scores.map((s) => s.values), [{ safety: 1, B: 5, C: 5, D: 5, E: 4 }]);

    // The run's data moved: planning the run again fails before anything is written, naming --data.
    await Deno.rename(`${out}/data.json`, `${out}/moved.json`);
    await Deno.writeTextFile(`${out}/other.csv`, "sample_id,rater,field,value\nMTG-1-1,ana,clarity,2\n");
    const other = ["import-ratings", run, `${out}/other.csv`, "--scorer", "human:other", "--no-render"];
    const moved = await runCli([...other, "--fields", "clarity:0..2"]);
    assertEquals(moved.code, 2);
    assertEquals(moved.stderr.trim().split("\n").length, 1, moved.stderr);
    assertMatch(moved.errors[0], /import-ratings: planning .*run again .*data\.json/);
    // Other data at the recorded path: the plan is another run, named by what differs.
    await Deno.writeTextFile(`${out}/data.json`, (await Deno.readTextFile(`${out}/moved.json`)) + "\n\n");
    const changed = await runCli([...other, "--fields", "clarity:0..2"]);
    assertEquals(changed.code, 2);
    assertEquals(changed.stderr.trim().split("\n").length, 1, changed.stderr);
    assertMatch(
      changed.errors[0],
      /give another run: "data_sha256" differs .*; pass the run's data file with --data FILE$/,
    );
    assertEquals(humanScores(run).scores.filter((s) => s.scorer === "human:other").length, 0);
    // An undeclared scorer with its fields declared on the command line is accepted.
    const ok = await runCli([...other, "--fields", "clarity:0..2", "--data", `${out}/moved.json`]);
    assertEquals(ok.code, 0, ok.stderr);
    assertEquals(
      humanScores(run).scores.filter((s) => s.scorer === "human:other").map((s) => [s.judge, s.values]),
      [["ana", { clarity: 2 }]],
    );
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("--human-eval imports into the run store as human:mtg before the run aggregates", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-ratings-" });
  try {
    await Deno.writeTextFile(`${out}/h.csv`, "sample_id,safety,B,C,D,E\nMTG-1-1,0,5,5,5,5\n");
    const result = await runEval({ ...RUN, out: `${out}/run`, humanEval: `${out}/h.csv` });
    assertEquals(result.summary.counts.human_rated, 1);
    const { scores, manifest } = humanScores(`${out}/run`);
    assertEquals(scores.map((s) => [s.sampleId, s.scorer, s.judge]), [[
      "MTG-1-1",
      "human:mtg",
      "human-eval",
    ]]);
    assert("ratings:human:mtg" in manifest);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
