/**
 * PerMedCQA end to end against the fake server: baseline, pivot translation, role prompting and few-shot,
 * judged by a two-judge MedJudge jury; the tables are recomputed here from the answers and the judge's script,
 * independently of the pipeline's aggregation; a resumed run sends nothing; physicians' ratings give the
 * judge-vs-physician agreement, recomputed from the CSV.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { loadLabels } from "../lib/benchmarks/permedcqa/labels.ts";
import { loadPerMedCqa } from "../lib/benchmarks/permedcqa/load.ts";
import { CLINICAL_IMPACT, CONFIDENCE, CORRECTNESS } from "../lib/benchmarks/permedcqa/scorer.ts";
import type { Summary } from "../lib/core/summary.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { persianKey } from "../lib/text/persian.ts";
import { answerTag, medJudgeReply, plannedMedScore, type PlannedVerdict } from "./fake_medjudge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { runCli } from "./run_cli.ts";

const DATA = new URL("../data/permedcqa/Data", import.meta.url).pathname;
const RATINGS = new URL("../data/permedcqa/physician_ratings.csv", import.meta.url).pathname;
const JUDGES = ["judge-a", "judge-b"];
const RUNS = 2;

/** The script's consensus: most frequent per field, ties to the more severe (independent re-implementation). */
function expectedVerdict(tag: string): PlannedVerdict | null {
  const coverageSeverity = ["Equal", "Expert_subset", "Model_subset", "Overlap_none"];
  const severity: Record<keyof PlannedVerdict, readonly string[]> = {
    correctness: CORRECTNESS,
    coverage: coverageSeverity,
    clinical_impact: CLINICAL_IMPACT,
    judge_confidence: CONFIDENCE,
  };
  const vote = (values: string[], order: readonly string[]) => {
    let best: string | null = null, bestCount = 0;
    for (const v of values) {
      const count = values.filter((x) => x === v).length;
      if (count > bestCount || (count === bestCount && order.indexOf(v) > order.indexOf(best!))) {
        best = v;
        bestCount = count;
      }
    }
    return best;
  };
  const combine = (verdicts: PlannedVerdict[]): PlannedVerdict | null =>
    verdicts.length === 0 ? null : Object.fromEntries(
      (Object.keys(severity) as (keyof PlannedVerdict)[]).map((
        k,
      ) => [k, vote(verdicts.map((v) => v[k]), severity[k])]),
    ) as unknown as PlannedVerdict;
  const perJudge = JUDGES.map((j) =>
    combine(Array.from({ length: RUNS }, (_, r) => plannedMedScore(tag, j, r + 1)).filter((v) => v !== null))
  ).filter((v) => v !== null);
  return combine(perJudge);
}

function acceptable(v: PlannedVerdict): number {
  return v.correctness === "Correct" ||
      (v.correctness === "Partially_correct" && ["Negligible", "Moderate"].includes(v.clinical_impact))
    ? 1
    : 0;
}

async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
}

/** Recomputes acceptable overall and per ICD-11 category from a condition's samples.jsonl. */
async function recompute(dir: string) {
  const rows = await readJsonl(`${dir}/samples.jsonl`);
  const byIcd = new Map<string, number[]>();
  const all: number[] = [];
  let correct = 0;
  for (const row of rows) {
    const verdict = expectedVerdict(answerTag(String(row.answer))!);
    if (!verdict) continue;
    const a = acceptable(verdict);
    all.push(a);
    if (verdict.correctness === "Correct") correct++;
    const icd = String(row.icd11);
    byIcd.set(icd, [...(byIcd.get(icd) ?? []), a]);
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return { n: all.length, acceptable: mean(all), correct: correct / all.length, byIcd, rows };
}

function checkSummary(summary: Summary, expected: Awaited<ReturnType<typeof recompute>>) {
  assertEquals(summary.metrics.acceptable.n, expected.n);
  assertEquals(summary.metrics.acceptable.value, expected.acceptable);
  assertEquals(summary.metrics["correctness:Correct"].value, expected.correct);
  for (const [icd, values] of expected.byIcd) {
    assertEquals(summary.groups.icd11[icd].acceptable.n, values.length, icd);
    assertEquals(
      summary.groups.icd11[icd].acceptable.value,
      values.reduce((s, x) => s + x, 0) / values.length,
    );
  }
  const [lo, hi] = summary.metrics.acceptable.ci95!;
  assert(lo <= expected.acceptable && expected.acceptable <= hi && lo < hi);
}

Deno.test("permedcqa: baseline + pivot + role + few-shot with a 2-judge MedJudge jury, tables recomputed, resume, physicians", async () => {
  const server = await startFakeServer({ reply: medJudgeReply });
  const out = await Deno.makeTempDir({ prefix: "medeval-permedcqa-" });
  const config = {
    benchmark: "permedcqa",
    model: "fake-model",
    baseUrl: server.url,
    judge: JUDGES,
    judgeRuns: RUNS,
    translator: "fake-translator",
    ablations: ["pivot:en", "role", "fewshot:3"],
    data: DATA,
    out,
    progress: false,
    renderFigures: false,
  };
  try {
    const samples = await loadPerMedCqa(DATA);
    const train = await loadPerMedCqa(`${DATA}/train.json`, { requireLabels: false });
    const result = await runEval(config);
    assertEquals(result.conditions.map((s) => s.condition), ["default", "pivot:en", "role", "fewshot:3"]);
    // Two translations per pivot answer; every answer judged RUNS times by each judge, plus re-asks (the fake
    // model gives the same answer to a question under baseline, role and few-shot: those judgings are stored once).
    assertEquals(result.calls.translator.sent, 2 * samples.length);
    const judge = result.calls.judge;
    assert(judge.sent + judge.cached >= 4 * samples.length * JUDGES.length * RUNS, JSON.stringify(judge));

    // Tables recomputed from the answers and the judge's script.
    const dirs = ["", "/conditions/pivot_en", "/conditions/role", "/conditions/fewshot_3"];
    for (const [i, dir] of dirs.entries()) {
      checkSummary(result.conditions[i], await recompute(`${out}${dir}`));
    }

    // Role prompting: the system message names the specialist of the sample's ICD-11 chapter.
    const labels = await loadLabels();
    const chats = server.requests.map((r) => r.body as FakeChatBody).filter((b) => b?.model === "fake-model");
    const role = await recompute(`${out}/conditions/role`);
    for (const row of role.rows) {
      const specialist = labels.icd.byId.get(String(row.icd11))!.specialist;
      assertEquals((row.solver as { role: string }).role, specialist);
      const sample = samples.find((s) => s.id === row.id)!;
      const asked = chats.find((b) =>
        b.messages.at(-1)!.content === sample.input &&
        b.messages[0].content.includes(`experienced ${specialist} `)
      );
      assert(asked, `${row.id} asked as ${specialist}`);
    }

    // Few-shot: 3 train exemplars before each question, recorded, never a duplicate of the question.
    const fewshot = await recompute(`${out}/conditions/fewshot_3`);
    const trainIds = new Set(train.map((t) => t.id));
    for (const row of fewshot.rows) {
      const ids = (row.solver as { exemplars: string[] }).exemplars;
      assertEquals(ids.length, 3);
      assert(ids.every((id) => trainIds.has(id)), ids.join());
      const sample = samples.find((s) => s.id === row.id)!;
      for (const id of ids) {
        assert(
          persianKey(train.find((t) => t.id === id)!.input) !== persianKey(sample.input),
          `${id} duplicates ${row.id}`,
        );
      }
      const asked = chats.find((b) => b.messages.length === 8 && b.messages[7].content === sample.input);
      assert(asked, `${row.id} asked with 3 exemplars`);
      assertEquals(asked.messages[1].content, train.find((t) => t.id === ids[0])!.input);
    }

    // Outputs: the cross table with n and small-cell flags, distributions, paired ablation tables, a figure.
    const cross = await Deno.readTextFile(`${out}/tables/icd11_x_type.md`);
    assertStringIncludes(cross, "(n=");
    assertStringIncludes(cross, "†");
    for (
      const name of [
        "rubric_distribution",
        "acceptable_by_icd11",
        "acceptable_by_question_type",
        "dataset",
        "jury_medjudge",
        "ablation_role",
        "ablation_fewshot_3",
        "ablation_pivot_en",
      ]
    ) {
      await Deno.stat(`${out}/tables/${name}.md`);
    }
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/ablation_role.md`), "McNemar");
    await Deno.stat(`${out}/figures/conditions.html`);
    const pivotNotes = result.conditions[1].notes.join("\n");
    assertStringIncludes(pivotNotes, "Persian → English → Persian");
    assertStringIncludes(pivotNotes, "fake-translator");

    // Resumed: nothing is sent again, whatever the role.
    const before = server.requests.length;
    const again = await runEval({ ...config, resume: true });
    assertEquals(server.requests.length, before);
    assertEquals(
      again.conditions.map((s) => s.metrics.acceptable),
      result.conditions.map((s) => s.metrics.acceptable),
    );

    // Physicians' ratings: imported, then the judge vs each physician and physician vs physician.
    const imported = await runCli(["import-ratings", out, RATINGS, "--scorer", "human:physicians"]);
    assertEquals(imported.code, 0, imported.stderr);
    const rated = await runEval({ ...config, resume: true });
    const agreement = rated.summary.agreement!;
    const pp = agreement.find((a) =>
      a.a === "physician-1" && a.b === "physician-2" && a.field === "correctness"
    )!;
    const csv = (await Deno.readTextFile(RATINGS)).trim().split("\n").slice(1).map((l) => l.split(","));
    const correctness = (rater: string) =>
      new Map(csv.filter((r) => r[1] === rater && r[2] === "correctness").map((r) => [r[0], r[3]]));
    const [p1, p2] = [correctness("physician-1"), correctness("physician-2")];
    const shared = [...p1.keys()].filter((id) => p2.has(id));
    assertEquals(pp.percent.n, shared.length);
    assertEquals(pp.percent.value, shared.filter((id) => p1.get(id) === p2.get(id)).length / shared.length);
    assert(pp.weighted_kappa !== null && pp.kappa.value !== null);
    assert(
      agreement.some((a) => a.kind === "judge-human" && a.a.startsWith("judge-a") && a.b === "physician-1"),
    );
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/rater_agreement.md`), "quadratic κ");
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
