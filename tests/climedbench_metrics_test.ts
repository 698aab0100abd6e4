import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { loadCharacterTables, perturbSample, perturbText } from "../lib/ablations/perturb.ts";
import { parseAblation } from "../lib/ablations/condition.ts";
import { loadClimedBench } from "../lib/benchmarks/climedbench/load.ts";
import { climedScorer } from "../lib/benchmarks/climedbench/scorer.ts";
import { type Sample, SampleSchema } from "../lib/core/sample.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { normalizeForMatch } from "../lib/metrics/choice/extract.ts";
import { rouge1, rougeTokens } from "../lib/metrics/rouge.ts";
import { extractOrder, orderTau, predictedRanks } from "../lib/metrics/sequence.ts";
import { kendallTauB } from "../lib/stats/rank.ts";
import { CharTfidf, cosine } from "../lib/metrics/similarity.ts";
import { mcnemarExact, pairedDifference } from "../lib/stats/compare.ts";
import { NO_CONTEXT } from "./no_context.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const SAMPLE = new URL("../data/climedbench/sample.jsonl", import.meta.url).pathname;

Deno.test("sequence parsing: cues, arrow chains, letter runs and numbered lists", () => {
  const labels = ["A", "B", "C", "D"];
  assertEquals(extractOrder("分析……正确顺序：B>A>D>C", labels).order, ["B", "A", "D", "C"]);
  assertEquals(extractOrder("I think A → C → B → D is right", labels).order, ["A", "C", "B", "D"]);
  assertEquals(extractOrder("答案是DCBA。", labels).order, ["D", "C", "B", "A"]);
  assertEquals(extractOrder("A > C > B", labels).order, ["A", "C", "B"]);
  const steps = { A: "行端端吻合", B: "切断直肠远端", C: "游离乙状结肠系膜", D: "结扎肠系膜下动脉" };
  const listed = "1. D 结扎血管\n2. C 游离系膜\n3. B\n4. A";
  assertEquals(extractOrder(listed, labels, steps).order, ["D", "C", "B", "A"]);
  const byText = "1. 结扎肠系膜下动脉\n2. 游离乙状结肠系膜\n3. 切断直肠远端\n4. 行端端吻合";
  assertEquals(extractOrder(byText, labels, steps).order, ["D", "C", "B", "A"]);
  assertEquals(extractOrder("无法判断", labels).order, null);
});

Deno.test("sequence parsing: steps with compatibility characters match when quoted in either form", () => {
  const labels = ["A", "B", "C"];
  const steps = { A: "行Ⅱ期手术切除", B: "术前新辅助化疗（ＦＯＬＦＯＸ）", C: "评估Ⅲ度房室传导阻滞" };
  // The reply quotes the steps verbatim (Roman numerals and full-width letters as written in the item) …
  const verbatim = "1. 评估Ⅲ度房室传导阻滞\n2. 术前新辅助化疗（ＦＯＬＦＯＸ）\n3. 行Ⅱ期手术切除";
  assertEquals(extractOrder(verbatim, labels, steps).order, ["C", "B", "A"]);
  // … or in their ASCII forms, as many models write them.
  const ascii = "第一步：评估III度房室传导阻滞\n第二步：术前新辅助化疗(FOLFOX)\n第三步：行II期手术切除";
  assertEquals(extractOrder(ascii, labels, steps).order, ["C", "B", "A"]);
  assertEquals(normalizeForMatch("Ⅱ期（ＦＯＬＦＯＸ）"), normalizeForMatch("II期 (folfox)"));
  // Steps sharing an opening are told apart by their whole text; "(1)" numbering is read too.
  const shared = { A: "Give aspirin 300 mg", B: "Give aspirin 300 mg then clopidogrel", C: "Obtain an ECG" };
  const reply = "(1) Obtain an ECG\n(2) Give aspirin 300 mg then clopidogrel\n(3) Give aspirin 300 mg";
  assertEquals(extractOrder(reply, labels, shared).order, ["C", "B", "A"]);
});

Deno.test("Kendall tau-b: hand-checked cases with ties and the missing/duplicate/extra policy", () => {
  assertEquals(orderTau(["A", "B", "C", "D"], ["A", "B", "C", "D"]), 1);
  assertEquals(orderTau(["A", "B", "C", "D"], ["D", "C", "B", "A"]), -1);
  // Reference A<B<C<D, prediction B, A (C and D missing → tied last, rank 3).
  // Pairs: AB discordant; AC, AD, BC, BD concordant; CD tied in y. nc=4, nd=1, n0=6, n1=0, n2=1.
  // tau-b = 3 / sqrt(6 * 5) = 0.547722...
  assertEquals(predictedRanks(["A", "B", "C", "D"], ["B", "A"]), [2, 1, 3, 3]);
  assertAlmostEquals(orderTau(["A", "B", "C", "D"], ["B", "A"]), 3 / Math.sqrt(30), 1e-12);
  // Duplicates count at their first position; extra labels are ignored.
  assertEquals(predictedRanks(["A", "B", "C"], ["C", "X", "A", "C", "B"]), [2, 3, 1]);
  // Ties on both sides: x = [1,1,2,3], y = [1,2,2,3]. Pairs (12) tie x, (23) tie y; (13) c, (14) c, (24) c, (34) c.
  // nc=4, nd=0, n1=1, n2=1 → 4 / sqrt(5 * 5) = 0.8.
  assertAlmostEquals(kendallTauB([1, 1, 2, 3], [1, 2, 2, 3])!, 0.8, 1e-12);
  assertEquals(orderTau(["A", "B", "C"], null), 0);
  assertEquals(kendallTauB([1], [1]), null);
});

Deno.test("ROUGE-1: hand-computed Chinese, English and mixed cases", () => {
  assertEquals(rougeTokens("慢性病；养老"), ["慢", "性", "病", "养", "老"]);
  assertEquals(rougeTokens("Chronic disease, elderly-care 2011"), [
    "chronic",
    "disease",
    "elderly",
    "care",
    "2011",
  ]);
  // Candidate 医养结合护理 (6 chars) vs reference 医养结合延续护理 (8 chars): overlap 6 → P=1, R=0.75, F1=6/7.
  const zh = rouge1("医养结合护理", "医养结合延续护理");
  assertAlmostEquals(zh.precision, 1, 1e-12);
  assertAlmostEquals(zh.recall, 0.75, 1e-12);
  assertAlmostEquals(zh.f1, 6 / 7, 1e-12);
  // Clipping: candidate "the the the cat" vs "the cat sat": overlap min(3,1)+min(1,1)=2; P=2/4, R=2/3, F1=4/7.
  const en = rouge1("the the the cat", "The cat sat.");
  assertAlmostEquals(en.f1, 4 / 7, 1e-12);
  // Mixed: "PCI术后" → pci, 术, 后 vs "PCI 后出血" → pci, 后, 出, 血: overlap 2, P=2/3, R=2/4 → F1 = 4/7.
  assertAlmostEquals(rouge1("PCI术后", "PCI 后出血").f1, 4 / 7, 1e-12);
  assertEquals(rouge1("", "参考").f1, 0);
});

Deno.test("similarity: cosine and the offline character TF-IDF fallback", () => {
  assertAlmostEquals(cosine([1, 0], [1, 1]), 1 / Math.SQRT2, 1e-12);
  const tfidf = new CharTfidf(2).fit(["羊水穿刺属于禁忌", "避免大剂量对乙酰氨基酚", "哮喘患者禁用普萘洛尔"]);
  assertAlmostEquals(tfidf.similarity("哮喘患者禁用普萘洛尔", "哮喘患者禁用普萘洛尔"), 1, 1e-12);
  const near = tfidf.similarity("哮喘患者禁用普萘洛尔", "普萘洛尔哮喘禁用");
  const far = tfidf.similarity("哮喘患者禁用普萘洛尔", "避免大剂量对乙酰氨基酚");
  assert(near > 0.5 && far < 0.1, `near ${near}, far ${far}`);
});

/** Levenshtein distance over code points (each substitution, insertion or deletion costs 1). */
function editDistance(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[y.length];
}

Deno.test("perturbations: rate within ±1% of the request, seeded, letters and digits untouched", async () => {
  const samples = await loadClimedBench(SAMPLE);
  for (const kind of ["shape", "homophone", "traditional", "symbol", "mixed"]) {
    for (const rate of [0.05, 0.12, 0.2]) {
      const condition = parseAblation(`perturb:${kind}@${rate}`);
      let changed = 0, countable = 0, capped = 0, edits = 0;
      for (const sample of samples) {
        const result = perturbSample(sample, condition.perturb!);
        changed += result.changed;
        countable += result.countable;
        // Where the text has fewer eligible characters than the rate asks for, every eligible one is changed.
        const text = perturbText(sample.input, condition.perturb!, sample.id);
        assertEquals(text.text, result.sample.input);
        // What was reported changed is what the text shows: each change is one substitution or insertion.
        const distance = editDistance(sample.input, result.sample.input);
        assert(distance <= text.changed, `${kind}: ${distance} edits for ${text.changed} changes`);
        edits += distance;
        const target = Math.round(rate * text.countable);
        assertEquals(text.changed, Math.min(target, text.eligible));
        if (text.eligible < target) capped++;
        // Every ASCII letter and digit (option labels, answer keys, doses) is where it was.
        const ascii = (t: string) => t.match(/[A-Za-z0-9]/g)?.join("") ?? "";
        assertEquals(
          ascii(result.sample.input),
          ascii(sample.input),
          `${kind} touched ASCII in ${sample.id}`,
        );
        // Option lines keep their labels.
        const labels = (t: string) => t.match(/^[A-Z]: /gm)?.join("") ?? "";
        assertEquals(labels(result.sample.input), labels(sample.input));
      }
      assert(edits >= 0.95 * changed, `${kind}@${rate}: ${edits} edits seen for ${changed} reported`);
      const achieved = changed / countable;
      // The paper's 12% is reached by every kind; above what a text offers (e.g. the shape table at 20%),
      // the achieved rate falls short, never over.
      if (rate === 0.12 || capped === 0) {
        assert(Math.abs(achieved - rate) <= 0.01, `${kind}@${rate}: achieved ${achieved}`);
      } else {
        assert(achieved < rate, `${kind}@${rate}: achieved ${achieved} with ${capped} capped texts`);
      }
    }
  }
  const spec = parseAblation("perturb:homophone@0.12").perturb!;
  const text = "患者因胸痛3小时入院，心电图示ST段抬高。";
  assertEquals(perturbText(text, spec, "x").text, perturbText(text, spec, "x").text);
  assert(perturbText(text, spec, "x").text !== text);
  assertThrows(() => parseAblation("perturb:typo@0.1"), ConfigError);
  assertThrows(() => parseAblation("perturb:shape@2"), ConfigError);
});

Deno.test("none-of-the-above: the correct option's text is replaced, the key letter kept", async () => {
  const samples = await loadClimedBench(SAMPLE);
  const spec = parseAblation("perturb:nota").perturb!;
  const item = samples.find((s) => s.id === "ID1-0001")!;
  const result = perturbSample(item, spec);
  assert(result.applied);
  assert(result.sample.input.includes("B: 以上都不是"));
  assert(!result.sample.input.includes("急性前壁心肌梗死"));
  assertEquals(result.sample.reference, "B");
  // The item's choices follow: the key's option now reads "none of the above", and a reply giving that text
  // is read as the key (the original sample is left alone).
  assertEquals(result.sample.choices?.options.B, "以上都不是");
  assertEquals(result.sample.choices?.answer, ["B"]);
  assertEquals(item.choices?.options.B, "急性前壁心肌梗死");
  const scorer = climedScorer();
  const score = async (sample: Sample, answer: string) =>
    (await scorer.score({ sample, answer }, NO_CONTEXT))[0].value;
  assertEquals(await score(result.sample, "以上都不是。"), 1);
  assertEquals(await score(item, "以上都不是。"), 0);
  const sequencing = samples.find((s) => s.id === "SSO-0001")!;
  assertEquals(perturbSample(sequencing, spec).applied, false);
  // Multiple-answer items keep their options: "none of the above" would not be the one right choice.
  const multiple = samples.find((s) => s.id === "BKT-0003")!;
  assertEquals(perturbSample(multiple, spec).applied, false);
});

Deno.test("CliMedBench loader: choice items carry their choices, other items none", async () => {
  const samples = await loadClimedBench(SAMPLE);
  const byId = (id: string) => samples.find((s) => s.id === id)!;
  assertEquals(byId("ID1-0001").choices, {
    labels: ["A", "B", "C", "D"],
    options: { A: "稳定型心绞痛", B: "急性前壁心肌梗死", C: "急性心包炎", D: "主动脉夹层" },
    answer: ["B"],
    multiple: false,
  });
  assertEquals(byId("BKT-0003").choices?.answer, ["A", "B", "D"]);
  assertEquals(byId("BKT-0003").choices?.multiple, true);
  assertEquals(byId("SSO-0001").choices, undefined);
  for (const sample of samples) {
    const choice = sample.fields.question_type === "single_choice" ||
      sample.fields.question_type === "multiple_choice";
    assertEquals(sample.choices !== undefined, choice, sample.id);
    // Every sample (with its choices) is what the run store accepts back.
    assertEquals(SampleSchema.parse(JSON.parse(JSON.stringify(sample))), sample);
  }
});

Deno.test("CliMedBench loader: items share their repeated values, and a perturbation of one leaves the others", async () => {
  const samples = await loadClimedBench(SAMPLE);
  const choice = samples.filter((s) => s.choices?.labels.join("") === "ABCD");
  assert(choice.length >= 2);
  // One list of option letters for every item with the same letters (a large file holds one, not one each).
  assert(choice.every((s) => s.choices!.labels === choice[0].choices!.labels));
  const sameKey = choice.filter((s) => s.choices!.answer.join() === choice[0].choices!.answer.join());
  assert(sameKey.every((s) => s.choices!.answer === sameKey[0].choices!.answer));
  const before = JSON.stringify(samples);
  const spec = parseAblation("perturb:nota").perturb!;
  const perturbed = samples.map((s) => perturbSample(s, spec));
  assert(perturbed.some((p) => p.applied));
  assertEquals(JSON.stringify(samples), before);
});

Deno.test("CliMedBench scorer: choice items keep their score detail (keys and order) through the shared scorer", async () => {
  const samples = await loadClimedBench(SAMPLE);
  const scorer = climedScorer();
  const detail = async (id: string, answer: string) => {
    const sample = samples.find((s) => s.id === id)!;
    const [score] = await scorer.score({ sample, answer }, NO_CONTEXT);
    return JSON.stringify([score.value, score.values, score.detail]);
  };
  assertEquals(
    await detail("ID1-0001", "答案：B"),
    JSON.stringify([1, null, {
      metric: "accuracy",
      extracted: ["B"],
      method: "cue",
      extraction_failed: false,
    }]),
  );
  assertEquals(
    await detail("BKT-0003", "答案：A、B和D"),
    JSON.stringify([1, null, {
      metric: "accuracy",
      extracted: ["A", "B", "D"],
      method: "cue",
      extraction_failed: false,
    }]),
  );
  assertEquals(
    await detail("ID1-0001", "答案：B或C"),
    JSON.stringify([0, null, {
      metric: "accuracy",
      extracted: null,
      method: "cue",
      extraction_failed: true,
      failure: "ambiguous",
    }]),
  );
});

Deno.test("paired statistics: McNemar exact p and paired bootstrap difference", () => {
  // b = 5 (1→0), c = 0: p = 2 * 0.5^5 = 0.0625.
  const m = mcnemarExact([1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]);
  assertEquals([m.b, m.c], [5, 0]);
  assertAlmostEquals(m.p, 0.0625, 1e-12);
  const d = pairedDifference([0, 0, 1, 1], [1, 1, 1, 1]);
  assertEquals(d.diff.value, 0.5);
  // Resampled means of {1, 1, 0, 0} lie in [0, 1] and spread around 0.5.
  const [lo, hi] = d.diff.ci95!;
  assert(lo >= 0 && hi <= 1 && lo < 0.5 && 0.5 < hi, `CI [${lo}, ${hi}]`);
});

Deno.test("CliMedBench loader: one-line errors naming file, line and field", async () => {
  const dir = await Deno.makeTempDir();
  const write = async (lines: unknown[]) => {
    const path = `${dir}/bad.jsonl`;
    await Deno.writeTextFile(
      path,
      lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n"),
    );
    return path;
  };
  const good = { id: "X1", scenario: "BKT", question: "q", options: { A: "a", B: "b" }, answer: "A" };
  const cases: [unknown[], RegExp][] = [
    [[good, { ...good, id: "X2", scenario: "XYZ" }], /line 2: field "scenario"/],
    [[{ ...good, answer: "C" }], /line 1: field "answer": answer names option\(s\) C/],
    [[{ ...good, answer: "AB" }], /single_choice answer must be one letter/],
    [[good, good], /line 2: field "id": duplicate id X1/],
    [[{ ...good, scenario: "SSO", answer: "AA" }], /sequencing answer must order every step exactly once/],
    [[{ id: "K", scenario: "KE", question: "q" }], /field "reference"/],
    [["{not json"], /line 1: not JSON/],
    // Records are read one at a time (no parsed line is held for all the file): the first bad one in file order
    // is named, whatever is wrong with a later one.
    [[good, { ...good, id: "X2", answer: "Z" }, "{not json"], /line 2: field "answer"/],
  ];
  for (const [lines, pattern] of cases) {
    const path = await write(lines);
    const err = await loadClimedBench(path).then(() => null, (e) => e);
    assert(err instanceof InputError, `expected InputError for ${pattern}`);
    assert(pattern.test(err.message), err.message);
    assert(err.message.startsWith(path) && !err.message.includes("\n"), err.message);
  }
});
