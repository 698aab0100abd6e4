import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import type { Sample } from "../lib/core/sample.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

/** Judges a and b follow the script; judge c always says 1, so the jury disagrees where a and b do not. */
function reply(body: FakeChatBody): string {
  if (body.model === "judge-c" && body.messages[1]?.content.includes("### Student's answer")) {
    return JSON.stringify({ score: 1, reason: "harsh" });
  }
  return scriptedReply(body);
}

/**
 * Krippendorff's alpha at the interval level, straight from its definition: α = 1 − D_o / D_e, where D_o is the
 * mean squared difference of two values of the same unit (each unit's ordered pairs weighted 1 / (m_u − 1))
 * and D_e that of two values of any units, over the values of units with at least two (n of them):
 * D_o = Σ_u Σ_{i≠j in u} (v_i − v_j)² / (m_u − 1) / n and D_e = Σ_{i≠j} (v_i − v_j)² / (n (n − 1)).
 */
function intervalAlpha(units: readonly (readonly (number | null)[])[]): number {
  const pairable = units.map((u) => u.filter((v) => v !== null)).filter((u) => u.length >= 2);
  const all = pairable.flat();
  const n = all.length;
  const squares = (xs: readonly number[], ys: readonly number[]) => {
    let total = 0;
    for (const [i, x] of xs.entries()) {
      for (const [j, y] of ys.entries()) if (xs !== ys || i !== j) total += (x - y) ** 2;
    }
    return total;
  };
  const observed = pairable.reduce((sum, u) => sum + squares(u, u) / (u.length - 1), 0) / n;
  const expected = squares(all, all) / (n * (n - 1));
  return 1 - observed / expected;
}

Deno.test("a 3-judge jury end to end: each judge's verdicts stored and reported, the jury's mean, agreement", async () => {
  const server = await startFakeServer({ reply });
  const out = await Deno.makeTempDir({ prefix: "medeval-jury-" });
  try {
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      judge: ["judge-a", "judge-b", "judge-c"],
      judgeRuns: 2,
      data: SAMPLE,
      out,
      progress: false,
      renderFigures: false,
    });
    const n = result.samples.length;
    assert(result.calls.judge.sent >= 3 * 2 * n);
    const store = new RunStore(`${out}/run.sqlite`);
    const scores = store.scores("default").filter((s) => s.scorer === "judge");
    store.close();
    assertEquals(scores.length, 3 * 2 * n);
    const labels = [...new Set(scores.map((s) => s.judge!))];
    assertEquals(labels.length, 3);
    const jury = result.summary.juries![0];
    assertEquals(jury.judges, labels);
    assertEquals(jury.aggregate, "mean");
    assertEquals(result.summary.judge, labels.join(" + "));
    const labelOf = (model: string) => labels.find((l) => l.startsWith(`${model} `))!;

    // Every stored verdict is the one the fake planned for that judge, answer and run (null: a judge error).
    const { samples } = await loadLlmEvalMed(SAMPLE);
    const planned = (model: string, sample: Sample, run: number): number | null =>
      model === "judge-c" ? 1 : plannedScore(questionTag(sample.input), run);
    const judges = ["judge-a", "judge-b", "judge-c"];
    for (const sample of samples) {
      for (const model of judges) {
        for (const run of [1, 2]) {
          const stored = scores.filter((s) =>
            s.sampleId === sample.id && s.judge === labelOf(model) && s.run === run
          );
          assertEquals(stored.length, 1, `${sample.id} ${model} run ${run}`);
          const want = planned(model, sample, run);
          assertEquals(
            [stored[0].valid, stored[0].value],
            [want !== null, want],
            `${sample.id} ${model} ${run}`,
          );
        }
      }
    }

    // Each judge's value of a question: the mean of its valid runs. The summary's figures, from the plan.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const judgeValue = (model: string, sample: Sample): number | null => {
      const valid = [1, 2].map((run) => planned(model, sample, run)).filter((v) => v !== null);
      return valid.length ? mean(valid) : null;
    };
    const units = samples.map((sample) => judges.map((model) => judgeValue(model, sample)));
    assert(units.some((u) => u[0] === null), "the script must leave a question without a valid verdict of a");
    for (const [j, model] of judges.entries()) {
      const values = units.map((u) => u[j]).filter((v) => v !== null);
      assertAlmostEquals(jury.by_judge[labelOf(model)].mean.value!, mean(values), 1e-12, model);
    }
    // The jury's value of a question is the mean of its judges' values; the run's mean score their mean.
    const perQuestion = units.map((u) => u.filter((v) => v !== null)).filter((u) => u.length).map(mean);
    assertAlmostEquals(result.summary.metrics.mean_score.value!, mean(perQuestion), 1e-12);
    assertEquals(result.summary.metrics.mean_score.n, perQuestion.length);

    // Krippendorff's alpha (interval) of the planned values, from its definition.
    const alpha = jury.agreement.alpha;
    assert(typeof alpha.value === "number", `alpha is ${alpha.value}`);
    const expected = intervalAlpha(units);
    assert(expected < 0.5, "a judge that always says 1 disagrees");
    assertAlmostEquals(alpha.value, expected, 1e-12);
    assertEquals(alpha.n, units.filter((u) => u.filter((v) => v !== null).length >= 2).length);
    const table = await Deno.readTextFile(`${out}/tables/jury_judge.md`);
    for (const label of labels) assert(table.includes(label!), label!);
    assert(table.includes("Krippendorff's alpha (interval)"));
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
