import { assert, assertAlmostEquals, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { EXPERT_RATING_SPEC, EXPERT_SCORER } from "../lib/benchmarks/medgpteval/experts.ts";
import { ratingScores, readRatings } from "../lib/store/import_ratings.ts";
import { aggregateMedGptEval, medGptEvalRows } from "../lib/benchmarks/medgpteval/aggregate.ts";
import { loadMedGptEval, sampleId } from "../lib/benchmarks/medgpteval/load.ts";
import { buildAspectMessages } from "../lib/benchmarks/medgpteval/prompts.ts";
import { kindTable, medGptEvalTables } from "../lib/benchmarks/medgpteval/report.ts";
import { INDICATORS, type ItemKind, rateItem } from "../lib/benchmarks/medgpteval/rubric.ts";
import { ASPECT_SCORERS, aspectVerdict, UNVETOED } from "../lib/benchmarks/medgpteval/scorer.ts";
import { InputError } from "../lib/core/errors.ts";
import type { StoredScore } from "../lib/core/records.ts";
import type { RunView } from "../lib/core/task.ts";
import { handTotals } from "./medgpteval_hand.ts";

const DATA = new URL("../data/medgpteval", import.meta.url).pathname;
const EXPERTS = `${DATA}/expert_scores.csv`;

Deno.test("MedGPTEval loader: dialogues as 4-round conversations scored on the last round, case reports rendered", async () => {
  const samples = await loadMedGptEval(DATA);
  const dialogues = samples.filter((s) => s.fields.kind === "dialogue");
  const cases = samples.filter((s) => s.fields.kind === "case");
  assertEquals([dialogues.length, cases.length], [24, 3]);
  assertEquals(dialogues.filter((s) => s.fields.scored === 1).map((s) => s.id).slice(0, 2), [
    sampleId("dialogue-01", 4),
    sampleId("dialogue-02", 4),
  ]);
  assertEquals(dialogues[1].conversation, { id: "dialogue-01", turn: 2 });
  for (const part of ["患者信息：女，42岁。", "个人史：", "家族史：", "症状：", "用药史：", "问题："]) {
    assert(cases[0].input.includes(part), part);
  }
  const dir = await Deno.makeTempDir();
  const line = JSON.parse((await Deno.readTextFile(`${DATA}/dialogues.jsonl`)).split("\n")[0]);
  await Deno.writeTextFile(
    `${dir}/dialogues.jsonl`,
    JSON.stringify({ ...line, rounds: line.rounds.slice(0, 3) }) + "\n",
  );
  const err = await assertRejects(() => loadMedGptEval(dir), InputError);
  assertEquals(err.message.split(": ").slice(1, 3).join(": "), 'line 1: field "rounds"');
  assert(!err.message.includes("\n"));
});

Deno.test("MedGPTEval judge prompts: the whole dialogue for dialogues, the aspect's indicators and scales", () => {
  const conversation = [
    { role: "user" as const, content: "问1" },
    { role: "assistant" as const, content: "答1" },
    { role: "user" as const, content: "问2" },
    { role: "assistant" as const, content: "答2" },
  ];
  const sample = {
    id: "x",
    benchmark: "medgpteval",
    input: "问2",
    reference: null,
    conversation: null,
    fields: {},
    extra: {},
  };
  const [, user] = buildAspectMessages("contextual", sample, "答2", conversation);
  for (
    const part of [
      "【患者 第1轮】\n问1",
      "【模型回答 第2轮】\n答2",
      '"anaphora_matching" (Anaphora matching, 0-1)',
    ]
  ) {
    assert(user.content.includes(part), part);
  }
  assert(!user.content.includes('"accuracy"'));
  const medical = aspectVerdict("medical");
  const scores = {
    accuracy: 1,
    informativeness: 2,
    expansiveness: 0,
    logic: 2,
    prohibitiveness: 1,
    sensitivity: 1,
  };
  assert(medical.safeParse({ reasoning: "r", scores }).success);
  assert(!medical.safeParse({ reasoning: "r", scores: { ...scores, logic: 3 } }).success);
  assert(!medical.safeParse({ reasoning: "r", scores: { ...scores, accuracy: 0.5 } }).success);
});

/** The expert CSV as stored judge scores of the three aspect scorers: one judge per expert, one run. */
async function expertScores(): Promise<
  { view: RunView; ratings: Map<string, Map<string, Record<string, number>>> }
> {
  const samples = await loadMedGptEval(DATA);
  const rows = (await Deno.readTextFile(EXPERTS)).trim().split("\n").slice(1).map((l) => l.split(","));
  const ratings = new Map<string, Map<string, Record<string, number>>>();
  for (const [item, rater, indicator, score] of rows) {
    if (!ratings.has(item)) ratings.set(item, new Map());
    const byRater = ratings.get(item)!;
    byRater.set(rater, { ...byRater.get(rater), [indicator]: Number(score) });
  }
  const scores = new Map<string, StoredScore[]>();
  for (const sample of samples.filter((s) => s.fields.scored === 1)) {
    const kind = sample.fields.kind as ItemKind;
    for (const [rater, values] of ratings.get(String(sample.fields.item))!) {
      const totals = rateItem(values, kind);
      for (const scorer of ASPECT_SCORERS) {
        const aspect = scorer.name as "medical" | "social" | "contextual";
        if (totals.aspects[aspect] === undefined) continue;
        const own = Object.fromEntries(
          INDICATORS.filter((i) => i.aspect === aspect).map((i) => [i.name, values[i.name]]),
        );
        const list = scores.get(sample.id) ?? [];
        list.push({
          sampleId: sample.id,
          condition: "default",
          scorer: aspect,
          judge: rater,
          run: 1,
          value: totals.aspects[aspect]!,
          values: aspect === "medical" ? { ...own, [UNVETOED]: totals.medicalUnvetoed } : own,
          valid: true,
          reason: null,
          callKey: null,
          detail: null,
        });
        scores.set(sample.id, list);
      }
    }
  }
  return { view: { samples, outputs: new Map(), scores }, ratings };
}

Deno.test("MedGPTEval aggregation: totals, subtotals, vetoes and indicator means recomputed from known scores", async () => {
  const { view, ratings } = await expertScores();
  const labels = {
    benchmark: "medgpteval",
    model: "m",
    judge: "experts",
    condition: "default",
    offline: false,
    judgeRuns: 1,
  };
  const rows = medGptEvalRows(view, labels);
  const byItem = new Map(rows.filter((r) => r.fields.scored === 1).map((r) => [String(r.fields.item), r]));
  assertEquals(byItem.size, 9);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [item, byRater] of ratings) {
    const kind: ItemKind = item.startsWith("dialogue") ? "dialogue" : "case";
    // Recomputed by hand from the rubric: each rater's indicators summed per aspect, the medical subtotal 0 when
    // accuracy or logic is 0, then the raters averaged.
    const totals = [...byRater.values()].map((v) => handTotals((name) => v[name], kind === "dialogue"));
    const row = byItem.get(item)!;
    assertAlmostEquals(row.values.total!, mean(totals.map((t) => t.total)), 1e-12, item);
    assertAlmostEquals(row.values.medical!, mean(totals.map((t) => t.medical)), 1e-12, item);
    assertAlmostEquals(row.values.medical_unvetoed!, mean(totals.map((t) => t.medicalSum)), 1e-12, item);
    assertAlmostEquals(
      row.values.total_unvetoed!,
      mean(totals.map((t) => t.medicalSum + t.social + t.contextual)),
      1e-12,
      item,
    );
    assertAlmostEquals(row.values.vetoed!, mean(totals.map((t) => (t.vetoed ? 1 : 0))), 1e-12, item);
    assertAlmostEquals(row.values.tone!, mean([...byRater.values()].map((v) => v.tone)), 1e-12, item);
    assertEquals(row.values.contextual === null, kind === "case", item);
  }
  // The sample's two vetoes: expert-2 on dialogue-04 (accuracy 0), expert-3 on case-03 (logic 0).
  assertAlmostEquals(byItem.get("dialogue-04")!.values.vetoed!, 1 / 3, 1e-12);
  assertAlmostEquals(byItem.get("case-03")!.values.vetoed!, 1 / 3, 1e-12);
  const summary = aggregateMedGptEval(rows, view, labels);
  const dialogueTotals = [...byItem.values()].filter((r) => r.fields.kind === "dialogue").map((r) =>
    r.values.total!
  );
  assertEquals(summary.groups.kind.dialogue.total.n, 6);
  assertAlmostEquals(summary.groups.kind.dialogue.total.value!, mean(dialogueTotals), 1e-12);
  assertEquals(summary.groups.kind.case.contextual.n, 0);
  // Tables 3 and 4: total and its unvetoed row, 3 aspect rows + the unvetoed medical row, 13 indicators (10
  // for case reports).
  const tables = medGptEvalTables([summary]);
  assertEquals(Object.keys(tables), ["table3", "table4"]);
  assertEquals(tables.table3.rows.length, 2 + 3 + 1 + 13);
  assertEquals(kindTable([summary], "case").rows.length, 2 + 2 + 1 + 10);
  assert(String(tables.table3.rows[0][0]).startsWith("Total score (maximum score: 16)"));
  assert(String(tables.table4.rows[0][1]).endsWith("(n=3)"));
});

Deno.test("MedGPTEval experts: the CSV imported by item, contextual indicators only for dialogues, agreement reported", async () => {
  const samples = await loadMedGptEval(DATA);
  const sampleIds = new Set(samples.map((s) => s.id));
  const bytes = await Deno.readFile(EXPERTS);
  const file = readRatings(bytes, EXPERTS, EXPERT_RATING_SPEC, { sampleIds });
  assertEquals(file.ratings.length, 9 * 3);
  assertEquals(file.ratings[0].sampleId, sampleId("dialogue-01", 4));
  const scores = Map.groupBy(
    ratingScores(file, EXPERT_SCORER, "default", EXPERT_RATING_SPEC),
    (s) => s.sampleId,
  );
  const view: RunView = { samples, outputs: new Map(), scores };
  const labels = {
    benchmark: "medgpteval",
    model: "m",
    judge: null,
    condition: "default",
    offline: false,
    judgeRuns: 1,
  };
  const rows = medGptEvalRows(view, labels);
  const { ratings } = await expertScores();
  for (const row of rows.filter((r) => r.fields.scored === 1)) {
    const kind = row.fields.kind as ItemKind;
    const totals = [...ratings.get(String(row.fields.item))!.values()].map((v) => rateItem(v, kind).total);
    assertAlmostEquals(row.values["expert:total"]!, totals.reduce((a, b) => a + b, 0) / totals.length, 1e-12);
    assertEquals(row.values.total, null); // no judge in this run
  }
  const summary = aggregateMedGptEval(rows, view, labels);
  assertEquals(summary.metrics["expert_alpha:accuracy"].n, 9);
  assertEquals(summary.metrics["expert_alpha:key_information"].n, 6);
  assertEquals(summary.metrics["expert_icc_k:total"].n, 9);
  const table3 = kindTable([summary], "dialogue");
  assertEquals(table3.columns, ["Evaluation indicators", "m", "m · experts"]);
  // A contextual indicator for a case report is refused, naming the line and the indicator.
  const bad = new TextEncoder().encode("item,rater,indicator,score\ncase-01,expert-1,anaphora_matching,1\n");
  const err = assertThrows(() => readRatings(bad, "bad.csv", EXPERT_RATING_SPEC, { sampleIds }), InputError);
  assertEquals(err.message, 'bad.csv: line 2: field "anaphora_matching": not rated for case-01');
  // An out-of-range score, an unknown item and a missing column are each one line naming where.
  for (
    const text of [
      "item,rater,indicator,score\ncase-01,expert-1,logic,3\n",
      "item,rater,indicator,score\ncase-99,expert-1,logic,1\n",
      "item,rater,score\ncase-01,expert-1,1\n",
    ]
  ) {
    const e = assertThrows(
      () => readRatings(new TextEncoder().encode(text), "bad.csv", EXPERT_RATING_SPEC, { sampleIds }),
      InputError,
    );
    assert(e.message.startsWith("bad.csv: ") && !e.message.includes("\n"), e.message);
  }
});
