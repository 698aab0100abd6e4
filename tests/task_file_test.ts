import { assert, assertAlmostEquals, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { getTask } from "../lib/benchmarks/registry.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import { loadTaskFile } from "../lib/task_file/index.ts";
import { loadTaskFileParser, parseTaskFile, readTaskFile } from "../lib/task_file/schema.ts";
import { declaredAblations } from "../lib/task_file/task.ts";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";

// parseTaskFile reads with the YAML parser, loaded on demand.
await loadTaskFileParser();

/** Runs `deno task eval TASK --model offline:reference --out OUT --no-render --quiet` with `extra` flags. */
function offlineEval(task: string, out: string, extra: string[] = []) {
  return runCli([
    "eval",
    task,
    "--model",
    "offline:reference",
    "--out",
    out,
    "--no-render",
    "--quiet",
    ...extra,
  ]);
}

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
      'x.yaml: line 1: key "data": missing (expected a mapping of keys)',
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
    [
      "a value of the wrong type is not missing: it says what was found",
      base.replace("kind: exact", "kind: choice\n  multiple: no") + "columns:\n  choices: o\n",
      'x.yaml: line 6: key "scorer.multiple": expected true or false, found the string "no"',
    ],
    [
      "a number given as text",
      base + "generation:\n  max_tokens: '512'\n",
      'x.yaml: line 7: key "generation.max_tokens": expected a number, found the string "512"',
    ],
    [
      "one group given without a list",
      base + "groups: specialty\n",
      'x.yaml: line 6: key "groups": expected a list, found the string "specialty"',
    ],
    [
      "a Han-character perturbation on an English task",
      base + "conditions: [cot, perturb:shape]\n",
      'x.yaml: line 6: key "conditions.1": perturb:shape does not apply to this task: shape changes Han characters: it needs language zh (this task\'s language is en)',
    ],
    [
      "nota on a task without single-answer choice items",
      base + "conditions:\n  - perturb:nota\n",
      'x.yaml: line 7: key "conditions.0": perturb:nota does not apply to this task: nota needs a single-answer choice scorer',
    ],
    [
      "perturb when no perturbation applies",
      base + "conditions: [perturb]\n",
      'x.yaml: line 6: key "conditions.0": no perturbation applies to this task',
    ],
    [
      "an unknown perturbation kind",
      base.replace("language: en", "language: zh") + "conditions: [perturb:shapes]\n",
      'x.yaml: line 6: key "conditions.0": unknown perturbation kind "shapes" (known: shape, homophone',
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

Deno.test("language may be left out: it defaults to en", () => {
  const spec = parseTaskFile("data:\n  path: d.jsonl\nscorer:\n  kind: exact\n", "x.yaml");
  assertEquals(spec.language, "en");
});

/** A new user's CSV: its own column names, capitalised (`qid,Question,A,B,C,D,Answer,Specialty`). */
const USER_HEADER = ["qid", "Question", "A", "B", "C", "D", "Answer", "Specialty"];

function userCsv(rows: readonly (readonly string[])[], header: readonly string[] = USER_HEADER): string {
  return [csv(header), ...rows.map(csv)].join("\n") + "\n";
}

/** Eight questions; the fifth has no specialty. */
const USER_ROWS = Array.from({ length: 8 }, (_, i) => [
  `u${i + 1}`,
  `Question ${i + 1}: which option?`,
  `alpha ${i}`,
  `beta ${i}`,
  `gamma ${i}`,
  `delta ${i}`,
  "ABCD"[i % 4],
  i === 4 ? "" : ["cardiology", "renal"][i % 2],
]);

function userTask(extra = "", groups = "[Specialty]"): string {
  return `name: user_mcq
data:
  path: data.csv
columns:
  id: qid
  input: Question
  options: [A, B, C, D]
  answer: Answer
groups: ${groups}
scorer:
  kind: choice
${extra}`;
}

Deno.test("every column a task file names must be in the data file: one line naming the key, before anything runs", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await Deno.writeTextFile(`${dir}/data.csv`, userCsv(USER_ROWS));
    const columns = "qid, Question, A, B, C, D, Answer, Specialty";
    const cases: [string, string, string][] = [
      [
        "a group field in another case",
        userTask("", "[specialty]"),
        `no column "specialty", named by key "groups" of ${dir}/task.yaml (columns: ${columns}; did you mean "Specialty"?)`,
      ],
      [
        "a group field the file does not have",
        userTask("", "[Specialty, ward]"),
        `no column "ward", named by key "groups" of ${dir}/task.yaml (columns: ${columns})`,
      ],
      [
        "an answer column",
        userTask().replace("answer: Answer", "answer: answer"),
        `no column "answer", named by key "columns.answer" of ${dir}/task.yaml (columns: ${columns}; did you mean "Answer"?)`,
      ],
      [
        "the id by default",
        userTask().replace("  id: qid\n", ""),
        `no column "id", named by key "columns.id" (default "id")`,
      ],
      [
        "a declared option column",
        userTask().replace("[A, B, C, D]", "[A, B, C, D, E]"),
        `no column "E", named by key "columns.options"`,
      ],
      [
        "a column of the user template",
        userTask("prompt:\n  user: '{{Question}} ({{specialty}})'\n"),
        `no column "specialty", named by {{specialty}} in key "prompt.user"`,
      ],
      [
        "a reference column a choice task names",
        userTask().replace("answer: Answer", "answer: Answer\n  reference: Explanation"),
        `no column "Explanation", named by key "columns.reference"`,
      ],
    ];
    for (const [name, text, message] of cases) {
      await t.step(name, async () => {
        await Deno.writeTextFile(`${dir}/task.yaml`, text);
        const task = await loadTaskFile(`${dir}/task.yaml`);
        const error = await assertRejects(() => task.load(`${dir}/data.csv`), InputError);
        assertEquals(error.message.split(message).length, 2, error.message);
        assert(error.message.startsWith(`${dir}/data.csv: no column`), error.message);
      });
    }
    await t.step("a column renamed by --columns is named by the flag", async () => {
      await Deno.writeTextFile(`${dir}/task.yaml`, userTask());
      const task = await loadTaskFile(`${dir}/task.yaml`);
      await assertRejects(
        () => task.load(`${dir}/data.csv`, { columns: { answer: "Key", Specialty: "Dept" } }),
        InputError,
        `no column "Key", named by --columns answer=Key`,
      );
      await assertRejects(
        () => task.load(`${dir}/data.csv`, { columns: { Specialty: "Dept" } }),
        InputError,
        `no column "Dept", named by --columns Specialty=Dept`,
      );
    });
    await t.step("JSONL: the columns are the keys of all records together", async () => {
      await Deno.writeTextFile(
        `${dir}/data.jsonl`,
        [
          { qid: "j1", Question: "q1?", A: "a", B: "b", Answer: "A" },
          { qid: "j2", Question: "q2?", A: "a", B: "b", Answer: "B", Specialty: "renal" },
        ].map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
      await Deno.writeTextFile(
        `${dir}/task.yaml`,
        userTask().replace("data.csv", "data.jsonl").replace("[A, B, C, D]", "[A, B]"),
      );
      const task = await loadTaskFile(`${dir}/task.yaml`);
      assertEquals((await task.load(`${dir}/data.jsonl`)).map((s) => s.fields.Specialty), [null, "renal"]);
      await Deno.writeTextFile(
        `${dir}/task.yaml`,
        userTask("", "[specialty]").replace("data.csv", "data.jsonl").replace("[A, B, C, D]", "[A, B]"),
      );
      await assertRejects(
        () => loadTaskFile(`${dir}/task.yaml`).then((t) => t.load(`${dir}/data.jsonl`)),
        InputError,
        '(columns: qid, Question, A, B, Answer, Specialty; did you mean "Specialty"?)',
      );
    });
    await t.step("the few-shot template's columns are checked in the train split", async () => {
      await Deno.writeTextFile(`${dir}/train.csv`, userCsv(USER_ROWS.slice(0, 3)));
      await Deno.writeTextFile(
        `${dir}/task.yaml`,
        userTask("prompt:\n  fewshot: '{{explanation}} Answer: {{answer}}'\n")
          .replace("  path: data.csv\n", "  path: data.csv\n  train: train.csv\n"),
      );
      const task = await loadTaskFile(`${dir}/task.yaml`);
      await task.load(`${dir}/data.csv`);
      await assertRejects(
        () => task.auxiliary![0].load(`${dir}/train.csv`),
        InputError,
        `${dir}/train.csv: no column "explanation", named by {{explanation}} in key "prompt.fewshot"`,
      );
    });
    await t.step("through the command line: exit 2, one line, nothing written", async () => {
      await Deno.writeTextFile(`${dir}/task.yaml`, userTask("", "[specialty]"));
      const result = await runCli([
        "eval",
        `${dir}/task.yaml`,
        "--model",
        "offline:reference",
        "--out",
        `${dir}/run`,
      ]);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.errors, [
        `error: ${dir}/data.csv: no column "specialty", named by key "groups" of ${dir}/task.yaml (columns: ${columns}; did you mean "Specialty"?)`,
      ]);
      assert(!(await Deno.stat(`${dir}/run`).catch(() => null)));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a sample without a group value is tabulated as (missing): the groups add up to the total, and a note says how many", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await Deno.writeTextFile(`${dir}/data.csv`, userCsv(USER_ROWS));
    await Deno.writeTextFile(`${dir}/task.yaml`, userTask());
    const out = `${dir}/run`;
    const result = await offlineEval(`${dir}/task.yaml`, out);
    assertEquals(result.code, 0, result.stderr);
    const summary = SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/summary.json`)));
    assertEquals(summary.n, 8);
    const groups = summary.groups.Specialty;
    assertEquals(Object.keys(groups).sort(), ["(missing)", "cardiology", "renal"]);
    assertEquals(groups["(missing)"].accuracy.n, 1);
    assertEquals(Object.values(groups).reduce((sum, g) => sum + g.accuracy.n, 0), 8);
    assert(
      summary.notes.includes('Specialty: 1 of 8 samples have no value in the data; tabulated as "(missing)"'),
      summary.notes.join("\n"),
    );
    assertStringIncludes(await Deno.readTextFile(`${out}/tables/by_Specialty.md`), "| (missing) |");
    // A choice task has no judge: no judge runs.
    assertEquals(summary.judge_runs, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("options: a declared option column must exist; only the last options of a row may be empty", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await Deno.writeTextFile(`${dir}/task.yaml`, userTask());
    const task = await loadTaskFile(`${dir}/task.yaml`);
    const withRow = (i: number, row: string[]) => userCsv(USER_ROWS.map((r, j) => (j === i ? row : r)));
    await t.step("an empty last option: a 3-option question", async () => {
      await Deno.writeTextFile(
        `${dir}/data.csv`,
        withRow(1, ["u2", "Question 2?", "alpha", "beta", "gamma", "", "C", "renal"]),
      );
      const samples = await task.load(`${dir}/data.csv`);
      assertEquals(samples[1].choices?.labels, ["A", "B", "C"]);
    });
    await t.step("an answer naming an empty option says so", async () => {
      await Deno.writeTextFile(
        `${dir}/data.csv`,
        withRow(1, ["u2", "Question 2?", "alpha", "beta", "gamma", "", "D", "renal"]),
      );
      await assertRejects(
        () => task.load(`${dir}/data.csv`),
        InputError,
        `${dir}/data.csv: line 3: field "Answer": expected option letters of ABC (found string "D"; the cell of option D is empty)`,
      );
    });
    await t.step(
      "an empty option before a filled one is an error naming the row and the column",
      async () => {
        await Deno.writeTextFile(
          `${dir}/data.csv`,
          withRow(2, ["u3", "Question 3?", "alpha", "", "gamma", "delta", "A", "renal"]),
        );
        await assertRejects(
          () => task.load(`${dir}/data.csv`),
          InputError,
          `${dir}/data.csv: line 4: field "B": empty option before option D (only the last options may be empty)`,
        );
      },
    );
    await t.step("option column D deleted from the file", async () => {
      await Deno.writeTextFile(
        `${dir}/data.csv`,
        userCsv(USER_ROWS.map((r) => r.filter((_, i) => i !== 5)), USER_HEADER.filter((h) => h !== "D")),
      );
      await assertRejects(
        () => task.load(`${dir}/data.csv`),
        InputError,
        `${dir}/data.csv: no column "D", named by key "columns.options"`,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a judge rubric's placeholders are checked against every record before the model is called", async (t) => {
  const server = await startFakeServer({ reply: scriptedReply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    const items = OPEN_ITEMS.slice(0, 4).map((it, i) => (i === 2 ? { ...it, reference: "" } : it));
    await Deno.writeTextFile(`${dir}/data.jsonl`, items.map((it) => JSON.stringify(it)).join("\n") + "\n");
    const run = (spec: string) =>
      Deno.writeTextFile(`${dir}/qa.yaml`, spec).then(() =>
        runCli([
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
          "--out",
          `${dir}/run`,
          "--no-render",
          "--quiet",
        ])
      );
    await t.step("a record without the reference the rubric shows", async () => {
      const result = await run(OPEN_QA);
      assertEquals(result.code, 2, result.stderr);
      assertEquals(result.errors, [
        `error: ${dir}/data.jsonl: line 3: field "reference": key "scorer.rubric" uses {{reference}} but the record has no such value`,
      ]);
    });
    await t.step("a reference column the file does not have", async () => {
      const result = await run(OPEN_QA.replace("groups:", "columns:\n  reference: answer_text\ngroups:"));
      assertEquals(result.code, 2, result.stderr);
      assertStringIncludes(result.errors[0], `${dir}/data.jsonl: no column "answer_text"`);
      assertStringIncludes(result.errors[0], 'named by key "columns.reference"');
    });
    await t.step("a column of the rubric the file does not have", async () => {
      const result = await run(OPEN_QA.replace("{{input}}", "{{input}} ({{Category}})"));
      assertEquals(result.code, 2, result.stderr);
      assertStringIncludes(
        result.errors[0],
        `no column "Category", named by {{Category}} in key "scorer.rubric" of ${dir}/qa.yaml`,
      );
      assertStringIncludes(result.errors[0], 'did you mean "category"?');
    });
    assertEquals(server.requests.length, 0);
    assert(!(await Deno.stat(`${dir}/run`).catch(() => null)));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fewshot:K with fewer usable train exemplars: the note states the number used", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-taskfile-" });
  try {
    await writeMcqTask(dir, "[fewshot]");
    await Deno.writeTextFile(`${dir}/train.csv`, mcqCsv(mcqItems(3, "train")));
    const out = `${dir}/run`;
    const result = await offlineEval(`${dir}/mcq.yaml`, out, [
      "--ablation",
      "fewshot:5",
      "--ablation",
      "fewshot:2",
    ]);
    assertEquals(result.code, 0, result.stderr);
    const notes = async (name: string) =>
      SummarySchema.parse(JSON.parse(await Deno.readTextFile(`${out}/conditions/${name}/summary.json`)))
        .notes;
    const five = (await notes("fewshot_5")).find((n) => n.startsWith("few-shot:"));
    assertEquals(
      five,
      "few-shot: 3 exemplars (not the 5 asked for: the train split has 3 with an answer) per question drawn from the train split (seed 0), duplicates of the question excluded; ids in samples.jsonl",
    );
    // Every question really got 3.
    const lines = (await Deno.readTextFile(`${out}/conditions/fewshot_5/samples.jsonl`)).trim().split("\n");
    assert(lines.length === 12 && lines.every((l) => JSON.stringify(JSON.parse(l)).includes("train-3")));
    // K within the split: the note is as before.
    assertEquals(
      (await notes("fewshot_2")).find((n) => n.startsWith("few-shot:")),
      "few-shot: 2 exemplars per question drawn from the train split (seed 0), duplicates of the question excluded; ids in samples.jsonl",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a task file's --help names its data.path as --data's default; the notebook runs every declared condition", async () => {
  const help = await runCli(["eval", `${ROOT}tasks/medqa_style.yaml`, "--help"]);
  assertEquals(help.code, 0, help.stderr);
  assertStringIncludes(help.stdout, "data file (default: data/tasks/medqa_style/test.jsonl)");
  const zh = await readTaskFile(`${ROOT}tasks/zh_open_qa.yaml`);
  assertEquals(declaredAblations(zh, 3), [
    "cot",
    "perturb:shape",
    "perturb:homophone",
    "perturb:traditional",
    "perturb:symbol",
    "perturb:mixed",
  ]);
  const mcq = await readTaskFile(`${ROOT}tasks/medqa_style.yaml`);
  assertEquals(declaredAblations(mcq, 3), ["cot", "fewshot:3", "perturb:nota"]);
  const notebook = await Deno.readTextFile(`${ROOT}notebooks/task_file.ipynb`);
  assertStringIncludes(notebook, "declaredAblations(await readTaskFile(file), 3)");
});
