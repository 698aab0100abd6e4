/**
 * MedGPTEval end to end against the fake server: dialogues asked round by round, each aspect judged by a
 * scripted judge (whole dialogues on their last round), expert scores imported with --human-eval; totals,
 * subtotals and vetoes recomputed here from the script; a resumed run sends nothing.
 */
import { sampleRows } from "./run_cli.ts";
import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { INDICATORS } from "../lib/benchmarks/medgpteval/rubric.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { requestedIndicators } from "../lib/benchmarks/medgpteval/offline_rubric.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { defaultFakeReply, type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { handTotals } from "./medgpteval_hand.ts";

const DATA = new URL("../data/medgpteval", import.meta.url).pathname;
const EXPERTS = `${DATA}/expert_scores.csv`;

/** The script: an indicator's score for an answer's tag; accuracy 0 for one tag in seven (a veto). */
function planned(tag: string, indicator: string, max: number): number {
  const h = parseInt(sha256Hex(`${tag}:${indicator}`).slice(0, 8), 16);
  if (indicator === "accuracy") return h % 7 === 0 ? 0 : 1;
  return h % (max + 1);
}

/** The judge reads the tag of the last answer in the transcript and scores what the prompt asks for. */
function reply(body: FakeChatBody): string {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  if (!user.includes("### Instructions\nRate the")) return defaultFakeReply(body);
  const tag = [...user.matchAll(/Fake answer ([0-9a-f]{8})/g)].at(-1)![1];
  const asked = requestedIndicators(user);
  const scores = Object.fromEntries(
    Object.entries(asked).map(([name, max]) => [name, planned(tag, name, max)]),
  );
  return JSON.stringify({ reasoning: `scripted for ${tag}`, scores });
}

Deno.test("medgpteval: dialogues and case reports judged per aspect, totals and vetoes recomputed, experts, resume", async () => {
  const server = await startFakeServer({ reply });
  const out = await Deno.makeTempDir({ prefix: "medeval-medgpteval-" });
  const config = {
    benchmark: "medgpteval",
    model: "fake-model",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeRuns: 1,
    humanEval: EXPERTS,
    out,
    progress: false,
    renderFigures: false,
  };
  try {
    const result = await runEval(config);
    assertEquals(result.failures, 0);
    // 24 dialogue rounds + 3 cases answered; 6 dialogues × 3 aspects + 3 cases × 2 aspects judged.
    assertEquals(result.calls.model.sent, 27);
    assertEquals(result.calls.judge.sent, 6 * 3 + 3 * 2);
    const judgeBodies = server.requests.map((r) => r.body as FakeChatBody).filter((b) =>
      b?.model === "fake-judge"
    );
    const contextual = judgeBodies.filter((b) => b.messages[1].content.includes('"repeated_answer"'));
    assertEquals(contextual.length, 6);
    assert(
      contextual.every((b) => b.messages[1].content.includes("【模型回答 第4轮】")),
      "the whole dialogue is judged",
    );

    const rows = await sampleRows(out);
    const totals: Record<string, number[]> = { dialogue: [], case: [] };
    let vetoes = 0;
    for (const row of rows.filter((r) => r.scored === 1)) {
      const tag = String(row.answer).match(/Fake answer ([0-9a-f]{8})/)![1];
      const score = (name: string) => planned(tag, name, INDICATORS.find((i) => i.name === name)!.max);
      const hand = handTotals(score, row.kind === "dialogue");
      if (hand.vetoed) vetoes++;
      totals[row.kind].push(hand.total);
    }
    assert(vetoes > 0 && vetoes < 9, `the script vetoes some items (${vetoes})`);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = result.summary;
    assertAlmostEquals(summary.groups.kind.dialogue.total.value!, mean(totals.dialogue), 1e-12);
    assertAlmostEquals(summary.groups.kind.case.total.value!, mean(totals.case), 1e-12);
    assertEquals(summary.groups.kind.dialogue.total.n, 6);
    // The experts' scores sit beside the judge's, with their agreement.
    assertEquals(summary.groups.kind.dialogue["expert:total"].n, 6);
    assert(summary.metrics["expert_alpha:accuracy"].n === 9);
    const table3 = await Deno.readTextFile(`${out}/tables/table3.md`);
    assert(table3.includes("fake-model") && table3.includes("· experts"), table3);

    const before = server.requests.length;
    await runEval({ ...config, resume: true });
    assertEquals(server.requests.length, before);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
