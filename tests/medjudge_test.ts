import { assert, assertEquals } from "@std/assert";
import { consensus, consensusVerdict, judgeAnswer } from "../lib/benchmarks/permedcqa/aggregate.ts";
import { buildMedJudgeMessages } from "../lib/benchmarks/permedcqa/prompts.ts";
import {
  CLINICAL_IMPACT,
  CORRECTNESS,
  isAcceptable,
  MEDJUDGE,
  MedJudgeVerdictSchema,
} from "../lib/benchmarks/permedcqa/scorer.ts";
import type { StoredScore } from "../lib/core/records.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { RoleRequest, ScoreContext } from "../lib/core/task.ts";
import {
  overlapVerdict,
  RubricJudgeProvider,
  wordOverlap,
} from "../lib/benchmarks/permedcqa/offline_medjudge.ts";

const SAMPLE: Sample = {
  id: "permedcqa:t1",
  benchmark: "permedcqa",
  input: "سردرد دارم، چه کنم؟",
  reference: "استراحت کنید و مایعات بنوشید؛ اگر سردرد شدید شد به پزشک مراجعه کنید.",
  conversation: null,
  fields: {},
  extra: { title: "سردرد" },
};

const VALID = {
  Brief_analysis: "similar",
  Key_missing_facts: ["مایعات"],
  Key_extra_facts: [],
  Correctness: "Partially_correct",
  Coverage: "Model_subset",
  Clinical_impact: "Moderate",
  Judge_confidence: "High",
};

Deno.test("MedJudge verdict: enums validated, spelling variants read, a string of facts read as a list", () => {
  assertEquals(MedJudgeVerdictSchema.parse(VALID).Correctness, "Partially_correct");
  const loose = MedJudgeVerdictSchema.parse({
    ...VALID,
    Correctness: "partially correct",
    Key_extra_facts: "یک مورد",
  });
  assertEquals(loose.Correctness, "Partially_correct");
  assertEquals(loose.Key_extra_facts, ["یک مورد"]);
  assert(!MedJudgeVerdictSchema.safeParse({ ...VALID, Correctness: "Mostly right" }).success);
  assert(!MedJudgeVerdictSchema.safeParse({ ...VALID, Clinical_impact: undefined }).success);
});

Deno.test("acceptable rule: Correct, or Partially_correct without Significant/Critical impact", () => {
  const table = CORRECTNESS.flatMap((c) =>
    CLINICAL_IMPACT.map((i) => `${c}/${i}=${isAcceptable(c, i) ? 1 : 0}`)
  );
  assertEquals(table.filter((t) => t.endsWith("=1")), [
    "Correct/Negligible=1",
    "Correct/Moderate=1",
    "Correct/Significant=1",
    "Correct/Critical=1",
    "Partially_correct/Negligible=1",
    "Partially_correct/Moderate=1",
  ]);
});

Deno.test("consensus: most frequent category; ties go to the more severe one", () => {
  assertEquals(consensus(["Correct", "Correct", "Incorrect"], CORRECTNESS), "Correct");
  assertEquals(consensus(["Correct", "Incorrect"], CORRECTNESS), "Incorrect");
  assertEquals(consensus(["Moderate", "Negligible"], CLINICAL_IMPACT), "Moderate");
  assertEquals(consensus([], CORRECTNESS), null);
});

function score(judge: string, run: number, values: Record<string, string> | null): StoredScore {
  return {
    sampleId: SAMPLE.id,
    condition: "default",
    scorer: "medjudge",
    judge,
    run,
    value: null,
    values,
    valid: values !== null,
    reason: null,
    callKey: null,
    detail: null,
  };
}

function verdictScore(
  judge: string,
  run: number,
  correctness: string,
  clinical_impact: string | null,
): StoredScore {
  if (clinical_impact === null) return score(judge, run, null);
  const values = { correctness, coverage: "Equal", clinical_impact, judge_confidence: "High" };
  const s = score(judge, run, values);
  return { ...s, value: isAcceptable(correctness, clinical_impact) ? 1 : 0 };
}

Deno.test("judged answer: fields by consensus (ties to the more severe), acceptable by vote (ties not acceptable)", () => {
  const scores = [
    verdictScore("A", 1, "Correct", "Negligible"),
    verdictScore("A", 2, "Correct", "Moderate"),
    verdictScore("A", 3, "Correct", null), // a judge error: never counted
    verdictScore("B", 1, "Incorrect", "Significant"),
    verdictScore("B", 2, "Incorrect", "Significant"),
    verdictScore("B", 3, "Correct", "Negligible"),
  ];
  const judged = judgeAnswer(scores, 3);
  const a = judged.byJudge.get("A")!, b = judged.byJudge.get("B")!;
  assertEquals([a.fields.correctness, a.fields.clinical_impact, a.acceptable], ["Correct", "Moderate", 1]);
  assertEquals([b.fields.correctness, b.acceptable], ["Incorrect", 0]);
  // A (acceptable) vs B (not): a tie, so not acceptable; the fields' tie goes to the more severe category.
  assertEquals([judged.verdict!.fields.correctness, judged.verdict!.acceptable], ["Incorrect", 0]);
  assertEquals(judgeAnswer([verdictScore("A", 1, "Correct", null)], 1).verdict, null);
  assertEquals(consensusVerdict([]), null);
});

Deno.test("judged answer: two acceptable verdicts stay acceptable even when their fields combine into one that is not", () => {
  // A: Partially_correct/Negligible (acceptable); B: Correct/Critical (acceptable by the rule). Field by field the
  // consensus would be Partially_correct/Critical — not acceptable — but no judge said that.
  const judged = judgeAnswer([
    verdictScore("A", 1, "Partially_correct", "Negligible"),
    verdictScore("B", 1, "Correct", "Critical"),
  ], 1);
  assertEquals(judged.verdict!.acceptable, 1);
  // The same within one judge's runs.
  const runs = judgeAnswer([
    verdictScore("A", 1, "Correct", "Significant"),
    verdictScore("A", 2, "Partially_correct", "Negligible"),
  ], 2);
  assertEquals(runs.verdict!.acceptable, 1);
  // Two of three runs not acceptable: not acceptable.
  const majority = judgeAnswer([
    verdictScore("A", 1, "Correct", "Negligible"),
    verdictScore("A", 2, "Incorrect", "Moderate"),
    verdictScore("A", 3, "Contradictory", "Critical"),
  ], 3);
  assertEquals(majority.verdict!.acceptable, 0);
});

Deno.test("MedJudge prompt: question with title, the expert answer, the model answer, the rubric; reasoning first", () => {
  const [system, user] = buildMedJudgeMessages(SAMPLE, "جواب مدل");
  assert(system.content.includes("ONLY against the expert"));
  for (const part of ["سردرد\nسردرد دارم", SAMPLE.reference!, "### Model answer\nجواب مدل"]) {
    assert(user.content.includes(part), part);
  }
  const order = [
    "Brief_analysis",
    "Key_missing_facts",
    "Key_extra_facts",
    "Correctness",
    "Coverage",
    "Clinical_impact",
    "Judge_confidence",
  ]
    .map((k) => user.content.indexOf(`"${k}"`));
  assertEquals([...order].sort((a, b) => a - b), order);
});

Deno.test("MedJudge scorer: an invalid reply is asked again with a new seed, then becomes a judge error", async () => {
  const requests: RoleRequest[] = [];
  // Run 1: unreadable, then valid. Run 2: never valid.
  const replies: Record<number, string> = {
    101: "not json",
    102: JSON.stringify(VALID),
    201: "no",
    202: "{}",
    203: "x",
  };
  const ctx: ScoreContext = {
    judgeRuns: 2,
    has: () => true,
    members: () => [{ label: "judge-x", offline: false }],
    defaults: () => ({ seed: 10 }),
    embed: () => Promise.resolve([]),
    generate: (_role, request) => {
      requests.push(request);
      return Promise.resolve({
        text: replies[request.repeat!],
        callKey: `k${requests.length}`,
        cached: false,
        sent: [],
      });
    },
  };
  const scores = await MEDJUDGE.score({ sample: SAMPLE, answer: "جواب" }, ctx);
  const byRun = new Map(scores.map((s) => [s.run, s]));
  assertEquals(scores.length, 2);
  assertEquals(requests.length, 5);
  const seeds = requests.map((r) => `${r.repeat}:${r.seed}`).sort();
  assertEquals(seeds, ["101:10", "102:1010", "201:11", "202:1011", "203:2011"].sort());
  assertEquals([byRun.get(1)!.valid, byRun.get(1)!.value, byRun.get(1)!.values!.correctness], [
    true,
    1,
    "Partially_correct",
  ]);
  assertEquals([byRun.get(2)!.valid, byRun.get(2)!.value, byRun.get(2)!.values], [false, null, null]);
  assert(byRun.get(2)!.reason!.startsWith("no valid verdict (a MedJudge JSON verdict"));
});

Deno.test("offline:medjudge: word overlap mapped onto the rubric, Persian variants folded", async () => {
  const same = wordOverlap("استراحت كنيد و مايعات بنوشيد", "استراحت کنید و مایعات بنوشید");
  assertEquals([same.recall, same.precision], [1, 1]);
  assertEquals(overlapVerdict(same).Correctness, "Correct");
  const none = overlapVerdict(wordOverlap("aaa bbb", "ccc ddd"));
  assertEquals([none.Correctness, none.Coverage, none.Clinical_impact], [
    "Incorrect",
    "Overlap_none",
    "Significant",
  ]);
  const provider = new RubricJudgeProvider();
  const reply = await provider.complete({ messages: [], sample: SAMPLE, answer: SAMPLE.reference! });
  assertEquals(MedJudgeVerdictSchema.parse(JSON.parse(reply.text)).Correctness, "Correct");
});
