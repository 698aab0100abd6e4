import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { climedExtra, loadClimedBench } from "../lib/benchmarks/climedbench/load.ts";
import type { Sample } from "../lib/core/sample.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { type FakeChatBody, fakeEmbedding, startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/climedbench/sample.jsonl", import.meta.url).pathname;
const KE_REPLY = "关键词：慢性病；护理；预后";
const WTD_REPLY = "这种做法不合适，存在禁忌，可能导致严重并发症。";

/** Scripted replies: odd-numbered choice items right, even wrong; sequencing reversed; CoT always right. */
function plan(sample: Sample, index: number, cot: boolean): string {
  const extra = climedExtra(sample);
  const type = sample.fields.question_type;
  if (type === "open") return sample.fields.scenario === "KE" ? KE_REPLY : WTD_REPLY;
  if (type === "sequencing") {
    const order = cot || index % 2 === 0 ? extra.answer : [...extra.answer].reverse();
    return cot ? `先分析各步骤依据。\n顺序：${order.join(">")}` : `顺序：${order.join(">")}`;
  }
  const labels = Object.keys(extra.options).sort();
  const wrong = labels.find((l) => !extra.answer.includes(l))!;
  if (cot) return `一步一步分析：选项${wrong}不符合。\n答案：${extra.answer.join("")}`;
  if (index % 3 === 2) return "无法确定。"; // extraction failure
  return `答案：${index % 2 === 0 ? extra.answer.join("") : wrong}`;
}

function tau(ref: string[], pred: string[]): number {
  // Independent O(n^2) tau (no ties possible here): (concordant - discordant) / (n(n-1)/2).
  let s = 0;
  for (let i = 0; i < ref.length; i++) {
    for (let j = i + 1; j < ref.length; j++) s += Math.sign(pred.indexOf(ref[j]) - pred.indexOf(ref[i]));
  }
  return s / (ref.length * (ref.length - 1) / 2);
}

function charF1(a: string, b: string): number {
  const chars = (t: string) => [...t].filter((c) => /\p{Script=Han}/u.test(c));
  const ca = chars(a), cb = chars(b);
  const pool = [...cb];
  let overlap = 0;
  for (const c of ca) {
    const i = pool.indexOf(c);
    if (i >= 0) {
      overlap++;
      pool.splice(i, 1);
    }
  }
  return overlap === 0 ? 0 : 2 * overlap / (ca.length + cb.length);
}

function dot(a: number[], b: number[]): number {
  return a.reduce((s, v, i) => s + v * b[i], 0);
}

Deno.test("CliMedBench end to end against the fake server: every scenario type, CoT, perturbation, buckets", async () => {
  const samples = await loadClimedBench(SAMPLE);
  const byPrompt = new Map(samples.map((s, i) => [s.input, { sample: s, index: i }]));
  const server = await startFakeServer({
    latencyMs: 2,
    reply: (body: FakeChatBody) => {
      const user = body.messages.findLast((m) => m.role === "user")!.content;
      const cot = user.includes("一步一步");
      const hit = [...byPrompt.entries()].find(([input]) => user.startsWith(input));
      if (!hit) return "答案：A"; // perturbed input: always A
      return plan(hit[1].sample, hit[1].index, cot);
    },
  });
  const out = await Deno.makeTempDir({ prefix: "medeval-climed-" });
  try {
    const config = {
      benchmark: "climedbench",
      model: "fake-model",
      baseUrl: server.url,
      embedModel: "fake-embed",
      data: SAMPLE,
      out,
      ablations: ["cot", "perturb:nota"],
      progress: false,
      renderFigures: false,
      retryPolicy: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 },
    };
    const result = await runEval({ ...config, buckets: "length:4" });
    assertEquals(result.failures, 0);
    const [vanilla, cot, nota] = result.conditions;
    for (const s of result.conditions) SummarySchema.parse(s);

    // Independent recomputation of the vanilla condition.
    const expected = new Map<string, number[]>();
    let failures = 0, extractable = 0;
    samples.forEach((s, i) => {
      const extra = climedExtra(s);
      const reply = plan(s, i, false);
      let value: number;
      if (s.fields.question_type === "open") {
        value = s.fields.scenario === "KE"
          ? charF1(reply, s.reference!)
          : dot(fakeEmbedding(reply), fakeEmbedding(s.reference!));
      } else {
        extractable++;
        if (reply === "无法确定。") failures++;
        value = s.fields.question_type === "sequencing"
          ? tau(extra.answer, reply.slice(3).split(">"))
          : (reply === `答案：${extra.answer.join("")}` ? 1 : 0);
      }
      const code = String(s.fields.scenario);
      expected.set(code, [...expected.get(code) ?? [], value]);
    });
    for (const [code, values] of expected) {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      assertAlmostEquals(vanilla.groups.scenario[code].score.value!, mean, 1e-9, code);
    }
    const macro = [...expected.values()].reduce((a, v) => a + v.reduce((x, y) => x + y, 0) / v.length, 0) /
      expected.size;
    assertAlmostEquals(vanilla.metrics.macro_score.value!, macro, 1e-9);
    assertAlmostEquals(vanilla.metrics.extraction_failure.value!, failures / extractable, 1e-12);
    assert(vanilla.notes.some((n) => n.includes("embeddings:fake-embed")));

    // CoT: every choice and sequencing item right.
    assertEquals(cot.metrics.accuracy.value, 1);
    assertEquals(cot.metrics.kendall_tau.value, 1);
    assertEquals(cot.metrics.extraction_failure.value, 0);
    // None of the above: single-answer items are perturbed and the fake answers them "A" (right iff the key is
    // A); multiple-answer items are left as they are and get their vanilla reply.
    let notaRight = 0, choiceItems = 0;
    samples.forEach((s, i) => {
      const key = climedExtra(s).answer.join("");
      if (s.fields.question_type === "single_choice") notaRight += key === "A" ? 1 : 0;
      else if (s.fields.question_type === "multiple_choice") {
        notaRight += plan(s, i, false) === `答案：${key}` ? 1 : 0;
      } else return;
      choiceItems++;
    });
    assertAlmostEquals(nota.metrics.accuracy.value!, notaRight / choiceItems, 1e-12);

    // The run store holds each condition side by side; tables for ablations and buckets exist.
    const store = new RunStore(`${out}/run.sqlite`);
    try {
      for (const c of ["default", "cot", "perturb:nota"]) {
        assertEquals(store.outputs(c).length, samples.length);
      }
      assert(store.manifest()!["condition:cot"]);
    } finally {
      store.close();
    }
    const cotTable = await Deno.readTextFile(`${out}/tables/ablation_cot.md`);
    assert(cotTable.includes("McNemar"), cotTable);
    for (
      const f of ["table2", "table2_conditions", "hallucination", "length_chars_default", "length_tokens_cot"]
    ) {
      await Deno.stat(`${out}/tables/${f}.md`);
    }
    await Deno.stat(`${out}/conditions/perturb_nota/summary.json`);

    // Resume with the same ablations sends nothing new.
    const again = await runEval({ ...config, resume: true });
    assertEquals(again.calls.model.sent, 0);
    assertEquals(again.summary.metrics, vanilla.metrics);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
