/**
 * MedGPTEval robustness end to end against the fake server: sets A and B written by a scripted rephraser (one
 * reply unusable, so it is asked again), C–E made here; every variant answered alone; the clean answers come
 * from the baseline's stored calls; a scripted consistency judge classes each variant; R1–R3 rates recomputed
 * from the script; a resumed run sends nothing.
 */
import { sampleRows } from "./run_cli.ts";
import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import { sha256Hex } from "../lib/core/hash.ts";
import { CONSISTENCY_SECTIONS } from "../lib/robustness/consistency.ts";
import { requestedIndicators } from "../lib/benchmarks/medgpteval/offline_rubric.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { defaultFakeReply, type FakeChatBody, startFakeServer } from "./fake_server.ts";

const DATA = new URL("../data/medgpteval", import.meta.url).pathname;
const VARIANTS = 4;
const CLASSES = ["R1", "R2", "R3"] as const;

/** The script's class of the answer to a rewritten question. */
function plannedClass(rewritten: string): typeof CLASSES[number] {
  return CLASSES[parseInt(sha256Hex(`class:${rewritten}`).slice(0, 8), 16) % 3];
}

/** Returns the body of a section of the consistency prompt. */
function section(text: string, header: string): string {
  const start = text.indexOf(`${header}\n`) + header.length + 1;
  const end = text.indexOf("\n\n### ", start);
  return text.slice(start, end < 0 ? undefined : end);
}

function scriptedServer() {
  const rephraseCalls = new Map<string, number>();
  const reply = (body: FakeChatBody): string => {
    const system = body.messages.find((m) => m.role === "system")?.content ?? "";
    const user = body.messages.findLast((m) => m.role === "user")?.content ?? "";
    if (body.model === "fake-rephraser") {
      const set = system.includes("keep exactly its meaning") ? "A" : "B";
      const n = Number(system.match(/in (\d+) different ways/)![1]);
      const key = `${set}:${user}`;
      const call = (rephraseCalls.get(key) ?? 0) + 1;
      rephraseCalls.set(key, call);
      // The first set-A reply for the second dialogue is short: the solver must ask again.
      const short = set === "A" && user.includes("胃胀") && call === 1;
      const count = short ? 2 : n + 1;
      return JSON.stringify({
        variants: [user, ...Array.from({ length: count }, (_, i) => `${user}（改写${set}${i + 1}）`)],
      });
    }
    if (body.model === "fake-judge") {
      if (user.includes(CONSISTENCY_SECTIONS.cleanAnswer)) {
        const category = plannedClass(section(user, CONSISTENCY_SECTIONS.rewritten));
        return JSON.stringify({ reasoning: "scripted", category });
      }
      return JSON.stringify({ reasoning: "scripted", scores: requestedIndicators(user) });
    }
    return defaultFakeReply(body);
  };
  return { reply, rephraseCalls };
}

Deno.test("medgpteval --robustness: sets A-E answered alone, classed against the clean answer, rates recomputed, resume", async () => {
  const script = scriptedServer();
  const server = await startFakeServer({ reply: script.reply });
  const out = await Deno.makeTempDir({ prefix: "medeval-robustness-" });
  const config = {
    benchmark: "medgpteval",
    model: "fake-model",
    baseUrl: server.url,
    judge: "fake-judge",
    judgeRuns: 1,
    robustness: true,
    robustnessVariants: VARIANTS,
    roles: ["rephraser=fake-rephraser"],
    humanEval: `${DATA}/expert_scores.csv`,
    data: DATA,
    out,
    progress: false,
    renderFigures: false,
  };
  try {
    const result = await runEval(config);
    assertEquals(result.failures, 0);
    const rows = await sampleRows(out);
    const variants = rows.filter((r) => r.robustness_set);
    assertEquals(variants.length, 6 * 5 * VARIANTS);

    // One rephraser call per question and rephrased set, plus the one asked again.
    assertEquals(result.calls.rephraser.sent, 6 * 2 + 1);
    // The model: 27 baseline turns, then each distinct rewritten question once; clean questions from the store.
    const distinct = new Set(variants.map((r) => r.solver.robustness.question));
    assertEquals(result.calls.model.sent, 27 + distinct.size);
    const firstRounds = new Map(
      rows.filter((r) => r.round === 1 && !r.robustness_set).map((r) => [r.item, r]),
    );
    for (const row of variants) {
      const detail = row.solver.robustness;
      const source = firstRounds.get(row.item)!;
      assertEquals(detail.original, source.input);
      assertEquals(
        detail.clean_answer,
        source.answer,
        "the clean answer is the baseline's first-round answer",
      );
      assert(detail.question !== detail.original, `${row.id} asks a rewritten question`);
      if (row.robustness_set === "A" || row.robustness_set === "B") {
        assertEquals(detail.question, `${detail.original}（改写${row.robustness_set}${detail.index}）`);
      } else {
        assertEquals(row.input, detail.question);
        assert(detail.edits.length > 0);
      }
    }
    const consistencyPrompts = server.requests.map((r) => r.body as FakeChatBody).filter((b) =>
      b?.model === "fake-judge" && b.messages[1].content.includes(CONSISTENCY_SECTIONS.cleanAnswer)
    );
    assertEquals(consistencyPrompts.length, variants.length);

    // R1-R3 per set and category, recomputed from the script.
    const summary = result.summary;
    const categoryOf: Record<string, string> = { A: "ASR", B: "NSR", C: "IESR", D: "IESR", E: "IESR" };
    for (const group of ["A", "B", "C", "D", "E", "ASR", "NSR", "IESR"]) {
      const members = variants.filter((r) =>
        r.robustness_set === group || categoryOf[r.robustness_set] === group
      );
      const est = group.length === 1
        ? summary.groups.robustness_set[group]
        : summary.groups.robustness_category[group];
      CLASSES.forEach((cls, i) => {
        const hits = members.filter((r) => plannedClass(r.solver.robustness.question) === cls).length;
        const metric = est[`r${i + 1}`];
        assertEquals(metric.n, members.length);
        assertAlmostEquals(metric.value!, hits / members.length, 1e-12);
        assert(metric.ci95![0] <= metric.value! && metric.value! <= metric.ci95![1]);
      });
      const sum = est.r1.value! + est.r2.value! + est.r3.value!;
      assertAlmostEquals(sum, 1, 1e-12);
    }
    assertEquals(summary.counts.robustness_variants, variants.length);
    assertEquals(summary.counts.robustness_unclassed, 0);
    // The rubric is untouched by the variants: 6 dialogues and 3 case reports, full marks from the script.
    assertEquals(summary.groups.kind.dialogue.total.n, 6);
    assertEquals(summary.groups.kind.dialogue.total.value, 16);
    // Expert scores of a dialogue still land on its last round, not on a variant of its first.
    assertEquals(summary.groups.kind.dialogue["expert:total"].n, 6);
    assertEquals(summary.metrics["expert_alpha:repeated_answer"].n, 6);
    const table5 = await Deno.readTextFile(`${out}/tables/table5.md`);
    assert(table5.includes("Data set E: spelling errors") && table5.includes("C+D+E pooled"), table5);

    const before = server.requests.length;
    const resumed = await runEval({ ...config, resume: true });
    assertEquals(server.requests.length, before);
    assertEquals(resumed.summary.groups.robustness_set, summary.groups.robustness_set);
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("medgpteval --robustness: sets A and B need a rephraser; C-E alone do not; bad set letters are one line", async () => {
  const base = {
    benchmark: "medgpteval",
    model: "offline:reference",
    judge: "offline:rubric",
    judgeRuns: 1,
    robustness: true,
    progress: false,
    renderFigures: false,
  };
  const out = await Deno.makeTempDir({ prefix: "medeval-robustness-" });
  try {
    const noRephraser = await runEval({ ...base, out: `${out}/a` }).catch((e) => e);
    assert(noRephraser instanceof ConfigError, String(noRephraser));
    assert(noRephraser.message.includes("--role rephraser=NAME"), noRephraser.message);
    const badSets = await runEval({ ...base, robustnessSets: "AX", out: `${out}/b` }).catch((e) => e);
    assert(badSets instanceof ConfigError && !badSets.message.includes("\n"), String(badSets));
    const programmatic = await runEval({
      ...base,
      robustnessSets: "CDE",
      robustnessVariants: 2,
      out: `${out}/c`,
    });
    assertEquals(Object.keys(programmatic.summary.groups.robustness_set), ["C", "D", "E"]);
    assertEquals(programmatic.summary.counts.robustness_variants, 6 * 3 * 2);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
