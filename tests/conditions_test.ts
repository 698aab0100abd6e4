import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import {
  ablationsFor,
  applyCondition,
  checkAblation,
  conditionNote,
  conditionSolver,
  parseAblation,
} from "../lib/ablations/condition.ts";
import { CONDITIONS } from "../lib/ablations/conditions/registry.ts";
import { ROBUSTNESS_SOURCES } from "../lib/ablations/conditions/needs.ts";
import type { ConditionEntry } from "../lib/ablations/conditions/types.ts";
import { getTask } from "../lib/benchmarks/registry.ts";
import { ConfigError } from "../lib/core/errors.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { RoleRequest, SolveContext, Task } from "../lib/core/task.ts";
import { taskOptions } from "../lib/pipeline/eval_options.ts";
import { robustnessSources } from "../lib/robustness/sets.ts";
import { chatSolver } from "../lib/solvers/chat.ts";
import { loadCharacterTables } from "../lib/ablations/perturb.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

/** Each entry: a good spec with the name it stores, bad specs, and what its needs name. */
const CASES: Record<string, { good: [string, string][]; bad: string[]; needs: string[] }> = {
  cot: { good: [["cot", "cot"]], bad: [], needs: [] },
  pivot: {
    good: [["pivot:en", "pivot:en"], ["pivot:pt-BR", "pivot:pt-BR"]],
    bad: ["pivot:", "pivot:EN"],
    needs: [],
  },
  role: { good: [["role", "role"]], bad: [], needs: ["role table"] },
  fewshot: {
    good: [["fewshot", "fewshot:5"], ["fewshot:2", "fewshot:2"]],
    bad: ["fewshot:0", "fewshot:65", "fewshot:x"],
    needs: ["train split"],
  },
  mps: { good: [["mps", "mps"], ["mps:debater2", "mps:debater2"]], bad: ["mps:judge", "mps:A"], needs: [] },
  perturb: {
    good: [["perturb:shape", "perturb:shape@0.12"], ["perturb:mixed@0.3", "perturb:mixed@0.3"]],
    bad: ["perturb:bogus", "perturb:shape@0", "perturb:shape@2"],
    needs: ["Chinese inputs"],
  },
  nota: {
    good: [["perturb:nota", "perturb:nota"]],
    bad: ["perturb:notax"],
    needs: ["multiple-choice items"],
  },
};

function sample(id: string, input: string, fields: Sample["fields"] = {}): Sample {
  return { id, benchmark: "toy", input, reference: `answer to ${id}`, conversation: null, fields, extra: {} };
}

/** A task declaring only what `data` gives (plus the members every task has). */
function toyTask(data: Partial<Task> = {}): Task {
  return {
    name: "toy",
    title: "Toy",
    language: "en",
    defaultDataPath: "toy.jsonl",
    groupFields: [],
    description: "a toy",
    generation: {},
    load: () => Promise.resolve([]),
    solver: chatSolver("BASE"),
    scorers: [],
    report: { metrics: [] },
    rows: () => [],
    aggregate: () => {
      throw new Error("not used");
    },
    ...data,
  };
}

const TRAIN = [sample("t1", "q one"), sample("t2", "q two")];

/** A task declaring everything some condition needs. */
const FULL = toyTask({
  language: "zh",
  choices: true,
  roleTable: {
    field: "dept",
    roles: { a: "cardiologist" },
    fallback: "doctor",
    source: "toy table",
    system: "As {role}.",
  },
  answerLanguage: { system: "Answer in {language}." },
  auxiliary: [{ name: "train", description: "train", load: () => Promise.resolve(TRAIN) }],
});

/** A context whose model answers "ok" and which records every request. */
function recordingContext(): { ctx: SolveContext; sent: [string, RoleRequest][] } {
  const sent: [string, RoleRequest][] = [];
  const ctx: SolveContext = {
    has: () => true,
    members: () => [],
    defaults: () => ({}),
    embed: () => Promise.resolve([]),
    auxiliary: () => TRAIN,
    generate: (role, request) => {
      sent.push([role, request]);
      return Promise.resolve({
        text: "ok",
        callKey: `k${sent.length}`,
        cached: false,
        sent: request.messages,
      });
    },
  };
  return { ctx, sent };
}

function entry(name: string): ConditionEntry {
  return CONDITIONS.find((e) => e.name === name)!;
}

Deno.test("registry: every entry is covered here, in --help order", () => {
  assertEquals(CONDITIONS.map((e) => e.name), ["cot", "pivot", "role", "fewshot", "mps", "perturb", "nota"]);
  assertEquals(Object.keys(CASES).sort(), CONDITIONS.map((e) => e.name).sort());
});

for (const [name, { good, bad, needs }] of Object.entries(CASES)) {
  Deno.test(`registry entry ${name}: parses its specs, refuses bad ones in one line, states its needs`, () => {
    const e = entry(name);
    for (const [spec, stored] of good) {
      const condition = e.parse(spec, "3");
      assert(condition, `${name} parses ${spec}`);
      assertEquals(condition.name, stored);
      assertEquals(parseAblation(spec, "3"), condition, "parseAblation finds the same entry");
      // No other entry claims the spec.
      assertEquals(CONDITIONS.filter((o) => o.parse(spec, "3") !== undefined).map((o) => o.name), [name]);
    }
    for (const spec of bad) {
      const err = assertThrows(() => parseAblation(spec), ConfigError);
      assertEquals(err.message.includes("\n"), false, err.message);
      assert(err.message.length > 0);
    }
    assertEquals(e.needs.length, needs.length);
    needs.forEach((what, i) => assertStringIncludes(e.needs[i].what, what));
  });

  Deno.test(`registry entry ${name}: a task missing a need is refused, naming it`, () => {
    const [spec] = good[0];
    const condition = parseAblation(spec);
    checkAblation(condition, FULL);
    conditionSolver(condition, FULL);
    for (const need of entry(name).needs) {
      // The task lacks exactly this need (every other data declared).
      const lacking = toyTask({
        ...FULL,
        ...(need.what.includes("role table") ? { roleTable: undefined } : {}),
        ...(need.what.includes("train") ? { auxiliary: [] } : {}),
        ...(need.what.includes("Chinese") ? { language: "fa" } : {}),
        ...(need.what.includes("multiple-choice") ? { choices: undefined } : {}),
      });
      assertEquals(need.met(lacking), false);
      const err = assertThrows(() => checkAblation(condition, lacking), ConfigError);
      assert(err.message.startsWith(`--ablation ${condition.name}: `), err.message);
      assertEquals(err.message.includes("\n"), false);
      const named = need.what.includes("role table")
        ? "has no role table"
        : need.what.includes("train")
        ? "has no train split"
        : need.what.includes("Chinese")
        ? `perturb:${condition.perturb!.kind} does not apply to toy (fa inputs)`
        : "perturb:nota does not apply to toy (it declares no multiple-choice items)";
      assertStringIncludes(err.message, named);
      assertThrows(() => conditionSolver(condition, lacking), ConfigError);
    }
  });
}

Deno.test("unknown ablation: one line listing every entry's forms", () => {
  const err = assertThrows(() => parseAblation("shuffle"), ConfigError);
  assertEquals(
    err.message,
    'unknown ablation "shuffle"; known: cot, pivot:LANG, role, fewshot[:K], mps[:ROLE], ' +
      "perturb:{shape,homophone,traditional,symbol,mixed}@RATE, perturb:nota",
  );
});

Deno.test("help: a benchmark's --ablation lists exactly the entries whose needs it meets", async () => {
  const tasks = [
    FULL,
    toyTask(),
    ...await Promise.all(["climedbench", "permedcqa", "llmeval-med", "medgpteval"].map(getTask)),
  ];
  for (const task of tasks) {
    const expected = CONDITIONS.filter((e) => e.needs.every((n) => n.met(task))).map((e) => e.usage(task));
    assertEquals(ablationsFor(task), expected, task.name);
    const help = taskOptions(task).find((o) => o.flag === "ablation")!.help;
    assertEquals(help, `condition beside the baseline, repeatable: ${expected.join(", ")}`);
  }
  assertEquals(ablationsFor(FULL).length, CONDITIONS.length);
  assertEquals(ablationsFor(toyTask()).map((a) => a.split(" (")[0]), ["cot", "pivot:LANG", "mps[:ROLE]"]);
  const names = async (name: string) => ablationsFor(await getTask(name)).map((a) => a.split(" (")[0]);
  assertEquals(await names("climedbench"), [
    "cot",
    "pivot:LANG",
    "mps[:ROLE]",
    "perturb:KIND[@RATE]",
    "perturb:nota",
  ]);
  assertEquals(await names("permedcqa"), ["cot", "pivot:LANG", "role", "fewshot[:K]", "mps[:ROLE]"]);
  assertEquals(await names("llmeval-med"), [
    "cot",
    "pivot:LANG",
    "role",
    "mps[:ROLE]",
    "perturb:KIND[@RATE]",
  ]);
  assertEquals(await names("medgpteval"), ["cot", "pivot:LANG", "mps[:ROLE]", "perturb:KIND[@RATE]"]);
});

Deno.test("declared data: role table, answer language, own CoT solver, language-chosen few-shot key", async () => {
  const ask = async (spec: string, task: Task, input = "q", fields: Sample["fields"] = {}) => {
    const { ctx, sent } = recordingContext();
    const result = await conditionSolver(parseAblation(spec), task).solve({
      sample: sample("s", input, fields),
      history: [],
    }, ctx);
    return { sent, result };
  };
  // role: the table's system message with the role the sample's field chooses, and the fallback.
  let { sent, result } = await ask("role", FULL, "q", { dept: "a" });
  assertEquals(sent[0][1].messages[0], { role: "system", content: "As cardiologist." });
  assertEquals(result.detail, { role: "cardiologist" });
  ({ sent } = await ask("role", FULL, "q", { dept: "zz" }));
  assertEquals(sent[0][1].messages[0].content, "As doctor.");
  // pivot: the model is asked for answers in the pivot language; without answerLanguage the solver is unchanged.
  ({ sent } = await ask("pivot:en", FULL));
  const model = sent.filter(([role]) => role === "model");
  assertEquals(model[0][1].messages[0], { role: "system", content: "Answer in English." });
  ({ sent } = await ask("pivot:en", toyTask({ language: "zh" })));
  assertEquals(sent.filter(([role]) => role === "model")[0][1].messages[0].content, "BASE");
  // cot: the task's own solver when it declares one, else the generic instruction appended.
  const own = chatSolver("OWN COT");
  assertEquals(conditionSolver(parseAblation("cot"), toyTask({ solverFor: { cot: own } })), own);
  ({ sent } = await ask("cot", toyTask()));
  assertStringIncludes(sent[0][1].messages.at(-1)!.content, "Think step by step");
  // fewshot: Persian duplicates (Arabic yeh/kaf) are recognised for a `fa` task only.
  const twin = [sample("t1", "يك سوال"), sample("t2", "another")];
  const fewshot = async (language: string) => {
    const { ctx, sent } = recordingContext();
    const train = { ...ctx, auxiliary: () => twin };
    await conditionSolver(parseAblation("fewshot:2"), toyTask({ ...FULL, language })).solve(
      { sample: sample("s", "یک سوال"), history: [] },
      train,
    );
    return sent[0][1].messages.map((m) => m.content);
  };
  assertEquals((await fewshot("fa")).includes("يك سوال"), false);
  assertEquals((await fewshot("en")).includes("يك سوال"), true);
});

Deno.test("perturbation entries: apply to the samples and carry their note; others leave samples alone", () => {
  const samples = [sample("a", "患者头痛发热三天，伴有咳嗽和咽痛，体温三十八度五。")];
  const cot = parseAblation("cot");
  assertEquals(applyCondition(cot, samples), { samples, achievedRate: null, notApplicable: 0 });
  const perturb = parseAblation("perturb:shape@0.5", "1");
  const applied = applyCondition(perturb, samples);
  assert(applied.achievedRate! > 0);
  assert(applied.samples[0].input !== samples[0].input);
  const note = conditionNote(perturb, {
    task: FULL,
    roleLabel: (r) => r,
    applied,
    total: 1,
    perturbSeed: "1",
  });
  assertStringIncludes(note!, "perturbation perturb:shape@0.5: ");
  assertStringIncludes(note!, "(requested 50.0%), seed 1");
  const nota = parseAblation("perturb:nota");
  const none = applyCondition(nota, samples);
  assertEquals(none.notApplicable, 1);
  assertEquals(
    conditionNote(nota, { task: FULL, roleLabel: (r) => r, applied: none, total: 1, perturbSeed: "0" }),
    'perturbation perturb:nota: correct option replaced by "none of the above" in 0 of 1 items (single-answer choice items only)',
  );
});

Deno.test("robustness sources: declared as field values; a task without them is refused naming them", () => {
  const samples = [
    sample("d1", "q", { kind: "dialogue", round: 1 }),
    sample("d2", "q", { kind: "dialogue", round: 2 }),
    sample("c1", "q", { kind: "case", round: 1 }),
  ];
  const task = toyTask({
    robustness: { description: "first rounds", where: { kind: "dialogue", round: 1 } },
  });
  assertEquals(robustnessSources(task.robustness!, samples).map((s) => s.id), ["d1"]);
  assert(ROBUSTNESS_SOURCES.met(task));
  assertEquals(ROBUSTNESS_SOURCES.met(toyTask()), false);
  assertEquals(ROBUSTNESS_SOURCES.refusal!(toyTask()), "toy has no robustness sources");
});

Deno.test("Task.conditions: only the listed entries apply (with their needs); others are refused naming the list", () => {
  const task = toyTask({ ...FULL, conditions: ["cot", "nota"] });
  assertEquals(ablationsFor(task).map((a) => a.split(" (")[0]), ["cot", "perturb:nota"]);
  checkAblation(parseAblation("perturb:nota"), task);
  const err = assertThrows(() => checkAblation(parseAblation("perturb:shape"), task), ConfigError);
  assertEquals(
    err.message,
    "--ablation perturb:shape@0.12: toy does not declare perturb among its conditions (cot, nota); " +
      "ablations for toy: cot, perturb:nota",
  );
  // A listed entry still needs its data.
  const bare = toyTask({ conditions: ["fewshot"] });
  assertEquals(ablationsFor(bare), []);
  assertStringIncludes(
    assertThrows(() => checkAblation(parseAblation("fewshot"), bare), ConfigError).message,
    "toy has no train split",
  );
});
