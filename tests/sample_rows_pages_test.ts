/**
 * `samples.jsonl` rows are built a page of samples at a time: across page boundaries every sample keeps its own
 * answer and scores, in the samples' order, and a sample never answered says so.
 */
import { assertEquals } from "@std/assert";
import type { Sample } from "../lib/core/sample.ts";
import type { StoredScore } from "../lib/core/records.ts";
import { eachSampleRowJson } from "../lib/pipeline/sample_rows.ts";
import { storedScore, withTempStore } from "./temp_store.ts";

/** Sample `s1` with `fields`, asked as `q`. */
function sampleWith(fields: Sample["fields"]): Sample {
  return { id: "s1", benchmark: "t", input: "q", reference: null, conversation: null, fields, extra: {} };
}

Deno.test("sample rows over several pages: each sample's own answer and scores, in sample order", async () => {
  // Ids out of alphabetical order, so the store's order by id differs from the samples' order.
  const samples: Sample[] = Array.from({ length: 2600 }, (_, i) => ({
    id: `q${(i * 7919) % 2600}`,
    benchmark: "t",
    input: `question ${i}`,
    reference: null,
    conversation: null,
    fields: { part: i % 3 },
    extra: {},
  }));
  await withTempStore((store) => {
    store.putSamples(samples);
    for (const [i, s] of samples.entries()) {
      if (i % 5 === 4) continue; // never answered
      store.putOutput({ sampleId: s.id, condition: "c", callKey: null, text: `answer ${i}`, error: null });
      store.putOutput({ sampleId: s.id, condition: "other", callKey: null, text: "elsewhere", error: null });
      for (const run of [2, 1]) {
        store.putScore(storedScore({ sampleId: s.id, run, value: i + run / 10 }));
      }
    }
    const rows = [...eachSampleRowJson(store, "c")].map((json) => JSON.parse(json));
    assertEquals(rows.map((r) => r.id), samples.map((s) => s.id));
    for (const [i, row] of rows.entries()) {
      const answered = i % 5 !== 4;
      assertEquals(row.input, `question ${i}`);
      assertEquals(row.part, i % 3);
      assertEquals(row.answer, answered ? `answer ${i}` : null);
      assertEquals(row.answer_error, answered ? null : "not run");
      const scores = row.scores as { run: number; value: number }[];
      assertEquals(scores.map((s) => [s.run, s.value]), answered ? [[1, i + 0.1], [2, i + 0.2]] : []);
    }
    return Promise.resolve();
  });
});

Deno.test("sample rows as JSON text are exactly JSON.stringify of each row with its scores as stored", async () => {
  const sample = sampleWith({ id: "field-id", category: "内科", difficulty: 2, none: null });
  const score = (over: Partial<StoredScore>) => storedScore({ value: 0.5, ...over });
  const scores = [
    score({ scorer: "a" }),
    score({ scorer: "b", judge: "gpt-4o", run: 2, value: null, valid: false, reason: 'no verdict "x"\n' }),
    score({ scorer: "c", values: {}, detail: { method: "option_text", nested: [1, null, "\ud800"] } }),
    score({ scorer: "d", values: { usability: 4 }, value: -0, detail: undefined }),
    score({ scorer: "e", value: 1e21, detail: "text \u2028" }),
  ];
  await withTempStore((store) => {
    store.putSamples([sample]);
    store.putOutput({
      sampleId: "s1",
      condition: "c",
      callKey: null,
      text: "答案 A",
      error: null,
      detail: { k: 1 },
    });
    for (const s of scores) store.putScore(s);
    const [json] = [...eachSampleRowJson(store, "c")];
    // The row as an object, as samples.jsonl has always described it.
    const expected = {
      id: "s1",
      condition: "c",
      ...sample.fields,
      input: "q",
      answer: "答案 A",
      answer_error: null,
      solver: { k: 1 },
      scores: store.scores("c").map((s) => ({
        scorer: s.scorer,
        ...(s.judge ? { judge: s.judge } : {}),
        run: s.run,
        value: s.value,
        ...(s.values ? { values: s.values } : {}),
        valid: s.valid,
        reason: s.reason,
        ...(s.detail !== null && s.detail !== undefined ? { detail: s.detail } : {}),
      })),
    };
    assertEquals(json, JSON.stringify(expected));
    assertEquals(expected.scores.length, 5);
    return Promise.resolve();
  });
});

Deno.test("a sample field named scores gives way to the row's scores (one key, as the row always had)", async () => {
  const sample = sampleWith({ scores: 5, part: "x" });
  await withTempStore((store) => {
    store.putSamples([sample]);
    store.putScore(storedScore());
    const [json] = [...eachSampleRowJson(store, "c")];
    assertEquals(json.split('"scores":').length, 2, json);
    const row = JSON.parse(json);
    assertEquals(row.part, "x");
    assertEquals(row.scores, [{ scorer: "m", run: 1, value: 1, valid: true, reason: null }]);
    return Promise.resolve();
  });
});
