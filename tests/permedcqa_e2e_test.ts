/**
 * PerMedCQA end to end against the fake server: baseline, pivot translation, role prompting and few-shot,
 * judged by a two-judge MedJudge jury; the tables are recomputed here from the answers and the judge's script,
 * independently of the pipeline's aggregation; a resumed run sends nothing; physicians' ratings give the
 * judge-vs-physician agreement, recomputed from the CSV.
 */
import { assert, assertAlmostEquals, assertEquals, assertStringIncludes } from "@std/assert";
import { loadLabels } from "../lib/benchmarks/permedcqa/labels.ts";
import { loadPerMedCqa } from "../lib/benchmarks/permedcqa/load.ts";
import { CORRECTNESS } from "../lib/benchmarks/permedcqa/scorer.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import type { Summary } from "../lib/core/summary.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { persianKey } from "../lib/text/persian.ts";
import {
  answerTag,
  medJudgeReply,
  plannedMedScore,
  plannedMedVerdict,
  type PlannedVerdict,
} from "./fake_medjudge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { runCli } from "./run_cli.ts";

const DATA = new URL("../data/permedcqa/Data", import.meta.url).pathname;
const RATINGS = new URL("../data/permedcqa/physician_ratings.csv", import.meta.url).pathname;
const JUDGES = ["judge-a", "judge-b"];
const RUNS = 2;

/** The fake model's answers depend on everything it is sent, so conditions give different answers. */
function reply(body: FakeChatBody): string {
  if (body.model !== "fake-model") return medJudgeReply(body);
  return `Fake answer ${sha256Hex(JSON.stringify(body.messages)).slice(0, 8)} to: ${
    body.messages.at(-1)!.content.slice(0, 40)
  }`;
}

function acceptable(v: PlannedVerdict): number {
  return v.correctness === "Correct" ||
      (v.correctness === "Partially_correct" && ["Negligible", "Moderate"].includes(v.clinical_impact))
    ? 1
    : 0;
}

/** Majority of 0/1 votes; a tie (or no vote) is 0; `null` without votes. */
function vote(votes: number[]): number | null {
  if (votes.length === 0) return null;
  const ones = votes.filter((v) => v === 1).length;
  return ones * 2 > votes.length ? 1 : 0;
}

/** Most frequent category; a tie goes to the later (more severe) one in `order`. */
function consensusOf(values: string[], order: readonly string[]): string | null {
  let best: string | null = null, bestCount = 0;
  for (const v of values) {
    const count = values.filter((x) => x === v).length;
    if (count > bestCount || (count === bestCount && order.indexOf(v) > order.indexOf(best!))) {
      best = v;
      bestCount = count;
    }
  }
  return best;
}

/** The script's verdict on an answer: acceptable by votes, correctness by consensus (independent of lib/). */
function expectedVerdict(tag: string): { acceptable: number; correctness: string } | null {
  const perJudge = JUDGES.map((judge) => {
    const verdicts = Array.from({ length: RUNS }, (_, r) => plannedMedScore(tag, judge, r + 1)).filter((v) =>
      v !== null
    );
    if (verdicts.length === 0) return null;
    return {
      acceptable: vote(verdicts.map(acceptable))!,
      correctness: consensusOf(verdicts.map((v) => v.correctness), CORRECTNESS)!,
    };
  }).filter((v) => v !== null);
  if (perJudge.length === 0) return null;
  return {
    acceptable: vote(perJudge.map((v) => v.acceptable))!,
    correctness: consensusOf(perJudge.map((v) => v.correctness), CORRECTNESS)!,
  };
}

async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
}

/** Recomputes acceptable overall and per group field, and each cross-table cell's n, from samples.jsonl. */
async function recompute(dir: string) {
  const rows = await readJsonl(`${dir}/samples.jsonl`);
  const groups: Record<string, Map<string, number[]>> = {
    icd11: new Map(),
    question_type: new Map(),
    sex: new Map(),
  };
  const cells = new Map<string, number>();
  const all: number[] = [];
  const byId = new Map<string, number>();
  let correct = 0;
  for (const row of rows) {
    const verdict = expectedVerdict(answerTag(String(row.answer))!);
    if (!verdict) continue;
    all.push(verdict.acceptable);
    byId.set(String(row.id), verdict.acceptable);
    if (verdict.correctness === "Correct") correct++;
    for (const [field, map] of Object.entries(groups)) {
      const key = String(row[field]);
      map.set(key, [...(map.get(key) ?? []), verdict.acceptable]);
    }
    const cell = `${row.icd11} × ${row.question_type}`;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
  }
  return { n: all.length, acceptable: mean(all), correct: correct / all.length, groups, cells, byId, rows };
}

function mean(xs: number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function checkSummary(summary: Summary, expected: Awaited<ReturnType<typeof recompute>>) {
  assertEquals(summary.metrics.acceptable.n, expected.n);
  assertEquals(summary.metrics.acceptable.value, expected.acceptable);
  assertEquals(summary.metrics["correctness:Correct"].value, expected.correct);
  for (const [field, map] of Object.entries(expected.groups)) {
    assertEquals(Object.keys(summary.groups[field]).sort(), [...map.keys()].sort(), field);
    for (const [key, values] of map) {
      assertEquals(summary.groups[field][key].acceptable.n, values.length, `${field}=${key}`);
      assertEquals(summary.groups[field][key].acceptable.value, mean(values), `${field}=${key}`);
    }
  }
  for (const [cell, n] of expected.cells) {
    assertEquals(summary.groups.icd11_x_type[cell].acceptable.n, n, cell);
  }
  const [lo, hi] = summary.metrics.acceptable.ci95!;
  assert(lo <= expected.acceptable && expected.acceptable <= hi && lo < hi);
}

/** Cohen's κ of two raters' categories, from the definition: (po − pe) / (1 − pe). */
function cohenKappaByHand(a: string[], b: string[]): number {
  const n = a.length;
  const po = a.filter((x, i) => x === b[i]).length / n;
  const cats = [...new Set([...a, ...b])];
  const pe = cats.reduce(
    (s, c) => s + (a.filter((x) => x === c).length / n) * (b.filter((x) => x === c).length / n),
    0,
  );
  return (po - pe) / (1 - pe);
}

Deno.test("permedcqa: baseline + pivot + role + few-shot with a 2-judge MedJudge jury, tables recomputed, resume, physicians", async () => {
  const server = await startFakeServer({ reply });
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
    // Two translations per pivot answer; every answer judged RUNS times by each judge, plus the re-asks the
    // script causes (an unreadable first attempt), computed here from the script.
    assertEquals(result.calls.translator.sent, 2 * samples.length);
    let expectedJudgeCalls = 0;
    for (const dir of ["", "/conditions/pivot_en", "/conditions/role", "/conditions/fewshot_3"]) {
      for (const row of await readJsonl(`${out}${dir}/samples.jsonl`)) {
        const tag = answerTag(String(row.answer))!;
        for (const judge of JUDGES) {
          for (let run = 1; run <= RUNS; run++) {
            let attempts = 1;
            while (attempts < 3 && plannedMedVerdict(tag, judge, run, attempts) === null) attempts++;
            expectedJudgeCalls += attempts;
          }
        }
      }
    }
    assertEquals(result.calls.judge.sent, expectedJudgeCalls);

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
    // McNemar's b/c for role vs baseline, counted here over the answers both conditions had judged.
    const base = await recompute(out);
    let b = 0, c = 0;
    for (const [id, x] of base.byId) {
      const y = role.byId.get(id);
      if (y === undefined) continue;
      if (x === 1 && y === 0) b++;
      if (x === 0 && y === 1) c++;
    }
    assert(b + c > 0, "the conditions differ somewhere");
    const allRow = (await Deno.readTextFile(`${out}/tables/ablation_role.md`)).split("\n").find((l) =>
      l.startsWith("| all |")
    )!;
    assertStringIncludes(allRow, `| ${b}/${c} |`);
    await Deno.stat(`${out}/figures/conditions.html`);
    // Pivot: the model is asked for an English answer (the persona in the pivot language), never a Persian one.
    const english = chats.filter((b) => b.messages[0].content.includes("in fluent, natural English."));
    assertEquals(english.length, samples.length);
    assert(
      english.every((b) => b.messages.at(-1)!.content.startsWith("Fake answer ")),
      "asked the translated question",
    );
    assertEquals(
      chats.filter((b) => b.messages[0].content.includes("natural Persian (Farsi).")).length,
      3 * samples.length,
    );
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
    assertAlmostEquals(
      pp.kappa.value!,
      cohenKappaByHand(shared.map((id) => p1.get(id)!), shared.map((id) => p2.get(id)!)),
      1e-12,
    );
    assert(pp.weighted_kappa !== null && pp.kappa.ci95 !== null);
    assert(
      agreement.some((a) => a.kind === "judge-human" && a.a.startsWith("judge-a") && a.b === "physician-1"),
    );
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/rater_agreement.md`), "quadratic κ");
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
