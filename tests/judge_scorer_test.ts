import { assert, assertAlmostEquals, assertEquals, assertStringIncludes } from "@std/assert";
import { z } from "zod";
import type { StoredScore } from "../lib/core/records.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { ScoreContext, Scorer } from "../lib/core/task.ts";
import { LLMEVAL_MED_JUDGE } from "../lib/benchmarks/llmeval_med/scorer.ts";
import { judgeScorer } from "../lib/judges/judge_scorer.ts";
import { judgedValue, juryReport } from "../lib/judges/jury.ts";
import { scoreJudgeScorer } from "../lib/judges/score_verdict.ts";
import { modeOf, reduceValues } from "../lib/metrics/reducers.ts";
import { Roles } from "../lib/pipeline/roles.ts";
import type { ChatProvider, ChatRequest, ChatResponse } from "../lib/providers/types.ts";
import { RunStore } from "../lib/store/run_store.ts";

/** A judge endpoint that replies from a script (per call, in order, or by a function) and records its seeds. */
class ScriptedJudge implements ChatProvider {
  readonly label: string;
  readonly offline = false;
  readonly concurrency = 4;
  readonly seeds: (number | undefined)[] = [];
  constructor(readonly model: string, readonly replies: string[] | ((request: ChatRequest) => string)) {
    this.label = model;
  }
  complete(request: ChatRequest): Promise<ChatResponse> {
    this.seeds.push(request.seed);
    const text = typeof this.replies === "function"
      ? this.replies(request)
      : this.replies[this.seeds.length - 1] ?? "";
    return Promise.resolve({ text });
  }
}

const SAMPLE: Sample = {
  id: "q1",
  benchmark: "test",
  input: "question",
  reference: "reference",
  conversation: null,
  fields: {},
  extra: {},
};

/** Scores `SAMPLE`'s answer with `scorer` against `judges`, in a fresh store; returns the stored scores. */
async function scoreWith(
  scorer: Scorer,
  judges: ChatProvider[],
  judgeRuns = 1,
): Promise<StoredScore[]> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-judge-" });
  const store = new RunStore(`${dir}/run.sqlite`);
  try {
    const roles = new Roles([{ name: "judge", providers: judges, defaults: { seed: 0 } }], store, {
      maxRetries: 0,
      baseDelayMs: 1,
      maxDelayMs: 1,
    });
    const values = await scorer.score(
      { sample: SAMPLE, answer: "answer" },
      roles.context(SAMPLE, judgeRuns, new Map()),
    );
    for (const v of values) {
      store.putScore({ ...v, sampleId: SAMPLE.id, condition: "default", scorer: scorer.name });
    }
    return store.scores();
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const SCORE_JUDGE = scoreJudgeScorer({
  prompt: () => [{ role: "user", content: "grade it" }],
  templates: {},
});

Deno.test("score judge: misreadable replies are asked again (new seed), then stored as a judge error, never a number", async () => {
  const judge = new ScriptedJudge("j", [
    "I would rate this 4/10.",
    "Reference [1] says the dose is 2 分 lower.",
    "a banana out of five",
  ]);
  const [failed] = await scoreWith(SCORE_JUDGE, [judge]);
  assertEquals([failed.value, failed.valid], [null, false]);
  assertStringIncludes(failed.reason!, "no valid verdict (a 1-5 score) in 3 replies");
  assertEquals(new Set(judge.seeds).size, 3, "each attempt is a distinct call");
  const recovered = await scoreWith(SCORE_JUDGE, [
    new ScriptedJudge("j", ["I would rate this 4/10.", '{"score": 3, "reason": "partly right"}']),
  ]);
  assertEquals([recovered[0].value, recovered[0].valid, recovered[0].judge], [3, true, "j"]);
  assertEquals(recovered[0].detail, {
    verdict: { score: 3, reason: "partly right", read: "json" },
    attempts: 2,
  });
});

/** A JSON rubric of the MedJudge kind: enums, a confidence, lists, and the analysis before the verdict. */
const Rubric = z.object({
  Brief_analysis: z.string(),
  Correctness: z.enum(["Correct", "Partially_correct", "Incorrect", "Contradictory"]),
  Clinical_impact: z.enum(["Negligible", "Moderate", "Significant", "Critical"]),
  Judge_confidence: z.number().min(0).max(1),
  Key_missing_facts: z.array(z.string()),
});

const RUBRIC_JUDGE = judgeScorer({
  name: "rubric",
  prompt: () => [{ role: "user", content: "judge with the rubric" }],
  templates: {},
  verdict: Rubric,
  expects: "a rubric JSON object",
  value: (v) => (v.Correctness === "Correct" ? 1 : 0),
  values: { correctness: (v) => v.Correctness, impact: (v) => v.Clinical_impact },
  reason: (v) => v.Brief_analysis,
  reduce: "mode",
  jury: "majority",
  agreement: "nominal",
});

const rubricReply = (correctness: string, impact = "Negligible") =>
  JSON.stringify({
    Brief_analysis: "compared with the expert answer",
    Correctness: correctness,
    Clinical_impact: impact,
    Judge_confidence: 0.8,
    Key_missing_facts: ["dose"],
  });

Deno.test("JSON-rubric judge: reasoning then a fenced object validates; a wrong enum or a bare score is asked again", async () => {
  const judge = new ScriptedJudge("r", [
    '{"Correctness": "Mostly_right", "Clinical_impact": "Negligible"}', // not an option
    "Score: 4/5", // not the rubric
    "Let me compare step by step.\n```json\n" + rubricReply("Partially_correct", "Moderate") + "\n```",
  ]);
  const [score] = await scoreWith(RUBRIC_JUDGE, [judge]);
  assertEquals(score.valid, true);
  assertEquals(score.value, 0);
  assertEquals(score.values, { correctness: "Partially_correct", impact: "Moderate" });
  assertEquals(
    (score.detail as { verdict: unknown }).verdict,
    JSON.parse(rubricReply("Partially_correct", "Moderate")),
  );
  assertEquals(score.reason, "compared with the expert answer");

  const [never] = await scoreWith(RUBRIC_JUDGE, [new ScriptedJudge("r", () => "Correct.")]);
  assertEquals([never.valid, never.value, never.values], [false, null, null]);
});

Deno.test("3-judge jury: every judge's verdicts stored; the jury aggregate and agreement as declared", async () => {
  // Judges a and b give 4 and 5 in runs 1 and 2; judge c cannot be read in run 2.
  const script = (scores: (number | null)[]) => (request: ChatRequest) => {
    const score = scores[(request.seed ?? 0) % 1000];
    return score === null ? "no idea" : JSON.stringify({ score, reason: "r" });
  };
  const judges = [
    new ScriptedJudge("a", script([4, 5])),
    new ScriptedJudge("b", script([4, 4])),
    new ScriptedJudge("c", script([2, null])),
  ];
  const scores = await scoreWith(SCORE_JUDGE, judges, 2);
  assertEquals(scores.length, 6);
  assertEquals(scores.filter((s) => s.judge === "c" && !s.valid).length, 1);
  const judged = judgedValue(scores, SCORE_JUDGE.spec, 2);
  assertEquals(Object.fromEntries(judged.byJudge), { a: 4.5, b: 4, c: 2 });
  assertAlmostEquals(judged.value as number, (4.5 + 4 + 2) / 3, 1e-12);
  // Majority over the same judges: no value is held by more than one judge, so there is no majority.
  assertEquals(judgedValue(scores, { ...SCORE_JUDGE.spec, jury: "majority" }, 2).value, null);

  // Agreement over samples: two samples where all agree and one where they differ.
  const view = {
    samples: ["s1", "s2", "s3"].map((id) => ({ ...SAMPLE, id })),
    outputs: new Map(),
    scores: new Map([
      ["s1", ["a", "b", "c"].map((judge) => stored("s1", judge, 4))],
      ["s2", ["a", "b", "c"].map((judge) => stored("s2", judge, 2))],
      ["s3", [stored("s3", "a", 5), stored("s3", "b", 5), stored("s3", "c", 1)]],
    ]),
  };
  const report = juryReport(view, "judge", SCORE_JUDGE.spec, 1, "seed")!;
  assertEquals(report.judges, ["a", "b", "c"]);
  assertEquals(report.by_judge.c.mean.value, (4 + 2 + 1) / 3);
  assertEquals(report.agreement.all_agree.value, 2 / 3);
  assertEquals(report.agreement.all_agree.n, 3);
  // Interval α by hand over the 9 values 4,4,4 | 2,2,2 | 5,5,1: D_o = 64/2 / 9 = 32/9 (only unit 3 disagrees);
  // D_e = 2 · n · SS / (n (n − 1)) with SS = 111 − 29²/9 = 158/9, i.e. 316/72 = 79/18; α = 1 − D_o/D_e = 15/79.
  assertAlmostEquals(report.agreement.alpha.value!, 15 / 79, 1e-12);
  assertEquals(
    juryReport(
      { ...view, scores: new Map([["s1", [stored("s1", "a", 4)]]]) },
      "judge",
      SCORE_JUDGE.spec,
      1,
      "x",
    ),
    undefined,
  );
});

function stored(sampleId: string, judge: string, value: number): StoredScore {
  return {
    sampleId,
    condition: "default",
    scorer: "judge",
    judge,
    run: 1,
    value,
    values: null,
    valid: true,
    reason: null,
    callKey: null,
    detail: null,
  };
}

Deno.test("reducers: mean, median, mode (ties are no majority), max, all-valid", () => {
  assertEquals(reduceValues([4, null, 5], "mean"), 4.5);
  assertEquals(reduceValues([1, 5, 3, 4], "median"), 3.5);
  assertEquals(reduceValues(["Correct", "Incorrect", "Correct"], "mode"), "Correct");
  assertEquals(modeOf(["Correct", "Incorrect"]), null);
  assertEquals(reduceValues([2, null, 3], "max"), 3);
  assertEquals(reduceValues([2, null, 3], "all-valid"), null);
  assertEquals(reduceValues([2, 4], "all-valid"), 3);
  assertEquals(reduceValues([null, null], "mean"), null);
});

Deno.test("judge replies: a reasoning block is never read, whatever reads the verdict (1-5 scores too)", async () => {
  const replies = [
    '<think>Draft: final score 3.</think>{"score":4,"reason":"ok"}',
    "<think>I could give 3.</think>Score: 4",
  ];
  for (const text of replies) {
    const ctx: ScoreContext = {
      judgeRuns: 1,
      has: () => true,
      members: () => [{ label: "j", offline: false }],
      defaults: () => ({}),
      embed: () => Promise.resolve([]),
      generate: () => Promise.resolve({ text, callKey: "k", cached: false, sent: [] }),
    };
    const [score] = await LLMEVAL_MED_JUDGE.score({ sample: SAMPLE_FOR_REASONING, answer: "a" }, ctx);
    assertEquals([score.valid, score.value], [true, 4], text);
    assert(!String(score.reason).includes("could give 3"), String(score.reason));
  }
});

const SAMPLE_FOR_REASONING: Sample = {
  id: "MK-1-1",
  benchmark: "llmeval-med",
  input: "问题",
  reference: "参考答案",
  conversation: { id: "MK-1", turn: 1 },
  fields: { category: "MK" },
  extra: { checklist: null },
};
