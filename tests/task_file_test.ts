import { assert, assertAlmostEquals, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { getTask } from "../lib/benchmarks/registry.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import { loadTaskFile } from "../lib/task_file/index.ts";
import { parseTaskFile } from "../lib/task_file/schema.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

/** Returns one CSV line (every field quoted). */
function csv(fields: readonly string[]): string {
  return fields.map((f) => `"${f.replaceAll('"', '""')}"`).join(",");
}

const SPECIALTIES = ["cardiology", "neurology", "renal"];

/** The fake model's MCQ reply: a letter from the question's hash, or no answer for some questions. */
function plannedLetter(question: string): string | null {
  const h = parseInt(sha256Hex(question).slice(0, 8), 16);
  return h % 5 === 0 ? null : "ABCD"[h % 4];
}

function mcqReply(body: FakeChatBody): string {
  const user = body.messages.findLast((m) => m.role === "user")?.content ?? "";
  const letter = plannedLetter(user.split("\n")[0]);
  return letter === null ? "I cannot tell from the options given." : `Reasoning in brief.\nAnswer: ${letter}`;
}

interface McqItem {
  id: string;
  question: string;
  options: string[];
  answer: string;
  specialty: string;
  level: string;
}

/** Items whose key is the fake's letter for every other item, so some answers are right and some wrong. */
function mcqItems(n: number, prefix: string): McqItem[] {
  return Array.from({ length: n }, (_, i) => {
    const question = `${prefix} question ${i + 1}: which option is item ${i + 1} about?`;
    const planned = plannedLetter(question) ?? "A";
    const answer = i % 2 === 0 ? planned : "ABCD"[("ABCD".indexOf(planned) + 1) % 4];
    return {
      id: `${prefix}-${i + 1}`,
      question,
      options: ["alpha", "beta", "gamma", "delta"].map((o) => `${o} ${i + 1}`),
      answer,
      specialty: SPECIALTIES[i % 3],
      level: i < n / 2 ? "easy" : "hard",
    };
  });
}

/** Returns the CSV file of `items`: a header, then one row per item (option columns A-D). */
function mcqCsv(items: readonly McqItem[]): string {
  return [
    csv(["qid", "stem", "A", "B", "C", "D", "key", "specialty", "level"]),
    ...items.map((it) => csv([it.id, it.question, ...it.options, it.answer, it.specialty, it.level])),
  ].join("\n") + "\n";
}

async function writeMcqTask(dir: string, conditions = "[cot, fewshot, perturb:nota]"): Promise<McqItem[]> {
  const test = mcqItems(12, "test");
  await Deno.writeTextFile(`${dir}/test.csv`, mcqCsv(test));
  await Deno.writeTextFile(`${dir}/train.csv`, mcqCsv(mcqItems(4, "train")));
  await Deno.writeTextFile(
    `${dir}/mcq.yaml`,
    `name: my_mcq
language: en
data:
  path: test.csv
  train: train.csv
columns:
  id: qid
  input: stem
  options: [A, B, C, D]
  answer: key
groups: [specialty, level]
prompt:
  fewshot: "Exemplar answer: {{answer}}"
scorer:
  kind: choice
conditions: ${conditions}
`,
  );
  return test;
}

Deno.test("an MCQ task file runs end to end: tables by its groups, recomputed accuracy, resume, ablations", async () => {
  const server = await startFakeServer({ reply: mcqReply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    const items = await writeMcqTask(dir);
    const out = `${dir}/run`;
    const args = [
      "eval",
      `${dir}/mcq.yaml`,
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--out",
      out,
      "--no-render",
      "--quiet",
      "--ablation",
      "cot",
      "--ablation",
      "fewshot:2",
      "--ablation",
      "perturb:nota",
    ];
    const first = await runCli(args);
    assertEquals(first.code, 0, first.stderr);

    // Accuracy recomputed from the script, overall and per group field.
    const correct = (it: McqItem): number => plannedLetter(it.question) === it.answer ? 1 : 0;
    const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    assertEquals(summary.benchmark, "my_mcq");
    const all = items.map(correct);
    assertAlmostEquals(summary.metrics.accuracy.value!, all.reduce((a, b) => a + b, 0) / items.length, 1e-12);
    assert(all.includes(0) && all.includes(1), "the script must give right and wrong answers");
    for (const [field, key] of [["specialty", "specialty"], ["level", "level"]] as const) {
      for (const value of new Set(items.map((it) => it[key]))) {
        const members = items.filter((it) => it[key] === value);
        const est = summary.groups[field][value].accuracy;
        assertEquals(est.n, members.length, `${field}=${value}`);
        assertAlmostEquals(
          est.value!,
          members.map(correct).reduce((a, b) => a + b, 0) / members.length,
          1e-12,
        );
      }
    }
    const failures = items.filter((it) => plannedLetter(it.question) === null).length;
    assertEquals(summary.counts.extraction_failures, failures);
    for (const name of ["overview", "by_specialty", "by_level", "ablation_cot", "ablation_fewshot_2"]) {
      assert((await Deno.stat(`${out}/tables/${name}.md`)).size > 0, name);
    }
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/by_specialty.md`), "| cardiology |");

    // The conditions reached the model: CoT instruction, two exemplars in the fewshot template, nota option.
    const bodies = server.requests.map((r) => r.body as FakeChatBody);
    assert(bodies.some((b) => b.messages.at(-1)!.content.includes("Think step by step")));
    const shots = bodies.filter((b) => b.messages.some((m) => m.content.startsWith("Exemplar answer: ")));
    assertEquals(shots.length, items.length);
    assert(shots.every((b) => b.messages.filter((m) => m.role === "assistant").length === 2));
    assert(bodies.some((b) => b.messages.at(-1)!.content.includes("None of the above")));

    // --resume sends nothing again.
    const sent = server.requests.length;
    assertEquals(sent, 4 * items.length);
    const again = await runCli([...args, "--resume"]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals(server.requests.length, sent);
    assertEquals(
      JSON.parse(await Deno.readTextFile(`${out}/summary.json`)).metrics,
      JSON.parse(JSON.stringify(summary.metrics)),
    );

    // A perturbation kind the file does not declare is refused before anything is sent.
    const refused = await runCli([
      ...args.slice(0, 6),
      "--out",
      `${dir}/other`,
      "--ablation",
      "perturb:homophone",
    ]);
    assertEquals(refused.code, 2);
    assertStringIncludes(refused.errors[0], "my_mcq does not declare perturb among its conditions");
    assertEquals(server.requests.length, sent);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an MCQ task file without a train split or perturbations refuses --ablation fewshot and perturb", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await writeMcqTask(dir, "[cot]");
    const spec = await Deno.readTextFile(`${dir}/mcq.yaml`);
    await Deno.writeTextFile(`${dir}/mcq.yaml`, spec.replace("  train: train.csv\n", ""));
    for (const ablation of ["fewshot", "perturb:nota"]) {
      const result = await runCli([
        "eval",
        `${dir}/mcq.yaml`,
        "--model",
        "offline:reference",
        "--out",
        `${dir}/run`,
        "--ablation",
        ablation,
      ]);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.errors.length, 1);
      assertStringIncludes(result.errors[0], "my_mcq");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const OPEN_QA = `name: my_open_qa
title: Open QA test
language: zh
data:
  path: data.jsonl
groups: [category]
scorer:
  kind: judge
  rubric: |
    Grade the answer 1-5 against the reference.
    ### Question
    {{input}}
    ### Reference answer
    {{reference}}
    ### Student's answer
    {{answer}}
  pass: 4
conditions: [cot, perturb]
`;

const OPEN_ITEMS = Array.from({ length: 10 }, (_, i) => ({
  id: `q${i + 1}`,
  question: `问题${i + 1}：发热${i + 1}天应该怎么办？`,
  reference: `参考答案${i + 1}：多饮水，必要时就医。`,
  category: ["用药", "急救", "预防"][i % 3],
}));

Deno.test("a judged open-QA task file runs end to end: scores by category recomputed from the judge's script, resume", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await Deno.writeTextFile(`${dir}/qa.yaml`, OPEN_QA);
    await Deno.writeTextFile(
      `${dir}/data.jsonl`,
      OPEN_ITEMS.map((it) => JSON.stringify(it)).join("\n") + "\n",
    );
    const out = `${dir}/run`;
    const args = [
      "eval",
      `${dir}/qa.yaml`,
      "--model",
      "fake-model",
      "--base-url",
      server.url,
      "--judge",
      "fake-judge",
      "--judge-base-url",
      server.url,
      "--judge-runs",
      "3",
      "--out",
      out,
      "--no-render",
      "--quiet",
      "--ablation",
      "cot",
      "--ablation",
      "perturb:homophone@0.2",
    ];
    const first = await runCli(args);
    // Some answers always confuse the scripted judge: those scores fail for good (exit 1), the rest count.
    assert(first.code === 0 || first.code === 1, first.stderr);

    const scoreOf = (question: string) => {
      const valid = [1, 2, 3].map((run) => plannedScore(questionTag(question), run)).filter((s) =>
        s !== null
      );
      return valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : null;
    };
    const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    for (const category of new Set(OPEN_ITEMS.map((it) => it.category))) {
      const scores = OPEN_ITEMS.filter((it) => it.category === category).map((it) => scoreOf(it.question))
        .filter((s): s is number => s !== null);
      const est = summary.groups.category[category];
      assertEquals(est.score.n, scores.length, category);
      if (scores.length) {
        assertAlmostEquals(est.score.value!, scores.reduce((a, b) => a + b, 0) / scores.length, 1e-12);
        const acceptable = scores.filter((s) => s >= 4).length / scores.length;
        assertAlmostEquals(est.acceptable.value!, acceptable, 1e-12);
      }
    }
    assert((await Deno.stat(`${out}/tables/by_category.md`)).size > 0);
    const judged = server.requests.filter((r) =>
      (r.body as FakeChatBody).messages.some((m) => m.content.includes("### Student's answer"))
    );
    assert(judged.length >= 3 * OPEN_ITEMS.length);

    const sent = server.requests.length;
    const again = await runCli([...args, "--resume"]);
    assertEquals(again.code, first.code, again.stderr);
    // Only calls that failed for good (the judge replies that never validated) may be asked again.
    const repeated = server.requests.slice(sent).filter((r) => {
      const user = (r.body as FakeChatBody).messages.find((m) => m.role === "user")?.content ?? "";
      const tag = user.match(/Fake answer ([0-9a-f]{8})/)?.[1];
      return !tag || plannedScore(tag, 1) !== null || plannedScore(tag, 2) !== null;
    });
    assertEquals(repeated.length, 0);

    // fewshot is refused: the file declares no train split.
    const refused = await runCli([...args.slice(0, 12), "--out", `${dir}/other`, "--ablation", "fewshot"]);
    assertEquals(refused.code, 2);
    assertStringIncludes(refused.errors[0], "my_open_qa does not declare fewshot among its conditions");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("task file errors are one line naming the file, the line and the key", async (t) => {
  const base = `language: en\ndata:\n  path: d.jsonl\nscorer:\n  kind: exact\n`;
  const cases: [string, string, string][] = [
    [
      "a wrong scorer kind",
      base.replace("kind: exact", "kind: choise"),
      'x.yaml: line 5: key "scorer.kind": expected one of choice, sequence, rouge1, similarity, judge, exact, regex',
    ],
    [
      "an unknown key, with the closest",
      base + "grups: [a]\n",
      'x.yaml: line 6: key "grups": unknown key; did you mean "groups"?',
    ],
    [
      "an unknown nested key",
      base.replace("  path:", "  paht:"),
      'x.yaml: line 3: key "data.paht": unknown key; did you mean "data.path"?',
    ],
    [
      "a missing key",
      "language: en\nscorer:\n  kind: exact\n",
      'x.yaml: line 1: key "data": missing (expected object)',
    ],
    [
      "a key its scorer does not read",
      base + "  pattern: x\n",
      'x.yaml: line 6: key "scorer.pattern": not used by a exact scorer',
    ],
    [
      "a regex without a capture",
      base.replace("kind: exact", "kind: regex\n  pattern: 'Answer: \\w'"),
      'x.yaml: line 6: key "scorer.pattern": needs a capture group',
    ],
    [
      "fewshot without a train split",
      base + "conditions: [cot, fewshot]\n",
      'x.yaml: line 6: key "conditions.1": fewshot needs data.train',
    ],
    ["bad YAML", "language: en\ndata: [\n", "x.yaml: line 3: not valid YAML/JSON"],
    [
      "a choice scorer without options",
      base.replace("kind: exact", "kind: choice"),
      'x.yaml: line 5: key "scorer.kind": a choice scorer needs columns.choices',
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, () => {
      let error: unknown;
      try {
        parseTaskFile(text, "x.yaml");
      } catch (err) {
        error = err;
      }
      assert(error instanceof ConfigError, `${name}: no error`);
      assertStringIncludes(error.message, message);
      assert(!error.message.includes("\n"));
    });
  }
  // A JSON task file is read the same way, lines included.
  let error: unknown;
  try {
    parseTaskFile(
      '{\n"language": "en",\n"data": {"path": "d.jsonl"},\n"scorer": {"kind": "judge", "rubric": "{{answer}}", "scael": [1, 5]}\n}',
      "x.json",
    );
  } catch (err) {
    error = err;
  }
  assertStringIncludes(
    String((error as Error).message),
    'x.json: line 4: key "scorer.scael": unknown key; did you mean "scorer.scale"?',
  );

  // Through the command line: exit 2, one line, nothing written.
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await Deno.writeTextFile(`${dir}/bad.yaml`, base + "grups: [a]\n");
    const result = await runCli([
      "eval",
      `${dir}/bad.yaml`,
      "--model",
      "offline:reference",
      "--out",
      `${dir}/run`,
    ]);
    assertEquals(result.code, 2);
    assertEquals(result.errors, [
      `error: ${dir}/bad.yaml: line 6: key "grups": unknown key; did you mean "groups"?`,
    ]);
    assert(!(await Deno.stat(`${dir}/run`).catch(() => null)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad records are one line naming the file, the record and the field", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    const items = await writeMcqTask(dir);
    const task = await loadTaskFile(`${dir}/mcq.yaml`);
    const test = await Deno.readTextFile(`${dir}/test.csv`);
    const changed = (i: number, change: Partial<McqItem>) =>
      mcqCsv(items.map((it, j) => (j === i ? { ...it, ...change } : it)));
    const cases: [string, string | Uint8Array, string][] = [
      [
        "an answer that is no option",
        changed(2, { answer: "E" }),
        'line 4: field "key": expected option letters of ABCD',
      ],
      [
        "two answers to a single-answer item",
        changed(1, { answer: "AB" }),
        'line 3: field "key": expected one letter',
      ],
      [
        "a missing question",
        changed(0, { question: "" }),
        'line 2: field "stem": expected the question text',
      ],
      ["a duplicate id", mcqCsv([...items, items[0]]), "duplicate id test-1"],
      [
        "broken UTF-8",
        new Uint8Array([...new TextEncoder().encode(`qid,stem\n"x","caf`), 0xe9, 0x22, 0x0a]),
        "not valid UTF-8",
      ],
    ];
    for (const [name, content, message] of cases) {
      await t.step(name, async () => {
        const path = `${dir}/bad.csv`;
        if (typeof content === "string") await Deno.writeTextFile(path, content);
        else await Deno.writeFile(path, content);
        const error = await assertRejects(() => task.load(path), InputError);
        assertStringIncludes(error.message, `${path}: `);
        assertStringIncludes(error.message, message);
        assert(!error.message.includes("\n"));
      });
    }
    await t.step("an unknown --columns key names the known ones", async () => {
      await assertRejects(
        () => task.load(`${dir}/test.csv`, { columns: { stem2: "x" } }),
        InputError,
        "known: id, input",
      );
    });
    await t.step("--columns renames a column", async () => {
      await Deno.writeTextFile(`${dir}/renamed.csv`, test.replace('"stem"', '"Question"'));
      const samples = await task.load(`${dir}/renamed.csv`, { columns: { input: "Question" } });
      assertEquals(samples.length, 12);
      assertEquals(samples[0].choices?.labels, ["A", "B", "C", "D"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the shipped task files load by path and by name, within 40 lines, and their data is valid", async () => {
  for (const name of ["medqa_style", "zh_open_qa"]) {
    const text = await Deno.readTextFile(`${ROOT}tasks/${name}.yaml`);
    assert(text.trim().split("\n").length <= 40, `${name}.yaml has more than 40 lines`);
    const byPath = await getTask(`${ROOT}tasks/${name}.yaml`);
    const byName = await getTask(name);
    assertEquals(byName.name, name);
    assertEquals(byPath.defaultDataPath, byName.defaultDataPath);
    const samples = await byName.load(`${ROOT}${byName.defaultDataPath}`);
    assert(samples.length >= 15);
    for (const field of byName.groupFields) assert(samples.every((s) => s.fields[field] !== null), field);
  }
  const mcq = await getTask("medqa_style");
  const samples = await mcq.load(`${ROOT}${mcq.defaultDataPath}`);
  assert(samples.every((s) => s.choices && s.choices.answer.length === 1 && s.choices.labels.length >= 4));
  const train = await mcq.auxiliary![0].load(`${ROOT}${mcq.auxiliary![0].defaultPath}`);
  assert(train.every((s) => /Answer: [A-E]$/.test(s.reference!)));
  await assertRejects(() => getTask("no_such_task"), ConfigError, "task file");
});
