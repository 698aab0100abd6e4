/**
 * Robustness sets: the variant samples, the rephraser's reply reader, the offline rephraser and consistency
 * stand-ins, and the design-effect-adjusted rates (ICC and deff checked against a hand computation).
 */
import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import {
  parseRephrasings,
  parseRobustnessSets,
  robustnessSamples,
  variantId,
  variantOf,
} from "../lib/robustness/sets.ts";
import { robustnessRates, variantSource } from "../lib/robustness/rates.ts";
import { ConfigError } from "../lib/core/errors.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { SampleRow } from "../lib/core/summary.ts";
import { consistencyMessages } from "../lib/robustness/consistency.ts";
import { offlineConsistencyReply } from "../lib/robustness/offline_consistency.ts";
import { offlineRephrasings } from "../lib/robustness/offline_rephraser.ts";
import { wilsonInterval } from "../lib/stats/agreement.ts";
import { clusteredRate, intraclassCorrelation } from "../lib/stats/clustered.ts";
import { loadCharacterTables } from "../lib/ablations/perturb.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const QUESTION =
  "我今年52岁，上个月体检查出空腹血糖7.8，开了二甲双胍。可吃上以后总是拉肚子，这个药还得接着吃吗？";

const SOURCE: Sample = {
  id: "bench:d1:1",
  benchmark: "bench",
  input: QUESTION,
  reference: null,
  conversation: { id: "d1", turn: 1 },
  fields: { kind: "dialogue", round: 1 },
  extra: {},
};

Deno.test("robustness samples: ids, fields, programmatic inputs for C-E, the source question for A and B", () => {
  const options = { sets: ["A", "C", "E"], variants: 3, seed: "0" };
  const samples = robustnessSamples([SOURCE], options);
  assertEquals(samples.map((s) => s.id), [
    ...["A01", "A02", "A03", "C01", "C02", "C03", "E01", "E02", "E03"].map((v) => `bench:d1:1~${v}`),
  ]);
  assertEquals(variantId("x", "B", 12), "x~B12");
  assertEquals(variantSource("bench:d1:1~C02"), "bench:d1:1");
  for (const sample of samples) {
    const info = variantOf(sample)!;
    assertEquals(info.source, SOURCE);
    assertEquals(sample.conversation, null, "a variant is asked alone");
    assertEquals(sample.fields.robustness_category, info.set === "A" ? "ASR" : "IESR");
    if (info.set === "A") assertEquals(sample.input, QUESTION);
    else assert(sample.input !== QUESTION && info.edits.length > 0 && sample.input.includes("7.8"));
  }
  assertEquals(new Set(samples.filter((s) => s.id.includes("~C")).map((s) => s.input)).size, 3);
  assertEquals(robustnessSamples([SOURCE], options), samples, "seeded: the same variants every time");
  const reseeded = robustnessSamples([SOURCE], { ...options, seed: "1" });
  assert(reseeded.some((s, i) => s.input !== samples[i].input), "another seed gives other errors");
});

Deno.test("robustness sets: parsed from letters, lists or all; anything else is a one-line ConfigError", () => {
  assertEquals(parseRobustnessSets("all"), ["A", "B", "C", "D", "E"]);
  assertEquals(parseRobustnessSets("e,c, d"), ["C", "D", "E"]);
  for (const bad of ["", "F", "A,X"]) {
    const err = assertThrows(() => parseRobustnessSets(bad), ConfigError);
    assert(!err.message.includes("\n"));
  }
});

Deno.test("rephraser replies: JSON read after reasoning; unchanged, repeated and empty rewrites dropped; too few is an error", () => {
  const reply =
    `<think>plan</think>{"variants": ["${QUESTION}", "改写一", " 改写一 ", "", "改写二", "改写三"]}`;
  assertEquals(parseRephrasings(reply, QUESTION, 2), { variants: ["改写一", "改写二"] });
  assertEquals(parseRephrasings(reply, QUESTION, 3), { variants: ["改写一", "改写二", "改写三"] });
  const short = parseRephrasings(reply, QUESTION, 4);
  assert("error" in short && short.error.startsWith("3 usable rewrites of 4"));
  assert("error" in parseRephrasings("not json", QUESTION, 1));
  assert("error" in parseRephrasings('{"variants": "one"}', QUESTION, 1));
});

Deno.test("offline rephraser: set A keeps the question word for word, set B changes what is asked; all distinct", () => {
  const same = offlineRephrasings(QUESTION, false);
  assertEquals(same.length, 49);
  assertEquals(new Set(same).size, 49);
  assert(same.every((v) => v.includes(QUESTION) && v !== QUESTION));
  const changed = offlineRephrasings(QUESTION, true);
  assertEquals(new Set(changed).size, 50);
  assert(
    changed.every((v) =>
      !v.includes("这个药还得接着吃吗") && v.includes("开了二甲双胍。可吃上以后总是拉肚子，")
    ),
  );
});

Deno.test("offline consistency stand-in: same answer R1, no answer R3, another answer R2; other prompts ignored", () => {
  const prompt = (clean: string, answer: string) =>
    consistencyMessages(QUESTION, clean, `${QUESTION}？`, answer).map((m) => m.content).join("\n");
  const clean = "二甲双胍引起的腹泻多在数周内减轻，可改为餐中服用或换用缓释片，不建议自行停药。";
  const category = (answer: string) =>
    JSON.parse(offlineConsistencyReply(prompt(clean, answer), answer)!).category;
  assertEquals(category(clean), "R1");
  assertEquals(category(""), "R3");
  assertEquals(category("建议尽快到医院做肠镜检查。"), "R2");
  assertEquals(offlineConsistencyReply("### Dialogue\nRate the answers", "x"), undefined);
});

Deno.test("clustered rate: ANOVA ICC and design effect by hand; the interval is Wilson on n/deff", () => {
  // p_i = 3/4, 0, 1/2 (m = 4 each): MSB = 7/12, MSW = 7/36, m0 = 4, so ρ = (7/12 − 7/36)/(7/12 + 3·7/36) = 1/3.
  const clusters = [[1, 1, 1, 0], [0, 0, 0, 0], [1, 1, 0, 0]];
  assertAlmostEquals(intraclassCorrelation(clusters)!, 1 / 3, 1e-12);
  const rate = clusteredRate(clusters);
  assertAlmostEquals(rate.designEffect, 2, 1e-12);
  assertEquals(rate.estimate.n, 12);
  assertAlmostEquals(rate.estimate.value!, 5 / 12, 1e-12);
  const expected = wilsonInterval(2.5, 6)!;
  assertAlmostEquals(rate.estimate.ci95![0], expected[0], 1e-12);
  assertAlmostEquals(rate.estimate.ci95![1], expected[1], 1e-12);
  // Independent outcomes (clusters of one) cannot estimate ρ: plain Wilson; equal clusters: ρ ≤ 0, deff 1.
  assertEquals(intraclassCorrelation([[1], [0], [1]]), null);
  assertEquals(clusteredRate([[1], [0], [1]]).estimate.ci95, wilsonInterval(2, 3));
  assertEquals(clusteredRate([[1, 0], [1, 0]]).designEffect, 1);
  // A rate of 0 still gets an interval that is not a point.
  assert(clusteredRate([[0, 0], [0, 0]]).estimate.ci95![1] > 0);
});

Deno.test("robustness rates: per set and per category, unclassed variants counted and left out", () => {
  const row = (id: string, set: string, category: string, cls: number | null): SampleRow => ({
    id,
    fields: { robustness_set: set, robustness_category: category },
    values: {
      r1: cls === null ? null : cls === 1 ? 1 : 0,
      r2: cls === null ? null : cls === 2 ? 1 : 0,
      r3: cls === null ? null : cls === 3 ? 1 : 0,
    },
  });
  const rows = [
    row("q1~C01", "C", "IESR", 1),
    row("q1~C02", "C", "IESR", 2),
    row("q2~C01", "C", "IESR", 1),
    row("q2~D01", "D", "IESR", 3),
    row("q2~D02", "D", "IESR", null),
    { id: "q1", fields: { kind: "dialogue" }, values: { total: 10 } },
  ];
  const rates = robustnessRates(rows);
  assertEquals(rates.counts, { robustness_variants: 5, robustness_classed: 4, robustness_unclassed: 1 });
  assertAlmostEquals(rates.groups.robustness_set.C.r1.value!, 2 / 3, 1e-12);
  assertEquals(rates.groups.robustness_set.D.r3.n, 1);
  assertAlmostEquals(rates.groups.robustness_category.IESR.r1.value!, 2 / 4, 1e-12);
  assertEquals(Object.keys(rates.groups.robustness_set), ["C", "D"]);
  assertEquals(robustnessRates(rows.slice(5)), { groups: {}, counts: {}, notes: [] });
});
