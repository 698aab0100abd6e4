import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { InputError } from "../lib/core/errors.ts";
import { getTask } from "../lib/benchmarks/registry.ts";
import { checkClaims, type ClaimResult } from "../lib/papers/claims.ts";
import { loadPapers, type Paper, parsePrinted, toPaper } from "../lib/papers/paper.ts";
import { comparisonEntries, paperTable } from "../lib/papers/paper_tables.ts";
import type { Summary } from "../lib/core/summary.ts";
import { datasetFacts } from "../lib/papers/write_paper.ts";
import { sharedPath, testWithShared } from "./shared_data.ts";

const papers = await loadPapers();
const byId = (id: string): Paper => papers.find((p) => p.file.paper === id)!;

function claim(results: ClaimResult[], text: string): ClaimResult {
  const found = results.filter((r) => r.claim.includes(text));
  assertEquals(found.length, 1, `expected one claim matching "${text}", found ${found.length}`);
  return found[0];
}

Deno.test("parsePrinted: decimals set the rounding slack; counts are exact; k and % are understood", () => {
  assertEquals(parsePrinted("87.8"), { value: 87.8, halfUnit: 0.05 });
  assertEquals(parsePrinted("67.13"), { value: 67.13, halfUnit: 0.005 });
  assertEquals(parsePrinted("0"), { value: 0, halfUnit: 0.5 });
  assertEquals(parsePrinted("33,735", true), { value: 33735, halfUnit: 0 });
  assertEquals(parsePrinted("50.5%"), { value: 50.5, halfUnit: 0.05 });
  assertEquals(parsePrinted("33.7k", true), { value: 33700, halfUnit: 50 });
  assertEquals(parsePrinted("1k labeled"), { value: 1000, halfUnit: 500 });
  assertEquals(parsePrinted("Medical Case"), null);
  assertEquals(parsePrinted("-"), null);
});

Deno.test("the four paper files validate and hold the expected tables", () => {
  assertEquals(papers.map((p) => p.file.paper), ["climedbench", "llmeval_med", "medgpteval", "permedcqa"]);
  const cmb = byId("climedbench");
  const table2 = cmb.cells.get("table2")!;
  assertEquals([...table2.values()].filter((c) => c.number !== null).length, 11 * 14);
  const mge = byId("medgpteval");
  assertEquals(mge.file.tables.map((t) => t.id).filter((id) => id.startsWith("table")), [
    "table2",
    "table3",
    "table4",
    "table5",
  ]);
  assertEquals(byId("permedcqa").cells.get("table1")!.size, 8);
});

testWithShared(
  "every number transcribed from a seed table is printed on a line of the seed that names its row",
  papers.map((p) => `seeds/${p.file.seed}`),
  async () => {
    let checked = 0;
    for (const paper of papers) {
      const seed = await Deno.readTextFile(sharedPath(`seeds/${paper.file.seed}`));
      const lines = seed.split("\n").map((l) => l.replace(/<\/?[a-z]+>/g, "").replaceAll("\u00a0", " "));
      for (const table of paper.file.tables) {
        if (table.source.file !== paper.file.seed || !table.label.startsWith("Table")) continue;
        for (const cell of paper.cells.get(table.id)!.values()) {
          if (!cell.number || cell.provenance.column.startsWith("[")) continue;
          const token = new RegExp(
            `(^|[\\s|])${cell.printed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s|])`,
          );
          const found = lines.some((line) => line.includes(cell.provenance.row) && token.test(line));
          assert(
            found,
            `${paper.file.paper} ${table.id}: "${cell.printed}" for row "${cell.provenance.row}" not in the seed`,
          );
          checked++;
        }
      }
    }
    assert(checked > 250, `only ${checked} cells checked`);
  },
);

Deno.test("paper tables render exactly as printed, with the printed row label typo kept in provenance", () => {
  const cmb = byId("climedbench");
  const table = paperTable(cmb, cmb.file.tables.find((t) => t.id === "table2")!);
  assertEquals(table.columns.slice(0, 4), ["Type", "Model", "ID#3 (ACC.)", "ID#1 (ACC.)"]);
  const ernie = table.rows.find((r) => r[1] === "ERNIE-Bot")!;
  assertEquals(ernie[2 + 6], "67.13");
  const medical = cmb.cells.get("table2")!.get("medicalgpt\u0000cs")!;
  assertEquals(medical.provenance.row, "MedidalGPT");
  assertEquals(medical.provenance.file, "002_climedbench_paper.txt");
});

Deno.test("MedGPTEval tables 3 and 5 place a real model's run beside the paper's chatbots (offline runs stay out)", () => {
  const paper = byId("medgpteval");
  const est = (value: number, n: number) => ({
    value,
    ci95: [value - 0.1, value + 0.1] as [number, number],
    n,
  });
  const run = (model: string, offline: boolean): Summary => ({
    benchmark: "medgpteval",
    model,
    judge: "j",
    condition: "default",
    offline,
    judge_runs: 1,
    n: 9,
    metrics: {},
    groups: {
      kind: { dialogue: { total_unvetoed: est(12.5, 6), total: est(11, 6), accuracy: est(0.5, 6) } },
      robustness_set: { A: { r1: est(0.25, 40), r2: est(0.5, 40), r3: est(0.25, 40) } },
    },
    counts: {},
    ci_method: "x",
    notes: [],
  });
  const summaries = [run("gpt-x", false), run("offline:reference", true)];
  const table3 = paper.file.tables.find((t) => t.id === "table3")!;
  const t3 = paperTable(paper, table3, comparisonEntries(table3.compare!, summaries));
  assertEquals(t3.columns.at(-1), "gpt-x (medeval)");
  const total = t3.rows.find((r) => r[1] === table3.rows.find((x) => x.key === "total")!.printed)!;
  assertEquals(total.at(-1), "12.50 [12.40, 12.60] (n=6)", "the paper's totals are unvetoed sums");
  const table5 = paper.file.tables.find((t) => t.id === "table5")!;
  const t5 = paperTable(paper, table5, comparisonEntries(table5.compare!, summaries));
  const added = t5.rows.filter((r) => String(r[1]).startsWith("gpt-x"));
  assert(!t5.rows.some((r) => String(r[1]).startsWith("offline:")), "offline runs are not paper models");
  assert(!t3.columns.some((c) => c.startsWith("offline:")));
  assertEquals(
    added.map((r) => r[1]),
    ["A", "B", "C", "D", "E"].map((s) => `gpt-x (medeval) · Data set ${s}`),
  );
  assertEquals(added[0].slice(2), [
    "ASR",
    "25.0 [15.0, 35.0] (n=40)",
    "50.0 [40.0, 60.0] (n=40)",
    "25.0 [15.0, 35.0] (n=40)",
  ]);
  assertEquals(added[1].slice(2), ["NSR", "–", "–", "–"]);
});

Deno.test("CliMedBench claims recompute to hand-computed values", () => {
  const results = checkClaims(byId("climedbench"));
  // BKT column: 70.8+51.9+79.8+68.7+82.4+38.8+46.9+22.6+20.6+35.0+9.3 = 526.8 over 11 models
  const bkt = claim(results, "BKT accuracy averaged");
  assertAlmostEquals(bkt.recomputed!, 526.8 / 11, 1e-6);
  assertEquals(bkt.holds, false);
  // GPT-4 row: sum of its 14 printed values = 958.9
  const gpt4 = claim(results, "GPT-4's average over the 14");
  assertAlmostEquals(gpt4.recomputed!, 958.9 / 14, 1e-6);
  assertEquals(gpt4.holds, false);
  assertEquals(claim(results, "ERNIE-Bot's average over the 14").holds, true);
  // scenario sheet sizes add up to 29,797, not 33,735
  const total = claim(results, "sum of the 14 scenario sizes");
  assertEquals(total.recomputed, 29797);
  assertEquals(total.holds, false);
  // ChatGPT's 97.4 on ID#2 is below 98.7 (two models) and 97.6: rank 4
  assertEquals(claim(results, "ChatGPT has the highest ID#2").recomputed, 4);
  // Qwen's ID#1-#4 mean (89.4+95.0+84.6+85.6)/4 = 88.65 rounds to the stated 88.7
  const qwen = claim(results, "Qwen's clinical QA average");
  assertAlmostEquals(qwen.recomputed!, 88.65, 1e-9);
  assertEquals(qwen.holds, true);
  // (40.74 / 32.10 - 1) * 100 = 26.9159
  assertAlmostEquals(claim(results, "Agent-based CAT").recomputed!, (40.74 / 32.10 - 1) * 100, 1e-6);
});

Deno.test("MedGPTEval: subtotals hold within rounding; the tie on data set A is not 'higher'", () => {
  const results = checkClaims(byId("medgpteval"));
  // 0.91+1.40+0.19+1.81+1.00+1.00 = 6.31 vs printed 6.30: six roundings allow ±0.03
  const med = claim(results, "Dialogue, ChatGPT: medical professional subtotal");
  assertAlmostEquals(med.recomputed!, 6.31, 1e-9);
  assertEquals(med.interval, [6.28, 6.34]);
  assertEquals(med.holds, true);
  const tie = claim(results, "higher semantic consistency rate R1 than ChatGPT for adversarial");
  assertEquals([tie.recomputed, tie.holds], [0, false]);
  // Table 5: 3 models x 5 data sets, each row's R1 + R2 + R3 stated as 100.
  const sums = results.filter((r) => r.claim.includes("R1 + R2 + R3"));
  assertEquals(sums.length, 15);
  assertEquals(sums.every((r) => r.holds), true);
  assertEquals(claim(results, "rubric indicators listed in Table 2").recomputed, 13);
});

Deno.test("PerMedCQA: the source counts add to 68,136, not 68,138; the split is not 15/150 per category", () => {
  const results = checkClaims(byId("permedcqa"));
  const sum = claim(results, "four sources add up");
  assertEquals([sum.recomputed, sum.holds], [68136, false]);
  assertEquals(claim(results, "Train + eval + test").holds, true);
  assertEquals(claim(results, "345 / 15").recomputed, 23);
  assertEquals(claim(results, "DrYab: printed percentage").holds, true);
});

Deno.test("LLMEval-Med claims are left unchecked without the full data set, and say how to get it", () => {
  const results = checkClaims(byId("llmeval_med"));
  assertEquals(results.length, 2);
  assert(results.every((r) => r.holds === null && r.note?.includes("deno task download")));
});

testWithShared(
  "LLMEval-Med claims hold against the real file",
  ["data/llmeval-med/dataset.json"],
  async () => {
    const paper = byId("llmeval_med");
    const task = await getTask("llmeval-med");
    const samples = await task.load(sharedPath("data/llmeval-med/dataset.json"));
    const facts = { "llmeval-med": datasetFacts(samples, task.groupFields) };
    const results = checkClaims(paper, facts);
    assertEquals(results.map((r) => [r.recomputed, r.holds]), [[667, true], [5, true]]);
  },
);

Deno.test("claims: intervals, ranks with ties, ranges and forEach on a small paper", () => {
  const paper = toPaper({
    paper: "toy",
    title: "Toy",
    short: "Toy",
    citation: "none",
    seed: "toy.txt",
    tables: [{
      id: "t",
      label: "Table 1",
      title: "toy",
      kind: "results",
      source: { file: "toy.txt", location: "Table 1" },
      rowHeader: "Model",
      columns: [{ key: "a", printed: "A" }, { key: "b", printed: "B" }, { key: "total", printed: "Total" }],
      rows: [
        { key: "x", printed: "X", group: "G", cells: { a: "1.2", b: "2.4", total: "3.7" } },
        { key: "y", printed: "Y", group: "G", cells: { a: "2.0", b: "2.4", total: "4.4" } },
        { key: "z", printed: "Z", group: "H", cells: { a: "2.0", b: "1.0", total: "3.0" } },
      ],
    }],
    claims: [
      {
        where: "T1",
        claim: "$row total",
        stated: { cell: ["t", "$row", "total"] },
        expr: { sum: { table: "t", rows: ["$row"], columns: ["a", "b"] } },
        forEach: { table: "t", rows: "*" },
      },
      {
        where: "T1",
        claim: "rank of Y on A",
        stated: "1",
        relation: "eq",
        expr: { rank: { table: "t", entity: "y", axis: "rows", by: ["a"] } },
      },
      {
        where: "T1",
        claim: "ratio",
        stated: ["1.5", "2"],
        relation: "between",
        expr: { ratio: [{ cell: ["t", "y", "a"] }, { cell: ["t", "z", "b"] }] },
      },
    ],
  }, "toy.json");
  const results = checkClaims(paper);
  // X: 1.2 + 2.4 = 3.6 with slack ±0.1 overlaps 3.7 ± 0.05 → holds; Y: 4.4 → holds; Z: 3.0 → holds
  assertEquals(results.slice(0, 3).map((r) => [r.claim, r.recomputed, r.holds]), [
    ["X total", 3.6, true],
    ["Y total", 4.4, true],
    ["Z total", 3, true],
  ]);
  assertEquals(results[0].interval, [3.5, 3.7]);
  assertEquals(results[3].recomputed, 1); // Y and Z tie at 2.0: both rank 1
  assertEquals([results[4].recomputed, results[4].holds], [2, true]);
});

Deno.test("bad paper files fail with one line naming file, record and field", () => {
  const err = assertThrows(
    () =>
      toPaper(
        { paper: "Bad Id", title: "t", short: "t", citation: "c", seed: "s", tables: [] },
        "data/papers/bad.json",
      ),
    InputError,
  );
  assert(err.message.startsWith('data/papers/bad.json: paper: field "paper"'), err.message);
  assert(!err.message.includes("\n"));
  /** A one-table paper whose single row has `cells`, with `claims`. */
  const onePaper = (cells: Record<string, string>, claims: unknown[] = []) => ({
    paper: "toy",
    title: "t",
    short: "t",
    citation: "c",
    seed: "s",
    tables: [{
      id: "t",
      label: "Table 1",
      title: "t",
      kind: "results",
      source: { file: "s", location: "Table 1" },
      rowHeader: "r",
      columns: [{ key: "a", printed: "A" }],
      rows: [{ key: "x", printed: "X", cells }],
    }],
    claims,
  });
  const paper = toPaper(
    onePaper({ a: "1" }, [{ where: "w", claim: "c", stated: "1", expr: { cell: ["t", "nope", "a"] } }]),
    "toy.json",
  );
  const bad = assertThrows(() => checkClaims(paper), InputError);
  assertEquals(bad.message, 'toy.json: claims[0]: unknown row "nope" in table t');
  const unknownColumn = assertThrows(() => toPaper(onePaper({ b: "1" }), "toy.json"), InputError);
  assert(unknownColumn.message.includes('rows[0]: field "cells.b"'), unknownColumn.message);
});
