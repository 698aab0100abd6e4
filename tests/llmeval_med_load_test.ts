import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import {
  loadLlmEvalMed,
  parseLlmEvalMedJson,
  parseLlmEvalMedJsonl,
} from "../lib/benchmarks/llmeval_med/load.ts";
import { InputError } from "../lib/core/errors.ts";
import { parseLenientJson } from "../lib/core/lenient_json.ts";
import { toConversations } from "../lib/core/sample.ts";
import { sharedPath, testWithShared } from "./shared_data.ts";

const REAL_FILE = "data/llmeval-med/dataset.json";
const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

function count<T>(items: T[], key: (t: T) => unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[String(key(item))] = (out[String(key(item))] ?? 0) + 1;
  return out;
}

Deno.test("lenient JSON reads bare NaN/Infinity outside strings as null, leaves strings alone", () => {
  const { value, nonFiniteTokens } = parseLenientJson(
    '{"a": NaN, "b": "NaN and -Infinity", "c": [Infinity, -Infinity, 1]}',
    "x.json",
  );
  assertEquals(value, { a: null, b: "NaN and -Infinity", c: [null, null, 1] });
  assertEquals(nonFiniteTokens, 3);
});

Deno.test("lenient JSON syntax errors name the line and column on one line", () => {
  const err = (() => {
    try {
      parseLenientJson('{\n  "a": 1,\n  "b": ]\n}', "bad.json");
    } catch (e) {
      return e as InputError;
    }
  })();
  assert(err instanceof InputError);
  assertStringIncludes(err.message, "bad.json: line 3");
  assertEquals(err.message.includes("\n"), false);
  // Positions are those of the file as written, also after a bare NaN or -Infinity.
  const after = (() => {
    try {
      parseLenientJson('{"a": -Infinity, "b": NaN, "c": ]}', "nan.json");
    } catch (e) {
      return e as InputError;
    }
  })();
  assertStringIncludes(after!.message, "nan.json: line 1, column 33");
});

testWithShared(
  "the real LLMEval-Med file loads as published, with its measured quirks",
  [REAL_FILE],
  async () => {
    const { samples, nonFiniteTokens } = await loadLlmEvalMed(sharedPath(REAL_FILE));
    assertEquals(samples.length, 667);
    assertEquals(nonFiniteTokens, 275);
    assertEquals(count(samples, (s) => s.fields.category), {
      MK: 141,
      MR: 102,
      MLU: 213,
      MSE: 109,
      MTG: 102,
    });
    // MLU items say 一般语言理解 in category1, but group under the file key.
    const mlu = samples.filter((s) => s.fields.category === "MLU");
    assert(
      mlu.every((s) => s.fields.category1 === "一般语言理解" && s.fields.category_name === "医疗语言理解"),
    );
    assertEquals(count(samples, (s) => s.fields.difficulty), { medium: 54, hard: 372, easy: 37, null: 204 });
    assertEquals(samples.filter((s) => s.extra.checklist === null).length, 251 + 211);
    assertEquals(samples.filter((s) => s.reference === null).length, 24);
    assertEquals(count(samples, (s) => s.conversation?.turn), { 1: 571, 2: 74, 3: 16, 4: 5, 5: 1 });
    // groupCode is only unique within a category: conversations are keyed by category too.
    assertEquals(toConversations(samples).length, 571);
    assertEquals(new Set(samples.map((s) => s.id)).size, 667);
  },
);

Deno.test("the shipped sample exercises the same quirks", async () => {
  const { samples, nonFiniteTokens } = await loadLlmEvalMed(SAMPLE);
  assert(nonFiniteTokens > 0);
  assertEquals(new Set(samples.map((s) => s.fields.category)), new Set(["MK", "MLU", "MR", "MSE", "MTG"]));
  assert(samples.some((s) => (s.conversation?.turn ?? 1) >= 3));
  assertEquals(samples.find((s) => s.id === "MLU-3-1")?.reference, "21.5");
});

Deno.test("JSONL form loads the same records, category from `category` or category1", () => {
  const text = [
    JSON.stringify({
      category: "医疗知识",
      category1: "医疗知识",
      category2: "a",
      scene: "s",
      round: 1,
      problem: "问题一",
      groupCode: 7,
      sanswer: "答",
      difficulty: "难",
    }),
    "",
    '{"category1": "医疗推理", "category2": "b", "scene": "s", "round": 1, "problem": "问题二", "groupCode": 7, "sanswer": NaN}',
  ].join("\n");
  const { samples, nonFiniteTokens } = parseLlmEvalMedJsonl(text, "x.jsonl");
  assertEquals(samples.map((s) => s.id), ["MK-7-1", "MR-7-1"]);
  assertEquals(samples[1].reference, null);
  assertEquals(nonFiniteTokens, 1);
});

const item = {
  category1: "医疗知识",
  category2: "a",
  scene: "s",
  round: 1,
  problem: "问题",
  groupCode: 1,
  sanswer: "答",
};

function expectInputError(fn: () => unknown, ...parts: string[]): void {
  try {
    fn();
  } catch (err) {
    assert(err instanceof InputError, `expected InputError, got ${err}`);
    assertEquals(err.message.includes("\n"), false, "error must be one line");
    for (const part of parts) assertStringIncludes(err.message, part);
    return;
  }
  throw new Error("expected an InputError");
}

Deno.test("malformed LLMEval-Med records give one-line errors naming file, record, line and field", () => {
  const file = (items: unknown[]) => JSON.stringify({ "医疗知识": items }, null, 2);
  expectInputError(
    () => parseLlmEvalMedJson(file([item, { ...item, groupCode: 2, round: "1" }]), "d.json"),
    "d.json",
    "医疗知识[1]",
    "line ",
    'field "round"',
    "expected number",
  );
  expectInputError(
    () => parseLlmEvalMedJson(file([{ ...item, problem: "  " }]), "d.json"),
    'field "problem"',
    "non-empty",
  );
  expectInputError(
    () => parseLlmEvalMedJson(file([{ ...item, difficulty: "very" }]), "d.json"),
    'field "difficulty"',
  );
  expectInputError(
    () => parseLlmEvalMedJson(JSON.stringify({ "未知": [item] }), "d.json"),
    "unknown category",
  );
  expectInputError(() => parseLlmEvalMedJson(file([item, item]), "d.json"), "MK-1-1", "duplicate");
  expectInputError(
    () => parseLlmEvalMedJson(file([{ ...item, round: 2 }]), "d.json"),
    "conversation MK-1",
    "without gaps",
  );
  expectInputError(() => parseLlmEvalMedJson("[1, 2]", "d.json"), "expected a JSON object");
  expectInputError(
    () => parseLlmEvalMedJsonl(`${JSON.stringify(item)}\n{"round": }`, "d.jsonl"),
    "d.jsonl",
    "line 2",
  );
});

Deno.test("a missing file is an InputError too", async () => {
  await assertRejects(() => loadLlmEvalMed("/nonexistent/x.json"), InputError, "cannot read file");
});
